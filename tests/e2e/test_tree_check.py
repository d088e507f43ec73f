"""``check`` of a copy of generated/, blind to what git ignores: build outputs and caches outside
git, what a repository's .gitignore names, and a copy inside a folder another repository ignores
(each check renders every package; writing generated/ safely: tests/unit/test_tree.py)."""

from __future__ import annotations

import subprocess

from generator.cli import main
from support.paths import ROOT

SPEC = str(ROOT / "spec")


def check(out) -> int:
    return main(["--spec-dir", SPEC, "check", "--out", str(out), "--readme", "none"])


def test_check_ignores_build_outputs_and_caches_outside_git(copy_of_generated, capsys):
    package_dir = next(copy_of_generated.iterdir())
    for leftover in (
        "build/lib/together_rl/x.py",
        "together_rl.egg-info/PKG-INFO",
        "together_rl/__pycache__/models.cpython-311.pyc",
    ):
        (package_dir / leftover).parent.mkdir(parents=True, exist_ok=True)
        (package_dir / leftover).write_text("built")
    assert check(copy_of_generated) == 0, capsys.readouterr().out


def test_check_ignores_what_git_ignores(copy_of_generated, capsys):
    root = copy_of_generated.parent
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("*.log\n")
    package_dir = next(copy_of_generated.iterdir())
    (package_dir / "notes.log").write_text("ignored")
    assert check(copy_of_generated) == 0
    (package_dir / "notes.txt").write_text("not ignored")
    assert check(copy_of_generated) == 1
    assert f"extra: {copy_of_generated}/{package_dir.name}/notes.txt" in capsys.readouterr().out


def test_a_folder_that_an_enclosing_repository_ignores_is_read_whole(copy_of_generated, capsys):
    # A copy of the project under a build folder of another checkout (as nox puts one): git
    # ignores every path there, which says nothing about which files the generator wrote.
    root = copy_of_generated.parent
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text(f"{copy_of_generated.name}/\n")
    assert check(copy_of_generated) == 0, capsys.readouterr().out
    package_dir = next(copy_of_generated.iterdir())
    (package_dir / "together_rl" / "__pycache__").mkdir(exist_ok=True)
    (package_dir / "together_rl" / "__pycache__" / "models.cpython-311.pyc").write_text("built")
    assert check(copy_of_generated) == 0, capsys.readouterr().out
    (package_dir / "notes.txt").write_text("not generated")
    assert check(copy_of_generated) == 1
    assert f"extra: {copy_of_generated}/{package_dir.name}/notes.txt" in capsys.readouterr().out
