"""Issue 44 finding 5: the certification report states the RNG's operating state, and the
committed docs/sample-report is made by one command (`make sample-report`) and is current.

The staleness check is cheap: the report records what, with its seed, determines every
figure (the command, the Rules Submission holding the Bingo weights, the rng package's
sources, the program version); the test compares those records with this checkout
instead of running the battery again."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path

import pytest

from rng.cert.meta import rng_sources_digest
from rng.cert.run_report import INPUT_RNG, INPUT_RULES

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "docs" / "sample-report"
OPERATING = ("RNG entropy source", "RNG claimed entropy", "RNG health tests",
             "RNG reseeding", "RNG power-up known-answer tests")


def make_command() -> str:
    """The `etg ... cert run` line of the Makefile's sample-report recipe, as the report
    records its command (``etg`` and its arguments)."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    seed = re.search(r"^SAMPLE_SEED = (\S+)$", text, re.M)
    recipe = text[text.index("\nsample-report:"):]
    line = next(x for x in recipe.splitlines() if "cert run" in x)
    assert seed is not None
    line = line.strip().replace("$(BIN)/etg", "etg").replace("$(SAMPLE_SEED)", seed.group(1))
    return shlex.join(shlex.split(line))


def test_finding_5_sample_report_is_made_by_make_sample_report_and_is_current() -> None:
    meta = json.loads((SAMPLE / "results.json").read_text(encoding="utf-8"))["metadata"]
    stale = "docs/sample-report is stale: regenerate it with `make sample-report`"
    assert meta["command"] == make_command(), stale
    rules = hashlib.sha256((REPO / "firmware/rules/bingo.toml").read_bytes()).hexdigest()
    assert meta.get(INPUT_RULES) == rules, stale + " (the Bingo weights changed)"
    assert meta.get(INPUT_RNG) == rng_sources_digest(), stale + " (the rng package changed)"
    from importlib import metadata

    assert meta["program version"] == f"etg {metadata.version('etg-firmware')}", stale
    for row in OPERATING:
        assert row in meta, f"{stale} (no {row!r})"
    md = (SAMPLE / "report.md").read_text(encoding="utf-8")
    listed = (SAMPLE / "program-files.txt").read_text(encoding="utf-8").splitlines()
    assert f"({len(listed)} files)" in md and len(listed) > 300


def test_finding_5_the_stale_check_catches_a_changed_input(tmp_path: Path) -> None:
    """The recorded digest moves with the code: a copy of the rng package digests the
    same, and one byte changed in one module changes it."""
    import shutil

    src = REPO / "rng"
    copy = tmp_path / "rng"
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert rng_sources_digest(copy) == rng_sources_digest()
    f = copy / "scaling.py"
    f.write_bytes(f.read_bytes() + b"\n")
    assert rng_sources_digest(copy) != rng_sources_digest()


def test_finding_5_report_states_the_rng_operating_state() -> None:
    """The RNG a table opens (the OS source here) states its source, claimed entropy,
    health test cutoffs, reseeding and reseeds done."""
    from rng.health import apt_cutoff, rct_cutoff
    from rng.settings import RngSettings
    from rng.table_rng import open_table_rng

    rng = open_table_rng(RngSettings(entropy="os", cycle_hz=0), bench=True)
    try:
        rng.random_bytes(1000)
        rows = dict(rng.operating_state())
    finally:
        rng.close()
    assert rows["RNG entropy source"] == "os"
    assert rows["RNG claimed entropy"].startswith("8 bits per 8-bit sample")
    health = rows["RNG health tests"]
    assert f"repetition count cutoff C = {rct_cutoff(8)}" in health
    assert f"window W = 512, cutoff C = {apt_cutoff(8)}" in health and "no failure" in health
    assert rows["RNG reseeding"].startswith("reseed from the entropy source every 1,048,576 "
                                            "generate requests")
    assert "0 reseeds done" in rows["RNG reseeding"]


def test_finding_5_cert_run_report_states_it(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`etg cert run` (seeded bench run: the stream's RNG is a bench seed) writes every
    row, and the inputs the sample report's staleness check reads."""
    from firmware.cli import main

    out = tmp_path / "run"
    assert main(["--set", "table.mode=bench", "cert", "run", "--draws", "1000", "--shoes",
                 "10", "--decks", "1", "--stream-bytes", "2000", "--seed", "00ff",
                 "--dieharder", "none", "--no-progress", "--out", str(out)]) in (0, 1)
    meta = json.loads((out / "results.json").read_text())["metadata"]
    for row in OPERATING:
        assert row in meta, row
    assert meta["RNG entropy source"] == "seed" and "bench seed" in meta["RNG claimed entropy"]
    assert "CAVP" in meta["RNG power-up known-answer tests"]
    assert "passed, 0 failed" in meta["RNG power-up known-answer tests"]
    assert meta[INPUT_RNG] == rng_sources_digest()
    assert "RNG health tests" in (out / "report.md").read_text()
