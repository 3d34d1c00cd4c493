"""wisec.lab against `wisec lab run`: the DataFrame holds the CLI's
per-trial JSON, and run, a threaded sweep and a sweep over a Dask
LocalCluster of worker processes write the CLI's output directory byte
for byte."""

import filecmp
import json
import math
import os
from pathlib import Path

import pandas as pd
import pytest
import wisec
import wisec.lab as lab

from conftest import cli, cli_error

# A small overhead run: 11 Mb/s, short transfers, two suites, two trials.
ARGS = ["--quick", "--calibration", "nominal", "--set", "suites=open,ccmp128", "--trials", "2", "--seed", "11"]
KW = dict(quick=True, calibration="nominal", trials=2, seed=11)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("lab") / "cli"
    r = cli("lab", "run", "overhead", *ARGS, "--out", out, "--json", "-q")
    return out, json.loads(r.stdout)


def without_speed(md):
    """report.md less its "Simulator speed" section, whose wall-clock
    figures change from run to run."""
    head, sep, rest = md.partition("\n## Simulator speed\n")
    if not sep:
        return md
    _, nxt, tail = rest.partition("\n## ")
    return head + (nxt + tail if nxt else "")


def same_tree(a, b):
    """Every file of a and b, byte for byte; speed.csv (wall-clock
    figures) only present in both, report.md equal but for its speed
    section."""
    fa = sorted(os.path.relpath(os.path.join(d, f), a) for d, _, fs in os.walk(a) for f in fs)
    fb = sorted(os.path.relpath(os.path.join(d, f), b) for d, _, fs in os.walk(b) for f in fs)
    assert fa == fb
    exact = [f for f in fa if f not in ("speed.csv", "report.md")]
    _, mismatch, errors = filecmp.cmpfiles(a, b, exact, shallow=False)
    assert not mismatch and not errors, mismatch
    if "report.md" in fa:
        ra = (Path(a) / "report.md").read_text()
        rb = (Path(b) / "report.md").read_text()
        assert without_speed(ra) == without_speed(rb)
    return fa


def equal_value(x, y):
    if isinstance(x, float) and math.isnan(x):
        return y is None or (isinstance(y, float) and math.isnan(y))
    return x == y


def test_run_equals_the_command(cli_run, tmp_path):
    out, cj = cli_run
    r = lab.run("overhead", out=tmp_path / "py", suites=["open", "ccmp128"], **KW)
    files = same_tree(out, tmp_path / "py")
    assert "report.md" in files and any(f.endswith(".pcap") for f in files)
    assert r.status == "complete" and r.planned == len(cj["trials"]) == len(r.trials)
    assert r.report == cj["report"] and r.results == cj["trials"]
    assert without_speed(r.report_md.read_text()) == without_speed((out / "report.md").read_text())
    # The DataFrame: the columns of results.csv, the values of the JSON.
    csv = pd.read_csv(out / "results.csv")
    assert list(r.trials.columns) == list(csv.columns)
    for row, t in zip(r.trials.to_dict("records"), cj["trials"]):
        want = {"index": t["spec"]["index"], "label": t["spec"]["label"], "seed": t["spec"]["seed"],
                **t["spec"]["params"], **t["metrics"], "sim_time_ns": t["sim_time_ns"], "events": t["events"]}
        assert set(want) <= set(row)
        for k in row:
            assert equal_value(row[k], want.get(k)), (k, row[k], want.get(k))
    for col in csv.columns:
        if pd.api.types.is_numeric_dtype(csv[col]):
            assert (csv[col].fillna(-1) == r.trials[col].astype(float).fillna(-1)).all(), col
    assert "throughput_mbps" in r.trials.columns
    assert set(r.trials["suite"]) == {"open", "ccmp128"}
    for name, df in r.tables.items():
        assert list(df.columns) == list(pd.read_csv(out / f"{name}.csv").columns)


def test_sweep_on_threads_equals_the_command(cli_run, tmp_path):
    out, _ = cli_run
    r = lab.sweep("overhead", {"suites": ["open", "ccmp128"]}, out=tmp_path / "sw", **KW)
    same_tree(out, tmp_path / "sw")
    assert r.status == "complete"


def test_sweep_on_a_local_cluster_equals_the_command(cli_run, tmp_path):
    from dask.distributed import Client, LocalCluster

    out, _ = cli_run
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        r = lab.sweep("overhead", {"suites": ["open", "ccmp128"]}, client, out=tmp_path / "dask", **KW)
        pids = set(client.run(os.getpid).values())
    assert len(pids) == 3 and os.getpid() not in pids
    same_tree(out, tmp_path / "dask")
    assert r.status == "complete" and len(r.trials) == 12


def test_lab_errors_carry_the_commands_message(tmp_path):
    msg = cli_error("lab", "run", "nosuch", "--calibration", "nominal")
    with pytest.raises(wisec.UsageError) as e:
        lab.run("nosuch", calibration="nominal")
    assert str(e.value) == msg
    msg = cli_error("lab", "run", "overhead", "--calibration", "nominal", "--set", "suites=open,rot13")
    with pytest.raises(ValueError) as e:
        lab.run("overhead", calibration="nominal", suites=["open", "rot13"])
    assert str(e.value) == msg
    with pytest.raises(ValueError, match="wobble"):
        lab.run("overhead", calibration="nominal", wobble=3)
    with pytest.raises(TypeError):
        lab.run("overhead", calibration="nominal", suites={"open"})
    with pytest.raises(TypeError):
        lab.sweep("overhead", {"suites": "open"})
    with pytest.raises(ValueError):
        lab.run("overhead", calibration=str(tmp_path / "missing.json"))
    assert ("overhead" in dict(lab.experiments()))
