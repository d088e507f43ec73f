"""The generated packages build, install into a fresh environment, and pin with plain pip."""

from __future__ import annotations

import email.parser
import posixpath
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from generator.reading.metadata import load_metadata
from generator.reading.runtime import DISTRIBUTION, RUNTIME_DIR, version
from generator.release.build import build_packages
from generator.release.sources import Sources
from support.markdown import MARKDOWN, inline, links
from support.paths import ROOT, SPEC_DIR

GENERATED = ROOT / "generated"
SOURCES = Sources(ROOT / "spec")
VERSIONS = [replace(e, version=SOURCES.versions()[e.revision.id]) for e in SOURCES.history]
"""Every revision with its package's own version (a post-release where one is recorded)."""
OLDEST, NEWEST = VERSIONS[0], VERSIONS[-1]

PROBE = (
    "import together_rl, together_rl.models as m; "
    "print(together_rl.SPEC_REVISION, together_rl.__version__, hasattr(m, 'RLWeightSyncType'), "
    "together_rl.__file__)"
)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    """The oldest and the newest revision's wheels, and the runtime's (installed beside them,
    as pip would install the dependency)."""
    dist = tmp_path_factory.mktemp("dist")
    packages = [GENERATED / OLDEST.revision.id, GENERATED / NEWEST.revision.id]
    build_packages([RUNTIME_DIR], dist, wheel_only=True)
    return dist, build_packages(packages, dist, wheel_only=True)


def pip(python: Path, *args: str) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            *args,
        ],
        check=True,
    )


def probe(python: Path) -> list[str]:
    result = subprocess.run(
        [str(python), "-c", PROBE], capture_output=True, text=True, check=True, cwd="/"
    )
    return result.stdout.split()


def test_wheels_are_named_by_the_derived_versions(wheels):
    _, artifacts = wheels
    assert [a.name for a in artifacts] == [
        f"together_rl-{OLDEST.version}-py3-none-any.whl",
        f"together_rl-{NEWEST.version}-py3-none-any.whl",
    ]


def test_install_import_and_replace_one_revision_with_another(wheels, venv):
    dist, _ = wheels
    # (an editable runtime of this environment would be taken as installed; the wheel is wanted)
    pip(venv, "--ignore-installed", "--find-links", str(dist), "together-rl-runtime")
    pip(venv, "--find-links", str(dist), f"together-rl=={OLDEST.version}")
    revision, version, has_sync_type, location = probe(venv)
    assert (revision, version, has_sync_type) == (OLDEST.revision.id, OLDEST.version, "True")
    assert location.startswith(str(venv.parent.parent))

    pip(venv, "--find-links", str(dist), f"together-rl=={NEWEST.version}")
    # the old modules are gone: the weight-sync enum was removed after the first revision
    assert probe(venv)[:3] == [NEWEST.revision.id, NEWEST.version, "False"]

    pip(venv, "--find-links", str(dist), f"together-rl=={OLDEST.version}")  # pinning back down
    assert probe(venv)[:2] == [OLDEST.revision.id, OLDEST.version]
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv), "list", "--format", "freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert [line for line in listed.splitlines() if line.split("==")[0] == "together-rl"] == [
        f"together-rl=={OLDEST.version}"
    ]


def test_twine_accepts_the_artifacts(tmp_path):
    artifacts = build_packages([GENERATED / NEWEST.revision.id], tmp_path)
    assert sorted(a.suffix for a in artifacts) == [".gz", ".whl"]
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, artifacts)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not any(p.name.endswith(".egg-info") for p in (GENERATED / NEWEST.revision.id).iterdir())


def test_readme_revision_table_matches_the_generated_packages(index):
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+\.\d+\.\d+(?:\.post\d+)?) \|", readme, re.M)
    packages = {
        p.name: tomllib.loads((p / "pyproject.toml").read_text())["project"]["version"]
        for p in GENERATED.iterdir()
    }
    assert dict(rows) == packages
    assert [revision for revision, _ in rows] == [r.id for r in index]


def test_the_generator_has_what_the_packages_it_imports_need():
    """``generate`` imports every package it renders before writing it, so a package's own
    dependencies (not its extras) are the generator's too: ``nox -s generate`` installs only
    the generator, which brings the runtime of its own checkout."""
    import tomllib

    from packaging.requirements import Requirement

    ours = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for project in sorted((ROOT / "generated").glob("*/pyproject.toml")):
        needed = tomllib.loads(project.read_text())["project"]["dependencies"]
        runtime = [r for r in needed if Requirement(r).name == DISTRIBUTION]
        assert len(runtime) == 1 and Requirement(runtime[0]).specifier.contains(version())
        assert set(needed) - set(runtime) <= set(ours), project


PACKAGE_FOLDERS = [GENERATED / entry.revision.id for entry in VERSIONS]
NAMED_FILE = re.compile(r"[\w./-]+\.(md|yaml|yml|json|py)")
"""A code span of a README that names a file (``docs/OptimStep.md``), not a module or a command."""


@pytest.fixture(scope="module")
def every_artifact(tmp_path_factory):
    """The sdist and the wheel of every revision's package."""
    return build_packages(PACKAGE_FOLDERS, tmp_path_factory.mktemp("every"))


def members(artifact: Path) -> tuple[dict[str, bytes], str]:
    """The files of a wheel or an sdist by path, and the folder its README is read from (the
    wheel's root, the sdist's project folder)."""
    if artifact.suffix == ".whl":
        with zipfile.ZipFile(artifact) as wheel:
            return {name: wheel.read(name) for name in wheel.namelist()}, ""
    with tarfile.open(artifact) as sdist:
        files = {
            m.name: sdist.extractfile(m).read()  # type: ignore[union-attr]
            for m in sdist.getmembers()
            if m.isfile()
        }
    (root,) = {name.split("/")[0] for name in files}
    return files, f"{root}/"


def readme_of(files: dict[str, bytes], root: str) -> str:
    """The README as an index shows it: the description of the artifact's metadata."""
    (name,) = [n for n in files if n.endswith(("dist-info/METADATA", f"{root}PKG-INFO"))]
    message = email.parser.BytesParser().parsebytes(files[name])
    assert message["Description-Content-Type"] == "text/markdown", name
    return message.get_payload()


def test_every_link_of_a_readme_resolves_inside_the_artifact_or_is_absolute(every_artifact):
    assert len(every_artifact) == 2 * len(PACKAGE_FOLDERS)
    for artifact in every_artifact:
        files, root = members(artifact)
        readme = readme_of(files, root)
        assert readme.startswith("# together-rl "), artifact.name
        for line, target in links(readme):
            parts = urlsplit(target)
            if parts.scheme in ("http", "https") and parts.netloc:
                continue
            where = posixpath.normpath(root + unquote(parts.path)) if parts.path else ""
            assert where in files, f"{artifact.name}: README line {line}: {target}"
        named = {
            child.content
            for _, child in inline(readme)
            if child.type == "code_inline" and NAMED_FILE.fullmatch(child.content)
        }
        assert {"openapi.yaml", "CHANGELOG.md"} <= named, artifact.name
        for name in named:  # what the README names is a file of the installed package
            assert f"{root}together_rl/{name}" in files, f"{artifact.name}: `{name}`"


def test_the_artifacts_carry_the_projects_metadata_and_license(every_artifact):
    settings = load_metadata(SPEC_DIR)
    for artifact in every_artifact:
        files, root = members(artifact)
        (name,) = [n for n in files if n.endswith(("dist-info/METADATA", f"{root}PKG-INFO"))]
        message = email.parser.BytesParser().parsebytes(files[name])
        assert message["License-Expression"] == settings.license
        assert message.get_all("License-File") == ["LICENSE"]
        assert message["Keywords"] == ",".join(settings.keywords)
        assert message["Author"] == ", ".join(settings.authors)
        assert sorted(message.get_all("Project-URL")) == sorted(
            f"{label}, {url}" for label, url in settings.urls
        )
        licence = [n for n in files if n.endswith(("licenses/LICENSE", f"{root}LICENSE"))]
        assert len(licence) == 1 and settings.copyright in files[licence[0]].decode()


def test_an_installed_package_reads_what_its_readme_names(wheels, venv):
    """The README's own example of ``importlib.resources``, run where the wheel is installed."""
    dist, _ = wheels
    pip(venv, "--ignore-installed", "--find-links", str(dist), "together-rl-runtime")
    pip(venv, "--find-links", str(dist), f"together-rl=={OLDEST.version}")
    readme = (GENERATED / OLDEST.revision.id / "README.md").read_text(encoding="utf-8")
    (example,) = [
        token.content
        for token in MARKDOWN.parse(readme)
        if token.type == "fence" and "importlib import resources" in token.content
    ]
    result = subprocess.run(
        [str(venv), "-c", example], capture_output=True, text=True, check=True, cwd="/"
    )
    assert result.stdout.startswith("openapi: ")
    assert "\n# Optimizer step\n" in result.stdout and "\n# Changelog\n" in result.stdout
