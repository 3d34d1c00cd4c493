#!/usr/bin/env python3
"""A client of wisec's CCM-UDP exchange, written from README.md's section
"The CCM-UDP wire format" alone, on Python's `cryptography` AESCCM.

It runs plain and protected echoes, one protected STREAM, one replay of an
accepted message (which must go unanswered) and a protected report, checks
every answer, and prints a JSON summary on standard output.
"""

import argparse
import json
import os
import socket
import struct
import sys

from cryptography.hazmat.primitives.ciphers.aead import AESCCM

VERSION = 1
ECHO, ECHO_REPLY, STREAM, DATA, SINK, REPORT_REQUEST, REPORT = 1, 2, 3, 4, 5, 6, 7
INITIATOR, RESPONDER = 0, 1
HEADER = struct.Struct(">BBBBIQ")  # version, kind, flags, sender, session, PN
TAG = 8


class Client:
    def __init__(self, host, port, key):
        self.addr = (host, port)
        self.ccm = AESCCM(key, tag_length=TAG)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.session = int.from_bytes(os.urandom(4), "big")
        self.pn = 0
        self.peer_pn = 0
        self.last_sent = None

    def message(self, kind, body, protected):
        if protected:
            self.pn += 1
            header = HEADER.pack(VERSION, kind, 1, INITIATOR, self.session, self.pn)
            # Nonce: header octets 3..15; AAD: the whole header.
            return header + self.ccm.encrypt(header[3:16], body, header)
        return HEADER.pack(VERSION, kind, 0, INITIATOR, self.session, 0) + body

    def send(self, kind, body, protected):
        m = self.message(kind, body, protected)
        self.sock.sendto(m, self.addr)
        self.last_sent = m

    def receive(self, timeout=5.0):
        """The next answer: (kind, protected, body), checked; None on timeout."""
        self.sock.settimeout(timeout)
        try:
            payload, frm = self.sock.recvfrom(65536)
        except socket.timeout:
            return None
        if len(payload) < HEADER.size:
            raise ValueError("short answer")
        header = payload[:HEADER.size]
        version, kind, flags, sender, session, pn = HEADER.unpack(header)
        if version != VERSION or sender != RESPONDER or session != self.session:
            raise ValueError(f"unexpected header {HEADER.unpack(header)}")
        if flags == 1:
            body = self.ccm.decrypt(header[3:16], payload[HEADER.size:], header)
            if pn <= self.peer_pn:
                raise ValueError(f"replayed PN {pn} from the responder")
            self.peer_pn = pn
            return kind, True, body
        if flags != 0:
            raise ValueError("reserved flag bits")
        return kind, False, payload[HEADER.size:]


def pattern(index, n):
    return bytes((index + k) % 256 for k in range(n))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=7000)
    ap.add_argument("--key", required=True, help="32 hex digits")
    ap.add_argument("--echoes", type=int, default=100)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--stream", type=int, default=50, help="m of the protected STREAM")
    a = ap.parse_args()
    c = Client(a.host, a.port, bytes.fromhex(a.key))
    out = {}
    for protected in (False, True):
        ok = 0
        for i in range(a.echoes):
            data = pattern(i, a.size)
            c.send(ECHO, data, protected)
            r = c.receive()
            if r == (ECHO_REPLY, protected, data):
                ok += 1
        out["echo_protected_verified" if protected else "echo_plain_verified"] = ok
    # A replay of the last accepted protected echo: no answer.
    c.sock.sendto(c.last_sent, c.addr)
    out["replay_answered"] = c.receive(timeout=0.5) is not None
    # A protected STREAM: m DATA messages, each index, count and pattern checked.
    m = a.stream
    c.send(STREAM, struct.pack(">I", m) + bytes(a.size), True)
    received = wrong = 0
    while received < m:
        r = c.receive()
        if r is None:
            break
        kind, protected, body = r
        if kind != DATA or not protected:
            wrong += 1
            continue
        index, count = struct.unpack(">II", body[:8])
        if count != m or index >= m or body[8:] != pattern(index, a.size):
            wrong += 1
        received += 1
    out["stream_received"] = received
    out["stream_wrong"] = wrong
    c.send(REPORT_REQUEST, b"", True)
    r = c.receive()
    if r is None or r[0] != REPORT or not r[1]:
        print(json.dumps(out))
        sys.exit("no protected report")
    report = {}
    for line in r[2].decode("ascii").splitlines():
        name, _, value = line.partition(" ")
        report[name] = value
    out["report"] = report
    print(json.dumps(out))


if __name__ == "__main__":
    main()
