"""Shell completion generated from the parser (bash, zsh), and the progress line with
the time left that long commands print on stderr."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from etgcore.progress import Progress, duration

REPO = Path(__file__).resolve().parents[1]


def _script(shell: str) -> str:
    out = subprocess.run([sys.executable, "-m", "firmware", "completion", shell],
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _complete(script: str, words: list[str]) -> list[str]:
    """What bash offers after ``words`` (the last one is being typed)."""
    quoted = " ".join(f"'{w}'" for w in words)
    probe = f'{script}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _etg; ' \
            'printf "%s\\n" "${COMPREPLY[@]}"'
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not out.stderr, out.stderr
    return out.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_commands_options_and_choices_from_the_parser() -> None:
    s = _script("bash")
    assert _complete(s, ["etg", "rng", "dr"]) == ["draws"]
    assert _complete(s, ["etg", "rng", "draws", "--wh"]) == ["--what"]
    assert _complete(s, ["etg", "rng", "draws", "--what", ""]) == [
        "target", "multiplier", "card", "shuffle"]
    assert "spanish21" in _complete(s, ["etg", "par", "--variant", ""])
    assert "completion" in _complete(s, ["etg", ""])
    seeds = _complete(s, ["etg", "rng", "draws", "--se"])
    assert "--seed" in seeds and "--seed-hex" not in seeds  # old spellings stay hidden


def test_zsh_script_loads_the_same_function_through_bashcompinit() -> None:
    s = _script("zsh")
    assert "bashcompinit" in s and "complete -o default -F _etg etg" in s
    if shutil.which("zsh"):
        out = subprocess.run(["zsh", "-f", "-c", s], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr


def test_progress_says_how_far_and_how_long_is_left() -> None:
    now = [0.0]
    buf = io.StringIO()
    p = Progress(1000, "shoes", "rng draws", stream=buf, clock=lambda: now[0], tty=True)
    now[0] = 10.0
    p.advance(250)
    text = buf.getvalue()
    assert "rng draws: 250/1,000 shoes (25%)" in text
    assert "10 s elapsed" in text and "about 30 s left" in text
    p.close()
    assert buf.getvalue().endswith("\r\x1b[K")


def test_progress_in_a_log_is_a_plain_line_every_few_seconds() -> None:
    now = [0.0]
    buf = io.StringIO()
    p = Progress(100, "rounds", stream=buf, clock=lambda: now[0], tty=False)
    for _ in range(10):
        now[0] += 1.0
        p.advance(1)
    lines = buf.getvalue().splitlines()
    # the first round at once, then one line per LOG_EVERY_S (5 s): at 1 s and 6 s
    assert len(lines) == 2 and all("\r" not in x for x in lines)
    assert lines[0].startswith("1/100 rounds (1%), 1 s elapsed, about 1 min 39 s left")
    assert "rounds" in lines[-1] and "left" in lines[-1]
    p.close()  # the last line: all that was done, in how long
    assert buf.getvalue().splitlines()[-1] == (
        "10/100 rounds (10%), 10 s elapsed, about 1 min 30 s left")


def test_progress_keeps_result_lines_above_the_terminal_line() -> None:
    err, out = io.StringIO(), io.StringIO()
    p = Progress(2, "scenarios", stream=err, clock=lambda: 0.0, tty=True)
    p.advance()
    p.print("PASS a.toml: first", stream=out)
    assert out.getvalue() == "PASS a.toml: first\n"
    assert err.getvalue().count("\r\x1b[K") == 1 and err.getvalue().endswith("\x1b[K")


def test_progress_resumed_counts_the_rate_of_this_run_only() -> None:
    now = [0.0]
    buf = io.StringIO()
    p = Progress(100, "rounds", stream=buf, clock=lambda: now[0], tty=True, initial=50)
    now[0] = 10.0
    p.update(10)  # 10 rounds in 10 s: the 40 left take about 40 s
    assert "60/100 rounds (60%)" in buf.getvalue() and "about 40 s left" in buf.getvalue()


def test_progress_ended_by_an_exception_writes_no_last_line() -> None:
    buf = io.StringIO()
    with pytest.raises(KeyboardInterrupt), Progress(5, "x", stream=buf, tty=False) as p:
        p.advance()
        raise KeyboardInterrupt
    assert len(buf.getvalue().splitlines()) == 1  # the first unit's line, no "done" line


def test_progress_off_writes_nothing_and_durations_read_well() -> None:
    buf = io.StringIO()
    p = Progress(10, "x", stream=buf, enabled=False)
    p.advance(5)
    p.close()
    assert buf.getvalue() == ""
    assert (duration(5), duration(75), duration(3 * 3600 + 120)) == (
        "5 s", "1 min 15 s", "3 h 02 min")


def test_rng_draws_progress_reaches_stderr_when_forced(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "rng", "draws", "--what", "shuffle", "--draws",
         "3000", "--decks", "8", "--seed", "01", "--out", str(tmp_path / "s.csv"),
         "--progress"], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert len((tmp_path / "s.csv").read_text().splitlines()) == 3000
    lines = out.stderr.splitlines()
    assert lines and "Traceback" not in out.stderr
    for line in lines:
        assert line.startswith("rng draws") and "shoes" in line and "elapsed" in line, line
    assert "3,000/3,000 shoes (100%)" in lines[-1]  # the last line: all done
