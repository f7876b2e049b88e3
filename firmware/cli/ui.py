"""`etg ui`: headless snapshots of the table, and a window cycling through its states.

``etg ui snapshot`` renders one state to PNG without a display; ``etg ui readme`` renders
the README's snapshot of every variation's layout; ``etg ui demo`` opens a window that
plays sample rounds through the real engine (keys: space next, Esc quit).

The command composes: the bench plays the scenarios (:mod:`firmware.bench.screen_views`)
and :mod:`ui` draws the views, so the UI package never reaches into the bench.
"""

from __future__ import annotations

import argparse
from typing import Any

from etgcore.cli_context import context

SNAPSHOT_SCREENS = ("auto", "table", "attract", "betting", "tilt", "void", "recall", "failure")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    from etgcore.options import add_out
    from firmware.cli.variant import add_variant

    p = sub.add_parser("ui", help="table display: headless snapshots, demo window",
                       description="The table display without a table: `etg ui snapshot` "
                       "renders one state to PNG without a display, `etg ui readme` renders "
                       "the README's picture of every variation's layout, `etg ui demo` opens "
                       "a window playing sample rounds through the real engine (space: next, "
                       "Esc: quit).", parents=[common])
    usub = p.add_subparsers(dest="ui_command", metavar="ACTION")
    usub.required = True
    snap = usub.add_parser(
        "snapshot", parents=[common], help="render a table state to PNG without a display",
        description="Render the layout of a variation, or a bench scenario's first round "
                    "after K cards (engine, bench mode), to a PNG file, without a display.")
    add_variant(snap, "the game (default: the scenario's, else table.variant of the "
                "configuration)")
    snap.add_argument("--scenario", metavar="FILE", help="bench scenario (TOML) to play")
    snap.add_argument("--after-card", metavar="K", type=int,
                      help="stop after K cards of the first round (default: the whole round)")
    snap.add_argument("--screen", choices=SNAPSHOT_SCREENS, default="auto",
                      help="screen to draw (default: the one the state calls for)")
    snap.add_argument("--countdown", metavar="S", type=float, default=15.0,
                      help="betting screen: seconds left (default 15)")
    snap.add_argument("--size", metavar="WxH", default="1920x1080",
                      help="pixels, e.g. 1920x1080, 1280x720, 800x480 (default 1920x1080)")
    snap.add_argument("--out", metavar="FILE.png", required=True, help="PNG file to write")
    snap.set_defaults(func=_snapshot)
    readme = usub.add_parser(
        "readme", parents=[common], help="render the README snapshots (one per variation)",
        description="Render docs/snapshots/<variant>.png: each variation's layout mid-round, "
                    "from the scenarios shipped in ui/scenarios/.")
    add_out(readme, "directory to write the PNGs to (default docs/snapshots)",
            default="docs/snapshots", aliases=("--out-dir",))
    readme.add_argument("--size", metavar="WxH", default="1920x1080",
                        help="pixels of each picture (default 1920x1080, as the README shows)")
    readme.set_defaults(func=_readme)
    demo = usub.add_parser(
        "demo", parents=[common], help="open a window cycling through the table's states",
        description="A window showing sample rounds played through the engine, screen by "
                    "screen. Space: next state; Esc: quit. Uses display.width/height.")
    add_variant(demo, "the game (default: table.variant)")
    demo.add_argument("--seconds", type=float, default=2.5, help="seconds per state")
    demo.add_argument("--frames", type=int, default=0,
                      help="stop after this many frames (0: run until closed)")
    demo.set_defaults(func=_demo)


def _size(text: str) -> tuple[int, int]:
    from etgcore.errors import UserError
    from ui.units import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise UserError(f"--size: {exc}") from None


def _snapshot(args: argparse.Namespace) -> int:
    from etgcore.errors import UserError
    from firmware.bench.screen_views import scenario_view
    from ui.layout_source import layout_for_rules, rules_for
    from ui.snapshot import empty_table_view, render_png, screen_state

    cfg = context(args).load_config(args)
    size = _size(args.size)
    if args.after_card is not None and not args.scenario:
        raise UserError("--after-card needs --scenario (the cards come from a scenario)")
    if args.after_card is not None and args.after_card < 0:
        raise UserError(f"--after-card must be 0 or more, got {args.after_card}")
    if args.scenario:
        if not cfg.bench:
            raise UserError("--scenario is a bench power: the configuration is in production "
                            "mode (set table.mode = \"bench\")")
        view, rules = scenario_view(args.scenario, args.after_card)
        if args.variant and args.variant != view.get("variant"):
            raise UserError(f"--variant {args.variant}: the scenario {args.scenario} is "
                            f"{view.get('variant')}")
    else:
        variant = args.variant or cfg.table.variant
        rules = rules_for(variant, cfg.rules, cfg.source)
        view = empty_table_view(rules, min(cfg.table.seats, rules.max_seats),
                                tilt=args.screen == "tilt")
    layout = layout_for_rules(rules, cfg.table.certificate_holder)
    state = screen_state(args.screen, view, args.countdown)
    render_png(view, layout, state, size, args.out)
    print(f"wrote {args.out} ({size[0]}x{size[1]}, {view.get('variant')}, "
          f"round phase {view.get('phase')}, screen {args.screen})")
    return 0


def _readme(args: argparse.Namespace) -> int:
    from firmware.bench.screen_views import scenario_view
    from ui.readme_snapshots import write_readme_snapshots

    cfg = context(args).load_config(args)
    from etgcore.errors import output_dir

    output_dir(args.out)
    for line in write_readme_snapshots(args.out, _size(args.size),
                                       cfg.table.certificate_holder, scenario_view):
        print(line)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from firmware.bench.screen_views import recorded_round
    from ui.demo import run_demo
    from ui.readme_snapshots import scenario_for

    cfg = context(args).load_config(args)
    variant = args.variant or cfg.table.variant
    path = scenario_for(variant)
    views = recorded_round(str(path)) if path.exists() else []
    return run_demo(cfg, variant, views, args.seconds, args.frames)
