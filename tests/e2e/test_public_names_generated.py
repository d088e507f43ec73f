"""A component schema of the newest revision renamed with the same shape, in a revision appended
to a copy of the project: the released packages stay as they are, and the new one imports the
old name (deprecated), type-checks and is black's layout (the rules of public names:
tests/unit/test_public_names.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from generator.changes.versions import package_versions
from generator.reading.revisions import load_index
from generator.views.pymodel import build_module
from support.projects import append_revision, copy_project, run
from support.specdocs import newest_renamed
from support.typecheck import mypy_strict


def test_the_generated_package_imports_the_old_name_deprecated(tmp_path, mypy_cache):
    raw, old, new = newest_renamed()
    project = copy_project(tmp_path / "project")
    released = {p.name for p in (project / "generated").iterdir() if p.is_dir()}
    before = {name: _files(project / "generated" / name) for name in released}
    added, generated = append_revision(project, "7c2f5e9a1d38", lambda doc: doc.update(raw))
    assert added.returncode == 0, added.stderr
    assert generated.returncode == 0, generated.stderr
    assert f"renamed the schema `{old}` to `{new}`" in added.stdout
    assert {name: _files(project / "generated" / name) for name in released} == before
    assert run(project, "check").returncode == 0
    package = project / "generated" / "7c2f5e9a1d38"
    changelog = (package / "together_rl" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"renamed the schema `{old}` to `{new}`; the old name stays importable" in changelog
    index = load_index(project / "spec")
    versions = package_versions(index)
    assert versions[-1].version.split(".")[1] == str(int(versions[-2].version.split(".")[1]) + 1)
    module = build_module(list(index), len(index) - 1)
    old_class, new_class = module.renamed[0].name, module.classes[new]
    probe = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    from together_rl.models import {old_class}, {new_class}\n"
        f"assert {old_class} is {new_class}\n"
        "assert [w.category.__name__ for w in caught] == ['DeprecationWarning'], caught\n"
        "print(caught[0].message)\n"
    )
    imported = subprocess.run(
        [sys.executable, "-c", probe], cwd=package, capture_output=True, text=True
    )
    assert imported.returncode == 0, imported.stderr
    assert f"renamed it {new_class}" in imported.stdout
    (package / "user.py").write_text(
        f"from together_rl.models import {old_class}, {new_class}\n\n"
        f"def check(cls: type[{new_class}]) -> None: ...\n\n\ncheck({old_class})\n",
        encoding="utf-8",
    )
    typed = mypy_strict(package, "together_rl", "user.py", cache=mypy_cache)
    assert typed.returncode == 0, typed.stdout[-3000:]
    black = subprocess.run(
        [sys.executable, "-m", "black", "--check", "-l", "100", "together_rl"],
        cwd=package,
        capture_output=True,
        text=True,
    )
    assert black.returncode == 0, black.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
