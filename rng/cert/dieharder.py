"""The lab's own battery: ``dieharder`` on the live DRBG stream, when it is installed.

dieharder reads raw bytes on stdin with ``-g 200``; a writer thread feeds it DRBG output
until dieharder closes the pipe, so no test ever sees a rewound file. Its result lines
(``name|ntup|tsamples|psamples|p-value|assessment``) are kept verbatim for the report.
They are listed next to, not inside, the Holm family: dieharder judges its own p-values
(PASSED / WEAK / FAILED at its own thresholds), and several of its tests are known to be
conservative or ill-calibrated at default sizes (see its ``-h`` notes).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: A quick default: birthdays, 32x32 and 6x8 rank, bit-level STS monobit/runs/serial.
QUICK_TESTS: tuple[int, ...] = (0, 2, 3, 100, 101, 102)
WRITE = 1 << 16


@dataclass(frozen=True)
class DieharderLine:
    test: str
    ntup: str
    p_value: float
    assessment: str
    raw: str


def available(exe: str = "dieharder") -> str | None:
    return shutil.which(exe)


def parse(output: str) -> list[DieharderLine]:
    """Result lines of dieharder's table output."""
    out = []
    for line in output.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 6:
            continue
        try:
            p = float(parts[4])
        except ValueError:
            continue  # the header line
        out.append(DieharderLine(parts[0], parts[1], p, parts[5], line.rstrip()))
    return out


def run(read: Callable[[int], bytes], tests: Sequence[int] | None, exe: str,
        timeout_s: float = 3600.0) -> tuple[list[DieharderLine], str]:
    """Run dieharder on DRBG output (``tests`` None: ``-a``); return lines and a note."""
    results: list[DieharderLine] = []
    t0 = time.monotonic()
    args_list = [["-a"]] if tests is None else [["-d", str(t)] for t in tests]
    for extra in args_list:
        cmd = [exe, "-g", "200", *extra]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        stdin = proc.stdin
        assert stdin is not None

        def pump(pipe: object = stdin) -> None:
            try:
                while True:
                    pipe.write(read(WRITE))  # type: ignore[attr-defined]
            except (BrokenPipeError, OSError, ValueError):
                pass

        writer = threading.Thread(target=pump, daemon=True)
        writer.start()
        left = max(1.0, timeout_s - (time.monotonic() - t0))
        killer = threading.Timer(left, proc.kill)
        killer.start()
        try:
            assert proc.stdout is not None
            out = proc.stdout.read()
            proc.wait()
        finally:
            killer.cancel()
            with contextlib.suppress(OSError):
                stdin.close()
        if proc.returncode and proc.returncode < 0:
            results.extend(parse(out.decode("utf-8", "replace")))
            return results, f"dieharder stopped after {timeout_s:.0f} s (timeout)"
        writer.join(timeout=5)
        results.extend(parse(out.decode("utf-8", "replace")))
    took = time.monotonic() - t0
    note = f"`{' '.join([exe, '-g', '200'])}` on the live DRBG stream, " + (
        "all tests (-a)" if tests is None else "tests " + ", ".join(f"-d {t}" for t in tests)
    ) + f"; {len(results)} result lines in {took:.0f} s."
    return results, note
