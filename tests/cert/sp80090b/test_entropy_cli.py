"""``etg cert entropy``: the report, the reference's JSON layout, bad input one line exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from firmware.cli import main
from tests.cert.sp80090b.reference import DATA


def _shape(doc: object) -> object:
    """The document's structure: its keys and their nesting, values left out."""
    if isinstance(doc, dict):
        return {k: _shape(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_shape(v) for v in doc]
    return type(doc).__name__


def test_json_has_the_references_structure_and_field_names(capsys: pytest.CaptureFixture
                                                           ) -> None:
    """The reference's own ``ea_non_iid -o`` document on the same file (made with NIST's
    tool 1.1.7) and ours: the same keys at every level, every estimate equal to 1e-9."""
    f = DATA / "rand8_short.bin"
    assert main(["cert", "entropy", str(f), "--bits-per-symbol", "8", "--json"]) == 0
    ours = json.loads(capsys.readouterr().out)
    ref = json.loads((DATA / "rand8_short.noniid.json").read_text())
    assert _shape(ours) == _shape(ref)
    assert ours["sha256"] == ref["sha256"]
    for a, b in zip(ours["testCases"], ref["testCases"], strict=True):
        assert a["testCaseDesc"] == b["testCaseDesc"]
        for key, value in b.items():
            if isinstance(value, float):
                assert a[key] == pytest.approx(value, rel=1e-9), (a["testCaseDesc"], key)


def test_text_report_names_every_estimate(capsys: pytest.CaptureFixture) -> None:
    assert main(["cert", "entropy", str(DATA / "rand1_short.bin")]) == 0
    out = capsys.readouterr().out
    assert "10000 samples" in out and "1-bit" in out  # the width detected
    assert "Literal   LZ78Y Prediction Estimate" in out
    assert "Assessed min-entropy: " in out


def _write(tmp_path: Path, data: bytes) -> str:
    f = tmp_path / "s.bin"
    f.write_bytes(data)
    return str(f)


@pytest.mark.parametrize(("make", "argv", "message"), [
    (lambda: b"", [], "empty"),
    (lambda: bytes(100), [], "too short"),
    (lambda: bytes(np.arange(10_000) % 256 // 1), ["--bits-per-symbol", "4"],
     "wider than 4 bits"),
    (lambda: bytes(10_000), [], "one symbol"),
    (lambda: bytes(10_000), ["--bits-per-symbol", "9"], "expected 1 to 8"),
    (lambda: bytes(10_000), ["--bits-per-symbol", "0"], "expected 1 to 8"),
    (lambda: bytes(10_000), ["--h-initial", "1"], "--restart only"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture,
                                          make, argv: list[str], message: str) -> None:
    f = _write(tmp_path, make())
    assert main(["cert", "entropy", f, *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and message in err[0], captured.err
    assert "Traceback" not in captured.err


def test_missing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["cert", "entropy", str(tmp_path / "nothing.bin")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_many_files_on_the_lab_cluster_equal_one_by_one(capsys: pytest.CaptureFixture
                                                        ) -> None:
    """Several files on the embedded Dask cluster (2 workers): each file's document, in
    the order given, equal to its own single-file run."""
    files = [str(DATA / f"{n}.bin") for n in ("rand1_short", "rand4_short", "rand8_short")]
    assert main(["cert", "entropy", *files, "--jobs", "2", "--json"]) == 0
    many = json.loads(capsys.readouterr().out)
    assert [d["filename"] for d in many] == files
    for f, doc in zip(files, many, strict=True):
        assert main(["cert", "entropy", f, "--json"]) == 0
        one = json.loads(capsys.readouterr().out)
        assert doc["testCases"] == one["testCases"] and doc["sha256"] == one["sha256"]


def test_one_bad_file_among_many_stops_before_any_work(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "empty.bin"
    bad.write_bytes(b"")
    assert main(["cert", "entropy", str(DATA / "rand1_short.bin"), str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "empty" in captured.err
