"""wisec.decrypt against `wisec decrypt` on the same capture: the same
frames, byte for byte, the same summary, the same error messages."""

import gc
import json
import warnings

import pytest
import wisec
from scapy.utils import rdpcap

from conftest import PASSPHRASE, cli, cli_error


def cli_frames(tmp_path, capture, *args, name="out.pcapng"):
    out = tmp_path / name
    r = cli("decrypt", capture, out, *args, "--json")
    return [bytes(p) for p in rdpcap(str(out))], json.loads(r.stdout)


def test_passphrase_equals_the_command(synth, tmp_path):
    want, summary = cli_frames(tmp_path, synth, "--passphrase", PASSPHRASE)
    d = wisec.decrypt(synth, passphrase=PASSPHRASE)
    got = list(d)
    assert got == want
    assert d.summary == summary
    assert d.link_type == 105
    assert summary["decrypted"] > 40 and summary["protected"] == summary["decrypted"]


def test_iterable_of_frames_equals_the_file(synth):
    frames = [bytes(p) for p in rdpcap(str(synth))]
    a = list(wisec.decrypt(synth, passphrase=PASSPHRASE))
    d = wisec.decrypt(iter(frames), passphrase=PASSPHRASE, ssid="lab")
    assert list(d) == a
    assert d.summary["decrypted"] > 40


def test_ethernet_and_filters_equal_the_command(synth, tmp_path):
    want, summary = cli_frames(tmp_path, synth, "--passphrase", PASSPHRASE, "--ethernet",
                               "--station", "02:57:53:00:00:10")
    d = wisec.decrypt(synth, passphrase=PASSPHRASE, ethernet=True, station="02:57:53:00:00:10")
    assert list(d) == want and d.summary == summary and d.link_type == 1
    assert len(want) > 5


def test_given_keys_and_mpdu(tmp_path):
    """A radiotap capture with FCS, protected by `wisec encrypt`: the
    frames come back as the sample, and mpdu=True strips radiotap and FCS."""
    from conftest import EXAMPLES

    sample = EXAMPLES / "sample-radiotap-fcs.pcap"
    key = "000102030405060708090a0b0c0d0e0f"
    enc = tmp_path / "enc.pcap"
    cli("encrypt", sample, enc, "--suite", "gcmp", "--key", key)
    plain = [bytes(p) for p in rdpcap(str(sample))]
    d = wisec.decrypt(enc, tk=bytes.fromhex(key), gtk=key)
    assert list(d) == plain and d.link_type == 127
    from scapy.layers.dot11 import RadioTap

    mpdus = list(wisec.decrypt(enc, tk=key, gtk=key, mpdu=True))
    for m, p in zip(mpdus, rdpcap(str(sample))):
        rt = RadioTap(bytes(p))
        assert m == bytes(rt.payload)[: len(m)]
        assert len(bytes(rt.payload)) - len(m) in (0, 4)


@pytest.mark.parametrize("kwargs,args", [
    ({"tk": "00zz"}, ["--tk", "00zz"]),
    ({"tk": "0011"}, ["--tk", "0011"]),
    ({"passphrase": "short"}, ["--passphrase", "short"]),
    ({"pmk": "00" * 20}, ["--pmk", "00" * 20]),
    ({"msk": "00" * 20}, ["--msk", "00" * 20]),
    ({"wep": "s:abc"}, ["--wep", "s:abc"]),
    ({"ssid": "lab", "tk": "00" * 16}, ["--ssid", "lab", "--tk", "00" * 16]),
    ({}, []),
    ({"tk": "00" * 16, "bssid": "02:00:00"}, ["--tk", "00" * 16, "--bssid", "02:00:00"]),
    ({"tk": "00" * 16, "suite": "ccmp512"}, ["--tk", "00" * 16, "--suite", "ccmp512"]),
    ({"tk": "00" * 16, "suite": "bip"}, ["--tk", "00" * 16, "--suite", "bip"]),
])
def test_usage_errors_carry_the_commands_message(synth, tmp_path, kwargs, args):
    msg = cli_error("decrypt", synth, tmp_path / "x.pcapng", *args)
    with pytest.raises(wisec.UsageError) as e:
        wisec.decrypt(synth, **kwargs)
    assert isinstance(e.value, ValueError)
    assert str(e.value) == wisec._python_message(msg)
    assert "--" not in str(e.value)


def test_bad_captures(tmp_path, synth):
    text = tmp_path / "text.pcap"
    text.write_text("not a capture at all\n")
    msg = cli_error("decrypt", text, tmp_path / "o.pcap", "--tk", "00" * 16)
    with pytest.raises(wisec.CaptureError) as e:
        list(wisec.decrypt(text, tk="00" * 16))
    assert str(e.value) == msg
    with pytest.raises(FileNotFoundError):
        wisec.decrypt(tmp_path / "missing.pcap", tk="00" * 16)
    # Damaged after its first packets: decrypted up to the damage, with a
    # warning, as the command does (exit status 3).
    data = synth.read_bytes()
    cut = tmp_path / "cut.pcapng"
    cut.write_bytes(data[: len(data) * 2 // 3])
    r = cli("decrypt", cut, tmp_path / "cut-out.pcapng", "--passphrase", PASSPHRASE, "--json", check=False)
    assert r.returncode == 3
    want = [bytes(p) for p in rdpcap(str(tmp_path / "cut-out.pcapng"))]
    d = wisec.decrypt(cut, passphrase=PASSPHRASE)
    with pytest.warns(wisec.DamagedCaptureWarning, match="offset"):
        got = list(d)
    assert got == want and d.summary == json.loads(r.stdout)


def test_wrong_types_raise_type_errors(synth):
    for kwargs in ({"tk": 5}, {"tk": [b"\x00" * 16, 7]}, {"passphrase": b"correct horse"},
                   {"ssid": 5, "passphrase": PASSPHRASE}, {"tk": "00" * 16, "link_type": "radiotap"},
                   {"tk": "00" * 16, "bssid": 12}):
        with pytest.raises(TypeError):
            wisec.decrypt(synth, **kwargs)
    with pytest.raises(TypeError):
        wisec.decrypt(b"\x08\x00", tk="00" * 16)
    with pytest.raises(TypeError):
        wisec.decrypt(42, tk="00" * 16)
    with pytest.raises(TypeError, match="item 1"):
        list(wisec.decrypt([b"\x08\x00" + bytes(22), 3.5], tk="00" * 16))


def test_truncated_frames_pass_through(synth):
    """Frames cut anywhere are counted and passed through unchanged, never
    a crash."""
    frames = [bytes(p) for p in rdpcap(str(synth))]
    cuts = [f[:n] for f in frames[:40] for n in (0, 1, 2, 10, 23, 24, 30, len(f) - 1)]
    d = wisec.decrypt(cuts, passphrase=PASSPHRASE)
    out = list(d)
    assert out == cuts
    assert d.summary["frames"] == len(cuts)


def test_stopping_early_ends_the_threads(synth):
    for _ in range(20):
        d = wisec.decrypt(synth, passphrase=PASSPHRASE)
        next(d)
        d.close()
        assert list(d) == []
        e = wisec.decrypt(iter([bytes(p) for p in rdpcap(str(synth))] * 50), passphrase=PASSPHRASE)
        next(e)
        del e
        gc.collect()


def test_tracker_fed_frame_by_frame(synth):
    """The tracker shown the plaintext frames derives each station's PTK;
    its TK unprotects the captured frames into what decrypt yields."""
    protected = [bytes(p) for p in rdpcap(str(synth))]
    plain = list(wisec.decrypt(synth, passphrase=PASSPHRASE))
    t = wisec.Tracker()
    t.add_passphrase(PASSPHRASE)
    with pytest.raises(ValueError, match="passphrase shorter"):
        t.add_passphrase("short")
    with pytest.raises(ValueError, match="32, 48 or 64 bytes"):
        t.add_pmk(bytes(31))
    for f in plain:
        t.observe(f)
    events = t.events()
    ptks = [e for e in events if e["type"] == "pairwise_key"]
    assert {e["spa"] for e in ptks} == {"02:57:53:00:00:10", "02:57:53:00:00:11"}
    assert any(e["type"] == "group_key" for e in events)
    assert any(e["type"] == "integrity_key" for e in events)
    assert t.ssid(ptks[0]["aa"]) == b"lab" and t.has_ptk(ptks[0]["aa"], ptks[0]["spa"])
    # PSK 4-way handshake keys against derive_ptk's: same KCK under psk().
    assert all(len(e["kck"]) == 16 and len(e["tk"]) == 16 for e in ptks)
    keys = [wisec.DataKey(e["suite"], e["tk"]) for e in ptks]
    n = 0
    for p, want in zip(protected, plain):
        if p != want and p[0] & 0x0C == 0x08 and not p[4] & 1:  # unicast data
            for k in keys:
                try:
                    assert k.unprotect(p).frame == want
                    n += 1
                    break
                except wisec.IntegrityError:
                    pass
    assert n >= 20
    links = t.links()
    assert len(links) == 2 and all(l["handshakes_complete"] >= 1 for l in links)
