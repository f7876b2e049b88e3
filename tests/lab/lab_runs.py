"""What the lab's cluster tests share: cert runs, and progress displays that kill a worker
or interrupt the run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from firmware.cli import command_context
from firmware.config import default_config_path, load_config
from rng.cert.run import RunOptions, certification_run


class KillOneWorker:
    """A progress display that kills a busy worker once a task is done: at the first
    task result that finds one busy (tiny tasks may all be done by the first)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.killed: str | None = None
        self.units = 0

    def update(self, n: int) -> None:
        self.units += n
        busy = [w for w, keys in self.client.processing().items() if keys]
        if self.killed is None and busy:
            pids = self.client.run(os.getpid, workers=busy[:1])
            self.killed = busy[0]
            os.kill(pids[busy[0]], signal.SIGKILL)

    def set_description(self, _text: str) -> None:
        pass

    def close(self) -> None:
        pass


class StopAfter:
    """A progress display that interrupts the run after ``n`` finished tasks."""

    def __init__(self, n: int) -> None:
        self.left = n

    def update(self, _n: int) -> None:
        self.left -= 1
        if self.left < 0:
            raise KeyboardInterrupt

    set_description = KillOneWorker.set_description
    close = KillOneWorker.close


def cert_run(out: Path, **kw: Any) -> dict[str, Any]:
    cfg = load_config(default_config_path(), ["table.mode=bench", "table.variant=bingo"])
    given = {"task_draws": 2000, **{k: v for k, v in kw.items() if k != "progress"}}
    opts = RunOptions(draws=24_000, out=out, stream_bytes=4096, shoes=48, decks=1,
                      seed_hex="2323", run_dieharder=False, progress=False, scaling="batch",
                      **given)
    certification_run(cfg, opts, command_context(), progress=kw.get("progress"))
    return json.loads((out / "results.json").read_text())


def stats(results: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(t["subject"], t["test"], t["statistic"], t["p_value"]) for t in results["tests"]]
