"""Only recorded releases are built and published: `build` refuses, before building anything, a
package whose version spec/releases.yaml does not record or whose files differ from the
record, naming it and the command that records it; `publish` takes an artifact that no build
writes as a refusal naming it, before reading the index. (Builds and publications themselves:
tests/e2e/test_publish.py.)"""

from __future__ import annotations

import io
import tarfile
import tomllib
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from generator.cli import main
from generator.reading.revisions import load_index
from generator.reading.runtime import DISTRIBUTION, version
from generator.release.publish import PublishError, publish
from generator.release.records import RELEASES_FILE, REVISION_DISTRIBUTION, load_releases
from support.packages import GENERATED
from support.paths import SPEC_DIR
from support.records import record


def _newest_released():
    """The newest revision whose package, as generated/ holds it, is recorded as released."""
    releases = load_releases(SPEC_DIR)
    for revision in reversed(list(load_index(SPEC_DIR))):
        pyproject = tomllib.loads((GENERATED / revision.id / "pyproject.toml").read_text())
        release = releases.find(REVISION_DISTRIBUTION, pyproject["project"]["version"])
        if release is not None:
            return revision.id, release
    raise AssertionError("no revision's package is released")


REVISION, RELEASE = _newest_released()


def build(spec: Path, out: Path, *options: str) -> int:
    arguments = ["build", "--generated", str(GENERATED), "--out", str(out), *options]
    return main(["--spec-dir", str(spec), *arguments])


def test_build_refuses_a_package_whose_version_is_not_recorded_naming_the_command(tmp_path, capsys):
    spec = record(tmp_path / "spec", without=[(REVISION_DISTRIBUTION, RELEASE.version)])
    out = tmp_path / "dist"
    assert build(spec, out) == 1
    error = capsys.readouterr().err
    assert error.startswith(
        f"error: refusing to build what {spec / RELEASES_FILE} does not record; nothing was built"
    )
    assert (
        f"together-rl {RELEASE.version} ({GENERATED / REVISION}) is not recorded in "
        f"{spec / RELEASES_FILE}: `python -m generator release {REVISION}` records it"
    ) in error
    assert "`build --unreleased` builds the versions not recorded yet too" in error
    assert not out.exists()


def test_build_refuses_the_runtime_while_its_version_is_not_recorded(tmp_path, capsys):
    spec = record(tmp_path / "spec", without=[(DISTRIBUTION, version())])
    assert build(spec, tmp_path / "dist") == 1
    assert (
        f"{DISTRIBUTION} {version()} (runtime) is not recorded in {spec / RELEASES_FILE}: "
        "`python -m generator release` records it"
    ) in capsys.readouterr().err
    assert not (tmp_path / "dist").exists()


@pytest.mark.parametrize("options", [(), ("--unreleased",)], ids=["recorded", "unreleased"])
def test_build_refuses_a_recorded_version_whose_files_differ_from_the_record(
    options, tmp_path, capsys
):
    """Always: a version once released is built as released, or not at all."""
    files = {**RELEASE.files, "README.md": "0" * 64}
    spec = record(tmp_path / "spec", replace(RELEASE, files=files))
    assert build(spec, tmp_path / "dist", *options) == 1
    error = capsys.readouterr().err
    assert (
        f"together-rl {RELEASE.version} (revision {REVISION}) is released, and this change "
        f"would alter it:\n  {GENERATED / REVISION}/README.md\n"
    ) in error
    assert f"`python -m generator post-release {REVISION}`" in error
    assert not (tmp_path / "dist").exists()


# -- artifacts that no build writes --------------------------------------------------------------


def _sdist(path: Path, *members: tarfile.TarInfo) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for member in members:
            archive.addfile(member, io.BytesIO(b"") if member.isfile() else None)


def _link(name: str) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type, member.linkname = tarfile.SYMTYPE, "/etc/passwd"
    return member


def _twice(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("together_rl/models.py", b"")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("together_rl/models.py", b"")


STEM = f"together_rl-{RELEASE.version}"
HOSTILE = {
    "link": (
        f"{STEM}.tar.gz",
        lambda path: _sdist(path, _link(f"{STEM}/together_rl/models.py")),
        f"{STEM}/together_rl/models.py is neither a file nor a folder",
    ),
    "outside its folder": (
        f"{STEM}.tar.gz",
        lambda path: _sdist(path, tarfile.TarInfo("elsewhere/pyproject.toml")),
        f"holds elsewhere/pyproject.toml, outside its folder {STEM}/",
    ),
    "one path twice": (
        f"{STEM}-py3-none-any.whl",
        _twice,
        "holds together_rl/models.py twice",
    ),
    "not an archive": (
        f"{STEM}.tar.gz",
        lambda path: path.write_bytes(b"not gzip at all"),
        "cannot read it",
    ),
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_publish_names_an_artifact_no_build_writes_before_reading_the_index(kind, tmp_path):
    name, write, problem = HOSTILE[kind]
    dist = tmp_path / "dist"
    dist.mkdir()
    write(dist / name)
    with pytest.raises(PublishError) as refused:
        # no index listens there: the refusal comes first
        publish(dist, "http://127.0.0.1:9/", record=load_releases(SPEC_DIR))
    message = str(refused.value)
    assert message.startswith("refusing to publish what")
    (line,) = [line for line in message.splitlines() if line.startswith(f"  {name}: ")]
    assert line.startswith(f"  {name}: {problem}")
