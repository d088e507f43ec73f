"""The package of every public document of ``../shared/corpus/real-world/`` and
``real-world-next/``, as a user gets it from ``generate --spec``: black's layout, a wheel that
installs and imports, the package imported on the oldest and the newest Python it supports too,
``mypy --strict`` (minutes: ``pytest -m corpus``, which ``nox -s lint`` runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.release.build import build_packages
from support.packages import generate_spec
from support.pycode import assert_tidy
from support.pythons import interpreter
from support.realworld import REAL_WORLD, document_id, documents

pytestmark = pytest.mark.skipif(not REAL_WORLD.is_dir(), reason=f"no {REAL_WORLD}")

EDGE_PYTHONS = ("3.10", "3.13")
"""The oldest and the newest Python a generated package declares it supports."""


@pytest.fixture(scope="session")
def edge_pythons(tmp_path_factory) -> dict[str, Path | None]:
    """A virtual environment of each of EDGE_PYTHONS with the package's one dependency (httpx,
    from the package index), by version; ``None`` where this machine has no such Python."""
    found: dict[str, Path | None] = {}
    for version in EDGE_PYTHONS:
        found_python = interpreter(version)
        if found_python is None:
            found[version] = None
            continue
        root = tmp_path_factory.mktemp(f"python{version}")
        subprocess.run([str(found_python), "-m", "venv", str(root)], check=True)
        python = root / "bin" / "python"
        install = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*install, "httpx>=0.27,<1"], check=True)
        found[version] = python
    return found


@pytest.mark.parametrize("path", documents(), ids=document_id)
def test_the_package_is_black_s_layout_installs_imports_on_every_python_and_passes_mypy_strict(
    path, tmp_path, venv, mypy_cache, edge_pythons
):
    out = tmp_path / "package"
    name, _ = generate_spec(path, out)
    assert_tidy(out)
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
    for version, python in edge_pythons.items():
        if python is None:
            continue  # a skip once the rest is checked
        probe = subprocess.run(
            [
                str(python),
                "-c",
                f"import {name}, {name}.models; print({name}.AsyncClient.__name__)",
            ],
            capture_output=True,
            text=True,
            cwd=out,
        )
        assert probe.stdout.strip() == "AsyncClient", (version, probe.stderr[-3000:])
    missing = [version for version, python in edge_pythons.items() if python is None]
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), name],
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert typed.returncode == 0, typed.stdout[-3000:]
    if missing:
        pytest.skip(f"imported on every Python but {', '.join(missing)}, which this machine lacks")
