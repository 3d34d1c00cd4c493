"""wisec.scapy: scapy packets in, scapy packets out, checked against
scapy's own dissection of the plaintext."""

import pytest
import wisec
import wisec.scapy as ws
from scapy.layers.dot11 import Dot11, RadioTap
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap

from conftest import EXAMPLES, PASSPHRASE, cli

KEY = "000102030405060708090a0b0c0d0e0f"


def dissected(p):
    return p.show(dump=True)


@pytest.mark.parametrize("suite,key", [("ccmp", KEY), ("gcmp256", KEY * 2), ("tkip", KEY * 2)])
def test_radiotap_packets_decrypt_to_scapys_dissection_of_the_plaintext(tmp_path, suite, key):
    sample = EXAMPLES / "sample-radiotap-fcs.pcap"
    enc = tmp_path / "enc.pcap"
    cli("encrypt", sample, enc, "--suite", suite, "--key", key)
    protected = rdpcap(str(enc))
    out = ws.decrypt(protected, tk=key, gtk=key)
    plain = rdpcap(str(sample))
    assert len(out) == len(plain)
    for got, want in zip(out, plain):
        assert isinstance(got, RadioTap)
        assert bytes(got) == bytes(want)
        assert dissected(got) == dissected(RadioTap(bytes(want)))
        assert got.time == want.time
    # Some frames were protected and are now readable by scapy.
    assert sum(1 for p in protected if p.haslayer(Dot11) and p[Dot11].FCfield.protected) >= 5
    assert not any(p[Dot11].FCfield.protected for p in out if p.haslayer(Dot11) and p[Dot11].type == 2)


def test_one_packet_with_a_given_key(tmp_path):
    sample = EXAMPLES / "sample.pcapng"
    enc = tmp_path / "enc.pcapng"
    cli("encrypt", sample, enc, "--suite", "ccmp", "--key", KEY)
    plain = rdpcap(str(sample))
    for i, p in enumerate(rdpcap(str(enc))):
        got = ws.decrypt(p, {"tk": KEY, "gtk": KEY})
        assert isinstance(got, Dot11)
        assert dissected(got) == dissected(Dot11(bytes(plain[i])))


def test_passphrase_over_a_packet_list(synth, tmp_path):
    pkts = rdpcap(str(synth))
    out = ws.decrypt(pkts, passphrase=PASSPHRASE)
    dec = tmp_path / "d.pcapng"
    cli("decrypt", synth, dec, "--passphrase", PASSPHRASE)
    for got, want in zip(out, rdpcap(str(dec))):
        assert dissected(got) == dissected(Dot11(bytes(want)))
    eth = ws.decrypt(pkts, passphrase=PASSPHRASE, ethernet=True)
    assert eth and all(isinstance(p, Ether) for p in eth)


def test_scapy_errors():
    with pytest.raises(TypeError, match="RadioTap, Dot11"):
        ws.decrypt(Ether(), tk=KEY)
    with pytest.raises(TypeError, match="keys"):
        ws.decrypt(Dot11(), ["tk"])
    with pytest.raises(wisec.UsageError, match="no key given"):
        ws.decrypt(Dot11())
