"""`python -m firmware` is the same command as `etg`."""

from firmware.cli import main

raise SystemExit(main())
