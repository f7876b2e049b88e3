"""The table configuration: one TOML file, typed, immutable and validated.

Each package owns the settings of what it configures (:mod:`drivers.shoe.settings`,
:mod:`drivers.panel.settings`, :mod:`rng.settings`, :mod:`ui.settings`); this module only
assembles them into :class:`TableConfig`, adds the table's own sections, and runs the
checks that need more than one section (:data:`CHECKS`, an explicit list). The schema
machinery (types, ranges, one-line messages naming file and key) is :mod:`etgcore.config_schema`.
``--set key=value`` overrides go through the same checks, reported as coming from the
command line.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.panel.pinmap import check_pin_map
from drivers.panel.settings import PanelSettings
from drivers.sas.codes import MAX_FOUR_BYTE
from drivers.sas.settings import SasSettings, check_sas, enabled
from drivers.shoe.settings import ShoeSettings
from etgcore import config_schema as schema
from etgcore.config_schema import doc
from etgcore.errors import ConfigError
from firmware.engine.config_check import check_rules_config
from firmware.floor.settings import FloorSettings
from firmware.journal.settings import JournalSettings
from firmware.table.settings import TableSettings
from rng.settings import RngSettings, check_seed
from ui.settings import DisplaySettings


@dataclass(frozen=True)
class TableConfig:
    table: TableSettings = field(default_factory=TableSettings)
    shoe: ShoeSettings = field(default_factory=ShoeSettings)
    panel: PanelSettings = field(default_factory=PanelSettings)
    display: DisplaySettings = field(default_factory=DisplaySettings)
    journal: JournalSettings = field(default_factory=JournalSettings)
    rng: RngSettings = field(default_factory=RngSettings)
    floor: FloorSettings = field(default_factory=FloorSettings)
    sas: SasSettings = field(default_factory=SasSettings)
    rules: Mapping[str, Any] = field(
        default_factory=lambda: types.MappingProxyType({}),
        metadata=doc("Rules Submission overrides, named as in docs/rules.md"),
    )
    source: str = field(default="<defaults>", compare=False, metadata=schema.INTERNAL)

    @property
    def bench(self) -> bool:
        return self.table.mode == "bench"


def _check_seed(cfg: TableConfig) -> None:
    """A fixed RNG seed is a bench power; and it must be hexadecimal."""
    if cfg.table.mode == "production" and cfg.rng.seed_hex:
        raise ConfigError(
            cfg.source,
            "rng.seed_hex",
            "a fixed RNG seed is a bench power; production mode refuses it (remove the key)",
        )
    check_seed(cfg.rng, cfg.source)


def _check_rules(cfg: TableConfig) -> None:
    check_rules_config(cfg.table.variant, cfg.table.seats, cfg.rules, cfg.source)


def _check_pins(cfg: TableConfig) -> None:
    check_pin_map(cfg.panel, cfg.table.seats, cfg.source)


def _check_sas(cfg: TableConfig) -> None:
    """The SAS line's own settings; and with SAS on, no seat may hold more credits than
    the slot system can read: poll 1A gives a seat's current credits in 8 BCD digits, so
    a seat past 99,999,999 cents would show rolled over (AFT itself never goes past)."""
    check_sas(cfg.sas, cfg.table.seats, cfg.table.mode == "production", cfg.source)
    most = cfg.table.max_seat_credits
    if enabled(cfg.sas) and most > MAX_FOUR_BYTE:
        raise ConfigError(cfg.source, "table.max_seat_credits",
                          f"{most:,} cents is more than a slot system reads of a seat's "
                          f"credits (SAS poll 1A: 8 digits, at most {MAX_FOUR_BYTE:,}); "
                          f"give at most {MAX_FOUR_BYTE} or turn SAS off")


def _check_production_hardware(cfg: TableConfig) -> None:
    """Simulated devices are bench powers: a production table runs real hardware."""
    if cfg.table.mode != "production":
        return
    if cfg.shoe.port == "sim":
        raise ConfigError(cfg.source, "shoe.port",
                          "production mode needs the real shoe (a device path or URL), not sim")
    if "://" in cfg.shoe.port:
        from drivers.shoe.port_check import production_refusal

        raise ConfigError(cfg.source, "shoe.port", str(production_refusal(cfg.shoe.port)))
    if cfg.panel.backend != "gpio":
        raise ConfigError(cfg.source, "panel.backend",
                          f"production mode needs the gpio panels, not {cfg.panel.backend}")


#: The whole-configuration checks, in the order :func:`load_config` runs them; each
#: raises ConfigError naming the file and the key.
CHECKS: tuple[Callable[[TableConfig], None], ...] = (
    _check_seed,
    _check_rules,
    _check_pins,
    _check_production_hardware,
    _check_sas,
)


def _check_sections(data: Mapping[str, Any], source: str) -> None:
    known = schema.key_names(TableConfig)
    for key in data:
        if key not in known:
            raise ConfigError(
                source, key, f"unknown section (allowed: {', '.join(sorted(known))})"
            )


def default_config_path() -> Path | None:
    """``$ETG_CONFIG`` if set, else ``./table.toml`` if present, else built-in defaults."""
    env = os.environ.get("ETG_CONFIG")
    if env:
        return Path(env)
    local = Path("table.toml")
    return local if local.is_file() else None


def _read(path: str | Path) -> dict[str, Any]:
    source = str(path)
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(source, "-", "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(source, "-", f"cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "-", f"not valid TOML: {exc}") from None


def load_config(path: str | Path | None = None, overrides: Iterable[str] = (),
                named: Mapping[str, str] | None = None) -> TableConfig:
    """Read, merge ``--set`` overrides into, and validate a table configuration.

    ``named`` maps an override a command made from one of its own options to the option
    as the user typed it (``"table.variant=free-bet"`` -> ``"--variant free-bet"``), so a
    message names what the user gave, not a ``--set`` they never wrote."""
    data: dict[str, Any] = {} if path is None else _read(path)
    source = "<defaults>" if path is None else str(Path(path))
    _check_sections(data, source)
    over = list(overrides)
    for item in over:
        keys, value = schema.parse_override(item)
        _check_sections({keys[0]: None}, "--set")
        schema.merge_override(data, keys, value)
    given = list(dict.fromkeys((named or {}).get(item, "--set") for item in over))
    label = source if not over else f"{source} with {', '.join(given)}"
    cfg: TableConfig = schema.build(TableConfig, data, label)
    cfg = dataclasses.replace(cfg, source=label)
    for check in CHECKS:
        check(cfg)
    return cfg


def describe_schema(cls: type = TableConfig, prefix: str = "") -> list[tuple[str, str, str, str]]:
    """Every key with its type, default and meaning, for ``etg config keys`` and the docs."""
    return schema.describe_schema(cls, prefix)
