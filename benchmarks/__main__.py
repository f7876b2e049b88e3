"""``python -m benchmarks``: what ``make bench`` runs (see :mod:`benchmarks.runner`)."""

import sys

from benchmarks.runner import main

raise SystemExit(main(sys.argv[1:]))
