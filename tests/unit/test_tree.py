"""Writing generated/ safely: never over a user's files, old or new tree after a crash (``check``
blind to what git ignores: tests/e2e/test_tree_check.py)."""

from __future__ import annotations

import os

import pytest

from generator.cli import main
from generator.output import tree
from support.paths import ROOT

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
