"""Rules Submission files, one TOML per game (data only; read by firmware.engine.rules)."""
