"""generated/ is exactly what the generator renders (``check`` catches any drift:
tests/e2e/test_snapshot_check.py)."""

from __future__ import annotations

import shutil

import pytest

from generator.changes.versions import package_versions
from generator.cli import main
from generator.output import package, render, tree
from generator.project import Project
from generator.reading.revisions import load_index
from support.paths import ROOT
from support.pycode import unused_imports


@pytest.fixture(scope="module")
def rendered():
    return Project(ROOT / "spec", ROOT / "generated").packages().files


def test_generated_tree_is_byte_identical_to_a_fresh_render(rendered):
    on_disk = tree.read_tree(ROOT / "generated")
    differences = list(tree.tree_differences(rendered, on_disk, label="generated"))
    assert not differences, "generated/ is stale; run `nox -s generate`:\n" + "".join(differences)


def test_generated_modules_use_what_they_import():
    for module in sorted((ROOT / "generated").rglob("*.py")):
        assert not unused_imports(module.read_text(encoding="utf-8")), module


def test_generated_holds_a_package_for_every_revision_of_the_index():
    on_disk = sorted(p.name for p in (ROOT / "generated").iterdir())
    assert on_disk == sorted(r.id for r in load_index(ROOT / "spec"))


def test_a_failed_generation_writes_nothing(copy_of_generated, monkeypatch, tmp_path):
    before = tree.read_tree(copy_of_generated)
    monkeypatch.setenv("TOGETHER_RL_CODEGEN_CACHE", str(tmp_path / "cache"))  # render them all

    def broken(*args, **kwargs):
        raise package.RenderError("models.py.jinja: boom")

    monkeypatch.setattr(render, "render_package", broken)
    assert (
        main(["--spec-dir", str(ROOT / "spec"), "generate", "--out", str(copy_of_generated)]) == 1
    )
    assert tree.read_tree(copy_of_generated) == before
    assert [p.name for p in copy_of_generated.parent.iterdir()] == ["generated"]  # no staging left


def test_invalid_python_from_a_template_is_an_error_naming_it(tmp_path):
    templates = tmp_path / "templates"
    shutil.copytree(package.TEMPLATES_DIR, templates)
    (templates / "together_rl" / "__init__.py.jinja").write_text("def broken(:\n")
    with pytest.raises(
        package.RenderError, match=r"together_rl/__init__.py.jinja rendered invalid Python"
    ):
        Project(ROOT / "spec", ROOT / "generated", templates=templates).packages(["baseline"])


def test_generate_one_revision_replaces_only_its_folder(copy_of_generated):
    other = copy_of_generated / "baseline" / "README.md"
    other.write_text("edited")
    target = copy_of_generated / "f4885bc38424" / "README.md"
    target.write_text("edited")
    args = [
        "--spec-dir",
        str(ROOT / "spec"),
        "generate",
        "--out",
        str(copy_of_generated),
        "--revision",
        "f4885bc38424",
        "--readme",
        str(copy_of_generated.parent / "README.md"),
    ]
    assert main(args) == 0
    assert other.read_text() == "edited"
    assert target.read_text() != "edited"


def test_unknown_revision_is_an_error(capsys, tmp_path):
    assert main(["generate", "--out", str(tmp_path / "g"), "--revision", "nope"]) == 1
    assert "unknown revision 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


def test_package_versions_follow_the_rule(index):
    """1.0.0 first; a warning or an error bumps the major version, only infos the minor, no
    change the patch."""
    versions = package_versions(index)
    assert [v.revision.id for v in versions] == [r.id for r in index]
    assert versions[0].version == "1.0.0"
    for before, after in zip(versions, versions[1:]):
        major, minor, patch = map(int, before.version.split("."))
        levels = {change.level.value for change in after.changes}
        if levels & {"warning", "error"}:
            expected = (major + 1, 0, 0)
        elif levels:
            expected = (major, minor + 1, 0)
        else:
            expected = (major, minor, patch + 1)
        assert tuple(map(int, after.version.split("."))) == expected, after.revision.id
