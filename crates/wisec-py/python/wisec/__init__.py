"""wisec: IEEE 802.11 link security for Python.

The cipher suites on whole MPDUs (:class:`DataKey`, :class:`BipKey`, with
:class:`ReplayCounter` and :class:`ReplayCounters`), the RSN key hierarchy
(:func:`psk`, :func:`derive_ptk`, :func:`pmkid`, :func:`eapol_mic`,
:func:`eapol_sign`, :func:`eapol_verify`), the passive handshake
:class:`Tracker` fed frame by frame, and capture decryption
(:func:`decrypt`), all running the Rust code of the ``wisec`` command.

``wisec.scapy`` decrypts scapy packets into scapy packets; ``wisec.lab``
runs the lab's experiments into pandas DataFrames and sweeps them over a
Dask cluster.

Errors are Python exceptions: ``TypeError`` for an argument of the wrong
type, ``ValueError`` for a bad value, with the message the ``wisec``
command prints for the same mistake (options named as the keyword
arguments here: ``tk: invalid hex at character 7``). Subclasses of
``ValueError`` say more: :class:`IntegrityError` (a MIC did not verify),
:class:`ReplayError`, :class:`CaptureError` (not a capture, or damaged
before its first packet) and :class:`UsageError` (an option the command
would refuse).
"""

from __future__ import annotations

import os
import re
import warnings
import json
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

from ._native import (
    BipKey,
    CaptureError,
    DataKey,
    IntegrityError,
    Ptk,
    ReplayCounter,
    ReplayCounters,
    ReplayError,
    Tracker,
    Unprotected,
    UsageError,
    __version__,
    derive_ptk,
    eapol_mic,
    eapol_sign,
    eapol_verify,
    mic_algorithm,
    pmkid,
    psk,
    suite_info,
    suites,
)
from . import _native

__all__ = [
    "BipKey",
    "CaptureError",
    "DamagedCaptureWarning",
    "DataKey",
    "Decryption",
    "IntegrityError",
    "Ptk",
    "ReplayCounter",
    "ReplayCounters",
    "ReplayError",
    "Tracker",
    "Unprotected",
    "UsageError",
    "__version__",
    "decrypt",
    "derive_ptk",
    "eapol_mic",
    "eapol_sign",
    "eapol_verify",
    "mic_algorithm",
    "pmkid",
    "psk",
    "suite_info",
    "suites",
]

#: A key argument of :func:`decrypt`: hex text (or, for WEP, ``s:TEXT``),
#: raw bytes, or a list of either.
KeyArg = Union[str, bytes, bytearray, Sequence[Union[str, bytes, bytearray]], None]


class DamagedCaptureWarning(UserWarning):
    """The capture is damaged after its first packet: everything before
    the damage was decrypted and yielded (``wisec decrypt`` exits with
    status 3 then)."""


_OPTION = re.compile(r"--([a-z][a-z0-9-]*)")


def _python_message(message: str) -> str:
    """The command's message with its options named as keyword arguments."""
    return _OPTION.sub(lambda m: m.group(1).replace("-", "_"), message)


def _values(name: str, value: Any, *, raw_hex: bool = True) -> list:
    """The values of a repeatable option, as the command line takes them."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        value = [value]
    elif not isinstance(value, (list, tuple)):
        raise TypeError(
            f"{name}: expected str or bytes, or a list of them, got {type(value).__name__}"
        )
    out = []
    for v in value:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, (bytes, bytearray, memoryview)) and raw_hex:
            out.append(bytes(v).hex())
        else:
            raise TypeError(
                f"{name}: expected str or bytes, or a list of them, got a {type(v).__name__} in it"
            )
    return out


def _mac(name: str, value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        if len(value) != 6:
            raise ValueError(f"{name}: a MAC address has 6 bytes, this one has {len(value)}")
        return ":".join(f"{b:02x}" for b in value)
    raise TypeError(f"{name}: expected a MAC address as str or 6 bytes, got {type(value).__name__}")


class Decryption(Iterator[bytes]):
    """The decrypted frames of a capture, in capture order, as ``bytes``.

    Each frame is what ``wisec decrypt`` writes to its output for the same
    input and keys: the packet with its radio header (radiotap, Prism,
    AVS, PPI) and FCS as captured, decrypted when a key verified, else
    unchanged (with ``mpdu=True``: the bare 802.11 frame, without radio
    header or FCS). :attr:`link_type` is the link type of the frame
    yielded last. Once the iterator is exhausted, :attr:`summary` is the
    summary ``wisec decrypt --json`` prints.

    A capture damaged after its first packet is decrypted up to the
    damage, with a :class:`DamagedCaptureWarning` naming the offset.
    """

    def __init__(self, native: "_native.Decryption") -> None:
        self._native = native
        self._summary: Optional[dict] = None

    def __iter__(self) -> "Decryption":
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._native)
        except StopIteration:
            self._finish()
            raise

    def _finish(self) -> None:
        text = self._native.summary_json
        if text is not None and self._summary is None:
            self._summary = json.loads(text)
            damaged = self._summary.get("damaged")
            if damaged:
                warnings.warn(
                    f"{damaged}; the capture was decrypted up to there",
                    DamagedCaptureWarning,
                    stacklevel=3,
                )

    @property
    def link_type(self) -> int:
        """pcap link type of the last frame: 105 (802.11), 127 (radiotap),
        119 (Prism), 163 (AVS), 192 (PPI), 1 (Ethernet with ``ethernet=True``)."""
        return self._native.link_type

    @property
    def summary(self) -> Optional[dict]:
        """What ``wisec decrypt --json`` prints: frames read, decrypted,
        per suite and per link (handshakes, keys, failures, replays);
        ``None`` until every frame was yielded."""
        return self._summary

    def close(self) -> None:
        """Stops decrypting; the iterator ends."""
        self._native.close()

    def __enter__(self) -> "Decryption":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def decrypt(
    source: Union[str, "os.PathLike[str]", Iterable[Any]],
    *,
    passphrase: Union[str, Sequence[str], None] = None,
    ssid: Optional[str] = None,
    psk: KeyArg = None,
    pmk: KeyArg = None,
    msk: KeyArg = None,
    tk: KeyArg = None,
    gtk: KeyArg = None,
    wep: KeyArg = None,
    igtk: KeyArg = None,
    suite: str = "auto",
    bssid: Union[str, bytes, None] = None,
    station: Union[str, bytes, None] = None,
    ethernet: bool = False,
    fcs: str = "auto",
    link_type: int = 105,
    mpdu: bool = False,
) -> Decryption:
    """Decrypts a capture, yielding every frame as ``bytes`` (see
    :class:`Decryption`), as ``wisec decrypt`` does.

    ``source`` is a capture file (pcap or pcapng, plain or gzip) or an
    iterable of frames (``bytes``, or packets with ``__bytes__`` such as
    scapy's) of pcap link type ``link_type`` (105: bare 802.11, 127:
    radiotap, ...).

    Keys, as the command's options of the same names: ``passphrase`` (with
    ``ssid``, else learnt from beacons), ``psk``, ``pmk``, ``msk``: keys are
    derived from the 4-way handshakes in the capture; ``tk`` (pairwise),
    ``gtk`` (group), ``wep`` and ``igtk`` are given directly. Each takes hex
    text (``wep`` also ``s:TEXT``), raw ``bytes``, or a list of them.
    ``suite`` restricts ``tk``/``gtk`` to one suite (``auto``: every suite
    the key length fits). ``bssid``/``station`` keep only those frames,
    ``ethernet=True`` yields decrypted data frames as Ethernet frames (as
    airdecap-ng writes them), ``fcs`` says whether link-type-105 frames end
    with an FCS (``auto``, ``yes``, ``no``), and ``mpdu=True`` yields the
    bare 802.11 frames.

    Raises ``UsageError`` (a ``ValueError``) with the command's message for
    keys it would refuse, ``CaptureError`` for an input that is not a
    capture, ``OSError`` for a file that cannot be read, ``TypeError`` for
    arguments of the wrong type.
    """
    args: list = []
    for name, value in (
        ("tk", tk),
        ("gtk", gtk),
        ("igtk", igtk),
        ("psk", psk),
        ("pmk", pmk),
        ("msk", msk),
    ):
        args += [f"--{name}={v}" for v in _values(name, value)]
    args += [f"--wep={v}" for v in _values("wep", wep)]
    if isinstance(passphrase, (bytes, bytearray)):
        raise TypeError("passphrase: expected str, or a list of str, got bytes")
    args += [f"--passphrase={v}" for v in _values("passphrase", passphrase, raw_hex=False)]
    if ssid is not None:
        if not isinstance(ssid, str):
            raise TypeError(f"ssid: expected str, got {type(ssid).__name__}")
        args.append(f"--ssid={ssid}")
    if not isinstance(suite, str):
        raise TypeError(f"suite: expected str, got {type(suite).__name__}")
    args.append(f"--suite={suite}")
    for name, value in (("bssid", bssid), ("station", station)):
        m = _mac(name, value)
        if m is not None:
            args.append(f"--{name}={m}")
    if ethernet:
        args.append("--ethernet")
    if not isinstance(fcs, str):
        raise TypeError(f"fcs: expected 'auto', 'yes' or 'no', got {type(fcs).__name__}")
    args.append(f"--fcs={fcs}")
    if not isinstance(link_type, int) or isinstance(link_type, bool):
        raise TypeError(f"link_type: expected int, got {type(link_type).__name__}")
    if not 0 <= link_type <= 0xFFFF:
        raise ValueError(f"link_type: {link_type} is not a pcap link type (0..65535)")
    path = None
    frames = None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        # The file's own error (missing, unreadable) as Python raises it.
        with open(path, "rb"):
            pass
    elif isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError(
            "source: give a capture file's path or an iterable of frames, not bytes "
            "(for one frame, pass [frame])"
        )
    else:
        try:
            iter(source)
        except TypeError:
            raise TypeError(
                f"source: expected a path or an iterable of frames, got {type(source).__name__}"
            ) from None
        frames = source
    try:
        native = _native.Decryption(
            args, path=path, frames=frames, link_type=link_type, mpdu=bool(mpdu)
        )
    except UsageError as e:
        raise UsageError(_python_message(str(e))) from None
    return Decryption(native)
