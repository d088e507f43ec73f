"""Entry points of the pipeline: ``nox -s generate``, ``nox -s tests``, ...

Every session installs what it needs into its own virtual environment, reused between runs.
Sessions that need torch install ``torch==2.13.0`` (a CPU build) before anything that depends on
it, so that no resolver reaches for a multi-GB CUDA build.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests"]

TORCH = "torch==2.13.0"
GENERATED = Path("generated")


def _packages() -> list[Path]:
    return sorted(p for p in GENERATED.iterdir() if (p / "pyproject.toml").is_file())


@nox.session
def generate(session: nox.Session) -> None:
    """Validate spec/ and render every revision into generated/ (``-- --revision ID`` for one)."""
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


@nox.session
def lint(session: nox.Session) -> None:
    """black --check on the generator, the runtime files and the generated code; mypy --strict on
    the generator and on each generated package."""
    session.install(TORCH)
    session.install("-e", ".[test]")
    session.run("black", "--check", "generator", "templates", "tests", "benchmarks", "noxfile.py")
    session.run("mypy", "--strict", "generator")
    # The generated code is checked with the options it is rendered with, not the project's
    # configuration (which leaves generated/ out of the project's own formatting).
    session.run(
        "black",
        "--check",
        "--config",
        "/dev/null",
        "--line-length",
        "100",
        "--target-version",
        "py311",
        str(GENERATED),
    )
    # one cache for every package (their runtime files are the same), outside generated/
    cache = (Path(session.create_tmp()) / "mypy").resolve()
    for package in _packages():
        with session.chdir(package):
            session.run("mypy", "--strict", "--cache-dir", str(cache), "together_rl")
    # the package of every public document of ../shared/corpus/real-world/: black's layout, a
    # wheel that installs and imports, mypy --strict (the test suite's slow tier)
    session.run("pytest", "-m", "slow", "-q")


# The peers of the benchmarks, pinned so that runs compare like with like.
BENCH_PEERS = (
    "openapi-python-client==0.29.1",
    "datamodel-code-generator==0.89.0",
    "together==3.1.1",
    "matplotlib>=3.8,<4",
)


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks against the peers, side by side; writes benchmarks/RESULTS.md (``-- PART``)."""
    session.install(TORCH)
    session.install("-e", ".[test]", *BENCH_PEERS)
    session.run("python", "benchmarks/run.py", *session.posargs)


@nox.session
def build(session: nox.Session) -> None:
    """Build the sdist and wheel of every generated package into dist/, reproducibly (the same
    bytes on every run, with the pinned setuptools); check them with twine."""
    session.install("-e", ".[release]")
    shutil.rmtree("dist", ignore_errors=True)
    session.run("python", "-m", "generator", "build", "--out", "dist")
    session.run("twine", "check", "--strict", *sorted(str(p) for p in Path("dist").iterdir()))


@nox.session
def publish(session: nox.Session) -> None:
    """Upload dist/ to a package index, skipping versions already there and refusing changed ones
    (``-- --repository-url URL [--index-url URL] [--dist DIR]``; credentials from TWINE_*)."""
    session.install("-e", ".[release]")
    session.run("python", "-m", "generator", "publish", *session.posargs)
