"""Issue 44's findings on what a lab reads from `etg cert bits`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from rng.cert.nist.bits_run import BitsOptions, run_bits
from rng.cert.nist.second_level import assess_cycle_cap, assess_view
from rng.cert.nist.suite import SuiteParams, columns

sys.path.insert(0, str(Path(__file__).parent))
from test_nist_power import MILLION, lcg_words, word_bits

EXCURSIONS = ("random-excursions", "random-excursions-variant")


def test_finding_6_flagged_by_assess_is_what_assess_flags(tmp_path: Path) -> None:
    """Ten 10^6-bit sequences of a 32-bit LCG's low byte: every walk returns to zero far
    more than 10,000 times, so assess writes no random excursions P-value at all and
    drops the variant's P-values that print as 0.000000. It flags 4 variant columns (so
    166 of the full suite's 188 columns); the columns flagged over every sequence are 26
    (all 188 on bc5b817, named `flagged_by_assess`)."""
    words = lcg_words(1664525, 1013904223, 2 ** 32, 12345, 10 * MILLION // 8)
    path = tmp_path / "lcg.bin"
    np.packbits(word_bits(words, 8)).tofile(path)
    r = run_bits(BitsOptions(str(path), "binary", SuiteParams(MILLION, tests=EXCURSIONS), 10,
                             progress=False))
    assert r.returns is not None and (r.returns > assess_cycle_cap(MILLION)).all()
    assert len(r.verdict.flagged) == 26
    assert [f.split(":")[0] for f in r.assess_flags] == [
        f"RandomExcursionsVariant (x = {x:+d})" for x in (-9, -8, -5, 1)]
    from rng.cert.nist.bits_report import markdown, to_json

    doc = to_json(r)
    assert doc["flagged_by_assess"] == list(r.assess_flags)
    assert len(doc["flagged_over_every_sequence"]) == 26
    assert "NIST's assess flags 4 column(s)" in markdown(r)


def test_finding_6_assess_view_drops_what_assess_drops() -> None:
    params = SuiteParams(MILLION, tests=("frequency", *EXCURSIONS))
    cols = columns(params)
    p = np.full((3, len(cols)), 0.5)
    p[0, :] = 4e-7  # prints as 0.000000
    p[1, :] = 6e-7  # prints as 0.000001
    returns = np.array([5, 5, assess_cycle_cap(MILLION) + 1])
    view = assess_view(cols, p, returns, MILLION)
    for i, c in enumerate(cols):
        if c.key == "frequency":  # assess keeps every value of the other tests
            assert view[:, i].tolist() == p[:, i].tolist()
        elif c.key == "random-excursions":
            assert np.isnan(view[0, i]) and view[1, i] == 6e-7 and np.isnan(view[2, i])
        else:  # the variant: no cap on returns to zero
            assert np.isnan(view[0, i]) and view[1, i] == 6e-7 and view[2, i] == 0.5
    unknown = assess_view(cols, p, None, MILLION)
    assert not np.isnan(unknown[2]).any()


def test_finding_7_cert_bits_names_the_software_and_says_wrote(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The report names the version and the program hash (full SHA-256 over the
    release's files, each in program-files.txt), the last line is `wrote PATH`, and the
    tests a short stream needs left out are named with why."""
    from firmware.cli import main
    from firmware.cli.command_line import _program_files
    from rng.cert.meta import program_hash

    path = tmp_path / "bits.bin"
    path.write_bytes(np.random.default_rng(5).bytes(100_000 // 8))
    out = tmp_path / "out"
    assert main(["cert", "bits", str(path), "--length", "100000"]) == 2  # refused
    capsys.readouterr()
    skip = "universal,serial,random-excursions,random-excursions-variant"
    assert main(["cert", "bits", str(path), "--length", "100000", "--skip", skip,
                 "--out", str(out)]) in (0, 1)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"wrote {out / 'report.md'}")
    files, _ = _program_files()
    digest = program_hash(files)
    doc = json.loads((out / "results.json").read_text())
    assert doc["software"]["program_hash"] == digest and len(digest) == 64
    assert doc["software"]["version"].startswith("etg ")
    assert doc["skipped"] == ["Universal", "RandomExcursions", "RandomExcursionsVariant",
                              "Serial"]
    md = (out / "report.md").read_text()
    assert digest in md and "left out (`--skip`)" in md and "29 columns" in md
    listed = (out / "program-files.txt").read_text().splitlines()
    assert listed == [f"{d}  {name}" for name, d in files]
