"""rng package."""
