"""Every speed and memory figure of the firmware: what ``make bench`` runs.

Product packages never import this package (tests/test_architecture.py says so); each
module here drives the product code it measures from the outside.
"""

from pathlib import Path

#: the checkout this package sits in (benchmarks/ is one of its top-level folders): where
#: the hil scenarios are read and the release benchmark builds its bundle from
CHECKOUT = Path(__file__).resolve().parents[1]
