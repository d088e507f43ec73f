"""The generator works with its own checkout's runtime: importing it finds that one (installed
editable beside it; in a copy of the project, the copy's, first on ``PYTHONPATH``), and where it
finds none, or another copy, it says so and names the pip command that installs its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.nextrevision import environment
from support.paths import ROOT

RUNTIME = ROOT / "runtime"
INSTALL = f"pip install -e {RUNTIME}"


def import_generator(
    cwd: Path = ROOT, env: dict[str, str] | None = None, before: str = ""
) -> subprocess.CompletedProcess[str]:
    """``import generator`` in a new interpreter (after the statements ``before``), which prints
    where the runtime it imported is."""
    code = f"{before}\nimport generator, together_rl_runtime\nprint(together_rl_runtime.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env or dict(os.environ),
        capture_output=True,
        text=True,
    )


def test_the_runtime_installed_beside_the_generator_is_its_checkout_s():
    found = import_generator()
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).parent == RUNTIME / "together_rl_runtime"


def test_a_runtime_that_is_not_installed_is_named_with_the_pip_command():
    found = import_generator(before="import sys; sys.modules['together_rl_runtime'] = None")
    assert found.returncode != 0
    assert (
        "RuntimeMissingError: together_rl_runtime is not installed: the generator needs this "
        f"checkout's runtime; install it with `{INSTALL}`"
    ) in found.stderr


def test_another_copy_of_the_runtime_is_refused_naming_both_and_the_pip_command(tmp_path):
    other = tmp_path / "together_rl_runtime"
    other.mkdir()
    (other / "__init__.py").write_text('"""Another copy."""\n')
    found = import_generator(env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert found.returncode != 0
    assert (
        f"together_rl_runtime is imported from {other}, not from this checkout's "
        f"{RUNTIME / 'together_rl_runtime'}: install this checkout's with `{INSTALL}`"
    ) in found.stderr


def test_a_copy_of_the_project_finds_its_own_runtime_first_on_the_path(tmp_path):
    """Where the environment's runtime is the project's, a copy's generator refuses it, and
    runs with the copy's own runtime first on ``PYTHONPATH`` (as the copies of the tests do)."""
    copy = tmp_path / "project"
    for part in ("generator", "runtime"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    refused = import_generator(cwd=copy)
    assert refused.returncode != 0
    assert f"put {copy / 'runtime'} first on PYTHONPATH" in refused.stderr
    found = import_generator(cwd=copy, env=environment(copy))
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).parent == copy / "runtime" / "together_rl_runtime"
