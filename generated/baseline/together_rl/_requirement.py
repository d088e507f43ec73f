"""The runtime this package was made for. Importing the package checks that the installed
``together-rl-runtime`` is a release of the range the package declares, so that a runtime pip
was made to install beside it (one of another major version) fails at once, with the one pip
command that installs a runtime the package works with.

The check needs nothing but the standard library, so that it runs on every runtime, the oldest
of the range included; it reads the versions the runtime is released as, ``X.Y.Z`` and its
post-releases ``X.Y.Z.postN``, and refuses any other."""

from __future__ import annotations

import re
from importlib import metadata

REQUIRES = "together-rl-runtime>=1.0,<2"
"""What this package requires of the runtime: its dependency in ``pyproject.toml``."""

_LOWEST = (1, 0)
"""The oldest runtime release of that range (major, minor)."""

_BELOW = (2,)
"""The first release beyond it (major)."""

_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:\.post\d+)?", re.ASCII)
"""A version the runtime is released as."""

_PACKAGE = "together-rl 1.0.0.post1"


def check_runtime() -> None:
    """Raise ImportError, naming the pip command that fixes it, where no runtime is installed or
    the installed one is not a release of :data:`REQUIRES`."""
    fix = f"pip install '{REQUIRES}'"
    try:
        installed = metadata.version("together-rl-runtime")
    except metadata.PackageNotFoundError:
        raise ImportError(
            f"{_PACKAGE} needs {REQUIRES}, and no together-rl-runtime is installed; install it "
            f"with `{fix}`"
        ) from None
    match = _RELEASE.fullmatch(installed)
    if match is None:
        raise ImportError(
            f"{_PACKAGE} needs {REQUIRES}, and the installed together-rl-runtime {installed} is "
            "not a release version (X.Y.Z or X.Y.Z.postN) this package can compare with it; "
            f"install one with `{fix}`"
        )
    release = tuple(int(part) for part in match.groups())
    if not _LOWEST <= release < _BELOW:
        raise ImportError(
            f"{_PACKAGE} needs {REQUIRES}, but together-rl-runtime {installed} is installed; "
            f"install a runtime it works with: `{fix}`"
        )
