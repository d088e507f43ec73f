"""Import the generated packages side by side: each revision's ``together_rl`` under its own name,
and a package of any document under the name a test gives it."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from support.paths import ROOT

GENERATED = ROOT / "generated"
REVISIONS = sorted(p.name for p in GENERATED.iterdir() if (p / "together_rl").is_dir())
"""Every generated revision. This module needs only the runtime (``nox -s pythons`` imports it on
every supported Python, without the generator)."""


def package_version(folder: Path) -> str:
    """The version a generated package's ``pyproject.toml`` gives it (``5.0.1.post1``)."""
    import tomllib  # here, not at the top: `nox -s pythons` imports this module on 3.10 too

    return str(tomllib.loads((folder / "pyproject.toml").read_text())["project"]["version"])


def next_post_release(version: str) -> str:
    """The post-release after ``version`` (``5.0.1`` -> ``5.0.1.post1``, ``.post1`` -> ``.post2``)."""
    release, _, post = version.partition(".post")
    return f"{release}.post{int(post or 0) + 1}"


def load(revision_id: str, root: Path = GENERATED) -> ModuleType:
    """The ``together_rl`` package of ``revision_id``, imported as ``together_rl_<id>``."""
    name = f"together_rl_{revision_id}"
    if name not in sys.modules:
        folder = root / revision_id / "together_rl"
        spec = importlib.util.spec_from_file_location(
            name, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def models(revision_id: str) -> ModuleType:
    load(revision_id)
    return importlib.import_module(f"together_rl_{revision_id}.models")


def reference(revision_id: str) -> ModuleType:
    load(revision_id)
    return importlib.import_module(f"together_rl_{revision_id}.reference")


def load_package(folder: Path, name: str, alias: str) -> ModuleType:
    """The package at ``folder/name``, imported as ``alias``."""
    if alias not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            alias, folder / name / "__init__.py", submodule_search_locations=[str(folder / name)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module
        spec.loader.exec_module(module)
    return sys.modules[alias]


def generate_spec(document: Path, out: Path) -> tuple[str, str]:
    """Run ``generate --spec document --out out`` as a user does, which must succeed: the
    package's import name and what the command wrote on standard error."""
    result = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--spec", str(document), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (name,) = [p.name for p in out.iterdir() if (p / "__init__.py").is_file()]
    return name, result.stderr


def generate_package(document: Path, out: Path, alias: str) -> ModuleType:
    """The package ``generate --spec document --out out`` renders, imported as ``alias``."""
    name, _ = generate_spec(document, out)
    return load_package(out, name, alias)
