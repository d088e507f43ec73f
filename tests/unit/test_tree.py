"""Writing generated/ safely: never over a user's files, old or new tree after a crash, and
``check`` blind to what git ignores."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import ROOT

from generator.output import tree
from generator.cli import main

SPEC = str(ROOT / "spec")


def package(text: str = "1") -> dict[str, bytes]:
    """The files of a minimal generated package."""
    return {"pyproject.toml": text.encode(), tree.PACKAGE_MARKER: text.encode()}


def files(*names: str, text: str = "1") -> dict[str, bytes]:
    return {f"{name}/{path}": content for name in names for path, content in package(text).items()}


def test_a_folder_with_other_files_is_refused_and_left_alone(tmp_path, capsys):
    project = tmp_path / "project"
    (project / "spec").mkdir(parents=True)
    (project / "spec" / "revisions.yaml").write_text("mine")
    (project / "notes.txt").write_text("mine too")
    before = tree.read_tree(project)
    args = ["--spec-dir", SPEC, "generate", "--out", str(project), "--readme", "none"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "holds notes.txt, spec, which the generator did not write" in err
    assert tree.read_tree(project) == before


@pytest.mark.parametrize("exists", [False, True])
def test_a_missing_or_empty_folder_is_written(tmp_path, exists):
    out = tmp_path / "out"
    if exists:
        out.mkdir()
    tree.write_tree(files("a", "b"), out)
    assert tree.read_tree(out) == files("a", "b")


def test_a_tree_of_packages_is_replaced_and_what_git_ignores_does_not_block(tmp_path):
    out = tmp_path / "generated"
    tree.write_tree(files("a", "b"), out)
    (out / "a.egg-info").mkdir()  # a build left this; outside git the usual patterns apply
    tree.write_tree(files("a", text="2"), out)
    assert tree.read_tree(out) == files("a", text="2")
    assert [p.name for p in tmp_path.iterdir()] == ["generated"]


def test_a_crash_between_the_renames_leaves_a_tree_a_later_run_restores(tmp_path, monkeypatch):
    out = tmp_path / "generated"
    tree.write_tree(files("a"), out)
    monkeypatch.setattr(tree, "_exchange", lambda a, b: False)  # no atomic exchange here
    real_replace = os.replace
    calls = []

    def dies_on_the_second_rename(src, dst):
        calls.append(src)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process is stopped between the renames
        real_replace(src, dst)

    monkeypatch.setattr(tree.os, "replace", dies_on_the_second_rename)
    with pytest.raises(KeyboardInterrupt):
        tree.write_tree(files("a", text="2"), out)
    monkeypatch.setattr(tree.os, "replace", real_replace)
    assert not out.exists() and (tmp_path / ".generated.old").is_dir()
    tree.recover(out.resolve())
    assert tree.read_tree(out) == files("a")
    tree.write_tree(files("a", text="2"), out)
    assert tree.read_tree(out) == files("a", text="2")
    assert [p.name for p in tmp_path.iterdir()] == ["generated"]


def test_the_swap_is_atomic_where_the_system_can_exchange(tmp_path, monkeypatch):
    out = tmp_path / "generated"
    tree.write_tree(files("a"), out)
    monkeypatch.setattr(tree.os, "replace", lambda *a: pytest.fail("renamed, not exchanged"))
    if not tree._exchange(tmp_path / "generated", tmp_path / "generated"):
        pytest.skip("this system has no atomic exchange of two paths")
    tree.write_tree(files("a", text="2"), out)
    assert tree.read_tree(out) == files("a", text="2")


def test_leftover_staging_folders_are_removed_by_the_next_run(tmp_path):
    out = tmp_path / "generated"
    tree.write_tree(files("a"), out)
    leftover = tmp_path / ".generated-staging-abc123"
    (leftover / "a").mkdir(parents=True)
    tree.write_tree(files("a"), out)
    assert not leftover.exists()


@pytest.fixture
def copy_of_generated(tmp_path):
    target = tmp_path / "generated"
    shutil.copytree(ROOT / "generated", target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


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


@pytest.mark.slow  # three checks of every package
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
