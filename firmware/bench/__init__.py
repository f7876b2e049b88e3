"""The bench: scenario files run against the engine or the real table, and speed runs."""
