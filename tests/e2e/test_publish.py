"""Publishing to a real package index (pypiserver on loopback): only what the release record
holds is built and published; every version goes up once, a version already there with the same
files is skipped, a changed one is refused before anything is uploaded; pinned installs from the
index get the right revision; builds are reproducible.

Which versions exist is read from spec/revisions.yaml and generated/, never listed here. The
publications run against a copy of spec/releases.yaml that also records what they publish beyond
it (the runtime's version while it is not released yet, made-up versions), as `release` would.
"""

from __future__ import annotations

import calendar
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.request
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.version import Version

from generator.output.tree import read_tree
from generator.reading.revisions import load_index
from generator.reading.runtime import DISTRIBUTION, RUNTIME_DIR, version as runtime_version
from generator.release.build import UNKNOWN_DATE_EPOCH, build_packages
from generator.release.publish import SimpleIndex, default_index_url, plan, read_dist, upload
from generator.release.records import (
    RELEASES_FILE,
    REVISION_DISTRIBUTION,
    Release,
    hashes,
    load_releases,
)
from support.loopback import LoopbackServer, Reply, free_port, port_of, refused_port
from support.paths import ROOT, SPEC_DIR
from support.records import record

GENERATED = ROOT / "generated"
USER, PASSWORD = "uploader", "loopback-only-pa55word"

PROBE = "import together_rl as t; print(t.SPEC_REVISION, t.__version__, t.__file__)"


def _version_key(version: str) -> Version:
    return Version(version)


@dataclass(frozen=True)
class Package:
    revision: str
    version: str
    epoch: int
    """The timestamp its artifacts must carry: the revision's date, or 1980-01-01 if unknown."""

    @property
    def folder(self) -> Path:
        return GENERATED / self.revision

    @property
    def major(self) -> int:
        return _version_key(self.version).major


def _packages() -> list[Package]:
    """Every revision of spec/revisions.yaml, oldest first, with its generated package's version."""
    packages = []
    for revision in load_index(SPEC_DIR):
        pyproject = tomllib.loads((GENERATED / revision.id / "pyproject.toml").read_text())
        epoch = calendar.timegm(revision.date.timetuple()) if revision.date else UNKNOWN_DATE_EPOCH
        packages.append(Package(revision.id, pyproject["project"]["version"], epoch))
    return packages


PACKAGES = _packages()
MIDDLE = PACKAGES[len(PACKAGES) // 2]
NEWEST_MAJOR = max(package.major for package in PACKAGES)
NEWEST_OF_NEWEST_MAJOR = max(
    (package for package in PACKAGES if package.major == NEWEST_MAJOR),
    key=lambda package: _version_key(package.version),
)
NEXT_MAJOR_VERSION = f"{NEWEST_MAJOR + 1}.0.0"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _copy(package: Path, to: Path) -> Path:
    shutil.copytree(package, to, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return to


def run_generator(*arguments: str, spec: Path | None) -> subprocess.CompletedProcess[str]:
    """``python -m generator ARGUMENTS`` in the project, with the release record of ``spec``
    (None: the project's own, spec/releases.yaml)."""
    chosen = ["--spec-dir", str(spec)] if spec is not None else []
    return subprocess.run(
        [sys.executable, "-m", "generator", *chosen, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


class Index:
    """pypiserver on 127.0.0.1: uploads need USER and PASSWORD (unless ``authenticate`` is off),
    reading is open."""

    def __init__(self, root: Path, *, authenticate: bool = True) -> None:
        root.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():  # passlib imports crypt, deprecated since Python 3.11
            warnings.simplefilter("ignore", DeprecationWarning)
            from passlib.apache import HtpasswdFile

        self.packages = root / "packages"
        self.packages.mkdir()
        passwords = HtpasswdFile(str(root / "htpasswd"), new=True, default_scheme="sha256_crypt")
        passwords.set_password(USER, PASSWORD)
        passwords.save()
        port = free_port()
        self.upload_url = f"http://127.0.0.1:{port}/"
        self.simple_url = f"http://127.0.0.1:{port}/simple/"
        self.log = root / "server.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "pypiserver",
                    "run",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--passwords",
                    str(root / "htpasswd") if authenticate else ".",
                    "--authenticate",
                    "update" if authenticate else ".",
                    "--disable-fallback",
                    str(self.packages),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.simple_url, timeout=2).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"pypiserver did not start:\n{self.log.read_text()}")
                time.sleep(0.1)

    def stored(self) -> dict[str, str]:
        """File name to sha256 of what the index holds."""
        return {path.name: _sha256(path) for path in sorted(self.packages.iterdir())}

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    server = Index(tmp_path_factory.mktemp("index"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def next_major_package(tmp_path_factory):
    """A version the index does not have yet: the newest package, renumbered."""
    source = _copy(NEWEST_OF_NEWEST_MAJOR.folder, tmp_path_factory.mktemp("next") / "package")
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text()
    line = f'version = "{NEWEST_OF_NEWEST_MAJOR.version}"'
    assert line in text
    pyproject.write_text(text.replace(line, f'version = "{NEXT_MAJOR_VERSION}"'))
    return source


@pytest.fixture(scope="module")
def next_major(tmp_path_factory, next_major_package):
    """The artifacts of that version."""
    out = tmp_path_factory.mktemp("next-dist")
    build_packages([next_major_package], out)
    return out


@pytest.fixture(scope="module")
def next_major_release(next_major_package):
    """That version's release, as `release` would record it."""
    files = hashes(read_tree(next_major_package))
    return Release(
        REVISION_DISTRIBUTION, NEXT_MAJOR_VERSION, NEWEST_OF_NEWEST_MAJOR.revision, files
    )


@pytest.fixture(scope="module")
def spec(tmp_path_factory, next_major_release):
    """The project's release record, with the runtime's version and the renumbered package."""
    return record(tmp_path_factory.mktemp("spec"), next_major_release)


@pytest.fixture(scope="module")
def dist(tmp_path_factory, spec):
    """The runtime and every generated package, built once, as `build` builds them."""
    out = tmp_path_factory.mktemp("dist")
    built = run_generator("build", "--out", str(out), spec=spec)
    assert built.returncode == 0, built.stderr
    assert sorted(built.stdout.split()) == sorted(str(path) for path in out.iterdir())
    return out


def publish(
    dist: Path, repository_url: str, *extra: str, spec: Path | None, password: str = PASSWORD
):
    """``python -m generator publish`` of ``dist`` with the release record of ``spec`` (None:
    the project's own)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TWINE_")}
    environment.update(TWINE_USERNAME=USER, TWINE_PASSWORD=password)
    chosen = ["--spec-dir", str(spec)] if spec is not None else []
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            *chosen,
            "publish",
            "--repository-url",
            repository_url,
            "--dist",
            str(dist),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment,
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output and password not in output, output
    return result


@pytest.fixture(scope="module")
def published(index, dist, spec):
    """The first publication of every built version (the index URL derived from the upload URL)."""
    before = index.stored()
    result = publish(dist, index.upload_url, spec=spec)
    return before, result


def test_the_first_publication_uploads_every_version(published, index, dist):
    before, result = published
    assert before == {}
    assert result.returncode == 0, result.stdout + result.stderr
    for package in PACKAGES:
        assert f"together-rl {package.version}: uploading " in result.stdout
    assert f"together-rl-runtime {runtime_version()}: uploading " in result.stdout
    assert index.stored() == {path.name: _sha256(path) for path in dist.iterdir()}
    assert len(index.stored()) == 2 * (len(PACKAGES) + 1)


def _as_a_user() -> dict[str, str]:
    """The environment of a user's own processes: this one's, without the ``PYTHONPATH`` that
    puts a copy of the project's runtime before what the user's environment installed."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def pip_from(index: Index, python: Path, *arguments: str) -> None:
    """``pip install ARGUMENTS`` from the loopback index only (no configuration, no other index,
    no dependencies: httpx comes from this environment)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--isolated",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-cache-dir",
            "--index-url",
            index.simple_url,
            *arguments,
        ],
        check=True,
        env=_as_a_user(),
    )


def install_from(index: Index, python: Path, requirement: str, *options: str) -> list[str]:
    """Install the runtime and ``requirement`` from the loopback index and report what got
    imported. (An editable runtime of this environment would count as installed: the index's
    is installed over it.)"""
    pip_from(index, python, "--ignore-installed", "--only-binary", ":all:", DISTRIBUTION)
    pip_from(index, python, *options, requirement)
    result = subprocess.run(
        [str(python), "-c", PROBE],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
        env=_as_a_user(),
    )
    revision, version, location = result.stdout.split()
    assert location.startswith(str(python.parent.parent)), location
    return [revision, version]


def test_pinning_an_exact_version_installs_its_revision_from_the_sdist(published, index, venv):
    requirement = f"together-rl=={MIDDLE.version}"
    # the sdist, rewritten for reproducibility, builds and installs like any other
    installed = install_from(
        index, venv, requirement, "--no-binary", "together-rl", "--no-build-isolation"
    )
    assert installed == [MIDDLE.revision, MIDDLE.version]


def test_pinning_the_newest_major_installs_its_newest_revision(published, index, venv):
    installed = install_from(
        index, venv, f"together-rl~={NEWEST_MAJOR}.0", "--only-binary", ":all:"
    )
    assert installed == [NEWEST_OF_NEWEST_MAJOR.revision, NEWEST_OF_NEWEST_MAJOR.version]


def test_publishing_again_changes_nothing(published, index, dist, spec):
    stored = index.stored()
    result = publish(dist, index.upload_url, "--index-url", index.simple_url, spec=spec)
    assert result.returncode == 0, result.stdout + result.stderr
    for package in PACKAGES:
        assert (
            f"together-rl {package.version}: already on the index with identical files, skipped"
            in result.stdout
        )
    assert "uploading" not in result.stdout
    assert index.stored() == stored


def test_a_changed_file_under_a_published_version_is_refused_and_nothing_is_uploaded(
    published, index, next_major, next_major_release, tmp_path
):
    """The index's own guard: here the record is made to hold the changed files under the
    published version (as a hand-edited record could), so that only the index's hashes say it
    changed. (With the true record, the record's check refuses it first: see
    test_an_artifact_whose_files_differ_from_the_record_is_refused.)"""
    source = _copy(MIDDLE.folder, tmp_path / "package")
    with (source / "README.md").open("a") as readme:
        readme.write("\nOne more line, under the same version.\n")
    attempt = tmp_path / "dist"
    changed = build_packages([source], attempt)
    for artifact in next_major.iterdir():  # a new version beside it, which must not go up either
        shutil.copy(artifact, attempt)
    stored = index.stored()
    assert all(stored[artifact.name] != _sha256(artifact) for artifact in changed)
    assert not any(artifact.name in stored for artifact in next_major.iterdir())
    rewritten = Release(
        REVISION_DISTRIBUTION, MIDDLE.version, MIDDLE.revision, hashes(read_tree(source))
    )
    spec = record(tmp_path / "spec", rewritten, next_major_release)

    result = publish(attempt, index.upload_url, spec=spec)

    assert result.returncode == 1
    assert result.stdout == ""  # nothing planned, nothing reported as uploaded
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: refusing to change published versions")
    assert "nothing was uploaded" in lines[0]
    assert lines[-1].startswith("A published version never changes: ")
    assert "python -m generator post-release ID" in lines[-1]
    problems = {line.strip().split(" on the index ")[0]: line for line in lines[1:-1]}
    assert sorted(problems) == [f"together-rl {MIDDLE.version}: {a.name}" for a in changed]
    for artifact in changed:
        problem = problems[f"together-rl {MIDDLE.version}: {artifact.name}"]
        assert stored[artifact.name] in problem and _sha256(artifact) in problem
    assert index.stored() == stored


# -- only what the release record holds goes up -----------------------------------------------


def refusals(result: subprocess.CompletedProcess[str]) -> dict[str, list[str]]:
    """The artifacts a refusal names, each with its problems, in the order given."""
    named: dict[str, list[str]] = {}
    for line in result.stderr.splitlines():
        if line.startswith("  "):
            name, problem = line.strip().split(": ", 1)
            named.setdefault(name, []).append(problem)
    return named


def test_an_artifact_the_record_does_not_hold_is_refused_and_nothing_is_uploaded(
    published, index, dist, next_major, tmp_path
):
    """Against the project's own record, which never released the renumbered package."""
    attempt = tmp_path / "dist"
    shutil.copytree(dist, attempt)
    for artifact in next_major.iterdir():
        shutil.copy(artifact, attempt)
    stored = index.stored()

    result = publish(attempt, index.upload_url, spec=None)

    assert (result.returncode, result.stdout) == (1, "")
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "error: refusing to publish what spec/releases.yaml does not record; nothing was uploaded:"
    )
    assert "record a version with `python -m generator release`" in lines[-1]
    unrecorded = f"is not recorded in {Path('spec', RELEASES_FILE)}"
    expected = {
        artifact.name: [
            f"together-rl {NEXT_MAJOR_VERSION} {unrecorded}: `python -m generator release ID` "
            "records the package of revision ID"
        ]
        for artifact in next_major.iterdir()
    }
    for package in PACKAGES:  # a revision appended to the project is not released
        if load_releases(SPEC_DIR).find(REVISION_DISTRIBUTION, package.version) is None:
            for artifact in dist.glob(f"together_rl-{package.version}[-.]*"):
                expected[artifact.name] = [
                    f"together-rl {package.version} {unrecorded}: `python -m generator release "
                    "ID` records the package of revision ID"
                ]
    if load_releases(SPEC_DIR).find(DISTRIBUTION, runtime_version()) is None:
        for artifact in dist.glob("together_rl_runtime-*"):
            expected[artifact.name] = [
                f"{DISTRIBUTION} {runtime_version()} {unrecorded}: `python -m generator "
                "release` records the runtime's version"
            ]
    assert refusals(result) == expected  # every released package's artifacts are as recorded
    assert index.stored() == stored


def test_an_artifact_whose_files_differ_from_the_record_is_refused(
    published, index, spec, tmp_path
):
    source = _copy(MIDDLE.folder, tmp_path / "package")
    with (source / "README.md").open("a") as readme:
        readme.write("\nOne more line, under the same version.\n")
    models = source / "together_rl" / "models.py"
    models.write_text(models.read_text() + "\nEXTRA = 1\n")
    (source / "together_rl" / "extra.py").write_text('"""Not in the release."""\n')
    (source / "together_rl" / "reference" / "serve.py").unlink()
    attempt = tmp_path / "dist"
    wheel, sdist = sorted(build_packages([source], attempt), key=lambda a: a.suffix != ".whl")
    stored = index.stored()

    result = publish(attempt, index.upload_url, spec=spec)

    assert (result.returncode, result.stdout) == (1, "")
    what = f"together-rl {MIDDLE.version} as released"
    in_both = [
        f"together_rl/extra.py is not a file of {what}",
        f"together_rl/models.py differs from {what}",
        f"together_rl/reference/serve.py of {what} is missing",
        f"its metadata's description differs from the README.md of {what}",
    ]
    assert refusals(result) == {
        sdist.name: [f"README.md differs from {what}", *in_both],
        wheel.name: in_both,
    }
    assert index.stored() == stored


def test_a_wheel_goes_up_only_beside_the_sdist_it_was_built_with(dist, spec, tmp_path):
    """A wheel does not hold the pyproject.toml its metadata is written from: its sdist does,
    and must be beside it, built from the same folder. (Checked before the index is read: this
    one cannot be reached.)"""
    with refused_port() as reserved:
        _publish_beside_the_sdist_only(
            dist, spec, tmp_path, f"http://127.0.0.1:{port_of(reserved)}/"
        )


def _publish_beside_the_sdist_only(
    dist: Path, spec: Path, tmp_path: Path, unreachable: str
) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    wheel = Path(shutil.copy(dist / f"together_rl-{MIDDLE.version}-py3-none-any.whl", alone))
    result = publish(alone, unreachable, spec=spec)
    assert result.returncode == 1
    assert refusals(result) == {
        wheel.name: [
            "its version's sdist is not beside it, and the wheel alone does not hold the "
            "pyproject.toml its metadata is written from: publish the two that `python -m "
            "generator build` writes"
        ]
    }
    # a wheel whose modules and README are as released, from another pyproject.toml
    source = _copy(MIDDLE.folder, tmp_path / "package")
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text()
    assert 'requires-python = ">=3.10"' in text
    pyproject.write_text(text.replace('requires-python = ">=3.10"', 'requires-python = ">=3.11"'))
    mixed = tmp_path / "mixed"
    (other,) = build_packages([source], mixed, wheel_only=True)
    sdist = Path(shutil.copy(dist / f"together_rl-{MIDDLE.version}.tar.gz", mixed))
    result = publish(mixed, unreachable, spec=spec)
    assert result.returncode == 1
    assert refusals(result) == {
        other.name: [
            f"its metadata differs from {sdist.name}'s: the two were not built from one "
            "package folder"
        ]
    }


def test_build_refuses_a_version_the_record_lacks_and_publish_refuses_it_built_anyway(tmp_path):
    newest = PACKAGES[-1]
    spec = record(tmp_path / "spec", without=[(REVISION_DISTRIBUTION, newest.version)])
    out = tmp_path / "dist"
    refused = run_generator("build", "--out", str(out), spec=spec)
    assert refused.returncode == 1 and not out.exists()
    assert (
        f"together-rl {newest.version} (generated/{newest.revision}) is not recorded in "
        f"{spec / RELEASES_FILE}: `python -m generator release {newest.revision}` records it"
    ) in refused.stderr
    assert "`build --unreleased` builds the versions not recorded yet too" in refused.stderr

    built = run_generator("build", "--out", str(out), "--unreleased", spec=spec)
    assert built.returncode == 0, built.stderr
    assert len(list(out.iterdir())) == 2 * (len(PACKAGES) + 1)
    with refused_port() as reserved:
        result = publish(out, f"http://127.0.0.1:{port_of(reserved)}/", spec=spec)
    assert result.returncode == 1
    assert sorted(refusals(result)) == [
        f"together_rl-{newest.version}-py3-none-any.whl",
        f"together_rl-{newest.version}.tar.gz",
    ]


def test_an_index_file_that_is_not_among_ours_is_refused(published, index, dist, spec, tmp_path):
    attempt = tmp_path / "dist"
    attempt.mkdir()
    sdist = dist / f"together_rl-{MIDDLE.version}.tar.gz"
    shutil.copy(sdist, attempt)  # the index also has this version's wheel
    result = publish(attempt, index.upload_url, spec=spec)
    assert result.returncode == 1
    assert (
        f"together-rl {MIDDLE.version}: the index has together_rl-{MIDDLE.version}-py3-none-any.whl"
        in result.stderr
    )


def test_a_failed_or_interrupted_upload_is_completed_by_publishing_again(
    published, index, next_major, spec, monkeypatch
):
    stored = index.stored()
    assert not any(artifact.name in stored for artifact in next_major.iterdir())

    failed = publish(next_major, index.upload_url, spec=spec, password="not-the-password")
    assert failed.returncode == 1
    assert failed.stderr.startswith(f"error: twine could not upload to {index.upload_url}")
    assert "403" in failed.stderr  # twine's own account of the failure is passed on
    assert index.stored() == stored

    # as if the upload had stopped after the wheel (publish uploads it first)
    (wheel,) = [
        artifact for artifact in read_dist(next_major) if artifact.filename.endswith(".whl")
    ]
    monkeypatch.setenv("TWINE_USERNAME", USER)
    monkeypatch.setenv("TWINE_PASSWORD", PASSWORD)
    upload([wheel], index.upload_url)
    assert set(index.stored()) - set(stored) == {wheel.filename}

    completed = publish(next_major, index.upload_url, spec=spec)
    assert completed.returncode == 0, completed.stderr
    sdist = next(next_major.glob("*.tar.gz"))
    assert (
        f"together-rl {NEXT_MAJOR_VERSION}: {wheel.filename} already on the index, identical"
        in (completed.stdout)
    )
    assert f"together-rl {NEXT_MAJOR_VERSION}: uploading {sdist.name}\n" in completed.stdout
    assert index.stored() == {
        **stored,
        **{artifact.name: _sha256(artifact) for artifact in next_major.iterdir()},
    }


def test_what_cannot_be_read_is_a_one_line_error(tmp_path, dist, spec):
    missing = publish(tmp_path / "nowhere", "http://127.0.0.1:9/", spec=spec)
    assert (missing.returncode, missing.stderr.splitlines()) == (
        1,
        [f"error: no dist folder at {tmp_path / 'nowhere'}; run `python -m generator build` first"],
    )
    with refused_port() as reserved:
        unreachable_url = f"http://127.0.0.1:{port_of(reserved)}/"
        unreachable = publish(dist, unreachable_url, spec=spec)
        assert unreachable.returncode == 1
        assert unreachable.stderr.startswith(
            f"error: cannot reach the index at {unreachable_url}simple/"
        )
        assert len(unreachable.stderr.splitlines()) == 1

        stray = tmp_path / "stray"
        shutil.copytree(dist, stray)
        (stray / "notes.txt").write_text("not an artifact")
        refused = publish(stray, unreachable_url, spec=spec)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"error: {stray / 'notes.txt'}: not a wheel or an sdist")


def test_a_wrong_index_url_is_not_read_as_an_empty_index(index, dist, spec):
    result = publish(
        dist, index.upload_url, "--index-url", index.upload_url + "nothing/here/", spec=spec
    )
    assert result.returncode == 1
    assert "answered 404" in result.stderr and "--index-url" in result.stderr
    assert result.stdout == ""


def test_the_default_index_url_of_pypi_testpypi_and_pypiserver():
    assert default_index_url("https://upload.pypi.org/legacy/") == "https://pypi.org/simple/"
    assert default_index_url("https://upload.pypi.org/legacy") == "https://pypi.org/simple/"
    assert default_index_url("https://test.pypi.org/legacy/") == "https://test.pypi.org/simple/"
    assert default_index_url("http://localhost:8080") == "http://localhost:8080/simple/"


def test_json_listings_and_listings_without_hashes(dist):
    """PEP 691 JSON (PyPI's) is read for the hashes; a listing without one is hashed by download."""
    artifacts = [a for a in read_dist(dist) if a.version == MIDDLE.version]
    wheel, sdist = sorted(artifacts, key=lambda a: not a.filename.endswith(".whl"))
    with LoopbackServer() as server:
        server.script(
            Reply(
                body={
                    "meta": {"api-version": "1.0"},
                    "name": "together-rl",
                    "files": [
                        {
                            "filename": wheel.filename,
                            "url": "/f/w",
                            "hashes": {"sha256": wheel.sha256},
                        },
                        {"filename": sdist.filename, "url": "/f/s", "hashes": {"sha256": "0" * 64}},
                    ],
                },
                headers={"Content-Type": "application/vnd.pypi.simple.v1+json"},
            ),
            Reply(
                body=f'<a href="../../f/w">{wheel.filename}</a><a href="/f/s">{sdist.filename}</a>',
                headers={"Content-Type": "text/html"},
            ),
            Reply(body=wheel.path.read_bytes(), headers={"Content-Type": "application/zip"}),
            Reply(body=b"other bytes", headers={"Content-Type": "application/gzip"}),
        )
        for _ in range(2):
            (release,) = plan(artifacts, SimpleIndex(server.url + "/simple/").files)
            assert len(release.problems()) == 1
            assert release.problems()[0].startswith(
                f"together-rl {MIDDLE.version}: {sdist.filename} on the index (sha256 "
            )
        assert [seen.path for seen in server.seen] == [
            "/simple/together-rl/",
            "/simple/together-rl/",
            "/f/w",
            "/f/s",
        ]
        assert "application/vnd.pypi.simple.v1+json" in server.seen[0].headers["accept"]


# -- reproducible builds ----------------------------------------------------------------------


def test_two_builds_of_one_tree_in_different_folders_are_byte_identical(dist, tmp_path):
    package = max((p for p in PACKAGES if p.epoch != UNKNOWN_DATE_EPOCH), key=lambda p: p.epoch)
    first = _copy(package.folder, tmp_path / "a" / package.revision)
    second = _copy(package.folder, tmp_path / "b" / "deeper" / "elsewhere")
    for path in second.rglob("*"):  # another checkout: other times and modes
        os.utime(path, (time.time(), time.time()))
        path.chmod(0o775 if path.is_dir() else 0o664)
    built = [{a.name: a.read_bytes() for a in build_packages([first], tmp_path / "out1")}]
    umask = os.umask(0o002)  # ... and another umask
    try:
        built.append({a.name: a.read_bytes() for a in build_packages([second], tmp_path / "out2")})
    finally:
        os.umask(umask)
    assert built[0] == built[1]
    assert sorted(built[0]) == [
        f"together_rl-{package.version}-py3-none-any.whl",
        f"together_rl-{package.version}.tar.gz",
    ]
    # ... and the same bytes as the build of generated/ itself, published above
    assert {name: (dist / name).read_bytes() for name in built[0]} == built[0]


# the newest package whose revision has a date, and the newest whose date is unknown (if any)
DATED_AND_UNDATED = {p.epoch == UNKNOWN_DATE_EPOCH: p for p in PACKAGES}.values()


@pytest.mark.parametrize("package", DATED_AND_UNDATED, ids=lambda p: p.revision)
def test_artifacts_are_dated_by_the_revision_date_and_owned_by_nobody(package, dist):
    sdist = dist / f"together_rl-{package.version}.tar.gz"
    with tarfile.open(sdist) as archive:
        members = archive.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {
        (package.epoch, 0, 0, "", "")
    }
    header = sdist.read_bytes()[:10]
    assert int.from_bytes(header[4:8], "little") == package.epoch  # gzip mtime
    assert header[3] & 0x08 == 0  # no file name in the gzip header

    with zipfile.ZipFile(dist / f"together_rl-{package.version}-py3-none-any.whl") as wheel:
        dates = {info.date_time for info in wheel.infolist()}
    assert dates == {time.gmtime(package.epoch)[:6]}


FIXED = """
import httpx, together_rl, together_rl_runtime

answer = httpx.Response(404, text="no such session")
client = together_rl.Client(api_key="k", transport=httpx.MockTransport(lambda r: answer))
try:
    client.get_optim_step_operation("s", "op")
except together_rl.NotFoundError as exc:
    print(together_rl.__version__, together_rl_runtime.__version__, str(exc))
"""


def test_a_runtime_fix_reaches_a_pinned_revision_with_pip_install_u(
    published, index, venv, tmp_path
):
    """A user pinned to the newest revision gets a runtime patch release with ``pip install -U``
    of the runtime alone: the revision's package is the same, the behaviour the fixed one."""
    newest = PACKAGES[-1]
    install_from(index, venv, f"together-rl=={newest.version}", "--only-binary", ":all:")
    before = subprocess.run(
        [str(venv), "-c", FIXED], capture_output=True, text=True, cwd="/", env=_as_a_user()
    )
    package_version, runtime_before, message = before.stdout.strip().split(" ", 2)
    assert (package_version, message) == (newest.version, "404 Not Found: no such session")
    # the runtime's maintainer fixes the message of an error status, as a patch release
    source = tmp_path / "runtime"
    shutil.copytree(
        RUNTIME_DIR,
        source,
        ignore=shutil.ignore_patterns("__pycache__", "tests", "build", "*.egg-info"),
    )
    major, minor, patch = map(int, runtime_before.split("."))
    fixed = f"{major}.{minor}.{patch + 1}"
    version_file = source / "together_rl_runtime" / "_version.py"
    version_file.write_text(version_file.read_text().replace(f'"{runtime_before}"', f'"{fixed}"'))
    core = source / "together_rl_runtime" / "_client.py"
    text = core.read_text()
    assert 'message = f"{status} {response.reason_phrase}: {detail}"' in text
    core.write_text(
        text.replace(
            'message = f"{status} {response.reason_phrase}: {detail}"',
            'message = f"HTTP {status} {response.reason_phrase}: {detail}"',
        )
    )
    out = tmp_path / "dist"
    build_packages([source], out)
    # ... recorded as released, as `release` records it
    spec = record(tmp_path / "spec", Release(DISTRIBUTION, fixed, None, hashes(read_tree(source))))
    assert publish(out, index.upload_url, spec=spec).returncode == 0
    pip_from(index, venv, "--upgrade", "--only-binary", ":all:", DISTRIBUTION)
    after = subprocess.run(
        [str(venv), "-c", FIXED], capture_output=True, text=True, cwd="/", env=_as_a_user()
    )
    assert after.stdout.strip() == f"{newest.version} {fixed} HTTP 404 Not Found: no such session"


def test_an_index_that_needs_no_credentials_takes_uploads_without_them(tmp_path, dist, spec):
    """pypiserver with authentication off: publish needs no TWINE_USERNAME or TWINE_PASSWORD."""
    server = Index(tmp_path / "open", authenticate=False)
    try:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("TWINE_")}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "generator",
                "--spec-dir",
                str(spec),
                "publish",
                "--repository-url",
                server.upload_url,
                "--dist",
                str(dist),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=environment,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert server.stored() == {path.name: _sha256(path) for path in dist.iterdir()}
    finally:
        server.stop()


def _runtime_as(version: str, to: Path) -> Path:
    """A copy of the runtime released as ``version``."""
    source = to / f"runtime-{version}"
    shutil.copytree(
        RUNTIME_DIR,
        source,
        ignore=shutil.ignore_patterns("__pycache__", "tests", "build", "*.egg-info"),
    )
    version_file = source / "together_rl_runtime" / "_version.py"
    text = version_file.read_text()
    assert f'__version__ = "{runtime_version()}"' in text
    version_file.write_text(text.replace(f'"{runtime_version()}"', f'"{version}"'))
    return source


def pip_resolving(index: Index, python: Path, *arguments: str) -> None:
    """``pip install ARGUMENTS`` from the loopback index, resolving dependencies as a user's pip
    does (httpx, which the index does not hold, is already there from this environment)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "--isolated", "--python", str(python), "install"]
        + ["--quiet", "--no-cache-dir", "--only-binary", ":all:", "--index-url"]
        + [index.simple_url, *arguments],
        check=True,
        env=_as_a_user(),
    )


def runtime_in(python: Path) -> subprocess.CompletedProcess[str]:
    """Import the pinned package; what it prints: its version and the runtime's."""
    probe = "import together_rl, together_rl_runtime as r; print(together_rl.__version__, r.__version__)"
    return subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, cwd="/", env=_as_a_user()
    )


def test_the_readme_upgrade_keeps_a_pinned_user_on_a_runtime_of_the_range(
    tmp_path, venv, monkeypatch
):
    """With a runtime of the next major version on the index, the upgrade command of the oldest
    package's README takes the newest runtime the package declares; a user whom pip forced
    onto the next major version gets an ImportError naming both versions and the fix, which
    works."""
    oldest = PACKAGES[0]
    major, minor, patch = map(int, runtime_version().split("."))
    fix, next_major = f"{major}.{minor}.{patch + 1}", f"{major + 1}.0.0"
    out = tmp_path / "dist"
    build_packages([RUNTIME_DIR, oldest.folder], out, wheel_only=True)
    build_packages([_runtime_as(v, tmp_path) for v in (fix, next_major)], out, wheel_only=True)
    server = Index(tmp_path / "index")
    try:
        # the index as users meet it, with made-up runtimes on it: uploaded as they are (what
        # `publish` lets through is the other tests')
        monkeypatch.setenv("TWINE_USERNAME", USER)
        monkeypatch.setenv("TWINE_PASSWORD", PASSWORD)
        upload(read_dist(out), server.upload_url)
        # a runtime of this version in the environment, as the pinned user installed it first
        pip_from(server, venv, "--ignore-installed", f"{DISTRIBUTION}=={runtime_version()}")
        pip_from(server, venv, f"together-rl=={oldest.version}")
        assert runtime_in(venv).stdout.split() == [oldest.version, runtime_version()]

        readme = (oldest.folder / "README.md").read_text(encoding="utf-8")
        (upgrade,) = [line for line in readme.splitlines() if line.startswith("pip install -U ")]
        pip_resolving(server, venv, *shlex.split(upgrade)[2:])
        assert runtime_in(venv).stdout.split() == [oldest.version, fix]

        pip_from(server, venv, "--upgrade", DISTRIBUTION)  # the runtime alone: pip takes 2.0.0
        refused = runtime_in(venv)
        assert refused.returncode == 1 and "Traceback" in refused.stderr
        message = refused.stderr.strip().splitlines()[-1]
        assert message.startswith("ImportError: ")
        assert f"together-rl {oldest.version} needs " in message
        assert f"but together-rl-runtime {next_major} is installed" in message
        (command,) = re.findall(r"`(pip install [^`]+)`", message)
        pip_resolving(server, venv, *shlex.split(command)[2:])
        assert runtime_in(venv).stdout.split() == [oldest.version, fix]
    finally:
        server.stop()
