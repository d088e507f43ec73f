"""Released means frozen: in a copy of the project, releasing records every package; a change
that would alter a released package is refused by generate and check, naming the files and how
to ship it; a post-release and a runtime release are the two ways out, and neither changes a
byte of another released package. Only what is recorded is built: a post-release once
`release` records it, and no artifact holding a file the record does not."""

from __future__ import annotations

import re

import pytest
import yaml

from generator.output.tree import read_tree
from generator.reading.revisions import load_index
from support.packages import next_post_release, package_version
from support.projects import released_copy, run


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A copy of the project with everything released (the records taken back first, the
    post-releases they name kept, as the packages in generated/ are rendered)."""
    return released_copy(tmp_path_factory.mktemp("released"))


def fresh(released, tmp_path):
    """A copy of the released project to change."""
    import shutil

    target = tmp_path / "project"
    shutil.copytree(released[0], target)
    return target


def test_release_records_every_package_and_the_runtime(released):
    project, result = released
    record = yaml.safe_load((project / "spec" / "releases.yaml").read_text())["releases"]
    index = load_index(project / "spec")
    revisions = [entry["revision"] for entry in record if entry["distribution"] == "together-rl"]
    assert revisions == [r.id for r in index]
    runtime = [entry for entry in record if entry["distribution"] == "together-rl-runtime"]
    assert len(runtime) == 1 and "together_rl_runtime/_client.py" in runtime[0]["files"]
    newest = next(entry for entry in record if entry.get("revision") == index[-1].id)
    assert set(newest["files"]) == set(read_tree(project / "generated" / index[-1].id))
    assert "released together-rl-runtime" in result.stdout
    again = run(project, "release")
    assert again.returncode == 0 and "nothing to release" in again.stdout
    assert run(project, "check").returncode == 0


def test_a_change_that_would_alter_a_released_package_is_refused_naming_its_files(
    released, tmp_path
):
    project = fresh(released, tmp_path)
    template = project / "templates" / "README.md.jinja"
    template.write_text(template.read_text().replace("## Use", "## How to use it"))
    before = read_tree(project / "generated")
    generated = run(project, "generate")
    assert generated.returncode == 1
    newest = load_index(project / "spec")[-1]
    assert f"(revision {newest.id}) is released, and this change would alter it:" in (
        generated.stderr
    )
    assert f"  generated/{newest.id}/README.md" in generated.stderr
    assert f"python -m generator post-release {newest.id}" in generated.stderr
    assert "pip install -U together-rl-runtime" in generated.stderr
    assert "`generate --revision ID` renders one of those alone meanwhile" in generated.stderr
    assert read_tree(project / "generated") == before  # nothing written
    checked = run(project, "check")
    assert checked.returncode == 1 and f"generated/{newest.id}/README.md" in checked.stderr


def test_a_post_release_ships_the_change_to_one_revision_and_only_there(released, tmp_path):
    project = fresh(released, tmp_path)
    index = load_index(project / "spec")
    newest = index[-1]
    # a change meant for the newest revision's package alone
    template = project / "templates" / "README.md.jinja"
    only_newest = f"{{{{ 'How to use it' if revision.id == {newest.id!r} else 'Use' }}}}"
    template.write_text(template.read_text().replace("\n## Use\n", f"\n## {only_newest}\n", 1))
    before = read_tree(project / "generated")
    following = next_post_release(package_version(project / "generated" / newest.id))
    posted = run(project, "post-release", newest.id)
    assert posted.returncode == 0, posted.stderr
    assert f"together-rl {following}" in posted.stdout
    generated = run(project, "generate")
    assert generated.returncode == 0, generated.stderr
    after = read_tree(project / "generated")
    changed = {path for path in after if after[path] != before.get(path)}
    assert changed and all(path.startswith(f"{newest.id}/") for path in changed)
    assert f'version = "{following}"' in after[f"{newest.id}/pyproject.toml"].decode()
    assert f"| `{newest.id}` | {following} |" in (project / "README.md").read_text()
    dist = tmp_path / "dist"
    unrecorded = run(project, "build", "--out", str(dist))
    assert unrecorded.returncode == 1 and not dist.exists()
    assert (
        f"together-rl {following} (generated/{newest.id}) is not recorded in "
        f"spec/releases.yaml: `python -m generator release {newest.id}` records it"
    ) in unrecorded.stderr
    assert run(project, "release", newest.id).returncode == 0
    assert run(project, "check").returncode == 0
    # recorded, the post-release is built and published as any release
    built = run(project, "build", "--out", str(dist))
    assert built.returncode == 0, built.stderr
    names = sorted(path.name for path in dist.iterdir())
    assert len(names) == 2 * (len(index) + 1)  # every revision's package, and the runtime
    stem = f"together_rl-{following}"
    assert {f"{stem}-py3-none-any.whl", f"{stem}.tar.gz"} <= set(names)
    unreachable = "http://127.0.0.1:9/"
    published = run(project, "publish", "--repository-url", unreachable, "--dist", str(dist))
    assert published.stderr.startswith("error: cannot reach the index")  # past the record
    assert run(project, "post-release", index[0].id).returncode == 0  # any released revision
    refused = run(project, "post-release", "nope")
    assert refused.returncode == 1 and "unknown revision 'nope'" in refused.stderr


def test_a_runtime_change_needs_a_new_runtime_version_and_changes_no_released_package(
    released, tmp_path
):
    project = fresh(released, tmp_path)
    core = project / "runtime" / "together_rl_runtime" / "_client.py"
    core.write_text(core.read_text().replace("DEFAULT_MAX_RETRIES = 2", "DEFAULT_MAX_RETRIES = 3"))
    version = project / "runtime" / "together_rl_runtime" / "_version.py"
    current = re.search(r'^__version__ = "(.+)"$', version.read_text(), re.M).group(1)
    refused = run(project, "generate")
    assert refused.returncode == 1
    assert f"together-rl-runtime {current} is released, and these files differ from it:" in (
        refused.stderr
    )
    assert "  runtime/together_rl_runtime/_client.py" in refused.stderr
    assert "runtime/together_rl_runtime/_version.py" in refused.stderr  # where to bump it
    major, minor, patch = map(int, current.split("."))
    version.write_text(version.read_text().replace(current, f"{major}.{minor}.{patch + 1}"))
    before = read_tree(project / "generated")
    generated = run(project, "generate")
    assert generated.returncode == 0, generated.stderr
    assert read_tree(project / "generated") == before
    assert run(project, "check").returncode == 0


def test_a_released_revision_cannot_be_taken_back(released, tmp_path):
    project = fresh(released, tmp_path)
    newest = load_index(project / "spec")[-1]
    refused = run(project, "remove-revision", newest.id)
    assert refused.returncode == 1 and "was released as together-rl" in refused.stderr


def test_generate_takes_a_released_package_as_released_and_renders_one_that_differs(
    released, tmp_path
):
    project = fresh(released, tmp_path)
    cache = {"TOGETHER_RL_CODEGEN_CACHE": str(tmp_path / "cache")}
    index = load_index(project / "spec")
    before = read_tree(project / "generated")
    first = run(project, "generate", env=cache)  # an empty cache: every package rendered
    assert first.returncode == 0 and "revisions; every one rendered" in first.stdout
    second = run(project, "generate", env=cache)
    assert f"revisions; 0 rendered, {len(index)} released packages kept as" in second.stdout
    edited = project / "generated" / index[0].id / "README.md"
    edited.write_text("edited by hand\n")
    (edited.parent / "together_rl" / "notes.py").write_text("added by hand\n")
    third = run(project, "generate", env=cache)
    assert f"revisions; 1 rendered, {len(index) - 1} released packages kept as" in third.stdout
    assert read_tree(project / "generated") == before
    version = package_version(project / "generated" / index[0].id)
    assert (
        f"generated/{index[0].id}: put back as together-rl {version} was released (restored "
        "README.md; removed together_rl/notes.py)"
    ) in third.stderr
    assert "put back" not in second.stderr + first.stderr


def test_build_writes_nothing_where_an_artifact_would_hold_a_file_the_record_does_not(
    released, tmp_path
):
    """setuptools takes license files into an sdist by their names: one put in runtime/, whose
    release records its project files and its package, would be published unrecorded."""
    project = fresh(released, tmp_path)
    (project / "runtime" / "LICENSE").write_text("MIT License\n")
    version = re.search(
        r'^__version__ = "(.+)"$',
        (project / "runtime" / "together_rl_runtime" / "_version.py").read_text(),
        re.M,
    ).group(1)
    dist = tmp_path / "dist"
    refused = run(project, "build", "--out", str(dist))
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        f"error: the artifacts built are not what spec/releases.yaml records; nothing was "
        f"written to {dist}:\n"
    )
    assert (
        f"  together_rl_runtime-{version}.tar.gz: LICENSE is not a file of together-rl-runtime "
        f"{version} as released\n"
    ) in refused.stderr
    assert not dist.exists()
