"""Entry points of the pipeline: ``nox -s generate``, ``nox -s tests``, ...

Every session installs what it needs into its own virtual environment, reused between runs.
Sessions that need torch install ``torch==2.13.0`` (a CPU build) before anything that depends on
it, so that no resolver reaches for a multi-GB CUDA build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests"]
# A session whose Python is not found fails, as on CI, rather than being skipped with success
# (``--no-error-on-missing-interpreters`` skips it, on purpose). nox applies it to every
# session, and only ``pythons`` names its Pythons: the others run on nox's own.
nox.options.error_on_missing_interpreters = True

TORCH = "torch==2.13.0"
GENERATED = Path("generated")
RUNTIME = "./runtime"
"""The runtime distribution every revision package depends on, installed editable beside the
generator wherever the generator runs (it refuses a runtime other than its checkout's)."""


def _packages() -> list[Path]:
    return sorted(p for p in GENERATED.iterdir() if (p / "pyproject.toml").is_file())


@nox.session
def generate(session: nox.Session) -> None:
    """Validate spec/ and render every revision into generated/ (``-- --revision ID`` for one)."""
    session.install("-e", RUNTIME, "-e", ".")
    session.run("python", "-m", "generator", "validate")
    session.run("python", "-m", "generator", "generate", *session.posargs)


@nox.session
def check(session: nox.Session) -> None:
    """Fail with a diff if generated/ is not what the generator renders."""
    session.install("-e", RUNTIME, "-e", ".")
    session.run("python", "-m", "generator", "check")


@nox.session
def golden(session: nox.Session) -> None:
    """Render the golden documents of tests/golden/specs/ again and record their packages in
    tests/golden/packages/ (``-- NAME`` for one), after reviewing the difference that
    tests/e2e/test_golden_packages.py reports."""
    session.install("-e", RUNTIME, "-e", ".")
    session.run("python", "tests/support/golden.py", *session.posargs)


def _in_parallel(posargs: list[str]) -> list[str]:
    """pytest's arguments with one worker per core (pytest-xdist), each taking the tests left to
    another when it has none of its own (``worksteal``: a few long tests do not leave a core idle
    at the end), unless they choose otherwise (``-n 0`` runs in this process, as a debugger
    needs)."""
    chosen = any(a.startswith(("-n", "--numprocesses", "--dist", "no:xdist")) for a in posargs)
    return posargs if chosen else ["-n", "auto", "--dist", "worksteal", *posargs]


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite, one worker per core (pass pytest arguments after ``--``)."""
    session.install(TORCH)
    session.install("-e", RUNTIME, "-e", ".[test]")
    session.run("pytest", *_in_parallel(session.posargs))


PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
"""The Pythons the runtime and the revision packages support (the generator runs on 3.11)."""


def _pyenv_interpreters() -> None:
    """Where pyenv manages the interpreters, let its shims find every installed one of
    ``PYTHONS`` (they find only the selected version otherwise)."""
    if not shutil.which("pyenv"):
        return
    installed = subprocess.run(
        ["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False
    ).stdout.split()
    chosen = [v for v in installed if any(v == p or v.startswith(p + ".") for p in PYTHONS)]
    selected = os.environ.get("PYENV_VERSION", "").split(":")
    versions = [v for v in dict.fromkeys([*selected, *chosen]) if v]
    if versions:
        os.environ["PYENV_VERSION"] = ":".join(versions)


def _missing_interpreters() -> list[str]:
    """The versions of ``PYTHONS`` that no ``pythonX.Y`` on PATH (pyenv's shims included)
    provides."""
    return [version for version in PYTHONS if shutil.which(f"python{version}") is None]


def _report_missing() -> None:
    """Say what to install for each of ``PYTHONS`` that is missing (nox names the Python it did
    not find, not how to get it)."""
    for version in _missing_interpreters():
        how = f"`pyenv install {version}`"
        if not shutil.which("pyenv"):
            how = f"{how} with pyenv, or the system's python{version} package"
        print(
            f"noxfile.py: Python {version} not found: `nox -s pythons` fails for it until it "
            f"is installed: {how}",
            file=sys.stderr,
        )


_pyenv_interpreters()
_report_missing()


@nox.session(python=PYTHONS)
def pythons(session: nox.Session) -> None:
    """The runtime's tests (the client core, the models' base, the errors) and a smoke test of
    every generated package, on each Python the packages support. The local reference's torch
    tests stay on 3.11, the Python torch==2.13.0 is installed for here."""
    session.install(RUNTIME, "pytest>=8,<10")
    session.run(
        "pytest",
        "-p",
        "no:cacheprovider",
        "runtime/tests/unit/test_client_core.py",
        "runtime/tests/unit/test_errors.py",
        "tests/unit/test_any_python.py",
        *session.posargs,
    )


UVICORNS = ("0.36.0", "0.54.0")
"""uvicorn's oldest release of the range the runtime declares (its ``reference`` extra,
``uvicorn>=0.36,<0.55``) and its newest: the reference server extends uvicorn's h11 protocol
class, through ``runtime/together_rl_runtime/reference/_uvicorn.py``."""
UVICORN_TESTS = (
    "runtime/tests/unit/test_uvicorn_adapter.py",
    "runtime/tests/e2e/test_uvicorn_adapter_served.py",
    "runtime/tests/e2e/test_reference_http.py",
    "runtime/tests/e2e/test_reference_server.py",
)
"""The tests of what the server takes of uvicorn: the adapter, and the server over HTTP/1.1
(framing, refusals, deadlines, keep-alive, connections, starting and stopping)."""


@nox.session
def uvicorn(session: nox.Session) -> None:
    """The tests of what the reference server takes of uvicorn on each release of
    :data:`UVICORNS` in turn, in one environment (more pytest arguments after ``--``)."""
    session.install(TORCH)
    session.install(
        "-e", f"{RUNTIME}[reference]", "-e", ".", "pytest>=8,<10", "pytest-xdist>=3.5,<4"
    )
    for version in UVICORNS:
        session.install(f"uvicorn=={version}")
        session.run("pytest", *_in_parallel([*UVICORN_TESTS, *session.posargs]))


@nox.session(name="next-revision")
def next_revision(session: nox.Session) -> None:
    """The catalogue of made-up next revisions (tests/support/nextrevision.py): each kind of
    change alone appended to its own copy of the project, generated, and the fast tier (tests/unit
    and runtime/tests/unit) run there; then every kind together, and the whole test suite (more
    pytest arguments after ``--``)."""
    session.install(TORCH)
    session.install("-e", RUNTIME, "-e", ".[test]")
    session.run(
        "python",
        "tests/support/nextrevision.py",
        "--each",
        "--all",
        "--into",
        session.create_tmp(),
        "--",
        *_in_parallel(session.posargs),
    )


@nox.session
def lint(session: nox.Session) -> None:
    """black --check on the generator, the runtime and the generated code; isort --check on the
    project's own code; mypy --strict on the generator, the runtime and each generated package."""
    session.install(TORCH)
    session.install("-e", RUNTIME, "-e", ".[test]")
    session.run(
        "black",
        "--check",
        "generator",
        "runtime",
        "templates",
        "tests",
        "benchmarks",
        "conftest.py",
        "noxfile.py",
    )
    # the imports in one order (pyproject's [tool.isort]; generated/ orders its own)
    session.run(
        "isort",
        "--settings-path",
        ".",
        "--check-only",
        "--diff",
        "generator",
        "runtime",
        "tests",
        "benchmarks",
        "conftest.py",
        "noxfile.py",
    )
    session.run("mypy", "--strict", "generator")
    with session.chdir("runtime"):
        session.run("mypy", "--strict", "together_rl_runtime")
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
    # one cache for every package, outside generated/; the packages see this checkout's runtime
    cache = (Path(session.create_tmp()) / "mypy").resolve()
    runtime = str(Path(RUNTIME).resolve())
    for package in _packages():
        with session.chdir(package):
            session.run(
                "mypy",
                "--strict",
                "--cache-dir",
                str(cache),
                "together_rl",
                env={"MYPYPATH": runtime},
            )
    # the package of every public document of ../shared/corpus/real-world/ and real-world-next/:
    # black's layout, a wheel that installs and imports (on 3.10 and 3.13 too), mypy --strict
    # (the test suite's corpus tier, tests/corpus)
    session.run("pytest", "-m", "corpus", "-q")


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
    session.install("-e", RUNTIME, "-e", ".[test]", *BENCH_PEERS)
    # downloads (GitHub's document from npm) are kept in the session's folder between runs; what
    # the generators write goes to the system's temporary folder, as nox would point TMPDIR
    # into .nox, where the peer's ruff formats nothing (see check_peer_formats_here)
    scratch = tempfile.gettempdir()
    work = str(Path(session.create_tmp()).resolve())
    env = {"BENCH_WORK": work, "TMPDIR": scratch}
    session.run("python", "benchmarks/run.py", *session.posargs, env=env)


@nox.session
def build(session: nox.Session) -> None:
    """Build the sdist and wheel of the runtime and of every generated package into dist/, as
    spec/releases.yaml records them, reproducibly (the same bytes on every run, with the pinned
    setuptools); check them with twine (``-- --unreleased`` also builds the versions not
    recorded yet, to try them locally; publish refuses those)."""
    session.install("-e", RUNTIME, "-e", ".[release]")
    shutil.rmtree("dist", ignore_errors=True)
    session.run("python", "-m", "generator", "build", "--out", "dist", *session.posargs)
    session.run("twine", "check", "--strict", *sorted(str(p) for p in Path("dist").iterdir()))


@nox.session
def publish(session: nox.Session) -> None:
    """Upload dist/ to a package index, refusing what spec/releases.yaml does not record and any
    change to a version already there, skipping the versions the index has (``--
    --repository-url URL [--index-url URL] [--dist DIR]``; credentials from TWINE_*)."""
    session.install("-e", RUNTIME, "-e", ".[release]")
    session.run("python", "-m", "generator", "publish", *session.posargs)
