"""Entry points of the pipeline: ``nox -s generate``, ``nox -s tests``, ...

Every session installs what it needs into its own virtual environment, reused between runs.
Sessions that need torch install ``torch==2.13.0`` (a CPU build) before anything that depends on
it, so that no resolver reaches for a multi-GB CUDA build.
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests"]

TORCH = "torch==2.13.0"


@nox.session
def generate(session: nox.Session) -> None:
    """Render every spec revision into generated/ (``-- --revision ID`` for one)."""
    session.install("-e", ".")
    session.run("python", "-m", "generator", "validate")
    session.run("python", "-m", "generator", "generate", *session.posargs)


@nox.session
def check(session: nox.Session) -> None:
    """Fail with a diff if generated/ is not what the generator renders."""
    session.install("-e", ".")
    session.run("python", "-m", "generator", "check")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (pass pytest arguments after ``--``)."""
    session.install(TORCH)
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)
