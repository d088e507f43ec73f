"""Publish built artifacts to a package index without ever changing a published version.

Only recorded releases are published: before anything else, every artifact in the dist folder
is checked against ``spec/releases.yaml`` (see :mod:`generator.release.recorded`), and one that
is not a recorded release, or whose files differ from it, is refused, with nothing uploaded.

Then, still before anything is uploaded, every version is compared with what the index's
simple API (PEP 503 HTML or PEP 691 JSON) lists for it, file name by file name and sha256 by
sha256:

- a version the index does not have is uploaded;
- a version whose files on the index are all among ours, byte for byte, is already published:
  it is skipped, or, where some of our files are missing there (an upload that stopped half-way),
  only those are uploaded;
- a version with a file on the index that differs from ours, or that is not among ours, is
  refused, and then nothing at all is uploaded.

Uploads go through twine, which reads the credentials from the environment (``TWINE_USERNAME``,
``TWINE_PASSWORD``, ...); they are never printed.
"""

from __future__ import annotations

import hashlib
import http.client
import importlib.util
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path
from typing import IO
from urllib.parse import urljoin, urlsplit

from ..errors import GeneratorError
from .archives import normalise_project, parse_filename, sha256_of
from .recorded import artifact_problems
from .records import Releases

SIMPLE_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.1"
)
"""The simple API's content negotiation (PEP 691): JSON where the index serves it, else HTML."""

KNOWN_INDEXES = {
    "https://upload.pypi.org/legacy/": "https://pypi.org/simple/",
    "https://test.pypi.org/legacy/": "https://test.pypi.org/simple/",
}
"""Upload URLs whose simple index is not at ``<upload URL>/simple/``."""

TIMEOUT = 30.0


class PublishError(GeneratorError):
    """Publishing was refused (nothing was uploaded) or failed (the message says where)."""


@dataclass(frozen=True)
class Artifact:
    """A wheel or sdist in the dist folder."""

    path: Path
    project: str
    """The project's name, normalised as the simple API does (``together-rl``)."""
    version: str
    sha256: str

    @property
    def filename(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class IndexFile:
    """A file the index lists for a project."""

    filename: str
    url: str
    sha256: str | None
    """None where the listing gives no sha256 (the file is then downloaded and hashed)."""


@dataclass(frozen=True)
class Release:
    """One version of one project: our files of it and what the index holds of it."""

    project: str
    version: str
    ours: tuple[Artifact, ...]
    published: tuple[IndexFile, ...]

    @property
    def label(self) -> str:
        return f"{self.project} {self.version}"

    def problems(self) -> list[str]:
        """Why publishing this version would change what the index already holds."""
        ours = {artifact.filename: artifact for artifact in self.ours}
        problems = []
        for published in self.published:
            artifact = ours.get(published.filename)
            if artifact is None:
                names = ", ".join(sorted(ours))
                problems.append(
                    f"{self.label}: the index has {published.filename}, which is not among the "
                    f"files built for this version ({names})"
                )
            elif published.sha256 != artifact.sha256:
                problems.append(
                    f"{self.label}: {published.filename} on the index (sha256 {published.sha256}) "
                    f"differs from {artifact.path} (sha256 {artifact.sha256})"
                )
        return problems

    def missing(self) -> list[Artifact]:
        """Our files of this version that the index does not have."""
        names = {published.filename for published in self.published}
        return [artifact for artifact in self.ours if artifact.filename not in names]


@dataclass(frozen=True)
class PublishResult:
    uploaded: tuple[Artifact, ...]
    already_there: tuple[Release, ...]


def default_index_url(repository_url: str) -> str:
    """The simple index that goes with an upload URL: PyPI's and TestPyPI's where it is theirs,
    else ``<repository URL>/simple/``, where pypiserver serves it."""
    parts = urlsplit(repository_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PublishError(f"the repository URL {repository_url!r} is not an http(s) URL")
    base = repository_url.rstrip("/") + "/"
    return KNOWN_INDEXES.get(base, base + "simple/")


def read_dist(dist: Path) -> list[Artifact]:
    """The wheels and sdists in ``dist``, sorted by project, version and file name."""
    if not dist.is_dir():
        raise PublishError(f"no dist folder at {dist}; run `python -m generator build` first")
    artifacts = []
    for path in sorted(dist.iterdir()):
        parsed = parse_filename(path.name)
        if parsed is None or not path.is_file():
            raise PublishError(
                f"{path}: not a wheel or an sdist; the dist folder must hold only those"
            )
        project, version = parsed
        artifacts.append(Artifact(path, project, version, _sha256(path)))
    if not artifacts:
        raise PublishError(f"no artifacts in {dist}; run `python -m generator build` first")
    return sorted(artifacts, key=lambda a: (a.project, _version_key(a.version), a.filename))


def plan(artifacts: Iterable[Artifact], index: Callable[[str], list[IndexFile]]) -> list[Release]:
    """Our artifacts grouped by version, each with the index's files of that version.

    ``index(project)`` lists the index's files of a project; it is called once per project.
    """
    groups: dict[tuple[str, str], list[Artifact]] = {}
    for artifact in artifacts:
        groups.setdefault((artifact.project, artifact.version), []).append(artifact)
    listings: dict[str, list[IndexFile]] = {}
    releases = []
    for (project, version), ours in groups.items():
        if project not in listings:
            listings[project] = index(project)
        published = tuple(
            file
            for file in listings[project]
            if parse_filename(file.filename) == (project, version)
        )
        releases.append(Release(project, version, tuple(ours), published))
    return releases


def publish(
    dist: Path,
    repository_url: str,
    index_url: str | None = None,
    *,
    record: Releases,
    report: Callable[[str], None] = print,
) -> PublishResult:
    """Upload what ``dist`` holds that the index does not have yet; refuse an artifact that is
    not a release ``record`` holds, and any change to a published version (then nothing is
    uploaded)."""
    artifacts = read_dist(dist)
    unrecorded = artifact_problems([artifact.path for artifact in artifacts], record)
    if unrecorded:
        raise PublishError(
            f"refusing to publish what {record.source} does not record; nothing was "
            "uploaded:\n"
            + "\n".join(f"  {problem}" for problem in unrecorded)
            + "\nOnly recorded releases are published, as `python -m generator build` builds "
            "them: record a version with `python -m generator release` once it is generated "
            "and reviewed; a recorded version is built from the tree it was released from"
        )
    index = SimpleIndex(index_url or default_index_url(repository_url))
    index.check()
    releases = plan(artifacts, index.files)
    problems = [problem for release in releases for problem in release.problems()]
    if problems:
        raise PublishError(
            f"refusing to change published versions on {index.url}; nothing was uploaded:\n"
            + "\n".join(f"  {problem}" for problem in problems)
            + "\nA published version never changes: build those versions from the tree they "
            "were released from (spec/releases.yaml records it; `python -m generator check` "
            "says what differs), and ship a change as a runtime release, or as a post-release "
            "of the revision (`python -m generator post-release ID`)"
        )
    uploads: list[Artifact] = []
    already_there: list[Release] = []
    for release in releases:
        missing = release.missing()
        if not missing:
            report(f"{release.label}: already on the index with identical files, skipped")
            already_there.append(release)
            continue
        if release.published:
            present = ", ".join(sorted(file.filename for file in release.published))
            report(f"{release.label}: {present} already on the index, identical")
        report(f"{release.label}: uploading {', '.join(a.filename for a in missing)}")
        uploads.extend(missing)
    if uploads:
        upload(uploads, repository_url)
    report(
        f"{len(uploads)} files uploaded to {repository_url}; "
        f"{len(already_there)} of {len(releases)} versions were already there"
    )
    return PublishResult(tuple(uploads), tuple(already_there))


ANONYMOUS = "__anonymous__"
"""The user name sent where the environment gives no credentials."""


def upload(artifacts: Iterable[Artifact], repository_url: str) -> None:
    """Upload with twine, which takes the credentials from the environment."""
    if importlib.util.find_spec("twine") is None:
        raise PublishError(
            "twine is not installed; install it with `pip install 'together-rl-codegen[release]'`"
        )
    command = [
        sys.executable,
        "-m",
        "twine",
        "upload",
        "--non-interactive",
        "--disable-progress-bar",
        "--repository-url",
        repository_url,
        *(str(artifact.path) for artifact in artifacts),
    ]
    environment = {**os.environ, "NO_COLOR": "1"}
    if "TWINE_USERNAME" not in environment and "TWINE_PASSWORD" not in environment:
        # an index that needs no credentials still gets a user name from twine; one that needs
        # them refuses these, and the error says to set them
        environment.update(TWINE_USERNAME=ANONYMOUS, TWINE_PASSWORD="")
    result = subprocess.run(
        command, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=environment
    )
    if result.returncode != 0:
        output = _ANSI_CODES.sub("", result.stdout + result.stderr)
        output = "\n".join(line.rstrip() for line in output.strip().splitlines())
        output = _redact(output)[-2000:]
        hint = ""
        if environment.get("TWINE_USERNAME") == ANONYMOUS and re.search(r"\b40[13]\b", output):
            hint = " (the index wants credentials: set TWINE_USERNAME and TWINE_PASSWORD)"
        raise PublishError(
            f"twine could not upload to {repository_url} (exit status {result.returncode})"
            f"{hint}; files uploaded before the failure stay there, and publishing again uploads "
            f"the rest:\n{output}"
        )


_ANSI_CODES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _redact(text: str) -> str:
    """``text`` with the password of the environment, should twine ever echo it, masked."""
    password = os.environ.get("TWINE_PASSWORD")
    return text.replace(password, "<TWINE_PASSWORD>") if password else text


class SimpleIndex:
    """A package index's simple API, read with the standard library."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/") + "/"
        self._opener = urllib.request.build_opener(_SameOriginRedirects())

    def check(self) -> None:
        """Fail unless the index's root answers: a wrong URL must not read as an empty index."""
        try:
            self._fetch(urllib.request.Request(self.url, method="HEAD", headers=self._headers()))
        except _LeftTheIndex as exc:
            raise PublishError(
                f"{self.url} redirects to {exc.target}; pass the simple index URL with --index-url"
            ) from None
        except urllib.error.HTTPError as exc:
            if exc.code == 405:  # HEAD not allowed: the index is there
                return
            hint = (
                "; pass the index's simple URL with --index-url" if exc.code in (404, 410) else ""
            )
            raise PublishError(
                f"the simple index at {self.url} answered {exc.code} {exc.reason}{hint}"
            ) from None

    def files(self, project: str) -> list[IndexFile]:
        """The files the index lists for ``project``; none where it does not have the project."""
        url = urljoin(self.url, f"{normalise_project(project)}/")
        try:
            body, headers, final_url = self._fetch(
                urllib.request.Request(url, headers=self._headers())
            )
        except _LeftTheIndex:
            return []  # pypiserver sends projects it does not have to its fallback index
        except urllib.error.HTTPError as exc:
            if exc.code in (404, 410):
                return []
            raise PublishError(f"the index answered {exc.code} {exc.reason} for {url}") from None
        try:
            text = body.decode(headers.get_content_charset() or "utf-8")
            if headers.get_content_type() == "application/vnd.pypi.simple.v1+json":
                listed = _files_from_json(json.loads(text), final_url)
            else:
                listed = _files_from_html(text, final_url)
        except (ValueError, LookupError, TypeError, AttributeError) as exc:
            raise PublishError(f"cannot read the index's page {url}: {exc}") from None
        return [
            file if file.sha256 else IndexFile(file.filename, file.url, self._download_sha256(file))
            for file in listed
        ]

    def _download_sha256(self, file: IndexFile) -> str:
        request = urllib.request.Request(file.url, headers={"User-Agent": _USER_AGENT})
        try:
            body, _, _ = self._fetch(request)
        except (urllib.error.HTTPError, _LeftTheIndex) as exc:
            raise PublishError(f"cannot download {file.url} to hash it: {exc}") from None
        return hashlib.sha256(body).hexdigest()

    def _fetch(self, request: urllib.request.Request) -> tuple[bytes, Message, str]:
        """The body, headers and final URL of the response; HTTP errors and redirects away from
        the index are raised as they are, everything else as a PublishError."""
        try:
            with self._opener.open(request, timeout=TIMEOUT) as response:
                return response.read(), response.headers, response.geturl()
        except (urllib.error.HTTPError, _LeftTheIndex):
            raise
        except urllib.error.URLError as exc:
            reason = exc.reason
        except (OSError, ValueError, http.client.HTTPException) as exc:
            reason = exc
        raise PublishError(f"cannot reach the index at {request.full_url}: {reason}")

    @staticmethod
    def _headers() -> dict[str, str]:
        return {"Accept": SIMPLE_ACCEPT, "User-Agent": _USER_AGENT}


_USER_AGENT = "together-rl-codegen-publish"


class _LeftTheIndex(Exception):
    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects within the index's host only (pypiserver redirects the pages of projects
    it does not have to another index, whose files are not this index's)."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            raise _LeftTheIndex(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _files_from_json(page: object, page_url: str) -> list[IndexFile]:
    if not isinstance(page, dict) or not isinstance(page.get("files"), list):
        raise ValueError("expected an object with a list of files (PEP 691)")
    files = []
    for entry in page["files"]:
        hashes = entry.get("hashes") or {}
        files.append(
            IndexFile(
                str(entry["filename"]),
                urljoin(page_url, str(entry["url"])),
                str(hashes["sha256"]).lower() if "sha256" in hashes else None,
            )
        )
    return files


def _files_from_html(page: str, page_url: str) -> list[IndexFile]:
    parser = _AnchorParser()
    parser.feed(page)
    parser.close()
    files = []
    for href, text in parser.anchors:
        url, _, fragment = href.partition("#")
        filename = text.strip() or url.rstrip("/").rsplit("/", 1)[-1]
        algorithm, _, value = fragment.partition("=")
        sha256 = value.lower() if algorithm == "sha256" and value else None
        files.append(IndexFile(filename, urljoin(page_url, url), sha256))
    return files


class _AnchorParser(HTMLParser):
    """The ``<a href>`` elements of a PEP 503 page, with their text."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href")
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.anchors.append((self._href, "".join(self._text)))
            self._href = None


def _sha256(path: Path) -> str:
    with path.open("rb") as stream:
        return sha256_of(stream)


def _version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Orders ``2.0.0`` before ``10.0.0`` (for the report only; the index decides nothing by it)."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"[.+-]", version)
    )
