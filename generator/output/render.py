"""The packages of ``spec/``'s revisions, and the formatting every rendered package gets.

A revision's package is rendered from the revisions up to it (its changelog, its compatibility
with earlier revisions), the field roles of the local reference and the status kinds (see
:mod:`generator.output.package` for how the templates become files).
Rendered Python is black's layout (the pinned black formats it, or the statements the templates
could not fit; see :mod:`generator.output.formatting`). Output is a pure function of its inputs
and ``templates/``: no timestamps, no absolute paths, stable ordering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from together_rl_runtime.settings import SESSION_DEFAULTS

from ..caching import Store, digest
from ..changes import compat
from ..changes.versions import VersionedChanges, own_versions, package_versions
from ..pointer import locate
from ..reading import ir, runtime
from ..reading.fieldroles import FieldRoles, load_field_roles
from ..reading.revisions import INDEX_NAME, Revision, RevisionIndex
from ..reading.statuses import STATUSES_PATH, StatusKinds, load_statuses, unclassified
from ..release.records import (
    RELEASES_FILE,
    REVISION_DISTRIBUTION,
    Releases,
    ReleasesError,
    differences,
    frozen_error,
    load_releases,
)
from ..views.example import example
from ..views.pyclient import PyClient, build_client
from ..views.pymodel import PyModule, build_module
from ..views.reference import ReferenceView, reference_view
from .formatting import FormatCache, format_long_lines, format_sources
from .package import (
    REVISION_PACKAGE,
    TEMPLATES_DIR,
    PackageFiles,
    RenderError,
    Templates,
    load_templates,
    located,
    package_files,
)
from .tree import read_tree


def render_package(
    templates: Templates,
    history: Sequence[VersionedChanges],
    roles: FieldRoles,
    statuses: StatusKinds,
    version: str | None = None,
) -> PackageFiles:
    """The files of the package of the last revision in ``history``.

    ``history`` holds the revisions up to this one and no later: a package never depends on the
    revisions that came after it, so appending a revision leaves the older packages as they were.
    """
    revisions = [entry.revision for entry in history]
    revision = revisions[-1]
    doc = revision.document
    with located(revision):
        module = build_module(revisions, len(revisions) - 1)
        client = build_client(doc, module, statuses, revision_package=True)
    reference = _reference(doc, module, client, roles)
    servers = [compat.pair(revision, earlier, roles) for earlier in revisions[:-1]]
    warnings = [
        f"{revision.file}#{field.pointer}: the request field `{field.path}` of revision "
        f"{revision.id} has no role in the local reference ({field.reason}); the reference "
        "answers a request that sets it with FAILED / INVALID_INPUT"
        for field in reference.rules.unassigned
    ] + _unclassified_statuses(revision, client, statuses)
    warnings += [
        f"{revision.file}#{p.pointer}: the {p.path} of revision {revision.id} has no role in the "
        f"local reference ({p.reason}); the reference answers a request that carries it with "
        "FAILED / INVALID_INPUT"
        for p in reference.rules.unassigned_parameters
    ]
    warnings += [
        f"{revision.file}#{pointer}: revision {revision.id}: {problem}"
        for pointer, problem in reference.answers.unsatisfied
    ]
    warnings += [f"{revision.file}#{reason}" for reason in reference.rules.ignored_defaults]
    assert module.names is not None
    source = str(revision.file)
    warnings += [f"renamed {locate(source, r.pointer)}: {r.message}" for r in module.names.renames]
    context: dict[str, Any] = {
        "package": REVISION_PACKAGE,
        "revision": revision,
        "version": version or history[-1].version,
        "entries": history,
        "reference": reference,
        "servers": servers,
        "pair_details": compat.details,
        "not_applied": {p.server.id: compat.not_applied(p) for p in servers},
        "example": example(doc, module, client),
        "omitted": doc.omitted,
    }
    files = package_files(templates, doc, revision, module, client, context, history, warnings)
    files.notes.extend(_declared_defaults(revision, reference))
    return files


def _declared_defaults(revision: Revision, reference: ReferenceView) -> list[str]:
    """A line for each default the document declares that differs from the session default."""
    notes = []
    seen: set[tuple[str, str]] = set()
    for _, defaults in reference.rules.defaults:
        for d in defaults:
            usual = SESSION_DEFAULTS[d.setting]
            if d.value == usual or (d.path, d.setting) in seen:
                continue
            seen.add((d.path, d.setting))
            notes.append(
                f"{revision.file}#{d.pointer}: revision {revision.id} declares the default "
                f"{d.value!r} for `{d.path}` ({d.setting}, whose session default is {usual!r}); "
                "its reference applies the declared default"
            )
    return notes


def _unclassified_statuses(
    revision: Revision, client: PyClient, statuses: StatusKinds
) -> list[str]:
    """A warning for each status value of a waited-for operation that the status data has no
    entry for, with its JSON pointer."""
    warnings = []
    for waiter in client.waiters:
        operation = revision.document.operation(waiter.submit.key)
        assert operation is not None
        for pointer, value in unclassified(revision.document, operation, statuses):
            warnings.append(
                f"{revision.file}#{pointer}: the status value `{value}` of revision "
                f"{revision.id} has no entry in {STATUSES_PATH}; `{waiter.method_name}` polls on "
                "while an operation has it"
            )
    return warnings


def _reference(
    doc: ir.Document, module: PyModule, client: PyClient, roles: FieldRoles
) -> ReferenceView:
    """What the reference templates need: the rules of the request fields, and the routes and
    answers of the operation the reference serves and of its retrieve twin."""
    operation = doc.operation(roles.operation)
    waiter = next((w for w in client.waiters if operation and w.submit.key == operation.key), None)
    if waiter is None:
        raise RenderError(
            f"{roles.source}#/operation: the local reference serves {roles.operation!r}, which "
            "needs a GET twin that reads its operations back"
        )
    return reference_view(doc, roles, module, waiter)


@dataclass(frozen=True)
class Rendering:
    """What :func:`render_all` produced."""

    files: dict[str, bytes]
    """Every file, by path relative to ``generated/`` (``<id>/pyproject.toml``, ...)."""
    warnings: tuple[str, ...]
    """What the user should know: fields the local reference does not implement, ..."""
    notes: tuple[str, ...] = ()
    """What is worth a line but needs no action: declared defaults that differ from the session
    defaults, ..."""
    confirmed: tuple[str, ...] = ()
    """The revisions whose released package was found, byte for byte as released, in the folder
    given as ``reuse``: taken as they are, not rendered again."""


def render_all(
    index: RevisionIndex,
    revision_ids: Sequence[str] | None = None,
    *,
    templates: Path = TEMPLATES_DIR,
    cache_dir: Path | None = None,
    black_everything: bool = True,
    reuse: Path | None = None,
) -> Rendering:
    """Every package's files (or those of ``revision_ids``).

    With ``reuse`` (what ``generate`` passes: the folder it writes) and ``cache_dir``, a
    revision's package is taken from that folder rather than rendered where it is released (as
    this version: no post-release since), every file there is as the release record hashes it,
    and a render from the same inputs (see :func:`_inputs_of`) gave exactly the release before:
    the work of ``generate`` grows with the revisions that can change, and a change to the
    templates or the generator renders every package again, so that one that would alter a
    released package is still refused. ``check`` renders every package.

    Rendered Python files are formatted by the pinned black once all templates rendered: each
    distinct text once (several are the same in every package), in parallel processes; without
    ``black_everything`` (what ``generate`` does), only the statements the templates could not
    fit in the line length (see :func:`~generator.output.formatting.format_long_lines`): the templates
    lay out the rest as black does, which ``check`` and the snapshot tests, formatting all, hold
    them to. With ``cache_dir`` (what ``generate`` passes), templates are compiled once and kept
    there, and texts that black already left unchanged are not formatted again (see
    :class:`~generator.output.formatting.FormatCache`); the output is the same either way.
    """
    folder = load_templates(templates, cache_dir)
    roles = load_field_roles(index.spec_dir)
    statuses = load_statuses(index.spec_dir)
    releases = load_releases(index.spec_dir)
    history = package_versions(index)
    versions = {r.id: v for r, v in zip(index, own_versions(history, releases.post_releases))}
    wanted = set(revision_ids) if revision_ids else {r.id for r in index}
    for revision_id in wanted:
        index.get(revision_id)  # an unknown id is an error
    packages: dict[str, PackageFiles] = {}
    confirmed: dict[str, dict[str, bytes]] = {}
    verified = Store(cache_dir, "released-as-rendered", {}) if cache_dir is not None else None
    shared = _shared_inputs(index, templates) if verified is not None else ""
    inputs: dict[str, str] = {}
    for position, revision in enumerate(index):
        if revision.id not in wanted:
            continue
        version = versions[revision.id]
        if verified is not None and releases.find(REVISION_DISTRIBUTION, version) is not None:
            inputs[revision.id] = _inputs_of(shared, index[: position + 1], version)
            if verified.get(inputs[revision.id]) == b"ok":
                as_released = _as_released(reuse, revision.id, releases, version)
                if as_released is not None:
                    confirmed[revision.id] = as_released
                    continue
        packages[revision.id] = render_package(
            folder, history[: position + 1], roles, statuses, version
        )
    rendering = finish(packages, cache_dir, black_everything=black_everything)
    _check_frozen(rendering, releases, versions)
    for revision_id in packages:
        if verified is not None and revision_id in inputs:
            verified.put(inputs[revision_id], b"ok")  # rendered exactly as released
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
    versions of the tools (the index and the release record are not: what a package takes from
    them is in :func:`_inputs_of`)."""
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
    left_out = {INDEX_NAME, RELEASES_FILE, *(r.file.name for r in index)}
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


def _check_frozen(rendering: Rendering, releases: Releases, versions: dict[str, str]) -> None:
    """Refuse a rendering that would alter a released package (or a runtime that differs from
    its released version), naming the files and how to ship the change."""
    problems = []
    by_package: dict[str, dict[str, bytes]] = {}
    for path, content in rendering.files.items():
        folder, _, inner = path.partition("/")
        by_package.setdefault(folder, {})[inner] = content
    for revision_id, files in sorted(by_package.items()):
        release = releases.find(REVISION_DISTRIBUTION, versions[revision_id])
        changed = differences(release, files) if release is not None else []
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


def finish(
    packages: dict[str, PackageFiles], cache_dir: Path | None, *, black_everything: bool = True
) -> Rendering:
    """Every package's files under its folder, the Python formatted by black: all of it, or
    (without ``black_everything``) only the statements the templates could not fit in the line
    length (see :func:`~generator.output.formatting.format_long_lines`)."""
    rendered = {
        f"{folder}/{path}": entry
        for folder, files in packages.items()
        for path, entry in files.rendered.items()
    }
    sources = sorted(
        {text for path, (_, text) in rendered.items() if path.endswith(".py")}, key=len
    )
    cache = FormatCache(cache_dir) if cache_dir is not None else None
    formatter = format_sources if black_everything else format_long_lines
    formatted = dict(zip(sources, formatter(sources, cache)))
    result: dict[str, bytes] = {}
    for path, (template_name, text) in rendered.items():
        if path.endswith(".py"):
            ok, text = formatted[text]
            if not ok:
                raise RenderError(f"{template_name} rendered invalid Python for {path}: {text}")
        # a lone surrogate (a JSON escape of half a character) cannot be UTF-8: escaped
        result[path] = text.encode("utf-8", "backslashreplace")
    for folder, files in packages.items():
        for path, content in files.static.items():
            result[f"{folder}/{path}"] = content
    warnings = [w for files in packages.values() for w in files.warnings]
    notes = [n for files in packages.values() for n in files.notes]
    return Rendering(result, tuple(warnings), tuple(notes))
