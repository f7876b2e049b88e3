"""Every speed and memory figure of the firmware: what ``make bench`` runs.

Product packages never import this package (tests/test_architecture.py says so); each
module here drives the product code it measures from the outside.
"""
