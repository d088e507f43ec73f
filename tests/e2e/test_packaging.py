"""The generated packages build, install into a fresh environment, and pin with plain pip."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.changes.versions import package_versions
from generator.reading.revisions import load_index
from generator.reading.runtime import DISTRIBUTION, RUNTIME_DIR, version
from generator.release.build import build_packages
from support.paths import ROOT

GENERATED = ROOT / "generated"
VERSIONS = package_versions(load_index(ROOT / "spec"))
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
    import re
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+\.\d+\.\d+) \|", readme, re.M)
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
