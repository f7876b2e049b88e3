"""A stand-in for the Raspberry Pi's RPi package, for tests of a production start that
stops before the pins are touched (the journal, the signed manifest): `etg run` checks
first that its panel backend can be opened (issue 38), and a development machine has no
RPi.GPIO. Put this directory on PYTHONPATH; any use of a pin raises."""
