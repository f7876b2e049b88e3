"""The two ways a deploy command fails, told apart by exit code.

Bad input (a missing file, a malformed key, a seed that is not hex) is a
:class:`~etgcore.errors.UserError`: one line, exit 2, like every other ``etg`` command.
A finding that something is *not authentic* (a refused bundle, installed files that differ
from the signed manifest) is an :class:`AuthenticityError`: one line too, but exit 1, so a
script or a lab can tell "you typed it wrong" from "this software is not what was signed".
"""

from __future__ import annotations

from typing import Any

from etgcore.errors import UserError


class DeployError(UserError):
    """Bad input to a release or verification command."""


class AuthenticityError(UserError):
    """Software or a bundle that is not what the release key signed."""

    exit_code = 1


class BundleRefused(AuthenticityError):
    """A release bundle that is unsigned, signed by another key, altered, or malformed."""


class SoftwareAuthenticationError(AuthenticityError):
    """The installed program differs from its signed manifest (or has none)."""

    #: every difference found (deploy.manifest.Problem), when the signature was good
    problems: list[Any] = []  # noqa: RUF012 - replaced per instance, never mutated
