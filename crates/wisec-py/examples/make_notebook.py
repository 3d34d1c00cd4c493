"""Writes examples/tour.ipynb (run: python examples/make_notebook.py)."""
import nbformat as nbf

cells = [
    nbf.v4.new_markdown_cell("""# wisec from Python

A tour of the `wisec` package: decrypt a `wisec synth` capture and read it with
scapy, plot the throughput overhead of the security suites from `wisec.lab.run`
with pandas, and run the same experiment as a sweep on a Dask `LocalCluster`.
The `wisec` command must be on `PATH` (or named by `$WISEC_BIN`) for the first part."""),
    nbf.v4.new_code_cell("""import os, subprocess, tempfile, pathlib
import wisec, wisec.scapy, wisec.lab
from scapy.utils import rdpcap

WISEC = os.environ.get("WISEC_BIN", "wisec")
work = pathlib.Path(tempfile.mkdtemp(prefix="wisec-tour-"))
cap = work / "session.pcapng"
print(subprocess.run([WISEC, "synth", str(cap), "--ssid", "lab", "--passphrase", "correct horse",
                      "--stations", "2", "--frames", "10", "--seed", "1"],
                     check=True, capture_output=True, text=True).stdout)"""),
    nbf.v4.new_markdown_cell("""## Decrypting with scapy

`wisec.scapy.decrypt` takes scapy packets and gives scapy packets back: the keys
come from the 4-way handshakes in the capture and the passphrase."""),
    nbf.v4.new_code_cell("""packets = rdpcap(str(cap))
plain = wisec.scapy.decrypt(packets, passphrase="correct horse")
protected = [i for i, p in enumerate(packets) if p.FCfield.protected]
print(f"{len(protected)} of {len(packets)} frames were protected")
plain[protected[-1]].show()"""),
    nbf.v4.new_code_cell("""d = wisec.decrypt(cap, passphrase="correct horse")
frames = list(d)
print(d.summary["decrypted"], "decrypted;", list(d.summary["links"]))"""),
    nbf.v4.new_markdown_cell("""## The overhead experiment as a DataFrame

`wisec.lab.run` is `wisec lab run`: the per-trial results come back as a DataFrame,
the report's tables as DataFrames, and the report's files on disk. The nominal
calibration makes the figures the same on every machine."""),
    nbf.v4.new_code_cell("""r = wisec.lab.run("overhead", quick=True, calibration="nominal", trials=2,
                  suites=["open", "wep40", "tkip", "ccmp128", "gcmp256"], out=work / "overhead")
print(r.status, r.report_md)
tcp = r.trials[r.trials.measure == "tcp"]
tcp.groupby("suite", sort=False)["throughput_mbps"].agg(["mean", "std"])"""),
    nbf.v4.new_code_cell("""import matplotlib
matplotlib.use("Agg")
means = tcp.groupby("suite", sort=False)["throughput_mbps"].mean()
overhead = 100 * (1 - means / means["open"])
ax = overhead.drop("open").plot.bar(ylabel="TCP throughput overhead against open (%)",
                                    title="11 Mb/s, 100 KB transfers")
ax.figure.savefig(work / "overhead.png")
overhead.round(2)"""),
    nbf.v4.new_markdown_cell("""## The same experiment, swept over a Dask cluster

Each trial runs on a worker process with its own seed; the merged report is the one
`wisec lab run` writes, byte for byte. With a real cluster, pass
`Client("tcp://scheduler:8786")` instead (every worker needs the same `wisec` wheel)."""),
    nbf.v4.new_code_cell("""from dask.distributed import Client, LocalCluster
import filecmp

with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \\
        Client(cluster) as client:
    s = wisec.lab.sweep("overhead", {"suites": ["open", "wep40", "tkip", "ccmp128", "gcmp256"]}, client,
                        quick=True, calibration="nominal", trials=2, out=work / "sweep")
same = filecmp.cmp(r.out / "results.json", s.out / "results.json", shallow=False)
print(s.status, "results.json identical to the single-process run:", same)
assert same"""),
]
nb = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbf.write(nb, __file__.replace("make_notebook.py", "tour.ipynb"))
