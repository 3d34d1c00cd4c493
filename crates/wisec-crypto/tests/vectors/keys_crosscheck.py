#!/usr/bin/env python3
"""Builds keys_crosscheck.json: RSN key-hierarchy values computed with
Python's standard library (hashlib, hmac) and the `cryptography` package
(AES key wrap, AES-CMAC, ARC4), written straight from the text of IEEE Std
802.11-2020:

- KDF-Hash-Length (12.7.1.7.2): HMAC-Hash(K, i || label || context ||
  Length), i and Length 16-bit little-endian, Length in bits;
- the pairwise key expansion (12.7.1.3) with PRF-SHA1 (12.7.1.2) or the
  KDF, Min/Max of addresses and nonces, PTK = KCK || KEK || TK;
- PMKID = Truncate-128(HMAC-Hash(PMK, "PMK Name" || AA || SPA));
- EAPOL-Key MICs (12.7.2, Table 12-11) over a frame with a zero MIC field;
- FT PMK-R0/PMK-R1/PTK and their names (12.7.1.7.3 to 12.7.1.7.5);
- Key Data: RC4(Key IV || KEK) skipping 256 octets, AES key wrap of a
  padded GTK/IGTK KDE list (12.7.2 j).

It also checks the fixed inputs it carries from RFCs (RFC 3394 section 4,
RFC 6070, RFC 4231) against the same libraries before writing them out,
so a transcription error stops the script.

Run from anywhere: python3 keys_crosscheck.py > keys_crosscheck.json
"""
import hashlib
import hmac
import json
import sys

from cryptography.hazmat.decrepit.ciphers.algorithms import ARC4
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.cmac import CMAC
from cryptography.hazmat.primitives.keywrap import aes_key_wrap, aes_key_unwrap

H = {"sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha384": hashlib.sha384,
     "sha512": hashlib.sha512, "md5": hashlib.md5}


def kdf(hname, key, label, context, nbytes):
    out = b""
    i = 1
    length = (nbytes * 8).to_bytes(2, "little")
    while len(out) < nbytes:
        out += hmac.new(key, i.to_bytes(2, "little") + label + context + length, H[hname]).digest()
        i += 1
    return out[:nbytes]


def prf_sha1(key, label, data, nbytes):
    out = b""
    i = 0
    while len(out) < nbytes:
        out += hmac.new(key, label + b"\x00" + data + bytes([i]), hashlib.sha1).digest()
        i += 1
    return out[:nbytes]


def ptk(kind, pmk, aa, spa, anonce, snonce, nbytes):
    data = min(aa, spa) + max(aa, spa) + min(anonce, snonce) + max(anonce, snonce)
    if kind == "prf_sha1":
        return prf_sha1(pmk, b"Pairwise key expansion", data, nbytes)
    return kdf(kind, pmk, b"Pairwise key expansion", data, nbytes)


def mic(alg, kck, frame):
    if alg == "aes_cmac":
        c = CMAC(algorithms.AES(kck))
        c.update(frame)
        return c.finalize()
    name, n = {"hmac_md5": ("md5", 16), "hmac_sha1_128": ("sha1", 16),
               "hmac_sha256_128": ("sha256", 16), "hmac_sha384_192": ("sha384", 24),
               "hmac_sha512_256": ("sha512", 32)}[alg]
    return hmac.new(kck, frame, H[name]).digest()[:n]


def trunc_hash(hname, data):
    return H[hname](data).digest()[:16]


def pattern(n, seed):
    return bytes((seed + 37 * i) & 0xFF for i in range(n))


def check_rfcs():
    # RFC 3394, section 4.1 to 4.6: (KEK, key data, wrapped).
    kw = [
        ("000102030405060708090A0B0C0D0E0F", "00112233445566778899AABBCCDDEEFF",
         "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5"),
        ("000102030405060708090A0B0C0D0E0F1011121314151617", "00112233445566778899AABBCCDDEEFF",
         "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D"),
        ("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
         "00112233445566778899AABBCCDDEEFF",
         "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7"),
        ("000102030405060708090A0B0C0D0E0F1011121314151617",
         "00112233445566778899AABBCCDDEEFF0001020304050607",
         "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2"),
        ("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
         "00112233445566778899AABBCCDDEEFF0001020304050607",
         "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1"),
        ("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
         "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
         "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"),
    ]
    for k, p, c in kw:
        assert aes_key_wrap(bytes.fromhex(k), bytes.fromhex(p)).hex().upper() == c
    # RFC 6070 (PBKDF2-HMAC-SHA1), without the 16777216-iteration case.
    p6070 = [
        ("password", "salt", 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6"),
        ("password", "salt", 2, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
        ("password", "salt", 4096, 20, "4b007901b765489abead49d926f721d065a429c1"),
        ("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 25,
         "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"),
        ("pass\0word", "sa\0lt", 4096, 16, "56fa6aa75548099dcc37d7f03425e0c3"),
    ]
    for pw, salt, c, n, dk in p6070:
        assert hashlib.pbkdf2_hmac("sha1", pw.encode(), salt.encode(), c, n).hex() == dk
    # RFC 4231 test cases 1, 2, 3, 4, 6, 7 (HMAC-SHA-256 / -384 / -512).
    r4231 = [
        ("0b" * 20, "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
         "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6",
         "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
         "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649",
         "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"),
        ("aa" * 20, "dd" * 50,
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
         "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27",
         "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", "cd" * 50,
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
         "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e6801dd23c4a7d679ccf8a386c674cffb",
         "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"),
        ("aa" * 131,
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
         "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952",
         "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"),
    ]
    for k, d, s256, s384, s512 in r4231:
        k, d = bytes.fromhex(k), bytes.fromhex(d)
        assert hmac.new(k, d, hashlib.sha256).hexdigest() == s256
        assert hmac.new(k, d, hashlib.sha384).hexdigest() == s384
        assert hmac.new(k, d, hashlib.sha512).hexdigest() == s512
    return (
        [{"kek": k, "key_data": p, "wrapped": c} for k, p, c in kw],
        [{"password": pw, "salt": s, "iterations": c, "dk": dk} for pw, s, c, n, dk in p6070],
        [{"key": k, "data": d, "sha256": a, "sha384": b, "sha512": c} for k, d, a, b, c in r4231],
    )


def main():
    rfc3394, rfc6070, rfc4231 = check_rfcs()
    aa = bytes.fromhex("020000000002")
    spa = bytes.fromhex("0200000000a1")
    anonce = pattern(32, 1)
    snonce = pattern(32, 200)

    kdfs = []
    for hname in ("sha256", "sha384", "sha512"):
        for n in (16, 48, 64, 88, 100):
            key, ctx = pattern(32, n), pattern(n % 40, 7)
            kdfs.append({"hash": hname, "key": key.hex(), "label": "Test label",
                         "context": ctx.hex(), "out": kdf(hname, key, b"Test label", ctx, n).hex()})

    # (AKM OUI+type, cipher OUI+type, kind, pmk length, kck, kek, tk, mic).
    cases = [
        ("000fac02", "000fac04", "prf_sha1", 32, 16, 16, 16, "hmac_sha1_128"),
        ("000fac01", "000fac02", "prf_sha1", 32, 16, 16, 32, "hmac_md5"),
        ("0050f202", "0050f202", "prf_sha1", 32, 16, 16, 32, "hmac_md5"),
        ("0050f202", "0050f204", "prf_sha1", 32, 16, 16, 16, "hmac_sha1_128"),
        ("000fac06", "000fac04", "sha256", 32, 16, 16, 16, "aes_cmac"),
        ("000fac05", "000fac0a", "sha256", 32, 16, 16, 32, "aes_cmac"),
        ("000fac08", "000fac08", "sha256", 32, 16, 16, 16, "aes_cmac"),
        ("000fac0b", "000fac04", "sha256", 32, 16, 16, 16, "hmac_sha256_128"),
        ("000fac0c", "000fac09", "sha384", 48, 24, 32, 32, "hmac_sha384_192"),
        ("000fac14", "000fac04", "sha384", 48, 24, 32, 16, "hmac_sha384_192"),
        ("000fac12", "000fac04", "sha256", 32, 16, 16, 16, "hmac_sha256_128"),
        ("000fac12", "000fac09", "sha384", 48, 24, 32, 32, "hmac_sha384_192"),
        ("000fac12", "000fac0a", "sha512", 64, 32, 32, 32, "hmac_sha512_256"),
    ]
    ptks = []
    for akm, cipher, kind, plen, kck, kek, tk, alg in cases:
        pmk = pattern(plen, int(akm[-2:], 16))
        p = ptk(kind, pmk, aa, spa, anonce, snonce, kck + kek + tk)
        # An EAPOL-Key frame with a zero MIC field of the algorithm's length.
        mlen = len(mic(alg, p[:kck], b""))
        frame = bytes.fromhex("0203") + (95 + mlen + 8).to_bytes(2, "big") + bytes([2]) \
            + pattern(76, 3) + bytes(mlen) + (8).to_bytes(2, "big") + pattern(8, 9)
        ptks.append({"akm": akm, "cipher": cipher, "pmk": pmk.hex(), "aa": aa.hex(),
                     "spa": spa.hex(), "anonce": anonce.hex(), "snonce": snonce.hex(),
                     "kck": p[:kck].hex(), "kek": p[kck:kck + kek].hex(), "tk": p[kck + kek:].hex(),
                     "mic_alg": alg, "frame_zero_mic": frame.hex(),
                     "mic": mic(alg, p[:kck], frame).hex()})

    pmkids = []
    for akm, hname in (("000fac02", "sha1"), ("0050f202", "sha1"), ("000fac06", "sha256"),
                       ("000fac0b", "sha256"), ("000fac0c", "sha384")):
        pmk = pattern(48 if hname == "sha384" else 32, 5)
        pmkids.append({"akm": akm, "pmk": pmk.hex(), "aa": aa.hex(), "spa": spa.hex(),
                       "pmkid": hmac.new(pmk, b"PMK Name" + aa + spa, H[hname]).digest()[:16].hex()})

    fts = []
    for akm, hname, q, kck, kek, cipher, tk in (("000fac04", "sha256", 32, 16, 16, "000fac04", 16),
                                                ("000fac03", "sha256", 32, 16, 16, "000fac09", 32),
                                                ("000fac13", "sha384", 48, 24, 32, "000fac04", 16),
                                                ("000fac0d", "sha384", 48, 24, 32, "000fac09", 32)):
        xxkey = pattern(q, 11)
        ssid, mdid, r0kh = b"wisec-ft", bytes.fromhex("a1b2"), b"nas1.example.org"
        s0kh = spa
        r1kh = bytes.fromhex("020000000003")
        ctx = bytes([len(ssid)]) + ssid + mdid + bytes([len(r0kh)]) + r0kh + s0kh
        r0data = kdf(hname, xxkey, b"FT-R0", ctx, q + 16)
        r0, salt = r0data[:q], r0data[q:]
        r0name = trunc_hash(hname, b"FT-R0N" + salt)
        r1 = kdf(hname, r0, b"FT-R1", r1kh + spa, q)
        r1name = trunc_hash(hname, b"FT-R1N" + r0name + r1kh + spa)
        bssid = r1kh
        p = kdf(hname, r1, b"FT-PTK", snonce + anonce + bssid + spa, kck + kek + tk)
        ptkname = trunc_hash(hname, r1name + b"FT-PTKN" + snonce + anonce + bssid + spa)
        fts.append({"akm": akm, "cipher": cipher, "xxkey": xxkey.hex(), "ssid": ssid.hex(),
                    "mdid": mdid.hex(), "r0kh_id": r0kh.hex(), "s0kh_id": s0kh.hex(),
                    "r1kh_id": r1kh.hex(), "snonce": snonce.hex(), "anonce": anonce.hex(),
                    "bssid": bssid.hex(), "sta_addr": spa.hex(), "pmk_r0": r0.hex(),
                    "pmk_r0_name": r0name.hex(), "pmk_r1": r1.hex(), "pmk_r1_name": r1name.hex(),
                    "ptk": p.hex(), "ptk_name": ptkname.hex()})

    # Key Data: RSNE, GTK KDE (key ID 2, Tx), IGTK KDE (ID 4, IPN), BIGTK
    # KDE (ID 6), then the 0xdd 00.. padding of 12.7.2 j.
    gtk, igtk, bigtk = pattern(16, 21), pattern(16, 22), pattern(32, 23)
    kd = bytes.fromhex("30140100000fac040100000fac040100000fac020000")
    kd += bytes([0xDD, 6 + 16, 0x00, 0x0F, 0xAC, 1, 0x06, 0]) + gtk
    kd += bytes([0xDD, 12 + 16, 0x00, 0x0F, 0xAC, 9]) + (4).to_bytes(2, "little") \
        + (0x0000123456789A).to_bytes(6, "little") + igtk
    kd += bytes([0xDD, 12 + 32, 0x00, 0x0F, 0xAC, 14]) + (6).to_bytes(2, "little") \
        + (7).to_bytes(6, "little") + bigtk
    plain_len = len(kd)
    if len(kd) % 8 or len(kd) < 16:
        kd += b"\xdd"
        while len(kd) % 8 or len(kd) < 16:
            kd += b"\x00"
    kek16, kek32 = pattern(16, 31), pattern(32, 32)
    key_iv = pattern(16, 33)
    enc = Cipher(ARC4(key_iv + kek16), mode=None).encryptor()
    rc4_out = enc.update(bytes(256) + kd[:plain_len])[256:]
    key_data = {"plain": kd[:plain_len].hex(), "padded": kd.hex(), "kek16": kek16.hex(),
                "kek32": kek32.hex(), "wrapped16": aes_key_wrap(kek16, kd).hex(),
                "wrapped32": aes_key_wrap(kek32, kd).hex(), "key_iv": key_iv.hex(),
                "rc4": rc4_out.hex(), "gtk": gtk.hex(), "igtk": igtk.hex(), "bigtk": bigtk.hex(),
                "igtk_ipn": 0x123456789A}
    assert aes_key_unwrap(kek16, bytes.fromhex(key_data["wrapped16"])) == kd

    json.dump({
        "source": "keys_crosscheck.py: Python hashlib/hmac and cryptography "
                  + sys.modules["cryptography"].__version__
                  if "cryptography" in sys.modules else "keys_crosscheck.py",
        "rfc3394": {"source": "RFC 3394, section 4.1-4.6 (checked against cryptography's aes_key_wrap)",
                    "vectors": rfc3394},
        "rfc6070": {"source": "RFC 6070 (checked against hashlib.pbkdf2_hmac)", "vectors": rfc6070},
        "rfc4231": {"source": "RFC 4231 test cases 1-4, 6, 7 (checked against hmac)", "vectors": rfc4231},
        "kdf": kdfs, "ptk": ptks, "pmkid": pmkids, "ft": fts, "key_data": key_data,
    }, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    import cryptography  # noqa: F401  (version in the source field)
    main()
