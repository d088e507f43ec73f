"""Serve local sessions of revision baseline over HTTP: ``python -m together_rl.reference.serve
--port 8000 --optimizer adam`` (``--help`` for the options).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from together_rl_runtime.reference import serve

from . import LocalSession

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Serve this revision's sessions as the command line ``argv`` says."""
    return serve.main(
        argv, session_class=LocalSession, prog="python -m together_rl.reference.serve"
    )


if __name__ == "__main__":
    sys.exit(main())
