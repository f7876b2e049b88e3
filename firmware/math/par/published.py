"""The documents that restate data, kept current: the shipped PAR sheets and the settings
table of docs/rules.md.

Why: a document that copies data (a figure, a setting's default) goes stale without a
test noticing, and a lab or a technician reads the stale one. So each is either checked
against what it restates or written by one command from it:

- ``docs/par/par-<variant>.*`` names the Rules Submission and the math sources it was
  computed from (their SHA-256, in its document control); :func:`stale_sheets` compares
  those with the current files, and ``make par`` (``python -m firmware.math.par.published
  par``) writes every sheet again.
- docs/rules.md holds the table of every setting of every Rules Submission (default,
  allowed values, how the PAR sheet treats it) between two marker lines;
  :func:`settings_table` writes it from the files and the math's declarations, and
  ``make rules-doc`` puts it in the document.

tests/math/test_math_docs_current.py fails on a stale sheet or table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
SHEETS = ROOT / "docs" / "par"
RULES_DOC = ROOT / "docs" / "rules.md"
BEGIN = "<!-- settings table: written by `make rules-doc` from firmware/rules/*.toml -->"
END = "<!-- end of the settings table -->"


def stale_sheets(directory: Path = SHEETS) -> list[str]:
    """One line per shipped sheet that is missing or was computed from other rules or
    other math sources than the current ones ([] when every sheet is current)."""
    from firmware.engine.rules import VARIANTS
    from firmware.math.cache import source_sha256
    from firmware.math.par.configurations import rules_digest

    out = []
    math = source_sha256()
    for variant in VARIANTS:
        path = directory / f"par-{variant}.json"
        if not path.exists():
            out.append(f"{path}: missing")
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))["document"]
        if not str(doc.get("rules_submission", "")).endswith(rules_digest(variant)):
            out.append(f"{path}: computed from another firmware/rules/{variant}.toml")
        if not str(doc.get("software", "")).endswith(math):
            out.append(f"{path}: computed by other firmware/math sources")
    return out


def write_sheets(directory: Path = SHEETS) -> None:
    """Every variant's PAR sheet into ``directory``, each by the command the sheet names
    to reproduce it (``etg par --variant V --out DIR``) in a process of its own: the
    figures are then those a lab gets from that command to the last digit (in one
    process the caches a first game fills batch a later game's dealer laws differently,
    which moves a float's last digit)."""
    import subprocess

    from firmware.engine.rules import VARIANTS

    for variant in VARIANTS:
        print(f"par {variant} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "firmware.cli", "par", "--variant", variant,
                        "--out", str(directory), "--no-progress"], check=True)


def _cell(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if x is None:
        return "none"
    if isinstance(x, list | tuple):
        return ", ".join(_cell(i) for i in x)
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {_cell(v)}" for k, v in x.items()) + "}"
    return str(x)


def _allowed(spec: Any) -> str:
    if spec.allowed is not None:
        return _cell(list(spec.allowed))
    if spec.lo is not None or spec.hi is not None:
        return f"{_cell(spec.lo)}..{_cell(spec.hi)}"
    return "true, false" if spec.type == "bool" else spec.type


def _par(entry: Any, variant: str, name: str) -> str:
    from firmware.math.par.configurations import axis_values
    from firmware.math.rule_table import NotPriced

    if isinstance(entry, NotPriced):
        return f"not priced: {entry.reason}"
    if entry.axis is not None and len(axis_values(variant, name)) > 1:
        return "priced, every allowed value a configuration of the sheet"
    return "priced"


def settings_table() -> str:
    """The Markdown table of every setting of every Rules Submission: one row per
    (setting, game), with its default, allowed values, meaning and PAR treatment."""
    from firmware.engine.rules import VARIANTS, read_rules_file
    from firmware.math.ruleset import known_keys

    rows = ["| setting | game | default | allowed | what it is | PAR sheet |",
            "|---|---|---|---|---|---|"]
    for variant in VARIANTS:
        rf = read_rules_file(variant)
        known = known_keys(rf.game["mechanisms"])
        for name, spec in rf.specs.items():
            doc = spec.doc.replace("|", "/")
            rows.append(f"| `{name}` | {variant} | {_cell(spec.default)} | {_allowed(spec)} "
                        f"| {doc} | {_par(known[name], variant, name)} |")
    return "\n".join(rows)


def rules_doc_section(text: str) -> str:
    """The settings table as docs/rules.md holds it now ('' without the markers)."""
    if BEGIN not in text or END not in text:
        return ""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def write_rules_doc(path: Path = RULES_DOC) -> None:
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no settings table markers ({BEGIN!r})")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(f"{head}{BEGIN}\n{settings_table()}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m firmware.math.par.published",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("par", "rules-doc", "check"))
    args = p.parse_args(argv)
    if args.what == "par":
        write_sheets()
    elif args.what == "rules-doc":
        write_rules_doc()
    else:
        problems = stale_sheets()
        if rules_doc_section(RULES_DOC.read_text(encoding="utf-8")) != settings_table():
            problems.append(f"{RULES_DOC}: the settings table is stale (make rules-doc)")
        print("\n".join(problems) or "every published document is current")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
