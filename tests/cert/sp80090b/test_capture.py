"""``etg rng capture``: raw samples, their record, the restart layout (fresh opens)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from firmware.cli import main
from rng.cert.sp80090b import restart, samples


def _device(tmp_path: Path, data: bytes) -> Path:
    """A stand-in for /dev/hwrng: a file read from its start at every open."""
    dev = tmp_path / "hwrng"
    dev.write_bytes(data)
    return dev


def test_sequential_capture_is_the_raw_bytes_and_its_record(tmp_path: Path) -> None:
    data = np.random.default_rng(1).integers(0, 256, 300_000, dtype=np.uint8).tobytes()
    dev = _device(tmp_path, data)
    out = tmp_path / "cap" / "noise.bin"
    assert main(["rng", "capture", "--source", "hwrng", "--device", str(dev),
                 "--samples", "200000", "--out", str(out)]) == 0
    assert out.read_bytes() == data[:200_000]
    rec = json.loads(out.with_name("noise.bin.json").read_text())
    assert rec["sha256"] == hashlib.sha256(data[:200_000]).hexdigest()
    assert (rec["bitsPerSample"], rec["samples"], rec["restarts"], rec["conditioned"]) == \
        (8, 200_000, 0, False)
    assert not out.with_name("noise.bin.part").exists()
    s = samples.read(out, 8)  # round trip: the assessment reads what capture wrote
    assert s.n == 200_000 and s.bits == 8


def test_restarts_are_fresh_opens_and_the_restart_test_sees_them(tmp_path: Path,
                                                                 capsys) -> None:
    """A 'device' that restarts identically (a file re-read from its start at each open)
    gives 1000 equal rows: every column holds one symbol, the sanity check fails."""
    data = np.random.default_rng(2).integers(0, 256, 1000, dtype=np.uint8).tobytes()
    dev = _device(tmp_path, data)
    out = tmp_path / "restarts.bin"
    assert main(["rng", "capture", "--source", "hwrng", "--device", str(dev),
                 "--restarts", "1000", "--samples", "1000", "--out", str(out)]) == 0
    raw = out.read_bytes()
    assert len(raw) == 1_000_000 and raw == data * 1000
    a = restart.assess(samples.read(out, 8), 7.0)
    assert a.x_columns == 1000 and not a.sanity_passed
    capsys.readouterr()
    assert main(["cert", "entropy", "--restart", str(out), "--bits-per-symbol", "8",
                 "--h-initial", "7"]) == 1
    assert "Restart Sanity Check Failed" in capsys.readouterr().out


def test_os_restarts_pass_the_restart_tests(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """1,000 fresh opens of the OS source pass the sanity check and the validation.
    The rows' and columns' permutation tests are informative there (they decide
    neither) and take minutes of shuffles on two views of 10^6 samples: in make test
    they are cut to none, as in test_restart.py; ETG_SP80090B_SLOW=1 runs them."""
    if not os.environ.get("ETG_SP80090B_SLOW"):
        from rng.cert.sp80090b import restart_iid

        real = restart_iid.run
        monkeypatch.setattr(restart_iid, "run",
                            lambda *a, **k: real(*a, **{**k, "limit": 0}))
    out = tmp_path / "os.bin"
    assert main(["rng", "capture", "--source", "os", "--restarts", "1000", "--samples",
                 "1000", "--out", str(out)]) == 0
    rec = json.loads((tmp_path / "os.bin.json").read_text())
    assert rec["conditioned"] is True and rec["samplesPerRestart"] == 1000
    a = restart.assess(samples.read(out, 8), 7.5, iid=True)
    assert a.sanity_passed and a.validation_passed


@pytest.mark.parametrize(("argv", "message"), [
    (["--source", "hwrng", "--device", "/nonexistent/hwrng", "--samples", "10"],
     "cannot open"),
    (["--source", "os", "--device", "/dev/null", "--samples", "10"], "--device"),
    (["--source", "os", "--samples", "0"], "at least 1"),
    (["--source", "os", "--samples", "3e9"], "at most"),
])
def test_bad_capture_input_is_one_line_exit_2(tmp_path: Path, capsys, argv: list[str],
                                              message: str) -> None:
    assert main(["rng", "capture", *argv, "--out", str(tmp_path / "x.bin")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_a_source_that_runs_dry_leaves_no_file(tmp_path: Path, capsys) -> None:
    dev = _device(tmp_path, b"\x01" * 100)
    out = tmp_path / "short.bin"
    assert main(["rng", "capture", "--source", "hwrng", "--device", str(dev),
                 "--samples", "1000", "--out", str(out)]) == 2
    assert "returned no data" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "short.bin.part").exists()
