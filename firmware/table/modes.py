"""What each mode allows: checks on the table configuration (registered with firmware.config).

Production is the casino floor: real hardware only, and no bench powers (forced draws,
fixed seeds, the bench control channel). Bench is the test rig, where simulated devices
stand in for real ones.
"""

from __future__ import annotations

from firmware.config import TableConfig, register_validator
from firmware.errors import ConfigError


@register_validator
def _production_uses_real_hardware(cfg: TableConfig) -> None:
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
