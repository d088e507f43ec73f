"""What the packages of ``spec/`` are rendered from: its data files, each read once (on first use,
so that a command reads only what it needs, in the order it needs it), and handed to the
renderer, which reads none of them itself."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from ..changes.versions import VersionedChanges, own_versions, package_versions
from ..reading.fieldroles import FieldRoles, load_field_roles
from ..reading.metadata import PackageMetadata, load_metadata
from ..reading.revisions import RevisionIndex, load_index
from ..reading.statuses import StatusKinds, load_statuses
from .records import Releases, load_releases


class Sources:
    """``spec/``'s data: the index of revisions, the field roles of the local reference, the kinds
    of the status values, the packages' metadata, and the release record."""

    def __init__(self, spec_dir: Path) -> None:
        self.spec_dir = spec_dir

    @cached_property
    def index(self) -> RevisionIndex:
        """``revisions.yaml`` and the documents it lists."""
        return load_index(self.spec_dir)

    @cached_property
    def roles(self) -> FieldRoles:
        """``reference-fields.yaml``: what each request input does in the local reference."""
        return load_field_roles(self.spec_dir)

    @cached_property
    def statuses(self) -> StatusKinds:
        """``statuses.yaml``: what each status value means to a waiter."""
        return load_statuses(self.spec_dir)

    @cached_property
    def metadata(self) -> PackageMetadata:
        """``package.yaml``: what a package index shows of every package beside its README."""
        return load_metadata(self.spec_dir)

    @cached_property
    def releases(self) -> Releases:
        """``releases.yaml``: what has been released (nothing, where it is missing)."""
        return load_releases(self.spec_dir)

    @cached_property
    def history(self) -> list[VersionedChanges]:
        """Each revision with its changes and the version they give its package, oldest first."""
        return package_versions(self.index)

    def versions(self) -> dict[str, str]:
        """Each revision's own package version, by id: a post-release where the record names
        one."""
        own = own_versions(self.history, self.releases.post_releases)
        return {entry.revision.id: version for entry, version in zip(self.history, own)}
