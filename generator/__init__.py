"""Code generation for the Together RL training API: spec revisions in, changelog and packages out.

The generator works with the runtime of its own checkout (``runtime/``): it reads the runtime's
lists (settings, roles, rules, the names generated code imports), and the packages it renders
import it. The runtime is installed beside the generator (``pip install -e ./runtime``; a copy of
the project puts its own ``runtime/`` first on ``PYTHONPATH``); importing the generator checks
that the runtime it finds is its checkout's, and raises ``RuntimeMissingError``, naming the pip
command that installs it, where it is not.
"""

import sys

# The runtime imports httpx, and httpx imports its command line (click, rich and pygments: a
# twentieth of a second, where they are installed) unless that cannot be imported. The
# generator never runs httpx's command line; a process that imported httpx first keeps it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # import raises ImportError

from .reading.runtime import runtime  # noqa: E402

runtime()
