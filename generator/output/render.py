"""The packages of ``spec/``'s revisions, and the formatting every rendered package gets.

A revision's package is rendered from the revisions up to it (its changelog, its compatibility
with earlier revisions) with the data it is handed: the field roles of the local reference and
the status kinds (see :mod:`generator.output.package` for how the templates become files).
Rendered Python is black's layout (the pinned black formats it, or the statements the templates
could not fit; see :mod:`generator.output.formatting`). Output is a pure function of its inputs
and ``templates/``: no timestamps, no absolute paths, stable ordering.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from together_rl_runtime.settings import SESSION_DEFAULTS

from ..changes import compat
from ..changes.versions import VersionedChanges
from ..findings import DECISION, REFERENCE, RENAMED, STATUS, Finding
from ..pointer import locate
from ..reading import ir
from ..reading.fieldroles import FieldRoles
from ..reading.metadata import PackageMetadata
from ..reading.revisions import Revision
from ..reading.statuses import STATUSES_PATH, StatusKinds, unclassified
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


def render_package(
    templates: Templates,
    history: Sequence[VersionedChanges],
    roles: FieldRoles,
    statuses: StatusKinds,
    metadata: PackageMetadata,
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
        Finding(
            DECISION,
            f"{revision.file}#{field.pointer}: the request field `{field.path}` of revision "
            f"{revision.id} has no role in the local reference ({field.reason}); the reference "
            "answers a request that sets it with FAILED / INVALID_INPUT",
            decision=f"field {field.path}",
            revision=revision.id,
        )
        for field in reference.rules.unassigned
    ] + _unclassified_statuses(revision, client, statuses)
    warnings += [
        Finding(
            DECISION,
            f"{revision.file}#{p.pointer}: the {p.path} of revision {revision.id} has no role in "
            f"the local reference ({p.reason}); the reference answers a request that carries it "
            "with FAILED / INVALID_INPUT",
            decision=p.path,
            revision=revision.id,
        )
        for p in reference.rules.unassigned_parameters
    ]
    warnings += [
        Finding(REFERENCE, f"{revision.file}#{pointer}: revision {revision.id}: {problem}")
        for pointer, problem in reference.answers.unsatisfied
    ]
    warnings += [
        Finding(REFERENCE, f"{revision.file}#{reason}")
        for reason in reference.rules.ignored_defaults
    ]
    assert module.names is not None
    warnings += renamed(str(revision.file), module)
    context: dict[str, Any] = {
        "package": REVISION_PACKAGE,
        "metadata": metadata,
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


def renamed(source: str, module: PyModule) -> list[Finding]:
    """A warning for each name of ``module`` (the models and client of the document
    ``source``) that is not its plain name, with why."""
    assert module.names is not None
    return [
        Finding(RENAMED, f"renamed {locate(source, r.pointer)}: {r.message}")
        for r in module.names.renames
    ]


def _unclassified_statuses(
    revision: Revision, client: PyClient, statuses: StatusKinds
) -> list[Finding]:
    """A warning for each status value of a waited-for operation that the status data has no
    entry for, with its JSON pointer."""
    warnings = []
    for waiter in client.waiters:
        operation = revision.document.operation(waiter.submit.key)
        assert operation is not None
        for pointer, value in unclassified(revision.document, operation, statuses):
            warnings.append(
                Finding(
                    STATUS,
                    f"{revision.file}#{pointer}: the status value `{value}` of revision "
                    f"{revision.id} has no entry in {STATUSES_PATH}; `{waiter.method_name}` "
                    "polls on while an operation has it",
                    decision=f"status {value}",
                    revision=revision.id,
                )
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
    """What :func:`render_revisions` (or :func:`~generator.output.document.render_one_document`)
    produced."""

    files: dict[str, bytes]
    """Every file, by path relative to ``generated/`` (``<id>/pyproject.toml``, ...)."""
    warnings: tuple[Finding, ...]
    """What the user should know: fields the local reference does not implement, ..."""
    notes: tuple[str, ...] = ()
    """What is worth a line but needs no action: declared defaults that differ from the session
    defaults, ..."""
    confirmed: tuple[str, ...] = ()
    """The revisions whose package is in ``files`` not rendered but taken as it was: a released
    package found byte for byte as released (see :mod:`generator.release.packages`)."""


def render_revisions(
    history: Sequence[VersionedChanges],
    versions: Mapping[str, str],
    roles: FieldRoles,
    statuses: StatusKinds,
    metadata: PackageMetadata,
    revision_ids: Collection[str],
    *,
    templates: Path = TEMPLATES_DIR,
    cache_dir: Path | None = None,
    black_everything: bool = True,
) -> Rendering:
    """The packages of ``revision_ids``: each rendered from the entries of ``history`` (every
    revision of the index with its changes and version, oldest first) up to its own, as the
    version ``versions`` gives it, with the local reference's field ``roles``, the status
    kinds ``statuses`` and the packages' ``metadata``.

    Rendered Python files are formatted by the pinned black once all templates rendered: each
    distinct text once (several are the same in every package), in parallel processes; without
    ``black_everything`` (what ``generate`` does), only the statements the templates could not
    fit in the line length (see :func:`~generator.output.formatting.format_long_lines`): the
    templates lay out the rest as black does, which ``check`` and the snapshot tests, formatting
    all, hold them to. With ``cache_dir`` (what ``generate`` passes), templates are compiled once
    and kept there, and texts that black already left unchanged are not formatted again (see
    :class:`~generator.output.formatting.FormatCache`); the output is the same either way.
    """
    folder = load_templates(templates, cache_dir)
    packages = {
        entry.revision.id: render_package(
            folder,
            history[: position + 1],
            roles,
            statuses,
            metadata,
            versions[entry.revision.id],
        )
        for position, entry in enumerate(history)
        if entry.revision.id in revision_ids
    }
    return finish(packages, cache_dir, black_everything=black_everything)


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
