#!/usr/bin/env python3
"""Builds icbc_reference.json: frames of seed 002's 2-way interleaved
CBC-MAC CCMP (NOT IEEE 802.11), computed with Python's `cryptography`
AES-ECB straight from the construction written in src/icbc.rs's module
documentation. An independent second implementation for the Rust test.
Run: python3 icbc_reference.py > icbc_reference.json
"""
import json
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def E(key, block):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def aad_nonce(frame, pn):
    fc = int.from_bytes(frame[0:2], "little")
    ftype, qos = (fc >> 2) & 3, False
    to_ds, from_ds = fc >> 8 & 1, fc >> 9 & 1
    hl = 24
    if ftype == 2:
        a4 = to_ds and from_ds
        qos = (fc >> 7) & 1 == 1
        hl += 6 * a4 + 2 * qos
        if qos and fc >> 15 & 1:
            hl += 4
    m = fc
    if ftype == 2:
        m &= ~0x0070
    m &= ~((1 << 11) | (1 << 12) | (1 << 13))
    m |= 1 << 14
    if qos:
        m &= ~(1 << 15)
    aad = m.to_bytes(2, "little") + frame[4:22] + (int.from_bytes(frame[22:24], "little") & 0xF).to_bytes(2, "little")
    tid = 0
    if ftype == 2 and to_ds and from_ds:
        aad += frame[24:30]
    if qos:
        qoff = 30 if (to_ds and from_ds) else 24
        tid = frame[qoff] & 0xF
        aad += bytes([tid, 0])
    flags = tid | (0x10 if ftype == 0 else 0)
    nonce = bytes([flags]) + frame[10:16] + pn.to_bytes(6, "big")
    return hl, aad, nonce


def icbc_protect(key, frame, pn, key_id):
    hl, aad, nonce = aad_nonce(frame, pn)
    data = frame[hl:]
    b0 = bytes([0x59]) + nonce + len(data).to_bytes(2, "big")
    b0p = bytes([0xD9]) + b0[1:]
    x, y = E(key, b0), E(key, b0p)
    a = len(aad).to_bytes(2, "big") + aad
    a += bytes(-len(a) % 16)
    for i in range(0, len(a), 16):
        x = E(key, xor(x, a[i:i + 16]))
    padded = data + bytes(-len(data) % 16)
    for k in range(0, len(padded) // 16):
        blk = padded[16 * k:16 * k + 16]
        if k % 2 == 0:
            x = E(key, xor(x, blk))
        else:
            y = E(key, xor(y, blk))
    t = xor(x, y)[:8]
    ctr = lambda i: bytes([1]) + nonce + i.to_bytes(2, "big")
    ks = b"".join(E(key, ctr(i + 1)) for i in range(len(padded) // 16))
    c = xor(data, ks)
    mic = xor(t, E(key, ctr(0))[:8])
    p = pn.to_bytes(6, "little")
    hdr = bytes([p[0], p[1], 0, 0x20 | (key_id << 6)]) + p[2:6]
    fc = (int.from_bytes(frame[0:2], "little") | (1 << 14)).to_bytes(2, "little")
    return fc + frame[2:hl] + hdr + c + mic


key = bytes.fromhex("c97c1f67ce371185514a8a19f2bdd52f")
m64 = bytes.fromhex("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050")
qos4 = (bytes.fromhex("8803" "0000" "020000000001" "020000000002" "020000000003" "5012" "020000000004" "0500")
        + bytes(range(61)))
empty = bytes.fromhex("0801" "0000" "020000000001" "020000000002" "020000000003" "1000")
mgmt = bytes.fromhex("c000" "0000" "020000000001" "020000000002" "020000000002" "2000" "0700")
cases = []
for name, frame, pn, kid in [("m64_frame", m64, 0xB5039776E70C, 0), ("qos_4addr_61", qos4, 77, 2),
                             ("empty_body", empty, 1, 1), ("deauth", mgmt, 5, 0)]:
    cases.append({"name": name, "key": key.hex(), "pn": pn, "key_id": kid, "plain": frame.hex(),
                  "protected": icbc_protect(key, frame, pn, kid).hex()})
print(json.dumps({"_source": "computed by tests/vectors/icbc_reference.py with Python cryptography "
                  "AES-ECB from the construction in src/icbc.rs (seed 002, not IEEE 802.11)",
                  "cases": cases}, indent=1))
