"""Table configuration: loading, overrides, and every validation error path (issue 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from etgcore.errors import ConfigError
from firmware.config import TableConfig, describe_schema, load_config

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "table.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_without_file() -> None:
    cfg = load_config(None)
    assert isinstance(cfg, TableConfig)
    assert cfg.table.variant == "blackjack"
    assert cfg.table.mode == "bench"
    assert cfg.panel.pins.rows == (5, 6, 12, 13, 16, 19, 20)


def test_shipped_example_validates() -> None:
    cfg = load_config(REPO / "table.toml")
    assert cfg.shoe.port == "sim"
    assert cfg.source.endswith("table.toml")


def test_settings_are_immutable() -> None:
    cfg = load_config(None)
    with pytest.raises(AttributeError):
        cfg.table.seats = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.rules["decks"] = 2  # type: ignore[index]


def test_override_sets_typed_value(tmp_path: Path) -> None:
    cfg = load_config(
        write(tmp_path, "[table]\nseats = 3\n"),
        ["table.variant=bingo", "display.width=800", "rules.decks=8", "display.enabled=false"],
    )
    assert cfg.table.variant == "bingo"
    assert cfg.table.seats == 3
    assert cfg.display.width == 800
    assert cfg.display.enabled is False
    assert cfg.rules["decks"] == 8
    assert "--set" in cfg.source


def test_override_bare_word_is_a_string() -> None:
    assert load_config(None, ["shoe.port=/dev/ttyACM0"]).shoe.port == "/dev/ttyACM0"
    assert load_config(None, ['shoe.port="socket://127.0.0.1:7001"']).shoe.port.startswith("socket")


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[tabel]\nseats = 3\n", "tabel", "unknown section"),
        ("[table]\nseets = 3\n", "table.seets", "unknown key"),
        ("[table]\nseats = 'three'\n", "table.seats", "must be an integer"),
        ("[table]\nseats = 9\n", "table.seats", "between 1 and 7"),
        ("[table]\nseats = 0\n", "table.seats", "between 1 and 7"),
        ("[table]\nseats = true\n", "table.seats", "must be an integer"),
        ("[table]\nvariant = 'poker'\n", "table.variant", "one of"),
        ("[table]\nmode = 'demo'\n", "table.mode", "one of"),
        ("[table]\ncertificate_holder = 5\n", "table.certificate_holder", "must be a string"),
        ("[display]\nenabled = 'yes'\n", "display.enabled", "true or false"),
        ("[shoe]\nsim_pace_s = 'fast'\n", "shoe.sim_pace_s", "must be a number"),
        ("[shoe]\nsim_penetration = 1.5\n", "shoe.sim_penetration", "between"),
        ("[panel]\npins = 3\n", "panel.pins", "must be a table"),
        ("[panel.pins]\nrows = 5\n", "panel.pins.rows", "array"),
        ("[panel.pins]\nrows = [5, 'x']\n", "panel.pins.rows[1]", "integer"),
        ("[panel.pins]\nbogus = 1\n", "panel.pins.bogus", "unknown key"),
        ("table = 3\n", "table", "must be a table"),
        ("rules = 3\n", "rules", "must be a table"),
        ("[rng]\nmechanism = 'mt19937'\n", "rng.mechanism", "one of"),
        ("[shoe]\nsim_pace_s = nan\n", "shoe.sim_pace_s", "between"),
        ("[shoe]\nsim_pace_s = inf\n", "shoe.sim_pace_s", "between"),
        ("[display]\nwidth = 1280.0\n", "display.width", "must be an integer"),
        ("[table]\ncertificate_holder = ' '\n", "table.certificate_holder", "not be empty"),
        ("[journal]\npath = ''\n", "journal.path", "not be empty"),
        ("[rng]\nseed_hex = 'xyz'\n", "rng.seed_hex", "hexadecimal"),
        (
            "[table]\nmode = 'production'\n[rng]\nseed_hex = '00ff'\n",
            "rng.seed_hex",
            "production mode refuses",
        ),
    ],
)
def test_file_errors_name_file_key_and_allowed(
    tmp_path: Path, text: str, key: str, words: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key == key
    assert words in info.value.problem
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.toml")


def test_whole_file_problems_name_the_file_only(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "absent.toml")
    assert str(info.value) == f"{tmp_path / 'absent.toml'}: no such file"


def test_a_directory_is_not_a_configuration(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path)


def test_where_the_configuration_comes_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--config FILE, else $ETG_CONFIG, else ./table.toml, else built-in defaults."""
    from firmware.config import default_config_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ETG_CONFIG", raising=False)
    assert default_config_path() is None
    write(tmp_path, "[table]\nseats = 4\n")
    assert default_config_path() == Path("table.toml")
    assert load_config(default_config_path()).table.seats == 4
    other = tmp_path / "other.toml"
    other.write_text("[table]\nseats = 2\n", encoding="utf-8")
    monkeypatch.setenv("ETG_CONFIG", str(other))
    assert default_config_path() == other


def test_command_line_reads_the_file_it_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware.cli import main

    path = write(tmp_path, "[table]\nseats = 9\n")
    assert main(["--config", str(path), "config", "check"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"etg: error: {path}: table.seats: must be between 1 and 7, got 9"
    )


def test_not_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[table\nseats=1"))


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "table.toml"
    p.write_bytes(b"\xff\xfe[table]")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(p)


@pytest.mark.parametrize(
    ("override", "key", "words"),
    [
        ("nosuchkey=1", "nosuchkey", "unknown section"),
        ("table.nosuchkey=1", "table.nosuchkey", "unknown key"),
        ("table.seats=12", "table.seats", "between"),
        ("novalue", "novalue", "expected key=value"),
        ("table..seats=1", "table..seats=1", "dotted key"),
        ("=3", "=3", "dotted key"),
        ("table.seats.x=1", "table.seats", "is a value, not a table"),
        ("table.mode=production", "shoe.port", "real shoe"),
        ("shoe.sim_pace_s=nan", "shoe.sim_pace_s", "between"),
        ("table.certificate_holder=''", "table.certificate_holder", "not be empty"),
    ],
)
def test_override_errors(tmp_path: Path, override: str, key: str, words: str) -> None:
    path = write(tmp_path, "[table]\nseats = 2\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, [override])
    assert info.value.key == key
    assert words in info.value.problem


def test_production_takes_real_hardware_only() -> None:
    cfg = load_config(None, ["table.mode=production", "shoe.port=/dev/etg-shoe",
                             "panel.backend=gpio"])
    assert cfg.table.mode == "production" and not cfg.bench
    with pytest.raises(ConfigError, match="gpio panels"):
        load_config(None, ["table.mode=production", "shoe.port=/dev/etg-shoe"])


def test_seed_refused_in_production_via_override() -> None:
    with pytest.raises(ConfigError, match="bench power"):
        load_config(None, ["table.mode=production", "rng.seed_hex=abcd"])


def test_schema_lists_every_key() -> None:
    keys = {row[0] for row in describe_schema()}
    assert {"table.variant", "panel.pins.rows", "rng.seed_hex", "journal.path", "rules"} <= keys
