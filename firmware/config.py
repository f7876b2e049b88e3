"""The table configuration: one TOML file, typed, immutable and validated.

A casino engineer edits ``table.toml``; a typo must never silently fall back to a default.
So every key is known, every value is checked for type and range, and every problem is
reported with the file, the dotted key and what is allowed. ``--set key=value`` overrides
go through the same checks, reported as coming from the command line.

The schema is the dataclasses below: a field's type says what TOML type it takes and the
field's metadata its range or choices. Nothing else lists the keys, so the example file,
the validator and the documentation (``etg config show``) cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from firmware.errors import ConfigError
from firmware.floor.settings import FloorSettings

Variant = Literal["blackjack", "split-to-double", "bingo", "free-bet", "spanish21"]
VARIANTS: tuple[str, ...] = get_args(Variant)
Mode = Literal["production", "bench"]
PanelBackend = Literal["gpio", "sim", "keyboard"]
RngMechanism = Literal["ctr-drbg", "ctr-drbg-no-df", "hmac-drbg"]
EntropySource = Literal["auto", "os", "hwrng"]


def _range(lo: float | None = None, hi: float | None = None, doc: str = "") -> dict[str, Any]:
    return {"min": lo, "max": hi, "doc": doc}


def _doc(doc: str) -> dict[str, Any]:
    return {"doc": doc}


def _text(doc: str) -> dict[str, Any]:
    """A string that means nothing when empty (a name, a path, a port)."""
    return {"doc": doc, "nonempty": True}


@dataclass(frozen=True)
class TableSettings:
    variant: Variant = field(default="blackjack", metadata=_doc("the game this table deals"))
    seats: int = field(default=7, metadata=_range(1, 7, "player seats with a panel"))
    mode: Mode = field(
        default="bench",
        metadata=_doc("production (casino floor) or bench (test rig: forced draws, seeds)"),
    )
    certificate_holder: str = field(
        default="Certificate Holder", metadata=_text("name shown on the layout (§ 633b.26(b)(1))")
    )
    table_id: str = field(default="BJ-01", metadata=_text("table number for recall and meters"))
    max_transfer_cents: int = field(
        default=10_000_000, metadata=_range(1, 10**12, "largest credit transfer, in cents"))
    max_seat_credits: int = field(
        default=100_000_000, metadata=_range(1, 10**12, "most credits a seat may hold, cents"))


@dataclass(frozen=True)
class ShoeSettings:
    port: str = field(
        default="sim",
        metadata=_text("pyserial URL of the shoe (/dev/etg-shoe, socket://host:port) or 'sim'"),
    )
    sim_pace_s: float = field(
        default=0.2, metadata=_range(0.0, 10.0, "simulated shoe: seconds between cards")
    )
    sim_penetration: float = field(
        default=0.75, metadata=_range(0.1, 0.95, "simulated shoe: cut card position, fraction")
    )


@dataclass(frozen=True)
class PinMap:
    """BCM pin numbers of the panel ICD; defaults are the reference wiring."""

    rows: tuple[int, ...] = field(
        default=(5, 6, 12, 13, 16, 19, 20), metadata=_doc("matrix rows, seat 1..7 (outputs)")
    )
    columns: tuple[int, ...] = field(
        default=(21, 22, 23, 24, 25, 26, 27, 4), metadata=_doc("matrix columns, buttons 0..7")
    )
    lamp_data: int = field(default=17, metadata=_range(0, 27, "74HC595 DATA"))
    lamp_clock: int = field(default=18, metadata=_range(0, 27, "74HC595 CLOCK"))
    lamp_latch: int = field(default=7, metadata=_range(0, 27, "74HC595 LATCH"))
    deal: int = field(default=8, metadata=_range(0, 27, "console DEAL"))
    shuffle: int = field(default=9, metadata=_range(0, 27, "console SHUFFLE"))
    void: int = field(default=10, metadata=_range(0, 27, "console VOID key switch"))
    recall: int = field(default=11, metadata=_range(0, 27, "console RECALL key switch"))


@dataclass(frozen=True)
class PanelSettings:
    backend: PanelBackend = field(default="sim", metadata=_doc("gpio, sim or keyboard"))
    scan_period_ms: float = field(
        default=5.0, metadata=_range(1.0, 10.0, "matrix scan period (ICD: at most 10 ms)")
    )
    settle_us: int = field(
        default=50, metadata=_range(50, 1000, "settling after driving a row (ICD: >= 50 us)")
    )
    debounce_ms: float = field(
        default=20.0, metadata=_range(20.0, 200.0, "minimum time between accepted changes")
    )
    stuck_key_s: float = field(
        default=30.0, metadata=_range(1.0, 3600.0, "a key held longer is reported stuck")
    )
    pins: PinMap = field(default_factory=PinMap, metadata=_doc("BCM pin map"))


@dataclass(frozen=True)
class DisplaySettings:
    enabled: bool = field(default=True, metadata=_doc("open a window (false: headless)"))
    width: int = field(default=1280, metadata=_range(320, 7680, "window width in pixels"))
    height: int = field(default=720, metadata=_range(240, 4320, "window height in pixels"))
    fullscreen: bool = field(default=False, metadata=_doc("kiosk: take the whole screen"))
    fps: int = field(default=60, metadata=_range(1, 240, "frames per second"))


@dataclass(frozen=True)
class JournalSettings:
    path: str = field(default="var/journal.sqlite", metadata=_text("SQLite journal file"))
    key_path: str = field(
        default="",
        metadata=_doc("the table's secret keying the journal's chain, created at installation "
                      "(empty: <journal>.key, which bench mode creates itself)"),
    )


@dataclass(frozen=True)
class RngSettings:
    mechanism: RngMechanism = field(
        default="ctr-drbg", metadata=_doc("SP 800-90A DRBG: ctr-drbg (AES-256, df), ...")
    )
    entropy: EntropySource = field(
        default="auto", metadata=_doc("auto (hwrng on a Pi, else OS), os or hwrng")
    )
    reseed_interval: int = field(
        default=1 << 20, metadata=_range(1, 1 << 48, "generate calls between reseeds")
    )
    cycle_hz: float = field(
        default=100.0, metadata=_range(0.0, 10000.0, "background cycling rate between draws")
    )
    seed_hex: str = field(
        default="",
        metadata=_doc("bench only: fixed seed for reproducible runs (refused in production)"),
    )


@dataclass(frozen=True)
class TableConfig:
    table: TableSettings = field(default_factory=TableSettings)
    shoe: ShoeSettings = field(default_factory=ShoeSettings)
    panel: PanelSettings = field(default_factory=PanelSettings)
    display: DisplaySettings = field(default_factory=DisplaySettings)
    journal: JournalSettings = field(default_factory=JournalSettings)
    rng: RngSettings = field(default_factory=RngSettings)
    floor: FloorSettings = field(default_factory=FloorSettings)
    rules: Mapping[str, Any] = field(
        default_factory=lambda: types.MappingProxyType({}),
        metadata=_doc("Rules Submission overrides, named as in docs/rules.md"),
    )
    source: str = field(default="<defaults>", compare=False, metadata={"internal": True})

    @property
    def bench(self) -> bool:
        return self.table.mode == "bench"


# Cross-checks that need more than one field or another package's knowledge (the
# Rules Submission, the pin map) register here; each raises ConfigError.
Validator = Callable[[TableConfig], None]
_validators: list[Validator] = []


def register_validator(fn: Validator) -> Validator:
    """Add a whole-configuration check (used by the engine's rules and the panel's pin map)."""
    if fn not in _validators:
        _validators.append(fn)
    return fn


def _check_bench_powers(cfg: TableConfig) -> None:
    if cfg.table.mode == "production" and cfg.rng.seed_hex:
        raise ConfigError(
            cfg.source,
            "rng.seed_hex",
            "a fixed RNG seed is a bench power; production mode refuses it (remove the key)",
        )
    if cfg.rng.seed_hex:
        try:
            bytes.fromhex(cfg.rng.seed_hex)
        except ValueError:
            raise ConfigError(cfg.source, "rng.seed_hex", "must be hexadecimal digits") from None


register_validator(_check_bench_powers)

#: Modules that register whole-configuration checks; imported before every validation so
#: the checks never depend on what else happened to be imported.
VALIDATOR_MODULES: tuple[str, ...] = (
    "firmware.engine.config_check",
    "drivers.panel.pinmap",
    "firmware.table.modes",
)


def _describe(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin is tuple:
        return f"an array of {_describe(get_args(tp)[0])}"
    if dataclasses.is_dataclass(tp):
        return "a table"
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
        tp, "a table"
    )


def _convert(tp: Any, value: Any, meta: Mapping[str, Any], source: str, key: str) -> Any:
    origin = get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, Mapping):
            raise ConfigError(source, key, f"must be {_describe(tp)}, got {value!r}")
        return _build(tp, value, source, key + ".")
    if origin is Literal:
        if value not in get_args(tp):
            raise ConfigError(source, key, f"must be {_describe(tp)}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(source, key, f"must be {_describe(tp)}, got {value!r}")
        inner = get_args(tp)[0]
        return tuple(
            _convert(inner, v, meta, source, f"{key}[{i}]") for i, v in enumerate(value)
        )
    if origin in (Mapping, dict) or tp is Mapping:
        if not isinstance(value, Mapping):
            raise ConfigError(source, key, f"must be a table, got {value!r}")
        return types.MappingProxyType(dict(value))
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(source, key, f"must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(source, key, f"must be an integer, got {value!r}")
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(source, key, f"must be a number, got {value!r}")
        value = float(value)
    elif tp is str:
        if not isinstance(value, str):
            raise ConfigError(source, key, f"must be a string, got {value!r}")
        if meta.get("nonempty") and not value.strip():
            raise ConfigError(source, key, "must not be empty")
        return value
    lo, hi = meta.get("min"), meta.get("max")
    # written as "not inside" so that nan (which TOML allows) is out of every range
    if (lo is not None and not value >= lo) or (hi is not None and not value <= hi):
        raise ConfigError(source, key, f"must be between {lo:g} and {hi:g}, got {value!r}")
    return value


def _build(cls: type, data: Mapping[str, Any], source: str, prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if not f.metadata.get("internal")}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        allowed = ", ".join(sorted(fields))
        raise ConfigError(source, prefix + unknown[0], f"unknown key (allowed here: {allowed})")
    kwargs = {
        name: _convert(hints[name], data[name], fields[name].metadata, source, prefix + name)
        for name in data
    }
    return cls(**kwargs)


def _parse_override(text: str) -> tuple[list[str], Any]:
    if "=" not in text:
        raise ConfigError("--set", text, "expected key=value, e.g. --set table.variant=bingo")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise ConfigError("--set", text, "expected a dotted key such as rules.decks")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word: a string, as a person typing it means
    return key.split("."), value


def _merge(base: dict[str, Any], path: list[str], value: Any, text: str) -> None:
    node = base
    for i, part in enumerate(path[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError("--set", ".".join(path[: i + 1]), "is a value, not a table")
        node = child
    node[path[-1]] = value


def _check_sections(data: Mapping[str, Any], source: str) -> None:
    known = {f.name for f in dataclasses.fields(TableConfig) if not f.metadata.get("internal")}
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


def load_config(path: str | Path | None = None, overrides: Iterable[str] = ()) -> TableConfig:
    """Read, merge ``--set`` overrides into, and validate a table configuration."""
    data: dict[str, Any] = {}
    source = "<defaults>"
    if path is not None:
        p = Path(path)
        source = str(p)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(source, "-", "no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(source, "-", f"cannot read: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(source, "-", f"not valid TOML: {exc}") from None
    _check_sections(data, source)
    over = list(overrides)
    for text in over:
        keys, value = _parse_override(text)
        _check_sections({keys[0]: None}, "--set")
        _merge(data, keys, value, text)
    label = source if not over else f"{source} with --set"
    cfg: TableConfig = _build(TableConfig, data, label)
    cfg = dataclasses.replace(cfg, source=label)
    import importlib

    for module in VALIDATOR_MODULES:
        importlib.import_module(module)
    for check in list(_validators):
        check(cfg)
    return cfg


def describe_schema(cls: type = TableConfig, prefix: str = "") -> list[tuple[str, str, str, str]]:
    """Every key with its type, default and meaning, for ``etg config keys`` and the docs."""
    rows: list[tuple[str, str, str, str]] = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.metadata.get("internal"):
            continue
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            rows.extend(describe_schema(tp, prefix + f.name + "."))
            continue
        default: Any = (
            f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[operator]
        )
        if isinstance(default, Mapping):
            default = dict(default)
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        allowed = _describe(tp) + (f" in [{lo:g}, {hi:g}]" if lo is not None else "")
        if f.metadata.get("nonempty"):
            allowed += ", not empty"
        rows.append((prefix + f.name, allowed, repr(default), f.metadata.get("doc", "")))
    return rows
