#!/usr/bin/env python3
"""Independent CCMP-128 protection of the IEEE 802.11-2012 M.9.2 unicast
Deauthentication frame with Python's `cryptography` (OpenSSL's AES-CCM),
building AAD and nonce by hand from IEEE Std 802.11-2020, 12.5.3.3.3 and
12.5.3.3.4. Prints the protected MPDU (no FCS) that pmf_vectors.rs expects."""
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

tk = bytes.fromhex("66ed21042f9f26d7115706e40414cf2e")
pn = 1
frame = bytes.fromhex("c000000002000000010002000000000002000000000060000200")
hdr, body = frame[:24], frame[24:]
fc = bytearray(hdr[0:2])
fc[1] &= ~(0x08 | 0x10 | 0x20) & 0xff  # Retry, PwrMgt, MoreData masked
fc[1] |= 0x40  # Protected
sc = int.from_bytes(hdr[22:24], "little") & 0x000F
aad = bytes(fc) + hdr[4:22] + sc.to_bytes(2, "little")
a2 = hdr[10:16]
nonce = bytes([0x10]) + a2 + pn.to_bytes(6, "big")  # management flag, priority 0
ct = AESCCM(tk, tag_length=8).encrypt(nonce, body, aad)
pnb = pn.to_bytes(6, "little")
ccmp_hdr = bytes([pnb[0], pnb[1], 0, 0x20, pnb[2], pnb[3], pnb[4], pnb[5]])
out = bytearray(hdr)
out[1] |= 0x40
print((bytes(out) + ccmp_hdr + ct).hex())
