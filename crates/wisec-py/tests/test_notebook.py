"""The example notebook runs from top to bottom (nbclient, a real kernel)."""

import os
import pathlib

import nbformat
from nbclient import NotebookClient

from conftest import wisec_bin

NOTEBOOK = pathlib.Path(__file__).resolve().parents[1] / "examples" / "tour.ipynb"


def test_tour_notebook_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("WISEC_BIN", wisec_bin())
    # The notebook's work directory (tempfile.mkdtemp) goes under the
    # test's own directory, removed with it, not into the system's /tmp.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = "".join(
        o.get("text", "") + str(o.get("data", {}).get("text/plain", ""))
        for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "identical to the single-process run: True" in outputs
    assert "frames were protected" in outputs
