"""What has been released, as recorded in ``spec/releases.yaml``.

A released package never changes: the record is what the repository knows of it, not a guess
from a package index. A missing file records nothing released.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import GeneratorError
from .loader import load_yaml
from .pointer import join

RELEASES_FILE = "releases.yaml"


class ReleasesError(GeneratorError):
    """The release record is malformed."""


@dataclass(frozen=True)
class Release:
    """One released version of a distribution."""

    distribution: str
    version: str
    revision: str | None
    """The API revision the package was generated from (``None`` for a distribution that is not
    a revision's package)."""
    files: dict[str, str]
    """The sha256 of every file of the package as released, by its path in the package folder."""


@dataclass(frozen=True)
class Releases:
    """Every release the repository records, in the order they were recorded."""

    source: Path
    releases: tuple[Release, ...] = ()

    def of_revision(self, revision_id: str) -> Release | None:
        """The release of a revision's package, where it was released."""
        found = [r for r in self.releases if r.revision == revision_id]
        return found[-1] if found else None


def load_releases(spec_dir: Path) -> Releases:
    """Read and check ``spec_dir/releases.yaml`` (nothing released where it is missing)."""
    path = spec_dir / RELEASES_FILE
    if not path.is_file():
        return Releases(path)
    raw = load_yaml(path)
    entries = raw.get("releases") if isinstance(raw, dict) else None
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
        releases.append(Release(distribution, str(version), revision, dict(files)))
    return Releases(path, tuple(releases))
