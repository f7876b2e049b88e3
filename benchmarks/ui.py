"""`make bench` figures for the UI: frame times at 1920x1080, seven seats mid-round.

Method: the engine plays the Bingo Blackjack sample scenario (seven seats, splits,
doubles, a forced Bingo draw) and every public view of the round is recorded (by the
bench's :func:`firmware.bench.screen_views.recorded_round`, see :func:`ui_speed`). The
renderer then draws a 60 frames-per-second stream on a 1920x1080 display surface (SDL
dummy driver, so no GPU or compositor is measured): a new view every 6th frame (ten
table events a second, faster than any dealer), the Bingo reveal animation running when
the draw arrives, ``pygame.display.update`` given the dirty rectangles. A frame's time
is render + update; frames with nothing new cost almost nothing, so the frames that did
redraw something are reported on their own too. Also measured: the worst case of a new
view on every frame, and a full redraw (the first frame after a screen change; the very
first one also fills the card and text caches). The machine is shared, so the CPU time
of the UI thread is given beside the wall-clock figures.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

from etgcore.view import PublicView


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def ui_benchmark(views: list[PublicView], frames: int = 1200) -> Iterator[str]:
    """Frame times drawing ``views`` (one recorded Bingo round); lines for ``make bench``."""
    from ui.snapshot import headless

    headless()
    import pygame

    from ui.layout_source import layout_for_rules, rules_for
    from ui.renderer import Renderer
    from ui.state import ScreenState

    size = (1920, 1080)
    variant = "bingo"
    rules = rules_for(variant)
    layout = layout_for_rules(rules, "Benchmark Casino")
    mid = [v for v in views if v.get("phase") in ("rng", "dealing", "decisions", "dealer")]
    seats = len(mid[-1]["seats"])
    surf = pygame.display.set_mode(size)
    renderer = Renderer(size, layout)
    state = ScreenState()

    cpu: list[float] = []

    def frame(view: object, t: float) -> float:
        c0 = time.thread_time()
        t0 = time.perf_counter()
        dirty = renderer.render(surf, view, state, t)  # type: ignore[arg-type]
        if dirty:
            pygame.display.update(dirty)
        wall = time.perf_counter() - t0
        cpu.append(time.thread_time() - c0)
        return wall

    cold = frame(mid[0], 0.0)
    full: list[float] = []
    for i in range(20):
        renderer.invalidate()
        full.append(frame(mid[i % len(mid)], 0.0))
    times: list[float] = []
    cpu.clear()
    changed: list[float] = []
    t = 0.0
    for i in range(frames):
        view = mid[(i // 6) % len(mid)]
        times.append(frame(view, t))
        if i % 6 == 0:
            changed.append(times[-1])
        t += 1 / 60
    stream_cpu = list(cpu)
    every: list[float] = []
    for i in range(300):
        every.append(frame(mid[i % len(mid)], t))
        t += 1 / 60
    ms = 1000.0
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            load = fh.read().split()[0]
    except OSError:
        load = "?"
    yield ("measured: frame time (render + display.update of dirty rects), 1920x1080, "
           f"{seats} seats mid-round, SDL video driver {pygame.display.get_driver()}, "
           f"machine load average {load} (wall-clock tails grow with it)")
    yield ("stream: new public view every 6th frame (10 events/s), "
           f"{frames} frames from {len(mid)} recorded views of the Bingo Blackjack sample round")
    yield (f"  median {statistics.median(times) * ms:.3f} ms   p99 "
           f"{_percentile(times, 0.99) * ms:.3f} ms   max {max(times) * ms:.3f} ms   "
           "(target: median < 4 ms)")
    yield (f"  same stream in CPU time of the UI thread (less sensitive to other load): "
           f"median {statistics.median(stream_cpu) * ms:.3f} ms   "
           f"p99 {_percentile(stream_cpu, 0.99) * ms:.3f} ms")
    yield (f"  frames with a new view: median {statistics.median(changed) * ms:.3f} ms   "
           f"p99 {_percentile(changed, 0.99) * ms:.3f} ms")
    yield (f"new view every frame: median {statistics.median(every) * ms:.3f} ms   p99 "
           f"{_percentile(every, 0.99) * ms:.3f} ms")
    yield (f"full redraw (screen change, caches warm): median "
           f"{statistics.median(full) * ms:.3f} ms   max {max(full) * ms:.3f} ms; "
           f"very first frame (caches cold) {cold * ms:.1f} ms")
    yield "rerun: python -m benchmarks ui"


def ui_speed() -> Iterator[str]:
    """``make bench`` ui: the frame times above on the Bingo sample round."""
    from firmware.bench.screen_views import recorded_round
    from ui.readme_snapshots import scenario_for

    return ui_benchmark(recorded_round(str(scenario_for("bingo"))))
