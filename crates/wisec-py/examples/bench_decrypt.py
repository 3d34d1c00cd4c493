"""Frames per second of wisec.decrypt from Python against the wisec
command on the same capture, and of scapy's own WEP decryption.

    python crates/wisec-py/examples/bench_decrypt.py [--frames N] [--runs R]

Needs the wisec command (release build: cargo build --release -p wisec,
or $WISEC_BIN) and the wheel built with --profile release. Writes its
captures to a temporary directory. Figures are medians of R runs with
their min and max; the machine's other load moves them.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import wisec

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def wisec_bin():
    return os.environ.get("WISEC_BIN") or os.path.join(ROOT, "target", "release", "wisec")


def timed(f, runs):
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return times, out


def row(name, frames, times, base=None):
    med = statistics.median(times)
    fps = frames / med
    lo, hi = frames / max(times), frames / min(times)
    ratio = "" if base is None else f"{base / fps:8.2f}x"
    print(f"{name:44} {frames:9} {fps:12.0f} {lo:12.0f} {hi:12.0f} {ratio}")
    return fps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=25000, help="data frames per station (8 stations)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scapy-frames", type=int, default=20000, help="WEP frames scapy decrypts")
    a = ap.parse_args()
    w = wisec_bin()
    d = tempfile.mkdtemp(prefix="wisec-bench-")
    try:
        cap = os.path.join(d, "ccmp.pcapng")
        subprocess.run([w, "synth", cap, "--ssid", "bench", "--passphrase", "bench passphrase",
                        "--stations", "8", "--frames", str(a.frames), "--seed", "1"], check=True,
                       capture_output=True)
        plain = os.path.join(d, "plain.pcapng")
        subprocess.run([w, "decrypt", cap, plain, "--passphrase", "bench passphrase", "-q"], check=True,
                       capture_output=True)
        wep = os.path.join(d, "wep.pcapng")
        subprocess.run([w, "encrypt", plain, wep, "--suite", "wep104", "--key",
                        "0102030405060708090a0b0c0d", "-q"], check=True, capture_output=True)
        print(f"python {sys.version.split()[0]}, wisec {wisec.__version__}, {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}")
        print(f"{'decrypter':44} {'frames':>9} {'frames/s':>12} {'min':>12} {'max':>12} {'cli/this':>9}")
        for label, capture, keys, cli_keys in (
            ("CCMP-128 from the passphrase", cap, {"passphrase": "bench passphrase"},
             ["--passphrase", "bench passphrase"]),
            ("WEP-104", wep, {"wep": "0102030405060708090a0b0c0d"}, ["--wep", "0102030405060708090a0b0c0d"]),
        ):
            print(f"-- {label}")
            out = os.path.join(d, "out.pcapng")

            def run_cli():
                subprocess.run([w, "decrypt", capture, out, "--force", "-q", *cli_keys], check=True,
                               capture_output=True)

            def run_py():
                it = wisec.decrypt(capture, **keys)
                n = 0
                for _ in it:
                    n += 1
                return n, it.summary

            t_cli, _ = timed(run_cli, a.runs)
            t_py, (n, summary) = timed(run_py, a.runs)
            base = row("wisec decrypt (the command, to a file)", n, t_cli)
            row("wisec.decrypt (Python, frames as bytes)", n, t_py, base)
            assert summary["decrypted"] > 0
            if label.startswith("WEP"):
                from scapy.config import conf
                from scapy.layers.dot11 import Dot11, Dot11WEP
                from scapy.utils import RawPcapNgReader

                raw = [r[0] for _, r in zip(range(a.scapy_frames), RawPcapNgReader(wep))]
                conf.wepkey = bytes.fromhex("0102030405060708090a0b0c0d").decode("latin-1")

                def run_scapy():
                    ok = 0
                    for b in raw:
                        p = Dot11(b)
                        # Decrypted (ICV checked): the plaintext dissected
                        # as the WEP layer's payload.
                        if p.haslayer(Dot11WEP) and len(p[Dot11WEP].payload) > 0:
                            ok += 1
                    return ok

                t_sc, ok = timed(run_scapy, max(1, a.runs // 2))
                row(f"scapy Dot11WEP (conf.wepkey), {ok} decrypted", len(raw), t_sc, base)

                def run_py_frames():
                    return sum(1 for _ in wisec.decrypt(raw, wep="0102030405060708090a0b0c0d"))

                t_pf, _ = timed(run_py_frames, a.runs)
                row("wisec.decrypt on the same frames (bytes in)", len(raw), t_pf, base)
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()
