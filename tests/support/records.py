"""Release records for tests that build or publish: the project's own, with changes."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from generator.output.tree import read_tree
from generator.reading.runtime import DISTRIBUTION, project_files, version
from generator.release.records import (
    RELEASES_FILE,
    REVISION_DISTRIBUTION,
    Release,
    Releases,
    hashes,
    load_releases,
)
from support.packages import package_version
from support.paths import ROOT, SPEC_DIR


def record(spec: Path, *extra: Release, without: Collection[tuple[str, str]] = ()) -> Path:
    """A spec folder (``spec``, created) whose ``releases.yaml`` is the project's release record
    with the runtime's version and every package of generated/ recorded where they are not yet
    (as `release` records them: a revision appended to the project is not released) and
    ``extra`` (each in place of a recorded release of its version), less the releases of
    ``without`` (``(distribution, version)`` pairs)."""
    releases = load_releases(SPEC_DIR)
    added = [*_unrecorded(releases), *extra]
    if releases.find(DISTRIBUTION, version()) is None:
        added.insert(0, Release(DISTRIBUTION, version(), None, hashes(project_files())))
    left_out = {*without, *((entry.distribution, entry.version) for entry in extra)}
    kept = [e for e in releases.releases if (e.distribution, e.version) not in left_out]
    added = [e for e in added if (e.distribution, e.version) not in without]
    spec.mkdir(parents=True, exist_ok=True)
    Releases(spec / RELEASES_FILE, (*kept, *added), releases.post_releases).write()
    return spec


def _unrecorded(releases: Releases) -> list[Release]:
    """The packages of generated/ whose version the record lacks, recorded as they are."""
    found = []
    for folder in sorted((ROOT / "generated").iterdir()):
        if not (folder / "pyproject.toml").is_file():
            continue
        version_of = package_version(folder)
        if releases.find(REVISION_DISTRIBUTION, version_of) is None:
            files = hashes(read_tree(folder))
            found.append(Release(REVISION_DISTRIBUTION, version_of, folder.name, files))
    return found
