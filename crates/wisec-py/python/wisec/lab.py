"""The wisec lab from Python: experiments as pandas DataFrames, and sweeps
spread over a Dask cluster.

>>> import wisec.lab
>>> r = wisec.lab.run("overhead", quick=True, calibration="nominal", suites=["open", "ccmp128"])
>>> r.trials[["suite", "transport", "throughput_mbps"]]
>>> r.tables["table_6_4"]          # the report's tables, as DataFrames
>>> r.report_md                     # the same report.md as `wisec lab run`

:func:`run` is ``wisec lab run NAME --set K=V ...`` in this process.
:func:`sweep` runs the same plan one trial at a time on a
``dask.distributed`` client (or local threads) and merges the trials
into the same files, byte for byte: every trial is a pure function of its
spec, which carries its own seed, and of the calibration, which the
sweep resolves once and ships to every worker.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import TrialFailed, UsageError

__all__ = ["LabRun", "TrialFailed", "experiments", "run", "sweep"]

PathLike = Union[str, "os.PathLike[str]"]


def experiments() -> List[Tuple[str, str]]:
    """The built-in experiments, as (name, what it measures)."""
    return list(_native.lab_experiments())


_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_.:/+-]*")


def _toml(name: str, v: Any) -> str:
    """A Python value as the text of ``--set K=V``, written as a user of
    the command would: words bare, lists comma-separated (the form every
    experiment reads), anything else in TOML syntax."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(r, r)
    if isinstance(v, str):
        if _BARE.fullmatch(v) and v not in ("true", "false", "inf", "nan"):
            return v
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        items = []
        for x in v:
            if not isinstance(x, (bool, int, float, str)):
                raise TypeError(
                    f"{name}: expected a list of bool, int, float or str, got a {type(x).__name__} in it"
                )
            t = _toml(name, x) if not isinstance(x, str) else x
            if any(c in t for c in ',"\n'):
                raise ValueError(f"{name}: list item {x!r} cannot be written in a comma-separated list")
            items.append(t)
        return ",".join(items)
    raise TypeError(
        f"{name}: expected bool, int, float, str or a list of them, got {type(v).__name__}"
    )


def _overrides(
    trials: Optional[int], seed: Optional[int], quick: bool, params: Mapping[str, Any]
) -> List[Tuple[str, str]]:
    ov: List[Tuple[str, str]] = []
    if trials is not None:
        ov.append(("trials", _toml("trials", int(trials))))
    if seed is not None:
        ov.append(("seed", _toml("seed", int(seed))))
    if quick:
        ov.append(("quick", "true"))
    for k, v in params.items():
        ov.append((k, _toml(k, v)))
    return ov


def _plan(name: str, calibration: str, overrides: List[Tuple[str, str]]) -> "_native.LabPlan":
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"name: expected an experiment name or a scenario file, got {type(name).__name__}")
    if not isinstance(calibration, (str, os.PathLike)):
        raise TypeError(f"calibration: expected 'nominal', 'measure' or a file, got {type(calibration).__name__}")
    return _native.lab_plan(os.fspath(name), overrides, os.fspath(calibration))


@dataclass
class LabRun:
    """What a run produced: the per-trial results as a DataFrame (the
    columns of ``results.csv``: index, label, seed, the trial parameters,
    the metrics, sim_time_ns, events), the report's tables as DataFrames
    (the columns of their CSV files), and the paths of the files written.
    """

    experiment: str
    scenario: str
    #: "complete", "interrupted" or "failed".
    status: str
    error: Optional[str]
    planned: int
    trials: Any
    tables: Dict[str, Any]
    #: The report as JSON (description, parameters, tables, plots, notes).
    report: Dict[str, Any]
    #: Every trial's result as JSON, as ``results.json`` holds them.
    results: List[Dict[str, Any]]
    out: Optional[Path]
    files: List[Path] = field(default_factory=list)

    @property
    def report_md(self) -> Optional[Path]:
        """The Markdown report, when files were written."""
        return self.out / "report.md" if self.out is not None else None

    @property
    def results_json(self) -> Optional[Path]:
        """``results.json``, when files were written."""
        return self.out / "results.json" if self.out is not None else None


def _trials_frame(results: List[Dict[str, Any]]) -> Any:
    import pandas as pd

    params = sorted({k for r in results for k in r["spec"]["params"]})
    metrics = sorted({k for r in results for k in r["metrics"]})
    cols = ["index", "label", "seed"] + params + metrics + ["sim_time_ns", "events"]
    rows = []
    for r in results:
        row = [r["spec"]["index"], r["spec"]["label"], r["spec"]["seed"]]
        row += [r["spec"]["params"].get(p) for p in params]
        row += [r["metrics"].get(m) for m in metrics]
        row += [r["sim_time_ns"], r["events"]]
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def _table_frame(t: Dict[str, Any]) -> Any:
    import pandas as pd

    cols = [c["name"] + (f" ({c['unit']})" if c.get("unit") else "") for c in t["columns"]]
    return pd.DataFrame(t["rows"], columns=cols)


def _result(text: str, out: Optional[Path]) -> LabRun:
    v = json.loads(text)
    return LabRun(
        experiment=v["experiment"],
        scenario=v["scenario"],
        status=v["status"],
        error=v["error"],
        planned=v["planned"],
        trials=_trials_frame(v["trials"]),
        tables={t["name"]: _table_frame(t) for t in v["report"]["tables"]},
        report=v["report"],
        results=v["trials"],
        out=out,
        files=[out / f for f in v["files"]] if out is not None else [],
    )


def _out_dir(out: Optional[PathLike], name: Any) -> Optional[Path]:
    if out is False:
        return None
    if out is None or out is True:
        stem = Path(os.fspath(name)).stem
        return Path(tempfile.mkdtemp(prefix=f"wisec-lab-{stem}-"))
    return Path(os.fspath(out))


def run(
    name: PathLike,
    *,
    out: Union[PathLike, None, bool] = None,
    calibration: PathLike = "measure",
    trials: Optional[int] = None,
    seed: Optional[int] = None,
    quick: bool = False,
    pcap: Optional[str] = None,
    plots: bool = True,
    progress: bool = False,
    **params: Any,
) -> LabRun:
    """Runs an experiment in this process, as ``wisec lab run`` does, and
    returns its results (see :class:`LabRun`).

    ``name`` is a built-in experiment (:func:`experiments`) or a scenario
    file. Every other keyword is a ``--set`` override: an experiment
    parameter (``suites=["open", "ccmp128"]``, ``rates=[11, 54]``) or a
    scenario field by dotted path (pass ``**{"phy.standard": "g"}``).
    ``calibration`` is the crypto cost model: ``"measure"`` (a short
    measurement now, as the command does), ``"nominal"`` (fixed figures:
    results identical on every machine) or a file from ``wisec lab
    calibrate``. Files go to ``out`` (default: a new temporary directory;
    ``out=False`` writes none). ``pcap`` chooses the channel captures
    ("first", "all", "none"). Ctrl-C stops after the current trial and
    still writes the report of the trials done.

    Raises ``UsageError`` (a ``ValueError``) with the command's message for
    an unknown experiment, field or value.
    """
    plan = _plan(name, calibration, _overrides(trials, seed, quick, params))
    dest = _out_dir(out, name)
    text = plan.run(
        out=os.fspath(dest) if dest is not None else None,
        pcap=pcap,
        plots=plots,
        progress=progress,
    )
    return _result(text, dest)


def _run_trial(
    toml: str, calibration: str, index: int, label: str, seed: int, capture: bool
) -> Tuple[str, str, List[Tuple[int, bytes]]]:
    """One trial of a sweep, on a worker: ("ok", result JSON, captures) or
    ("failed", the experiment's message, [])."""
    try:
        result, pcaps = _native.lab_run_trial(toml, calibration, index, label, seed, capture)
    except TrialFailed as e:
        return ("failed", str(e), [])
    return ("ok", result, pcaps)


def sweep(
    name: PathLike,
    grid: Mapping[str, Sequence[Any]],
    client: Any = None,
    *,
    executor: Optional[concurrent.futures.Executor] = None,
    out: Union[PathLike, None, bool] = None,
    calibration: PathLike = "measure",
    trials: Optional[int] = None,
    seed: Optional[int] = None,
    quick: bool = False,
    pcap: Optional[str] = None,
    plots: bool = True,
    **params: Any,
) -> LabRun:
    """Runs an experiment's trials independently, spread over a
    ``dask.distributed`` ``client`` (else over ``executor``, else over
    local threads), and merges them into the report ``wisec lab run``
    writes for the same plan: the same files, byte for byte.

    ``grid`` maps experiment parameters to the lists of values to sweep
    (``{"suites": ["open", "wep40", "ccmp128"], "rates": [2, 11, 54]}``);
    the experiment crosses them with its other points and ``trials`` into
    its plan, every trial with a seed of its own derived from the run's
    ``seed``. The other arguments are those of :func:`run`. The
    calibration is resolved once, here, and sent to every worker.

    To use a cluster, start a scheduler and workers in an environment
    where ``wisec`` is installed (the same wheel everywhere), then::

        from dask.distributed import Client
        client = Client("tcp://scheduler:8786")
        r = wisec.lab.sweep("overhead", {"suites": [...]}, client)

    A failing trial stops the merge there, as the command stops: the
    report of the trials before it is written, marked failed, and
    :class:`TrialFailed` is raised.
    """
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid: expected a dict of parameter -> list of values, got {type(grid).__name__}")
    sweep_params: Dict[str, Any] = {}
    for k, v in grid.items():
        if not isinstance(k, str):
            raise TypeError(f"grid: parameter names are str, got {type(k).__name__}")
        if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
            raise TypeError(f"grid: {k}: expected a list of values, got {type(v).__name__}")
        if k in params:
            raise ValueError(f"grid: {k} is also given as a keyword argument")
        sweep_params[k] = list(v)
    sweep_params.update(params)
    plan = _plan(name, calibration, _overrides(trials, seed, quick, sweep_params))
    specs = json.loads(plan.trials_json())
    capture = plan.capture(pcap)
    toml = plan.toml
    cal = plan.calibration_json
    jobs = [
        (toml, cal, s["index"], s["label"], s["seed"], capture == "all" or (capture == "first" and i == 0))
        for i, s in enumerate(specs)
    ]
    if client is not None:
        futures = client.map(_run_trial, *zip(*jobs), pure=True) if jobs else []
        outcomes = client.gather(futures) if jobs else []
    else:
        own = executor is None
        ex = executor or concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
        try:
            outcomes = list(ex.map(_run_trial, *zip(*jobs))) if jobs else []
        finally:
            if own:
                ex.shutdown()
    done = []
    error = None
    for (status, text, pcaps) in outcomes:
        if status != "ok":
            error = text
            break
        done.append((text, [(ch, bytes(p)) for ch, p in pcaps]))
    dest = _out_dir(out, name)
    merged = plan.merge(
        done,
        out=os.fspath(dest) if dest is not None else None,
        pcap=pcap,
        plots=plots,
        error=error,
    )
    result = _result(merged, dest)
    if error is not None:
        raise TrialFailed(f"trial {len(done)} failed: {error}; the report of the trials before it is in {dest}")
    return result
