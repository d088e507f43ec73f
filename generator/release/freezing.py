"""Recording releases: ``release`` freezes what is about to be published, ``post-release``
unfreezes one revision's package on purpose, as a post-release of its released version."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..changes.versions import own_versions, package_versions
from ..errors import GeneratorError
from ..output.tree import read_tree, tree_differences
from ..reading import runtime
from ..reading.revisions import load_index
from .packages import render_packages
from .records import REVISION_DISTRIBUTION, Release, hashes, load_releases
from .runtimes import runtime_surface
from .sources import Sources
from .surface import load_surfaces


def release(
    spec_dir: Path, generated: Path, revision_ids: Sequence[str], *, include_runtime: bool
) -> list[Release]:
    """Record as released the packages of ``revision_ids`` (none given: every revision whose
    package version is not recorded yet) and, with ``include_runtime``, the runtime's version
    where it is not recorded yet, with its surface (``spec/runtime-surface.yaml``); what was
    recorded. The packages must be what the generator renders, byte for byte, and a runtime
    version must keep the surface of the release before it, or be a new major version that every
    revision's package accepts (see :func:`~generator.release.runtimes.runtime_surface`)."""
    sources = Sources(spec_dir)
    index, releases = sources.index, sources.releases
    for revision_id in revision_ids:
        index.get(revision_id)  # an unknown id is an error
    with_runtime = (
        include_runtime and releases.find(runtime.DISTRIBUTION, runtime.version()) is None
    )
    surface = runtime_surface(spec_dir, releases, index, generated) if with_runtime else None
    rendering = render_packages(sources)
    drift = list(tree_differences(rendering.files, read_tree(generated), label=str(generated)))
    if drift:
        raise GeneratorError(
            f"{generated} differs from what the generator renders ({len(drift)} files); run "
            "`python -m generator generate`, review and commit, then release"
        )
    versions = sources.versions()
    recorded: list[Release] = []
    for revision in index:
        if revision_ids and revision.id not in revision_ids:
            continue
        version = versions[revision.id]
        if releases.find(REVISION_DISTRIBUTION, version) is not None:
            continue
        prefix = f"{revision.id}/"
        files = {
            path.removeprefix(prefix): content
            for path, content in rendering.files.items()
            if path.startswith(prefix)
        }
        recorded.append(Release(REVISION_DISTRIBUTION, version, revision.id, hashes(files)))
    if surface is not None:
        files = runtime.project_files()
        recorded.append(Release(runtime.DISTRIBUTION, runtime.version(), None, hashes(files)))
        load_surfaces(spec_dir).with_surface(runtime.version(), surface).write()
    for entry in recorded:
        releases = releases.with_release(entry)
    if recorded:
        releases.write()
    return recorded


def post_release(spec_dir: Path, revision_id: str) -> str:
    """Let the released package of ``revision_id`` be rendered again, as the next post-release
    of its version; the version it will have."""
    index = load_index(spec_dir)
    revision = index.get(revision_id)
    releases = load_releases(spec_dir)
    history = package_versions(index)
    position = list(index).index(revision)
    current = own_versions(history, releases.post_releases)[position]
    if releases.find(REVISION_DISTRIBUTION, current) is None:
        raise GeneratorError(
            f"{REVISION_DISTRIBUTION} {current} (revision {revision_id}) is not released; its "
            "package can change as it is, with no post-release"
        )
    number = releases.post_releases.get(revision_id, 0) + 1
    releases.with_post_release(revision_id, number).write()
    return own_versions(history, {revision_id: number})[position]
