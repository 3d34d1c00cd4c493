"""Fixtures of the wisec Python tests: the wisec command built by Cargo
(the peer every decrypt and lab result is compared with), the Rust
vectors, and a `wisec synth` capture."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = ROOT / "crates" / "wisec-crypto" / "tests" / "vectors"
EXAMPLES = ROOT / "examples"


def wisec_bin() -> str:
    env = os.environ.get("WISEC_BIN")
    if env:
        return env
    for profile in ("debug", "release"):
        p = ROOT / "target" / profile / "wisec"
        if p.exists():
            return str(p)
    pytest.fail("the wisec command is not built: cargo build -p wisec (or set WISEC_BIN)")


def cli(*args, check=True, **kw) -> subprocess.CompletedProcess:
    """Runs the wisec command."""
    r = subprocess.run([wisec_bin(), *map(str, args)], capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"wisec {' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr}")
    return r


def cli_error(*args) -> str:
    """The one-line error the command prints for bad input, without its
    `wisec: error: ` prefix."""
    r = cli(*args, check=False)
    assert r.returncode in (1, 2), (r.returncode, r.stderr)
    line = r.stderr.strip().splitlines()[0]
    return line.removeprefix("wisec: error: ")


def vectors(name: str):
    with open(VECTORS / name) as f:
        return json.load(f)


PASSPHRASE = "correct horse"


@pytest.fixture(scope="session")
def synth(tmp_path_factory) -> pathlib.Path:
    """A synthetic WPA2 session: handshakes of 2 stations, unicast and
    group data, a group rekey, PMF with BIP."""
    d = tmp_path_factory.mktemp("synth")
    path = d / "s.pcapng"
    cli("synth", path, "--ssid", "lab", "--passphrase", PASSPHRASE, "--stations", "2",
        "--frames", "20", "--pmf", "--group-rekey", "--seed", "7")
    return path
