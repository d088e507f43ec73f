"""A runtime release as a maintainer makes one, in a copy of the project with everything released:
a minor release that removes or renames what revision packages use is refused, naming it; one
that adds is recorded with its surface; a major release is refused until every revision's package
is post-released with a range that accepts it. And the surfaces spec/ records of the released
runtimes are what their released files describe."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest
import yaml

from generator.output.tree import read_tree
from generator.release.records import load_releases
from generator.release.surface import describe, load_surfaces
from support.packages import next_post_release, package_version
from support.paths import ROOT, SPEC_DIR
from support.projects import released_copy, run

RUNTIME = Path("runtime") / "together_rl_runtime"


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A copy of the project with every package and the runtime's version released."""
    project, _ = released_copy(tmp_path_factory.mktemp("released"))
    return project


@pytest.fixture
def project(released, tmp_path):
    """A copy of the released project to change."""
    return Path(shutil.copytree(released, tmp_path / "project"))


def edit(project: Path, path: str, old: str, new: str) -> None:
    file = project / RUNTIME / path
    text = file.read_text()
    assert old in text, (path, old)
    file.write_text(text.replace(old, new))


def bump(project: Path, version: str) -> None:
    file = project / RUNTIME / "_version.py"
    file.write_text(
        re.sub(r'^__version__ = ".+"$', f'__version__ = "{version}"', file.read_text(), flags=re.M)
    )


def next_patch(project: Path) -> str:
    text = (project / RUNTIME / "_version.py").read_text()
    major, minor, patch = map(int, re.search(r'^__version__ = "(.+)"$', text, re.M)[1].split("."))
    return f"{major}.{minor}.{patch + 1}"


def spec_files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (project / "spec").iterdir()}


def test_a_release_that_removes_a_name_or_renames_a_parameter_is_refused(project):
    edit(project, "_model.py", "as_received", "received_as")
    edit(project, "__init__.py", '    "write_enum",\n', "")
    version = next_patch(project)
    bump(project, version)
    before = spec_files(project)
    refused = run(project, "release")
    assert refused.returncode == 1
    assert f"together-rl-runtime {version} removes or changes what revision packages use" in (
        refused.stderr
    )
    assert (
        "  together_rl_runtime.put: function (data, key, value, path, write, as_received=...) -> "
        "function (data, key, value, path, write, received_as=...) "
        "(the parameter at `as_received`'s place is `received_as`)"
    ) in refused.stderr
    assert "  together_rl_runtime.write_enum: function (value, path) -> (removed)" in (
        refused.stderr
    )
    assert spec_files(project) == before


def test_a_release_that_adds_a_name_and_an_optional_parameter_is_recorded(project):
    edit(
        project,
        "_model.py",
        "    as_received: Mapping[str, str] | None = None,\n",
        "    as_received: Mapping[str, str] | None = None,\n    note: str | None = None,\n",
    )
    edit(
        project,
        "__init__.py",
        "from ._version import __version__\n",
        ("from ._client import error_model_for\nfrom ._version import __version__\n"),
    )
    edit(project, "__init__.py", "__all__ = [\n", '__all__ = [\n    "error_model_for",\n')
    version = next_patch(project)
    bump(project, version)
    recorded = run(project, "release")
    assert recorded.returncode == 0, recorded.stderr
    assert f"released together-rl-runtime {version}" in recorded.stdout
    surface = load_surfaces(project / "spec").get(version)
    assert surface == describe(project / "runtime")
    assert surface["together_rl_runtime.put"] == (
        "function (data, key, value, path, write, as_received=..., note=...)"
    )
    assert surface["together_rl_runtime.error_model_for"] == "function (error_models, status)"
    assert run(project, "check").returncode == 0


def test_a_major_release_waits_for_post_releases_of_every_revision_that_accept_it(project):
    bump(project, "2.0.0")
    before = spec_files(project)
    refused = run(project, "release")
    assert refused.returncode == 1
    assert "together-rl-runtime 2.0.0 is a new major version" in refused.stderr
    revisions = [
        r["id"]
        for r in yaml.safe_load((project / "spec" / "revisions.yaml").read_text())["revisions"]
    ]
    for revision_id in revisions:
        assert f"  generated/{revision_id} (together-rl " in refused.stderr
    assert "post-release each of them (`python -m generator post-release ID`)" in refused.stderr
    assert spec_files(project) == before
    versions = {r: package_version(project / "generated" / r) for r in revisions}
    for revision_id in revisions:
        posted = run(project, "post-release", revision_id)
        assert posted.returncode == 0, posted.stderr
    generated = run(project, "generate")
    assert generated.returncode == 0, generated.stderr
    recorded = run(project, "release")
    assert recorded.returncode == 0, recorded.stderr
    assert "released together-rl-runtime 2.0.0" in recorded.stdout
    for revision_id, version in versions.items():
        assert f"released together-rl {next_post_release(version)} (revision {revision_id})" in (
            recorded.stdout
        )
    assert "2.0.0" in load_surfaces(project / "spec").by_version
    assert run(project, "check").returncode == 0


# -- the record of the released runtimes -----------------------------------------------------------


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)


def _export(commit: str, target: Path) -> Path:
    """The runtime folder of ``commit``, exported into ``target``."""
    archive = _git("archive", "--format=tar", commit, "runtime")
    assert archive.returncode == 0, archive.stderr
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    return target / "runtime"


def _own_history() -> bool:
    """Whether ``ROOT`` is the top of a git checkout: a copy of the project inside another
    checkout (as the next-revision runs make) would otherwise read that checkout's history."""
    if shutil.which("git") is None:
        return False
    top = _git("rev-parse", "--show-toplevel")
    return top.returncode == 0 and Path(top.stdout.decode().strip()).resolve() == ROOT.resolve()


def test_each_recorded_surface_is_what_its_released_runtime_describes(tmp_path):
    if not _own_history():
        pytest.skip("the project's history is not here (no git checkout of its own)")
    commits = _git("log", "--format=%H", "--", "runtime").stdout.decode().split()
    releases = [r for r in load_releases(SPEC_DIR).releases if r.revision is None]
    surfaces = load_surfaces(SPEC_DIR)
    assert releases and all(surfaces.get(r.version) is not None for r in releases)
    for release in releases:
        version_file = f"{RUNTIME.as_posix()}/_version.py"
        found = None
        for commit in commits:
            shown = _git("show", f"{commit}:{version_file}").stdout.decode()
            if f'__version__ = "{release.version}"' not in shown:
                continue
            folder = _export(commit, tmp_path / commit)
            files = {
                path: hashlib.sha256(data).hexdigest() for path, data in read_tree(folder).items()
            }
            if all(files.get(path) == digest for path, digest in release.files.items()):
                found = folder
                break
        assert found is not None, f"no commit holds the runtime {release.version} as released"
        assert describe(found) == surfaces.get(release.version), release.version
