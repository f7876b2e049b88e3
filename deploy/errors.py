"""The two ways a deploy command fails, told apart by exit code.

Both derive from :class:`DeployError`, the package's base. Bad input (a missing file, a
malformed key, a seed that is not hex) is a :class:`ReleaseInputError`, also a
:class:`~etgcore.errors.UserError`: one line, exit 2, like every other ``etg`` command.
A finding that something is *not authentic* (a refused bundle, installed files that differ
from the signed manifest) is an :class:`AuthenticityError`, a
:class:`~etgcore.errors.CheckFailed`: one line too, but exit 1, so a script or a lab can
tell "you typed it wrong" from "this software is not what was signed".
"""

from __future__ import annotations

from typing import Any

from etgcore.errors import CheckFailed, EtgError, UserError


class DeployError(EtgError):
    """Base of the release tooling's errors."""


class ReleaseInputError(DeployError, UserError):
    """Bad input to a release or verification command."""


class AuthenticityError(DeployError, CheckFailed):
    """Software or a bundle that is not what the release key signed."""


class BundleRefused(AuthenticityError):
    """A release bundle that is unsigned, signed by another key, altered, or malformed."""


class SoftwareAuthenticationError(AuthenticityError):
    """The installed program differs from its signed manifest (or has none)."""

    #: every difference found (deploy.manifest.Problem), when the signature was good
    problems: list[Any] = []  # noqa: RUF012 - replaced per instance, never mutated
