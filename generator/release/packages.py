"""Every revision's package, as the release record allows: a released package found unchanged
in the folder ``generate`` writes is taken as it is rather than rendered again, and a rendering
that would alter a released package (or a runtime that differs from its released version) is
refused (see :mod:`generator.release.records`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..caching import Store, digest
from ..findings import PUT_BACK, Finding
from ..output.package import TEMPLATES_DIR
from ..output.render import Rendering, render_revisions
from ..output.tree import read_tree
from ..reading import runtime
from ..reading.revisions import INDEX_NAME, Revision, RevisionIndex
from .records import RELEASES_FILE, REVISION_DISTRIBUTION, Releases, check_frozen, differences
from .sources import Sources
from .surface import SURFACE_FILE


def render_packages(
    sources: Sources,
    revision_ids: Sequence[str] | None = None,
    *,
    templates: Path = TEMPLATES_DIR,
    cache_dir: Path | None = None,
    black_everything: bool = True,
    reuse: Path | None = None,
) -> Rendering:
    """Every package's files (or those of ``revision_ids``), rendered from ``sources`` (see
    :func:`~generator.output.render.render_revisions` for ``cache_dir`` and
    ``black_everything``), and refused where they would alter a released package.

    With ``reuse`` (what ``generate`` passes: the folder it writes) and ``cache_dir``, a
    revision's package is taken from that folder rather than rendered where it is released (as
    this version: no post-release since), every file there is as the release record hashes it,
    and a render from the same inputs (see :func:`_inputs_of`) gave exactly the release before:
    the work of ``generate`` grows with the revisions that can change, and a change to the
    templates or the generator renders every package again, so that one that would alter a
    released package is still refused. ``check`` renders every package.
    """
    index, roles, statuses = sources.index, sources.roles, sources.statuses
    releases = sources.releases
    versions = sources.versions()
    wanted = set(revision_ids) if revision_ids else {r.id for r in index}
    for revision_id in wanted:
        index.get(revision_id)  # an unknown id is an error
    confirmed: dict[str, dict[str, bytes]] = {}
    verified = Store(cache_dir, "released-as-rendered", {}) if cache_dir is not None else None
    inputs: dict[str, str] = {}
    if verified is not None:
        shared = _shared_inputs(index, templates)
        for position, revision in enumerate(index):
            version = versions[revision.id]
            if revision.id not in wanted or releases.find(REVISION_DISTRIBUTION, version) is None:
                continue
            inputs[revision.id] = _inputs_of(shared, index[: position + 1], version)
            if verified.get(inputs[revision.id]) == b"ok":
                as_released = _as_released(reuse, revision.id, releases, version)
                if as_released is not None:
                    confirmed[revision.id] = as_released
    rendering = render_revisions(
        sources.history,
        versions,
        roles,
        statuses,
        sources.metadata,
        wanted - confirmed.keys(),
        templates=templates,
        cache_dir=cache_dir,
        black_everything=black_everything,
    )
    check_frozen(rendering.files, releases, versions)
    if verified is not None:
        for revision_id, key in inputs.items():
            if revision_id not in confirmed:
                verified.put(key, b"ok")  # rendered exactly as released
    taken = {
        f"{revision_id}/{path}": data
        for revision_id, files in confirmed.items()
        for path, data in files.items()
    }
    return replace(
        rendering,
        files=dict(sorted({**rendering.files, **taken}.items())),
        confirmed=tuple(confirmed),
    )


def _shared_inputs(index: RevisionIndex, templates: Path) -> str:
    """The hash of what every revision's package is rendered from besides the revisions: the
    generator's code, the templates, the runtime, the configuration in ``spec/`` and the
    versions of the tools (the index, the release record and the runtime's surface record are
    not: what a package takes of the first two is in :func:`_inputs_of`)."""
    from importlib import metadata

    parts: list[bytes | str] = [
        f"{name} {metadata.version(name)}" for name in ("black", "jinja2", "pyyaml")
    ]
    code = Path(__file__).resolve().parents[1]  # the whole generator package
    for root in (code, templates):
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if "__pycache__" not in path.parts:
                parts += [path.relative_to(root).as_posix(), path.read_bytes()]
    for name, content in sorted(runtime.project_files().items()):
        parts += [name, content]
    left_out = {INDEX_NAME, RELEASES_FILE, SURFACE_FILE, *(r.file.name for r in index)}
    for path in sorted(index.spec_dir.glob("*.yaml")):
        if path.name not in left_out:
            parts += [path.name, path.read_bytes()]
    return digest(*parts)


def _inputs_of(shared: str, revisions: Sequence[Revision], version: str) -> str:
    """The hash of what the package of the last of ``revisions`` is rendered from: ``shared``,
    the package's version, and each revision up to it (its entry in the index and its document)."""
    parts: list[bytes | str] = [shared, version]
    for revision in revisions:
        date = revision.date.isoformat() if revision.date else ""
        parts += [revision.id, date, revision.note, revision.file.read_bytes()]
    return digest(*parts)


def _as_released(
    folder: Path | None, revision_id: str, releases: Releases, version: str
) -> dict[str, bytes] | None:
    """The files of ``folder/revision_id`` where they are the release of ``version``, every file
    as the release record hashes it and no other; ``None`` otherwise."""
    release = releases.find(REVISION_DISTRIBUTION, version)
    if folder is None or release is None or release.revision != revision_id:
        return None
    files = read_tree(folder / revision_id)
    return files if files and not differences(release, files) else None


def put_back(sources: Sources, files: dict[str, bytes], folder: Path) -> list[Finding]:
    """What writing ``files`` (by path relative to ``folder``, as :func:`render_packages` gives
    them) puts back in the released packages found edited in ``folder``: a line for each such
    package, naming its release and the files restored, removed or added back."""
    versions = sources.versions()
    lines = []
    for revision_id in sorted({path.split("/")[0] for path in files}):
        release = sources.releases.find(REVISION_DISTRIBUTION, versions.get(revision_id, ""))
        on_disk = read_tree(folder / revision_id)
        if release is None or release.revision != revision_id or not on_disk:
            continue
        prefix = f"{revision_id}/"
        wanted = {p[len(prefix) :]: data for p, data in files.items() if p.startswith(prefix)}
        changed = sorted(p for p in wanted.keys() & on_disk.keys() if wanted[p] != on_disk[p])
        removed = sorted(on_disk.keys() - wanted.keys())
        restored = sorted(wanted.keys() - on_disk.keys())
        parts = [
            f"{verb} {', '.join(paths)}"
            for verb, paths in (
                ("restored", changed),
                ("removed", removed),
                ("added back", restored),
            )
            if paths
        ]
        if parts:
            lines.append(
                Finding(
                    PUT_BACK,
                    f"{folder / revision_id}: put back as {release.distribution} "
                    f"{release.version} was released ({'; '.join(parts)}): a released package "
                    "never changes, and a change to it ships as a post-release "
                    "(docs/releasing.md)",
                )
            )
    return lines
