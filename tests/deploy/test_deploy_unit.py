"""etg.service and the udev rule: checked by systemd's own tools where present, and by content."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "etg.service"
RULE = REPO / "deploy" / "99-etg-shoe.rules"


def _unit_copy(tmp_path: Path, text: str | None = None) -> Path:
    """The unit with ExecStart pointed at an executable that exists on this machine."""
    launcher = tmp_path / "usr/local/bin/etg"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    body = (text if text is not None else UNIT.read_text()).replace(
        "ExecStart=/usr/local/bin/etg", f"ExecStart={launcher}"
    )
    unit = tmp_path / "etg.service"
    unit.write_text(body)
    return unit


def _analyze(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    return subprocess.run(["systemd-analyze", *args], capture_output=True, text=True, timeout=60)


def test_unit_passes_systemd_analyze_verify(tmp_path) -> None:
    result = _analyze("verify", str(_unit_copy(tmp_path)))
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if "etg" in line]
    assert result.returncode == 0 and complaints == [], result.stdout + result.stderr


def test_systemd_analyze_verify_has_teeth(tmp_path) -> None:
    """The check above would notice a mistake: a misspelt hardening key is reported."""
    broken = UNIT.read_text().replace("ProtectSystem=strict", "ProtectSystm=strict")
    result = _analyze("verify", str(_unit_copy(tmp_path, broken)))
    assert "ProtectSystm" in result.stdout + result.stderr


def test_unit_exposure_is_low(tmp_path) -> None:
    result = _analyze("security", "--offline=true", str(_unit_copy(tmp_path)))
    match = re.search(r"Overall exposure level for etg\.service: ([0-9.]+)", result.stdout)
    if result.returncode != 0 and match is None:
        pytest.skip(f"systemd-analyze security --offline unsupported: {result.stderr.strip()}")
    assert match is not None, result.stdout
    assert float(match.group(1)) <= 2.0, result.stdout


def _service() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text())
    return parser


def _values(key: str) -> list[str]:
    """Every value of a (repeatable) key in the unit, in order."""
    return [
        line.split("=", 1)[1]
        for line in UNIT.read_text().splitlines()
        if line.startswith(key + "=")
    ]


def test_unit_runs_the_table_as_a_notify_service_with_a_watchdog() -> None:
    svc = _service()["Service"]
    assert svc["Type"] == "notify"
    assert re.fullmatch(r"\d+s", svc["WatchdogSec"])
    assert svc["Restart"] == "on-failure"
    assert svc["User"] == "etg"
    assert svc["ExecStart"] == "/usr/local/bin/etg --config /etc/etg/table.toml run"
    assert "SDL_VIDEODRIVER=kmsdrm" in _values("Environment")


def test_unit_starts_after_the_shoe_appears() -> None:
    unit = _service()["Unit"]
    assert "dev-etg\\x2dshoe.device" in _values("After")
    assert unit["Wants"] == "dev-etg\\x2dshoe.device"


def test_unit_hardening() -> None:
    svc = _service()["Service"]
    assert svc["ProtectSystem"] == "strict"
    assert _values("ReadWritePaths") == ["/var/lib/etg"]  # the journal only
    for key in ("NoNewPrivileges", "PrivateTmp", "ProtectHome", "ProtectKernelTunables",
                "ProtectKernelModules", "ProtectControlGroups", "RestrictSUIDSGID"):
        assert svc[key] == "yes", key
    # GPIO, the shoe's serial port, the display and input stay reachable by allow-list
    assert "PrivateDevices" not in svc
    assert svc["DevicePolicy"] == "closed"
    allowed = _values("DeviceAllow")
    for device in ("char-ttyACM rw", "char-gpiochip rw", "char-drm rw", "char-input rw"):
        assert device in allowed
    assert svc["CapabilityBoundingSet"] == ""
    assert svc["IPAddressDeny"] == "any"


def test_udev_rule_template() -> None:
    text = RULE.read_text()
    rules = [line for line in text.splitlines() if line and not line.startswith("#")]
    shoe = next(line for line in rules if "etg-shoe" in line)
    for part in ('SUBSYSTEM=="tty"', 'ATTRS{idVendor}=="@SHOE_VENDOR@"',
                 'ATTRS{idProduct}=="@SHOE_PRODUCT@"', "@SHOE_SERIAL_MATCH@",
                 'SYMLINK+="etg-shoe"', 'TAG+="systemd"', 'GROUP="dialout"'):
        assert part in shoe
    assert "udevadm info --attribute-walk" in text  # how a technician finds the ids
    assert any('KERNEL=="hwrng"' in line and 'GROUP="etg"' in line for line in rules)
