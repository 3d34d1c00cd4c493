"""The suites, replay counters and key hierarchy against the vectors the
Rust tests use (IEEE 802.11 Annex M/J, hostap, and cross-checks computed
with Python `cryptography`), and against scapy's own WEP decryption."""

import random

import pytest
import wisec

from conftest import vectors

V = vectors("ieee80211_vectors.json")
SELECTOR = {
    4: "ccmp128", 8: "gcmp128", 9: "gcmp256", 10: "ccmp256", 2: "tkip",
}


def hx(s):
    return bytes.fromhex(s)


@pytest.mark.parametrize("name,suite", [("ccmp128_M64", "ccmp128"), ("ccmp256", "ccmp256"), ("gcmp256", "gcmp256")])
def test_annex_m_mpdus(name, suite):
    v = V[name]
    k = wisec.DataKey(suite, hx(v["tk"]))
    # The Annex M plaintexts are headers as transmitted (Protected set);
    # protect takes the unprotected frame.
    plain, want = bytearray(hx(v["plaintext_mpdu"])), hx(v["expected_mpdu_no_fcs"])
    plain[1] &= ~0x40
    plain = bytes(plain)
    assert k.protect(plain, int(v["pn_be"], 16), 0) == want
    u = k.unprotect(want)
    assert u.frame == plain and u.pn == int(v["pn_be"], 16) and u.key_id == 0
    for at in (0, len(want) // 2, len(want) - 1):
        bad = bytearray(want)
        bad[at] ^= 0x01
        with pytest.raises(wisec.IntegrityError if at else (wisec.IntegrityError, ValueError)):
            k.unprotect(bytes(bad))


def test_ccmp_gcmp_crosscheck():
    vs = vectors("ccmp_gcmp_crosscheck.json")["vectors"]
    assert len(vs) > 20
    for v in vs:
        k = wisec.DataKey(v["suite"], hx(v["tk"]))
        got = k.protect(hx(v["plaintext_mpdu"]), v["pn"], v["key_id"])
        assert got == hx(v["protected_mpdu"]), v["name"]
        u = k.unprotect(got)
        assert (u.frame, u.pn, u.key_id) == (hx(v["plaintext_mpdu"]), v["pn"], v["key_id"]), v["name"]


def test_tkip_m63():
    v = vectors("tkip_vectors.json")["m63"]
    k = wisec.DataKey("tkip", hx(v["tk"]))
    plain = bytearray(hx(v["plaintext_mpdu"]))
    plain[1] &= ~0x40
    assert k.protect(bytes(plain), v["tsc"]) == hx(v["protected_mpdu"])
    assert k.unprotect(hx(v["protected_mpdu"])).frame == bytes(plain)


@pytest.mark.parametrize("name,suite", [("bip_cmac128_M91", "bip-cmac128"), ("bip_gmac128", "bip-gmac128"), ("bip_gmac256", "bip-gmac256")])
def test_bip(name, suite):
    v = V[name]
    ipn = v["ipn"] if "ipn" in v else int.from_bytes(hx(v["ipn_le"]), "little")
    k = wisec.BipKey(suite, hx(v["igtk"]))
    plain, want = hx(v["plaintext_frame"]), hx(v["expected_protected_frame"])
    assert k.protect(plain, ipn, v["key_id"]) == want
    u = k.verify(want)
    assert (u.frame, u.pn, u.key_id) == (plain, ipn, v["key_id"])
    bad = bytearray(want)
    bad[-1] ^= 0x80
    with pytest.raises(wisec.IntegrityError):
        k.verify(bytes(bad))


def test_wep_against_scapy():
    """wisec protects with WEP; scapy (given the key) decrypts the frame
    and checks the ICV itself; the scapy test vector unprotects."""
    from scapy.config import conf
    from scapy.layers.dot11 import Dot11, Dot11WEP
    from scapy.packet import Raw

    v = V["wep_scapy"]
    key = v["key_ascii"].encode()
    k = wisec.DataKey("wep40", key)
    header = bytes.fromhex("08010000" "020000000001" "020000000010" "020000000010" "3000")
    frame = header + bytes.fromhex("aaaa030000000800") + b"wisec and scapy agree on WEP"
    p = k.protect(frame, 0x123456, 1)
    old = conf.wepkey
    conf.wepkey = key.decode()
    try:
        d = Dot11(p)
        assert d.haslayer(Dot11WEP)
        wep = d[Dot11WEP]
        assert wep.iv == bytes.fromhex("123456") and wep.keyid == 1 << 6
        assert bytes(wep.payload) == frame[len(header):]
        assert wep.icv == int.from_bytes(p[-4:], "big")
    finally:
        conf.wepkey = old
    # scapy's own vector: the body it writes for the key "Fobar".
    body = hx(v["wep_body_iv_keyid_data_icv"])
    u = k.unprotect(bytes([0x08, 0x41]) + header[2:] + body)
    assert u.pn == 0 and len(u.frame) == len(header) + len(body) - 8


def test_replay_counters_move_only_on_verified_frames():
    k = wisec.DataKey("ccmp", bytes(16))
    header = bytes.fromhex("88010000" "020000000001" "020000000010" "020000000010" "0000" "0500")
    frames = [k.protect(header + b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + bytes([n]), n) for n in (1, 5, 3)]
    rc = wisec.ReplayCounters()
    rc.accept(5, k.unprotect(frames[0]))
    rc.accept(5, k.unprotect(frames[1]))
    with pytest.raises(wisec.ReplayError, match="replayed PN 3 .highest accepted 5."):
        rc.accept(5, k.unprotect(frames[2]))
    assert rc.highest(5) == 5 and rc.highest(0) is None and rc.is_fresh("mgmt", 0)
    with pytest.raises(TypeError):
        rc.accept(5, (3, 0))  # only the proof of a verified frame moves a counter
    c = wisec.ReplayCounter(start_after=5)
    with pytest.raises(wisec.ReplayError):
        c.accept(k.unprotect(frames[1]))
    with pytest.raises(ValueError):
        rc.is_fresh(16, 1)


def test_psk_and_prf_vectors():
    import ast

    vs = V["psk_pbkdf2_sha1_4096_32"]["vectors"]
    for v in ast.literal_eval(vs) if isinstance(vs, str) else vs:
        assert wisec.psk(v["passphrase"], v["ssid"]) == hx(v["psk"])
    with pytest.raises(ValueError, match="passphrase shorter than 8 characters"):
        wisec.psk("short", "lab")


def test_ptk_mic_and_pmkid_crosscheck():
    k = vectors("keys_crosscheck.json")
    n = 0
    for v in k["ptk"]:
        akm_oui, akm = hx(v["akm"][:6]), int(v["akm"][6:], 16)
        cipher = SELECTOR[int(v["cipher"][6:], 16)]
        if akm_oui != bytes.fromhex("000fac") or akm in (3, 4, 9, 13, 19):
            continue  # WPA and FT keys are not derived by derive_ptk
        ptk = wisec.derive_ptk(akm, cipher, hx(v["pmk"]), hx(v["aa"]), hx(v["spa"]), hx(v["anonce"]), hx(v["snonce"]))
        assert (ptk.kck, ptk.kek, ptk.tk) == (hx(v["kck"]), hx(v["kek"]), hx(v["tk"])), v
        alg = v["mic_alg"].replace("_", "-").replace("aes-cmac", "aes-128-cmac")
        assert ptk.mic_algorithm == alg
        frame = hx(v["frame_zero_mic"])
        assert wisec.eapol_mic(alg, ptk.kck, frame) == hx(v["mic"])
        signed = wisec.eapol_sign(alg, ptk.kck, frame)
        assert wisec.eapol_verify(alg, ptk.kck, signed)
        assert not wisec.eapol_verify(alg, ptk.kck, signed[:-1] + bytes([signed[-1] ^ 1]))
        n += 1
    assert n >= 5
    for v in k["pmkid"]:
        if v["akm"].startswith("000fac"):
            assert wisec.pmkid(int(v["akm"][6:], 16), hx(v["pmk"]), hx(v["aa"]), hx(v["spa"])) == hx(v["pmkid"])


def test_bad_input_gives_clear_exceptions():
    with pytest.raises(ValueError, match="key: a CCMP-128 key has 16 bytes, this one has 5"):
        wisec.DataKey("ccmp", b"12345")
    with pytest.raises(ValueError, match="unknown cipher suite"):
        wisec.DataKey("ccmp512", bytes(16))
    with pytest.raises(TypeError, match="key: expected bytes"):
        wisec.DataKey("ccmp", 12345)
    with pytest.raises(TypeError):
        wisec.DataKey(16, bytes(16))
    with pytest.raises(ValueError, match="BipKey"):
        wisec.DataKey("bip", bytes(16))
    k = wisec.DataKey("gcmp256", bytes(32))
    with pytest.raises(ValueError, match="48-bit maximum"):
        k.protect(bytes(30), 1 << 48)
    with pytest.raises(OverflowError):
        k.protect(bytes(30), -1)
    with pytest.raises(ValueError, match="nonce has 32 bytes"):
        wisec.derive_ptk("psk", "ccmp", bytes(32), "02:00:00:00:00:01", "02:00:00:00:00:02", bytes(31), bytes(32))
    with pytest.raises(ValueError, match="not a MAC address"):
        wisec.derive_ptk("psk", "ccmp", bytes(32), "02:00:00:00:00", "02:00:00:00:00:02", bytes(32), bytes(32))
    with pytest.raises(ValueError, match="unknown AKM"):
        wisec.derive_ptk("wpa9", "ccmp", bytes(32), bytes(6), bytes(6), bytes(32), bytes(32))
    with pytest.raises(ValueError, match="KCK has 16 bytes"):
        wisec.eapol_mic("hmac-sha1-128", bytes(15), bytes(99))
    with pytest.raises(ValueError, match="at least 99 bytes"):
        wisec.eapol_mic("hmac-sha1-128", bytes(16), bytes(98))


@pytest.mark.parametrize("suite", ["wep40", "wep104", "tkip", "ccmp128", "ccmp256", "gcmp128", "gcmp256"])
def test_truncated_and_mangled_frames_raise(suite):
    """Every cut and many random flips of a protected frame end in
    ValueError (IntegrityError is one); nothing crashes the interpreter."""
    info = wisec.suite_info(suite)
    k = wisec.DataKey(suite, bytes(range(info["key_len"])))
    header = bytes.fromhex("88010000" "020000000001" "020000000010" "020000000010" "0000" "0000")
    # (Not a body of zeros: a WEP frame cut to an empty body with a zero
    # ICV, CRC-32 of nothing, verifies.)
    p = k.protect(header + bytes(range(1, 65)), 7)
    for n in range(len(p)):
        with pytest.raises(ValueError):
            k.unprotect(p[:n])
    rng = random.Random(suite)
    # Flips after the security header's Key ID octet: covered by the
    # MIC/ICV (or, in the IV, changing the key stream).
    start = len(header) + 4
    for _ in range(300):
        bad = bytearray(p)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(start, len(bad))] ^= 1 << rng.randrange(8)
        if bytes(bad) == p:
            continue
        with pytest.raises(ValueError):
            k.unprotect(bytes(bad))
    with pytest.raises(ValueError):
        k.protect(b"\x08", 1)
