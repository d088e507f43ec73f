"""Package versions derived from the revision history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import changelog
from .revisions import Revision


@dataclass(frozen=True)
class VersionedChanges(changelog.RevisionChanges):
    """A revision's changes, and the package version generated from it."""

    version: str
    first: bool


def package_versions(index: Sequence[Revision]) -> list[VersionedChanges]:
    """Versions derived from the history: a warning or error bumps the major version, only info
    changes the minor, no change the patch. The first revision is 1.0.0."""
    major, minor, patch = 1, 0, 0
    result = [VersionedChanges(index[0], (), "1.0.0", True)]
    for entry in changelog.history(index):
        if entry.breaking:
            major, minor, patch = major + 1, 0, 0
        elif entry.changes:
            minor, patch = minor + 1, 0
        else:
            patch += 1
        result.append(
            VersionedChanges(entry.revision, entry.changes, f"{major}.{minor}.{patch}", False)
        )
    return result
