"""The package of every public document of ``../shared/corpus/real-world/``, as a user gets it
from ``generate --spec``: black's layout, a wheel that installs and imports, ``mypy --strict``
(minutes: ``pytest -m corpus``, which ``nox -s lint`` runs)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from generator.release.build import build_packages
from support.paths import ROOT
from support.pycode import assert_tidy
from support.realworld import REAL_WORLD, document_id, documents

pytestmark = pytest.mark.skipif(not REAL_WORLD.is_dir(), reason=f"no {REAL_WORLD}")


@pytest.mark.parametrize("path", documents(), ids=document_id)
def test_the_package_is_black_s_layout_installs_and_passes_mypy_strict(
    path, tmp_path, venv, mypy_cache
):
    out = tmp_path / "package"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--spec", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert_tidy(out)
    (name,) = [p.name for p in out.iterdir() if (p / "__init__.py").is_file()]
    (wheel,) = build_packages([out], tmp_path / "dist", wheel_only=True)
    install = [sys.executable, "-m", "pip", "--python", str(venv), "install", "--no-deps", "-q"]
    subprocess.run([*install, str(wheel)], check=True)
    probe = subprocess.run(
        [str(venv), "-c", f"import {name}, {name}.models; print({name}.Client.__name__)"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert probe.stdout.strip() == "Client", probe.stderr
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), name],
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert typed.returncode == 0, typed.stdout[-3000:]
