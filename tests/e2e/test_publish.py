"""Publishing to a real package index (pypiserver on loopback): every version goes up once, a
version already there with the same files is skipped, a changed one is refused before anything is
uploaded; pinned installs from the index get the right revision; builds are reproducible.

Which versions exist is read from spec/revisions.yaml and generated/, never listed here.
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

from generator.reading.revisions import load_index
from generator.reading.runtime import DISTRIBUTION, RUNTIME_DIR, version as runtime_version
from generator.release.build import UNKNOWN_DATE_EPOCH, build_packages
from generator.release.publish import SimpleIndex, default_index_url, plan, read_dist
from support.loopback import LoopbackServer, Reply, free_port
from support.paths import ROOT, SPEC_DIR

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
def dist(tmp_path_factory):
    """The runtime and every generated package, built once."""
    out = tmp_path_factory.mktemp("dist")
    build_packages([RUNTIME_DIR, *(package.folder for package in PACKAGES)], out)
    return out


@pytest.fixture(scope="module")
def next_major(tmp_path_factory):
    """A version the index does not have yet: the newest package, renumbered."""
    source = _copy(NEWEST_OF_NEWEST_MAJOR.folder, tmp_path_factory.mktemp("next") / "package")
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text()
    line = f'version = "{NEWEST_OF_NEWEST_MAJOR.version}"'
    assert line in text
    pyproject.write_text(text.replace(line, f'version = "{NEXT_MAJOR_VERSION}"'))
    out = tmp_path_factory.mktemp("next-dist")
    build_packages([source], out)
    return out


def publish(dist: Path, repository_url: str, *extra: str, password: str = PASSWORD):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TWINE_")}
    environment.update(TWINE_USERNAME=USER, TWINE_PASSWORD=password)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
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
def published(index, dist):
    """The first publication of every built version (the index URL derived from the upload URL)."""
    before = index.stored()
    result = publish(dist, index.upload_url)
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
    )


def install_from(index: Index, python: Path, requirement: str, *options: str) -> list[str]:
    """Install the runtime and ``requirement`` from the loopback index and report what got
    imported. (An editable runtime of this environment would count as installed: the index's
    is installed over it.)"""
    pip_from(index, python, "--ignore-installed", "--only-binary", ":all:", DISTRIBUTION)
    pip_from(index, python, *options, requirement)
    result = subprocess.run(
        [str(python), "-c", PROBE], capture_output=True, text=True, check=True, cwd="/"
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


def test_publishing_again_changes_nothing(published, index, dist):
    stored = index.stored()
    result = publish(dist, index.upload_url, "--index-url", index.simple_url)
    assert result.returncode == 0, result.stdout + result.stderr
    for package in PACKAGES:
        assert (
            f"together-rl {package.version}: already on the index with identical files, skipped"
            in result.stdout
        )
    assert "uploading" not in result.stdout
    assert index.stored() == stored


def test_a_changed_file_under_a_published_version_is_refused_and_nothing_is_uploaded(
    published, index, next_major, tmp_path
):
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

    result = publish(attempt, index.upload_url)

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


def test_an_index_file_that_is_not_among_ours_is_refused(published, index, dist, tmp_path):
    attempt = tmp_path / "dist"
    attempt.mkdir()
    wheel = next(dist.glob(f"together_rl-{MIDDLE.version}-*.whl"))
    shutil.copy(wheel, attempt)  # the index also has this version's sdist
    result = publish(attempt, index.upload_url)
    assert result.returncode == 1
    assert f"together-rl {MIDDLE.version}: the index has together_rl-{MIDDLE.version}.tar.gz" in (
        result.stderr
    )


def test_a_failed_or_interrupted_upload_is_completed_by_publishing_again(
    published, index, next_major, tmp_path
):
    stored = index.stored()
    assert not any(artifact.name in stored for artifact in next_major.iterdir())

    failed = publish(next_major, index.upload_url, password="not-the-password")
    assert failed.returncode == 1
    assert failed.stderr.startswith(f"error: twine could not upload to {index.upload_url}")
    assert "403" in failed.stderr  # twine's own account of the failure is passed on
    assert index.stored() == stored

    wheel_only = tmp_path / "wheel-only"  # as if the upload had stopped after the wheel
    wheel_only.mkdir()
    wheel = Path(shutil.copy(next(next_major.glob("*.whl")), wheel_only))
    assert publish(wheel_only, index.upload_url).returncode == 0
    assert set(index.stored()) - set(stored) == {wheel.name}

    completed = publish(next_major, index.upload_url)
    assert completed.returncode == 0, completed.stderr
    sdist = next(next_major.glob("*.tar.gz"))
    assert f"together-rl {NEXT_MAJOR_VERSION}: {wheel.name} already on the index, identical" in (
        completed.stdout
    )
    assert f"together-rl {NEXT_MAJOR_VERSION}: uploading {sdist.name}\n" in completed.stdout
    assert index.stored() == {
        **stored,
        **{artifact.name: _sha256(artifact) for artifact in next_major.iterdir()},
    }


def test_what_cannot_be_read_is_a_one_line_error(tmp_path, dist):
    missing = publish(tmp_path / "nowhere", "http://127.0.0.1:9/")
    assert (missing.returncode, missing.stderr.splitlines()) == (
        1,
        [f"error: no dist folder at {tmp_path / 'nowhere'}; run `python -m generator build` first"],
    )
    unreachable_url = f"http://127.0.0.1:{free_port()}/"
    unreachable = publish(dist, unreachable_url)
    assert unreachable.returncode == 1
    assert unreachable.stderr.startswith(
        f"error: cannot reach the index at {unreachable_url}simple/"
    )
    assert len(unreachable.stderr.splitlines()) == 1

    stray = tmp_path / "stray"
    shutil.copytree(dist, stray)
    (stray / "notes.txt").write_text("not an artifact")
    refused = publish(stray, unreachable_url)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"error: {stray / 'notes.txt'}: not a wheel or an sdist")


def test_a_wrong_index_url_is_not_read_as_an_empty_index(index, dist):
    result = publish(dist, index.upload_url, "--index-url", index.upload_url + "nothing/here/")
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
    before = subprocess.run([str(venv), "-c", FIXED], capture_output=True, text=True, cwd="/")
    package_version, runtime_before, message = before.stdout.strip().split(" ", 2)
    assert (package_version, message) == (newest.version, "404 Not Found: no such session")
    # the runtime's maintainer fixes the message of an error status, as a patch release
    source = tmp_path / "runtime"
    shutil.copytree(RUNTIME_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "tests"))
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
    assert publish(out, index.upload_url).returncode == 0
    pip_from(index, venv, "--upgrade", "--only-binary", ":all:", DISTRIBUTION)
    after = subprocess.run([str(venv), "-c", FIXED], capture_output=True, text=True, cwd="/")
    assert after.stdout.strip() == f"{newest.version} {fixed} HTTP 404 Not Found: no such session"


def test_an_index_that_needs_no_credentials_takes_uploads_without_them(tmp_path, dist):
    """pypiserver with authentication off: publish needs no TWINE_USERNAME or TWINE_PASSWORD."""
    server = Index(tmp_path / "open", authenticate=False)
    try:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("TWINE_")}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "generator",
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
    shutil.copytree(RUNTIME_DIR, source, ignore=shutil.ignore_patterns("__pycache__", "tests"))
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
    )


def runtime_in(python: Path) -> subprocess.CompletedProcess[str]:
    """Import the pinned package; what it prints: its version and the runtime's."""
    probe = "import together_rl, together_rl_runtime as r; print(together_rl.__version__, r.__version__)"
    return subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd="/")


def test_the_readme_upgrade_keeps_a_pinned_user_on_a_runtime_of_the_range(tmp_path, venv):
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
        assert publish(out, server.upload_url).returncode == 0
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
