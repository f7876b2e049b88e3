"""The claim comes from an assessment: the table's min-entropy for its noise source and
the health tests' cutoffs follow from the file ``etg cert entropy --out`` writes; none
means the documented floor, said out loud; a bad one refuses the source."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from firmware.cli import main
from rng.claim import HWRNG_FLOOR, claim_for, read_assessment
from rng.entropy import open_source
from rng.errors import EntropyError
from rng.health import apt_cutoff, rct_cutoff


@pytest.fixture
def noise(tmp_path: Path) -> Path:
    """200,000 uniform 8-bit samples."""
    f = tmp_path / "noise.bin"
    f.write_bytes(np.random.default_rng(11).integers(0, 256, 200_000, dtype=np.uint8)
                  .tobytes())
    return f


def _assess(noise: Path, out: Path, *extra: str) -> None:
    assert main(["cert", "entropy", str(noise), "--bits-per-symbol", "8", "--out", str(out),
                 "--source", "hwrng", *extra]) == 0


def test_claim_and_cutoffs_follow_from_the_assessment(noise: Path, tmp_path: Path,
                                                      capsys) -> None:
    out = tmp_path / "assessment.json"
    _assess(noise, out, "--json")
    run = json.loads(capsys.readouterr().out)
    h = run["testCases"][-1]["hAssessed"]
    assert 6.5 < h < 8.0  # 8 bits of entropy, the estimators' lower bound a little below
    doc = json.loads(out.read_text())
    assert doc["claim"]["hClaimed"] == h and doc["claim"]["source"] == "hwrng"
    assert doc["assessment"]["sha256"] == doc["claim"]["samplesSha256"]
    c = claim_for("hwrng", str(out))
    assert c.assessed and c.h == h
    assert c.cutoffs() == (rct_cutoff(h), apt_cutoff(h))
    assert str(out) in c.describe() and "NO SP 800-90B" not in c.describe()


def test_the_source_applies_the_claim(noise: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    _assess(noise, out)
    c = claim_for("hwrng", str(out))
    src = open_source("os", claim=c)  # any byte source: the claim sets its tests
    assert src.min_entropy == c.h and src.tests.h == c.h
    assert src.claim == c


def test_no_assessment_is_the_floor_and_says_so() -> None:
    c = claim_for("hwrng", None)
    assert (c.h, c.assessed) == (HWRNG_FLOOR, False)
    assert "NO SP 800-90B assessment" in c.describe()
    assert "RCT 16" in c.describe()  # 1 + ceil(30 / 2)


def test_os_is_full_entropy() -> None:
    assert claim_for("os", None).h == 8.0


def _edit(path: Path, **claim: object) -> None:
    doc = json.loads(path.read_text())
    doc["claim"].update(claim)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(("change", "message"), [
    ({"source": "os"}, "not hwrng"),
    ({"bitsPerSample": 4, "hClaimed": 3.0}, "4-bit samples"),
    ({"hClaimed": 9.0}, "not in (0, 8]"),
    ({"hClaimed": "7"}, "hClaimed missing"),
    ({"hClaimed": 0.1}, "less than"),
    ({"samplesSha256": "x"}, "not a SHA-256"),
    ({"restart": {"passed": False}}, "restart tests failed"),
    ({"hClaimed": 7.99}, "more than its assessment supports"),
    ({"restart": {"passed": True, "h_r": 5.0, "h_c": 7.9}},
     "more than its assessment supports"),
    ({"samplesSha256": "0" * 64}, "other samples"),
])
def test_a_bad_assessment_refuses_the_source(noise: Path, tmp_path: Path,
                                             change: dict, message: str) -> None:
    out = tmp_path / "a.json"
    _assess(noise, out)
    _edit(out, **change)
    with pytest.raises(EntropyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        claim_for("hwrng", str(out))


@pytest.mark.parametrize("content", [b"", b"not json", b"[]", b'{"format": "other"}',
                                     b"{" * 10])
def test_garbage_is_not_an_assessment(tmp_path: Path, content: bytes) -> None:
    f = tmp_path / "a.json"
    f.write_bytes(content)
    with pytest.raises(EntropyError, match="entropy assessment"):
        read_assessment(f)


def test_a_device_is_not_read_whole(tmp_path: Path) -> None:
    with pytest.raises(EntropyError, match="more than an assessment holds"):
        read_assessment(Path("/dev/zero"))


def test_a_missing_assessment_fails_closed(tmp_path: Path) -> None:
    with pytest.raises(EntropyError, match="entropy assessment"):
        claim_for("hwrng", str(tmp_path / "missing.json"))


def test_the_assessment_reaches_open_source(noise: Path, tmp_path: Path,
                                           monkeypatch) -> None:
    out = tmp_path / "a.json"
    _assess(noise, out)
    def fake_device() -> object:
        return lambda n: (bytes(range(256)) * (n // 256 + 1))[:n]

    monkeypatch.setattr("rng.entropy.HwrngNoise", fake_device)
    src = open_source("hwrng", None, claim=claim_for("hwrng", str(out)))
    assert src.claim is not None and src.claim.assessed
    assert src.min_entropy == claim_for("hwrng", str(out)).h
    assert not open_source("hwrng", None).claim.assessed  # no claim given: the floor


def test_finding_gap_the_assessment_reaches_every_process_opening_the_table_rng(
        noise: Path, tmp_path: Path, monkeypatch) -> None:
    """The noticed gap: ``[rng] assessment`` applied only where the process had been
    configured (the table service, ``etg rng selftest``, ``etg cert run``'s main
    process); a lab worker opening the table RNG ran on the floor. The claim now travels
    with the settings into :func:`open_table_rng`, in whatever process opens it (here a
    fresh one, that configured nothing)."""
    out = tmp_path / "a.json"
    _assess(noise, out)
    origin, h = _open_in_a_fresh_process(out)
    assert origin == "assessment"
    assert float(h) == claim_for("hwrng", str(out)).h
    _edit(out, source="os")  # a claim that does not stand refuses the RNG there too
    assert "not hwrng" in _open_in_a_fresh_process(out)[0]


_FRESH = """
import sys
import rng.entropy
from rng import RngUnavailable, open_table_rng
from rng.settings import RngSettings

rng.entropy.HwrngNoise = lambda: (lambda n: (bytes(range(256)) * (n // 256 + 1))[:n])
try:
    t = open_table_rng(RngSettings(entropy="hwrng", cycle_hz=0.0, assessment=sys.argv[1]),
                       bench=False)
except RngUnavailable as exc:
    print(str(exc).replace(chr(10), " "), 0.0, sep=chr(10))
else:
    src = t._drbg.source
    print(src.claim.origin, repr(src.min_entropy), sep=chr(10))
    t.close()
"""


def _open_in_a_fresh_process(assessment: Path) -> list[str]:
    """The table RNG opened in a new interpreter that configured nothing else: what
    claim (origin, min-entropy) its source runs on, or why it refused."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _FRESH, str(assessment)], capture_output=True,
                       text=True, timeout=120, check=True)
    return r.stdout.splitlines()


def test_restart_tests_join_the_assessment(tmp_path: Path, capsys,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The restart tests run with H_I = the file's claim, and the claim becomes
    min(H_I, H_r, H_c); a failed restart test makes the claim unusable. (The rows' and
    columns' IID permutation tests are informative and take minutes on 10^6 samples:
    cut to no shuffle here; test_restart.py checks them.)"""
    from rng.cert.sp80090b import restart_iid

    real = restart_iid.run
    monkeypatch.setattr(restart_iid, "run", lambda *a, **k: real(*a, **{**k, "limit": 0}))
    rng = np.random.default_rng(12)
    seq = tmp_path / "seq.bin"
    seq.write_bytes(rng.integers(0, 256, 200_000, dtype=np.uint8).tobytes())
    out = tmp_path / "a.json"
    _assess(seq, out)
    h = json.loads(out.read_text())["claim"]["hClaimed"]
    good = tmp_path / "restarts.bin"
    good.write_bytes(rng.integers(0, 256, 1_000_000, dtype=np.uint8).tobytes())
    assert main(["cert", "entropy", "--restart", str(good), "--bits-per-symbol", "8",
                 "--out", str(out), "--iid"]) == 0
    c = json.loads(out.read_text())["claim"]
    assert c["restart"]["passed"] and c["restart"]["h_i"] == h
    assert c["hClaimed"] == min(h, c["restart"]["h_r"], c["restart"]["h_c"])
    assert claim_for("hwrng", str(out)).h == c["hClaimed"]
    stuck = tmp_path / "stuck.bin"
    m = rng.integers(0, 256, (1000, 1000), dtype=np.uint8)
    m[:, 0] = 7  # every restart begins with the same sample
    stuck.write_bytes(m.tobytes())
    out2 = tmp_path / "b.json"
    _assess(seq, out2)
    assert main(["cert", "entropy", "--restart", str(stuck), "--bits-per-symbol", "8",
                 "--out", str(out2), "--iid"]) == 1
    with pytest.raises(EntropyError, match="restart tests failed"):
        claim_for("hwrng", str(out2))


def test_no_iid_claim_from_data_that_are_not_iid(tmp_path: Path, capsys) -> None:
    """rand8_short fails the chi-square tests: the report is printed, exit 1, no file."""
    from tests.cert.sp80090b.reference import DATA

    out = tmp_path / "a.json"
    assert main(["cert", "entropy", str(DATA / "rand8_short.bin"), "--iid", "--out",
                 str(out), "--source", "hwrng"]) == 1
    assert "not written" in capsys.readouterr().out and not out.exists()


def test_out_needs_a_source(noise: Path, tmp_path: Path, capsys) -> None:
    assert main(["cert", "entropy", str(noise), "--out", str(tmp_path / "a.json")]) == 2
    assert "--source" in capsys.readouterr().err


def test_the_conditioning_kat_runs_at_power_up(monkeypatch) -> None:
    from rng import selftest

    names = [c.name for c in selftest.power_up_selftest("ctr-drbg", 1)]
    assert "conditioning known-answer tests" in names
    monkeypatch.setattr("rng.entropy.CONDITIONING_KEY", b"another key")
    bad = [c for c in selftest.power_up_selftest("ctr-drbg", 1)
           if c.name == "conditioning known-answer tests"]
    assert bad and not bad[0].ok and "1 failed" in bad[0].detail


def test_the_table_says_so_at_start(monkeypatch, caplog, tmp_path: Path, noise: Path) -> None:
    """Power-up with /dev/hwrng and no assessment: the log warns and the journal's RNG
    self-test event carries the floor claim; with an assessment, its claim instead."""
    import logging
    from types import SimpleNamespace

    from firmware.table.service import run
    from rng.settings import RngSettings

    def fake_device() -> object:
        return lambda n: (bytes(range(256)) * (n // 256 + 1))[:n]

    monkeypatch.setattr("rng.entropy.HwrngNoise", fake_device)
    events: list[tuple[int, dict]] = []

    class Journal:
        def append_one(self, kind: str, payload: dict, code: int) -> None:
            events.append((code, payload))

    caplog.set_level(logging.INFO)
    cfg = SimpleNamespace(rng=RngSettings(entropy="hwrng", cycle_hz=0.0), bench=False)
    table_rng, failure = run._open_rng(cfg, Journal())
    assert failure is None
    table_rng.close()
    assert "NO SP 800-90B assessment" in events[-1][1]["entropy_claim"]
    assert any(r.levelno == logging.WARNING and "NO SP 800-90B" in r.getMessage()
               for r in caplog.records)
    out = tmp_path / "a.json"
    _assess(noise, out)
    cfg = SimpleNamespace(rng=RngSettings(entropy="hwrng", cycle_hz=0.0,
                                          assessment=str(out)), bench=False)
    table_rng, failure = run._open_rng(cfg, Journal())
    assert failure is None
    table_rng.close()
    assert str(out) in events[-1][1]["entropy_claim"]
    _edit(out, source="os")  # a claim that does not stand: the RNG does not open
    table_rng, failure = run._open_rng(cfg, Journal())
    assert table_rng is None and failure is not None and "not hwrng" in failure
