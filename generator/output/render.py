"""Render ``templates/`` into one installable package per revision.

``templates/`` mirrors a package: a file ending in ``.jinja`` is rendered (once, once per
operation where its name holds ``{operation}``, or once per module of a split ``models.py`` where
it holds ``{part}``) to the path without the suffix; any other file is runtime code that is the
same in every package, copied as it is. ``templates/include/`` holds what templates include, and
is not a file of the package. Rendered Python is black's layout (the pinned black formats it, or
the statements the templates could not fit; see :mod:`generator.output.formatting`). Output is a pure
function of ``spec/`` and ``templates/``: no timestamps, no absolute paths, stable ordering.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jinja2

from ..changes import changelog, compat
from ..reading import ir, runtime
from ..views.docpage import operation_page
from ..views.example import example
from ..errors import GeneratorError, SpecError, UnsupportedConstructError
from together_rl_runtime.settings import SESSION_DEFAULTS, Sets

from ..reading.fieldroles import FieldRoles, load_field_roles
from .formatting import FormatCache, format_long_lines, format_sources
from ..views.pyclient import PyClient, build_client
from ..views.pymodel import PyModule, build_module
from ..pointer import locate
from ..views.pyparts import split_models
from ..views.reference import ReferenceView, reference_view
from ..caching import Store, digest
from ..release.records import (
    RELEASES_FILE,
    REVISION_DISTRIBUTION,
    Releases,
    ReleasesError,
    differences,
    frozen_error,
    load_releases,
)
from ..reading.revisions import INDEX_NAME, Revision, RevisionIndex
from .tree import read_tree
from ..reading.statuses import STATUSES_PATH, StatusKinds, load_statuses, unclassified
from .templating import environment
from ..changes.versions import VersionedChanges, own_versions, package_versions

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"
TEMPLATE_SUFFIX = ".jinja"
PER_OPERATION = "{operation}"
PER_PART = "{part}"
INCLUDES = "include/"


class RenderError(GeneratorError):
    """A template failed to render, or rendered something black cannot parse."""


# -- one package -----------------------------------------------------------------------------------


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
class Templates:
    """The files of ``templates/``: those to render, and the runtime files copied as they are."""

    environment: jinja2.Environment
    rendered: tuple[str, ...]
    """The names of the templates (``together_rl/models.py.jinja``), sorted."""
    static: dict[str, bytes]
    """The runtime files by their path in a package (``together_rl/_model.py``)."""


def load_templates(folder: Path = TEMPLATES_DIR, cache_dir: Path | None = None) -> Templates:
    files = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    files = [f for f in files if not f.startswith(INCLUDES)]
    return Templates(
        environment=environment(folder, cache_dir),
        rendered=tuple(f for f in files if f.endswith(TEMPLATE_SUFFIX)),
        static={f: (folder / f).read_bytes() for f in files if not f.endswith(TEMPLATE_SUFFIX)},
    )


@dataclass(frozen=True)
class PackageInfo:
    """Who a generated package is."""

    import_name: str
    """The Python package (``together_rl``)."""
    distribution: str
    """The distribution on a package index (``together-rl``)."""
    title: str
    """The API, as the package's prose names it."""
    revisions: bool
    """A package of ``spec/``'s stream of revisions: with its changelog, its compatibility with
    earlier revisions, and the local reference of the optimizer; it depends on the runtime
    distribution. A package of one document carries a copy of the client core instead."""
    env_prefix: str = "TOGETHER"
    """The prefix of the environment variables the client reads (``TOGETHER_API_KEY``)."""

    @property
    def runtime(self) -> str:
        """Where the package's modules import the runtime from."""
        return runtime.IMPORT_NAME if self.revisions else f".{runtime.VENDORED}"

    @property
    def api_key_env(self) -> str:
        return f"{self.env_prefix}_API_KEY"

    @property
    def base_url_env(self) -> str:
        return f"{self.env_prefix}_BASE_URL"


REVISION_PACKAGE = PackageInfo("together_rl", "together-rl", "the Together RL API", True)
TEMPLATE_PACKAGE = "together_rl"
"""The folder of ``templates/`` that becomes the Python package."""


@dataclass(frozen=True)
class PackageFiles:
    """The files of one package: rendered texts, each ``(template name, text)`` (Python not yet
    formatted), and runtime files as they are, by path in the package's folder."""

    rendered: dict[str, tuple[str, str]]
    static: dict[str, bytes]
    warnings: list[str]
    notes: list[str] = field(default_factory=list)


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
    with _located(revision):
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
    files = _package_files(templates, doc, revision, module, client, context, history, warnings)
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


def render_document(
    templates: Templates,
    revision: Revision,
    package: PackageInfo,
    version: str,
) -> PackageFiles:
    """The files of the package of one OpenAPI document, whatever its API: the models, the
    client and the docs pages (no changelog, compatibility or local reference)."""
    revision, module, client = _views(revision)
    doc = revision.document
    if not doc.operations:
        left = "".join(f"\n  left out {o.anchor}: {o.reason}" for o in doc.omitted)
        what = f"every operation was left out:{left}" if left else "the document has no operations"
        raise SpecError("/paths", f"no package to write: {what}", source=str(revision.file))
    context: dict[str, Any] = {
        "package": package,
        "revision": revision,
        "version": version,
        "entries": [VersionedChanges(revision, (), version, True)],
        "reference": None,
        "servers": [],
        "not_applied": {},
        "example": None,
        "omitted": doc.omitted,
    }
    source = str(revision.file)
    assert module.names is not None
    warnings = [f"left out {locate(source, o.pointer)}: {o.reason}" for o in doc.omitted]
    warnings += [f"read {locate(source, d.pointer)}: {d.message}" for d in doc.diagnostics]
    warnings += [f"renamed {locate(source, r.pointer)}: {r.message}" for r in module.names.renames]
    return _package_files(templates, doc, revision, module, client, context, [], warnings)


def _views(revision: Revision) -> tuple[Revision, PyModule, PyClient]:
    """The models and the client of one document; an operation that the views cannot render
    (a construct the parser reads but the generator cannot represent in Python) is left out
    and listed, as the parser leaves out what it cannot read."""
    doc = revision.document
    while True:
        try:
            with _located(revision):
                module = build_module([revision], 0)
                return revision, module, build_client(doc, module)
        except UnsupportedConstructError as exc:
            culprits = [op for op in doc.operations if exc.pointer in _places(op)]
            if not culprits:
                raise
            left = [
                ir.Omission(pointer=op.pointer, reason=f"{exc.pointer}: {exc.message}")
                for op in culprits
            ]
            doc = replace(
                doc,
                operations=tuple(op for op in doc.operations if op not in culprits),
                omitted=doc.omitted + tuple(left),
            )
            revision = Revision.of_document(doc, revision.file)


def _places(op: ir.Operation) -> frozenset[str]:
    """The pointers of an operation and of everything it holds (bodies, parameters and
    responses may be components of their own), and every pointer under those."""
    roots = [op.pointer, *(p.pointer for p in op.parameters), *(r.pointer for r in op.responses)]
    if op.request_body is not None:
        roots.append(op.request_body.pointer)
    return _Under(roots)


class _Under(frozenset[str]):
    """Pointers, where ``in`` also holds for any pointer under one of them."""

    def __contains__(self, pointer: object) -> bool:
        return isinstance(pointer, str) and any(
            pointer == root or pointer.startswith(root + "/") for root in self
        )


@contextlib.contextmanager
def _located(revision: Revision) -> Iterator[None]:
    """Name the document in an error the views raise with a pointer alone."""
    try:
        yield
    except SpecError as exc:
        if exc.source is not None:
            raise
        located = type(exc)(exc.pointer, exc.message, source=str(revision.file))
        raise located from None


def _package_files(
    templates: Templates,
    doc: ir.Document,
    revision: Revision,
    module: PyModule,
    client: PyClient,
    context: dict[str, Any],
    history: Sequence[VersionedChanges],
    warnings: list[str],
) -> PackageFiles:
    package: PackageInfo = context["package"]
    names = module.names
    assert names is not None
    pages = [operation_page(doc, op, names.pages.get(op.route)) for op in doc.operations]
    parts = split_models(module)
    releases = (*client.runtime_releases, *_since(context["reference"]))
    context = {
        **context,
        "module": module,
        "parts": parts,
        "client": client,
        "pages": pages,
        "runtime": package.runtime,
        "runtime_requirement": runtime.requirement(
            _settings_used(context["reference"]), releases=releases
        ),
        "runtime_reference_requirement": runtime.requirement(
            _settings_used(context["reference"]), "reference", releases
        ),
    }
    rendered = {"openapi.yaml": ("", revision.file.read_text(encoding="utf-8"))}
    for name in doc.files:  # the files its $refs read, where they are beside it
        rendered[name] = ("", (revision.file.parent / name).read_text(encoding="utf-8"))
    for template_name in templates.rendered:
        output = _output(template_name.removesuffix(TEMPLATE_SUFFIX), package)
        if not _wanted(output, package, context):
            continue
        template = templates.environment.get_template(template_name)
        if PER_OPERATION in output:
            for page in pages:
                changes = changelog.changes_section(
                    changelog.for_operation(history[1:], page.operation.key), limit=4
                )
                text = _render(template, page=page, changes=changes, **context)
                rendered[output.replace(PER_OPERATION, page.name)] = (template_name, text)
        elif PER_PART in output:
            for part in parts:
                text = _render(template, part=part, **context)
                rendered[output.replace(PER_PART, part.number)] = (template_name, text)
        else:
            rendered[output] = (template_name, _render(template, **context))
    static = {
        _output(path, package): content
        for path, content in templates.static.items()
        if _wanted(_output(path, package), package, context)
    }
    if not package.revisions:  # a package of one document carries the client core
        static |= {
            f"{package.import_name}/{path}": content
            for path, content in runtime.vendored_files().items()
            if _wanted(f"{package.import_name}/{path}", package, context)
        }
    return PackageFiles(rendered, static, warnings)


def _since(reference: ReferenceView | None) -> tuple[str, ...]:
    """The runtime releases the package's reference needs beyond its settings'."""
    return () if reference is None else reference.runtime_since


def _settings_used(reference: ReferenceView | None) -> set[str]:
    """The settings the package's request fields set in the local reference."""
    if reference is None:
        return set()
    return {
        setting
        for _, rules in reference.rules.sessions
        for _, rule in rules
        if isinstance(rule, Sets)
        for setting in rule.settings
    }


def _output(path: str, package: PackageInfo) -> str:
    """A template's path in the package: its Python package folder named as the package is."""
    head, _, rest = path.partition("/")
    return f"{package.import_name}/{rest}" if head == TEMPLATE_PACKAGE and rest else path


def _wanted(path: str, package: PackageInfo, context: dict[str, Any]) -> bool:
    """Whether a package has this file: the changelog and the local reference only a package
    of the revision stream."""
    if path == "CHANGELOG.md":
        return package.revisions
    if path.startswith(f"{package.import_name}/reference/"):
        return context["reference"] is not None
    return True


def _render(template: jinja2.Template, **context: Any) -> str:
    try:
        return template.render(**context)
    except jinja2.TemplateError as exc:
        raise RenderError(f"{template.name}: {exc}") from exc


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
    rendering = _finish(packages, cache_dir, black_everything=black_everything)
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


def _finish(
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


def render_one_document(
    path: Path,
    document: ir.Document,
    package: PackageInfo,
    version: str | None = None,
    *,
    templates: Path = TEMPLATES_DIR,
    cache_dir: Path | None = None,
) -> Rendering:
    """The package of ``document``, read (leniently) from the file at ``path``: its files
    relative to the package's own folder. What the generator does not support is left out and
    listed in the warnings.

    The templates lay Python out as black does, so black formats only the statements that came
    out longer than the line length: a whole public document is a large package, and black over
    all of it would take most of the time."""
    revision = Revision.of_document(document, path)
    chosen = version or _pep440(document.version)
    files = render_document(load_templates(templates, cache_dir), revision, package, chosen)
    rendering = _finish({"": files}, cache_dir, black_everything=False)
    return Rendering(
        {k.removeprefix("/"): v for k, v in rendering.files.items()}, rendering.warnings
    )


def _pep440(version: str) -> str:
    """The document's version where it is one pip accepts, else ``0.0.0``."""
    return version if re.fullmatch(r"\d+(\.\d+)*([ab]|rc)?\d*", version or "") else "0.0.0"
