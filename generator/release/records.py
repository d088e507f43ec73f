"""What has been released, as recorded in ``spec/releases.yaml``, and what that freezes.

A released package never changes: the record holds the sha256 of every file of each released
version (of a revision's package, and of the runtime), so that ``generate`` and ``check`` refuse
a change that would alter one, naming its files. A fix then ships as a release of the runtime,
or, on purpose, as a post-release of a revision's package (``post-release``: the same revision,
version ``X.Y.Z.postN``). A missing file records nothing released.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import GeneratorError
from ..pointer import join
from ..reading import runtime
from ..reading.loader import load_yaml

RELEASES_FILE = "releases.yaml"
REVISION_DISTRIBUTION = "together-rl"

_HEADER = """\
# What has been released: every version of the runtime (together-rl-runtime) and of a revision's
# package (together-rl) that was published, with the sha256 of each of its files as released.
# Written by `python -m generator release`; `generate` and `check` refuse any change that would
# alter a released package. `post-releases` names the revisions whose package is rendered as a
# post-release (X.Y.Z.postN) of its released version: `python -m generator post-release ID`.
"""


class ReleasesError(GeneratorError):
    """The release record is malformed, or a change would alter a released package."""


@dataclass(frozen=True)
class Release:
    """One released version of a distribution."""

    distribution: str
    version: str
    revision: str | None
    """The API revision the package was generated from (``None`` for the runtime)."""
    files: Mapping[str, str]
    """The sha256 of every file of the package as released, by its path in the package folder."""

    def to_yaml(self) -> dict[str, object]:
        entry: dict[str, object] = {"distribution": self.distribution, "version": self.version}
        if self.revision is not None:
            entry["revision"] = self.revision
        entry["files"] = dict(sorted(self.files.items()))
        return entry


@dataclass(frozen=True)
class Releases:
    """Every release the repository records, in the order they were recorded."""

    source: Path
    releases: tuple[Release, ...] = ()
    post_releases: Mapping[str, int] = field(default_factory=dict)
    """For a revision whose package is rendered as a post-release, the post number."""

    def find(self, distribution: str, version: str) -> Release | None:
        return next(
            (r for r in self.releases if (r.distribution, r.version) == (distribution, version)),
            None,
        )

    def of_revision(self, revision_id: str) -> Release | None:
        """The newest release of a revision's package, where it was released."""
        found = [r for r in self.releases if r.revision == revision_id]
        return found[-1] if found else None

    def with_release(self, release: Release) -> Releases:
        return Releases(self.source, (*self.releases, release), self.post_releases)

    def with_post_release(self, revision_id: str, number: int) -> Releases:
        posts = {**self.post_releases, revision_id: number}
        return Releases(self.source, self.releases, posts)

    def write(self) -> None:
        """Write the record (replaced with a rename, never half written)."""
        from ..reading.revisions import write_atomically

        data: dict[str, object] = {"releases": [r.to_yaml() for r in self.releases]}
        if self.post_releases:
            data["post-releases"] = dict(sorted(self.post_releases.items()))
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
        write_atomically(self.source, _HEADER + "\n" + text)


def load_releases(spec_dir: Path) -> Releases:
    """Read and check ``spec_dir/releases.yaml`` (nothing released where it is missing)."""
    path = spec_dir / RELEASES_FILE
    if not path.is_file():
        return Releases(path)
    raw = load_yaml(path)
    if not isinstance(raw, dict) or not set(raw) <= {"releases", "post-releases"}:
        raise ReleasesError(f"{path}#/: expected a mapping with `releases` (and `post-releases`)")
    entries = raw.get("releases") or []
    if not isinstance(entries, list):
        raise ReleasesError(f"{path}#/releases: expected a list of releases")
    releases = []
    for position, entry in enumerate(entries):
        at = f"{path}#{join('/releases', position)}"
        if not isinstance(entry, dict):
            raise ReleasesError(f"{at}: expected a mapping with distribution, version and files")
        distribution, version = entry.get("distribution"), entry.get("version")
        revision, files = entry.get("revision"), entry.get("files", {})
        if not isinstance(distribution, str) or not isinstance(version, str):
            raise ReleasesError(f"{at}: distribution and version must be strings")
        if revision is not None and not isinstance(revision, str):
            raise ReleasesError(f"{at}/revision: expected a revision id, got {revision!r}")
        if not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items()
        ):
            raise ReleasesError(f"{at}/files: expected a mapping of paths to sha256 digests")
        releases.append(Release(distribution, version, revision, dict(files)))
    posts = raw.get("post-releases") or {}
    if not isinstance(posts, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 1
        for k, v in posts.items()
    ):
        raise ReleasesError(
            f"{path}#/post-releases: expected a mapping of revision ids to post numbers >= 1"
        )
    return Releases(path, tuple(releases), dict(posts))


def hashes(files: Mapping[str, bytes]) -> dict[str, str]:
    """The sha256 of each file, by path."""
    return {path: hashlib.sha256(content).hexdigest() for path, content in files.items()}


def differences(release: Release, files: Mapping[str, bytes]) -> list[str]:
    """The paths (in the package folder) where ``files`` differ from what was released: changed,
    added or removed, sorted."""
    now = hashes(files)
    return sorted(
        path for path in set(now) | set(release.files) if now.get(path) != release.files.get(path)
    )


def frozen_error(release: Release, folder: str, paths: Iterable[str]) -> str:
    """What to say of a change that would alter a released package, and how to ship it."""
    listed = "\n".join(f"  {folder}/{path}" for path in paths)
    what = f"{release.distribution} {release.version}"
    if release.revision is None:
        return (
            f"{what} is released, and these files differ from it:\n{listed}\nA released version "
            "never changes: give the runtime a new version (a patch release for a fix, a minor "
            "one for something new) in runtime/together_rl_runtime/_version.py, with its entry "
            "in runtime/CHANGELOG.md"
        )
    return (
        f"{what} (revision {release.revision}) is released, and this change would alter it:\n"
        f"{listed}\nA released package never changes. Ship the change in the runtime "
        "(runtime/: a new release of together-rl-runtime reaches every pinned revision with "
        "`pip install -U together-rl-runtime`), or, on purpose, as a post-release of that "
        f"revision's package: `python -m generator post-release {release.revision}`"
    )


def check_frozen(
    files: Mapping[str, bytes], releases: Releases, versions: Mapping[str, str]
) -> None:
    """Refuse packages' ``files`` (by path relative to ``generated/``, each package's version in
    ``versions``) that would alter a released package, or a runtime that differs from its
    released version, naming the files and how to ship the change."""
    problems = []
    by_package: dict[str, dict[str, bytes]] = {}
    for path, content in files.items():
        folder, _, inner = path.partition("/")
        by_package.setdefault(folder, {})[inner] = content
    for revision_id, package in sorted(by_package.items()):
        release = releases.find(REVISION_DISTRIBUTION, versions[revision_id])
        changed = differences(release, package) if release is not None else []
        if release is not None and changed:
            problems.append(frozen_error(release, f"generated/{revision_id}", changed))
    runtime_release = releases.find(runtime.DISTRIBUTION, runtime.version())
    if runtime_release is not None:
        changed = differences(runtime_release, runtime.project_files())
        if changed:
            problems.append(frozen_error(runtime_release, "runtime", changed))
    if problems:
        problems.append(
            "Nothing was written, not even the packages of revisions not released yet: "
            "`generate --revision ID` renders one of those alone meanwhile, and `check` fails "
            "until every released package named above renders as it was released"
        )
        raise ReleasesError("\n\n".join(problems))
