"""wisec with scapy: scapy packets in, scapy packets out.

>>> from scapy.all import rdpcap
>>> import wisec.scapy
>>> plain = wisec.scapy.decrypt(rdpcap("capture.pcapng"), passphrase="correct horse")
>>> plain[20].show()

A packet is decrypted by the same pipeline as ``wisec decrypt`` (see
:func:`wisec.decrypt`) and dissected again by scapy, as the class it came
in as: ``RadioTap``, ``Dot11`` or ``Dot11FCS`` (``Ether`` with
``ethernet=True``). Keys derived from a passphrase need the handshake:
pass the whole capture (or at least the handshake and the frames after
it); given keys (``tk``, ``gtk``, ``wep``) decrypt any single packet.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Union

import wisec

try:
    from scapy.layers.dot11 import Dot11, Dot11FCS, RadioTap
    from scapy.layers.l2 import Ether
    from scapy.packet import Packet
    from scapy.plist import PacketList
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "wisec.scapy needs scapy: pip install scapy (or wisec[scapy])"
    ) from e

__all__ = ["decrypt"]


def _framing(pkt: Packet) -> "tuple[int, str, type]":
    """Link type, FCS setting and scapy class of a packet."""
    if isinstance(pkt, RadioTap):
        return 127, "auto", RadioTap
    if isinstance(pkt, Dot11FCS):
        return 105, "yes", Dot11FCS
    if isinstance(pkt, Dot11):
        return 105, "no", Dot11
    raise TypeError(
        f"pkt: expected a scapy RadioTap, Dot11 or Dot11FCS packet, got {type(pkt).__name__}"
    )


def decrypt(
    pkt: Union[Packet, Iterable[Packet]],
    keys: Optional[dict] = None,
    **kwargs: Any,
) -> Union[Packet, PacketList, List[Packet]]:
    """Decrypts a scapy packet, or a sequence of them, into scapy packets.

    ``keys`` is a dict of :func:`wisec.decrypt`'s key arguments
    (``{"tk": "0001..."}``, ``{"passphrase": "...", "ssid": "..."}``), or
    give them as keyword arguments. Returns one packet for one packet, a
    ``PacketList`` for a sequence: every packet in order, decrypted where
    a key verified, else as it was, each with its ``time`` kept. With
    ``ethernet=True`` only the decrypted data frames come back, as
    ``Ether`` packets.
    """
    opts = dict(keys or {})
    if not isinstance(keys, (dict, type(None))):
        raise TypeError(f"keys: expected a dict of key arguments, got {type(keys).__name__}")
    opts.update(kwargs)
    single = isinstance(pkt, Packet)
    packets = [pkt] if single else list(pkt)
    if not packets:
        return PacketList([])
    link_type, fcs, cls = _framing(packets[0])
    for p in packets[1:]:
        if _framing(p)[0] != link_type:
            raise TypeError("pkt: every packet must have the same framing (RadioTap or Dot11)")
    opts.setdefault("fcs", fcs)
    ethernet = bool(opts.get("ethernet"))
    it = wisec.decrypt((bytes(p) for p in packets), link_type=link_type, **opts)
    out = []
    for i, data in enumerate(it):
        q = Ether(data) if ethernet else cls(data)
        if not ethernet and i < len(packets):
            q.time = packets[i].time
        out.append(q)
    if single and not ethernet:
        return out[0]
    return PacketList(out)
