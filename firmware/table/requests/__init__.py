"""Requests that come into a running table: the attendant's credit transfers, the bench's
control channel and the floor's commands, taken by the controller's request desk."""
