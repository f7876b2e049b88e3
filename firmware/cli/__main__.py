"""``python -m firmware.cli``: the same as ``etg``."""

from firmware.cli.command_line import main

raise SystemExit(main())
