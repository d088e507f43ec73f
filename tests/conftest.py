"""The fixtures of the generator's tests: the revisions of spec/, copies of it, the corpus
document, a copy of generated/, a server on loopback, fresh virtual environments, one mypy
cache."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from support.loopback import LoopbackServer
from support.paths import CORPUS, ROOT, SPEC_DIR


@pytest.fixture(scope="session")
def index():
    from generator.reading.revisions import load_index

    return load_index(SPEC_DIR)


@pytest.fixture
def spec(tmp_path):
    """A copy of spec/ to add revisions to."""
    target = tmp_path / "spec"
    shutil.copytree(SPEC_DIR, target)
    return target


@pytest.fixture(scope="session")
def corpus():
    if not CORPUS.is_file():
        pytest.skip(f"the corpus document is not at {CORPUS}")
    from generator.reading.parser import parse_file

    return parse_file(CORPUS)


@pytest.fixture
def copy_of_generated(tmp_path):
    """A copy of generated/ to change, beside nothing else."""
    target = tmp_path / "generated"
    shutil.copytree(ROOT / "generated", target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def server():
    """A server on loopback that answers as the test scripts it and records what it is sent."""
    with LoopbackServer() as running:
        yield running


@pytest.fixture
def quick_retries(monkeypatch):
    """Retries without the client's backoff of half a second and more: what such a test checks
    is which requests are sent again, and with what, not how long the client waits between."""
    from together_rl_runtime import _client

    monkeypatch.setattr(_client, "_FIRST_RETRY_DELAY", 0.001)


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory):
    """One mypy cache for every package type-checked in a run: the runtime, httpx and torch's
    annotations are analysed once (mypy checks again what changed, by content)."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.fixture
def venv(tmp_path):
    """The python of a fresh virtual environment that has no together_rl and sees this
    environment's packages (httpx, setuptools) behind its own."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "parent-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    assert subprocess.run([str(python), "-c", "import together_rl"], capture_output=True).returncode
    return python
