"""Render ``templates/`` into one installable package per revision, and write or check the result.

Every output file comes from one template (``docs/operation.md.jinja`` once per operation). Python
files are formatted with the pinned black. Output is a pure function of ``spec/`` and
``templates/``: no timestamps, no absolute paths, stable ordering.
"""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import black
import jinja2

from . import changelog, ir
from .docpage import operation_page
from .errors import GeneratorError
from .examples import sample
from .pyclient import PyClient, build_client
from .fieldroles import FieldRoles, load_field_roles
from .pymodel import PyModule, build_module, class_name
from .reference import ReferenceView, reference_view
from .revisions import Revision, RevisionIndex

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
LINE_LENGTH = 100
BLACK_MODE = black.Mode(target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH)

# (template, output path) for every file of a package; ``{operation}`` files are per operation.
PACKAGE_FILES: tuple[tuple[str, str], ...] = (
    ("pyproject.toml.jinja", "pyproject.toml"),
    ("README.md.jinja", "README.md"),
    ("CHANGELOG.md.jinja", "CHANGELOG.md"),
    ("docs/operation.md.jinja", "docs/{operation}"),
    ("together_rl/__init__.py.jinja", "together_rl/__init__.py"),
    ("together_rl/_revision.py.jinja", "together_rl/_revision.py"),
    ("together_rl/_model.py.jinja", "together_rl/_model.py"),
    ("together_rl/_exceptions.py.jinja", "together_rl/_exceptions.py"),
    ("together_rl/_client.py.jinja", "together_rl/_client.py"),
    ("together_rl/models.py.jinja", "together_rl/models.py"),
    ("together_rl/py.typed.jinja", "together_rl/py.typed"),
    ("together_rl/reference/__init__.py.jinja", "together_rl/reference/__init__.py"),
    ("together_rl/reference/_fields.py.jinja", "together_rl/reference/_fields.py"),
    ("together_rl/reference/_rules.py.jinja", "together_rl/reference/_rules.py"),
    ("together_rl/reference/_optim.py.jinja", "together_rl/reference/_optim.py"),
    ("together_rl/reference/_session.py.jinja", "together_rl/reference/_session.py"),
    ("together_rl/reference/_routes.py.jinja", "together_rl/reference/_routes.py"),
    ("together_rl/reference/_transport.py.jinja", "together_rl/reference/_transport.py"),
    ("together_rl/reference/serve.py.jinja", "together_rl/reference/serve.py"),
)


class RenderError(GeneratorError):
    """A template failed to render, or rendered something black cannot parse."""


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


# -- Jinja ---------------------------------------------------------------------------------------


def docstring(text: str, indent: int) -> str:
    """A triple-quoted docstring for ``text``, wrapped to the line length at ``indent``.

    Paragraphs are separated by blank lines. A paragraph whose first line ends with a colon
    (``Args:``) is a list: each further line is one entry, wrapped with a hanging indent.
    """
    width = LINE_LENGTH - indent - 6  # room for the quotes on either side
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    blocks = []
    for paragraph in escaped.strip().split("\n\n"):
        lines = paragraph.strip().split("\n")
        if len(lines) > 1 and lines[0].endswith(":"):
            entries = [
                textwrap.fill(
                    " ".join(e.split()),
                    width,
                    initial_indent="    ",
                    subsequent_indent="        ",
                    break_on_hyphens=False,
                )
                for e in lines[1:]
            ]
            blocks.append("\n".join([lines[0], *entries]))
        else:
            blocks.append(textwrap.fill(" ".join(paragraph.split()), width, break_on_hyphens=False))
    if len(blocks) == 1 and "\n" not in blocks[0]:
        return f'"""{blocks[0]}"""'
    pad = " " * indent
    body = "\n\n".join(blocks).replace("\n", "\n" + pad).replace("\n" + pad + "\n", "\n\n")
    return f'"""{body}\n{pad}"""'


def pyrepr(value: Any) -> str:
    """A Python literal; strings in double quotes, as black writes them."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(pyrepr(v) for v in value) + "]"
    if isinstance(value, tuple):
        items = [pyrepr(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


def call_literal(items: Any, function: str, indent: int, column: int) -> str:
    """``function({items...})`` laid out as black lays it out, starting at ``column`` of a line
    indented by ``indent``: on one line where it fits, else the set on its own line, else one
    item a line. (Black still formats the file; matching it saves black a second pass.)"""
    values = [pyrepr(v) for v in items]
    inline = "{" + ", ".join(values) + "}"
    if column + len(function) + len(inline) + 2 <= LINE_LENGTH:
        return f"{function}({inline})"
    inner = " " * (indent + 4)
    if len(inner) + len(inline) <= LINE_LENGTH:
        return f"{function}(\n{inner}{inline}\n{' ' * indent})"
    lines = "".join(f"{inner}    {v},\n" for v in values)
    return f"{function}(\n{inner}{{\n{lines}{inner}}}\n{' ' * indent})"


def call(function: str, arguments: Sequence[str], indent: int, after: str) -> str:
    """``function(arguments)`` at ``indent``, followed by ``after``, laid out as black does: on one
    line where it fits, else the arguments on one line of their own, else one a line."""
    joined = ", ".join(arguments)
    if indent + len(function) + len(joined) + 2 + len(after) <= LINE_LENGTH:
        return f"{function}({joined}){after}"
    pad, inner = " " * indent, " " * (indent + 4)
    if len(inner) + len(joined) <= LINE_LENGTH:
        return f"{function}(\n{inner}{joined}\n{pad}){after}"
    lines = "".join(f"{inner}{argument},\n" for argument in arguments)
    return f"{function}(\n{lines}{pad}){after}"


def exploded(value: Any, indent: int) -> str:
    """A dict literal with one item a line and trailing commas, nested dicts likewise (the layout
    black keeps for a collection with a trailing comma)."""
    if not isinstance(value, dict) or not value:
        return pyrepr(value)
    inner = " " * (indent + 4)
    items = "".join(f"{inner}{pyrepr(k)}: {exploded(v, indent + 4)},\n" for k, v in value.items())
    return "{\n" + items + " " * indent + "}"


def environment(templates: Path = TEMPLATES_DIR) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["docstring"] = docstring
    env.filters["pyrepr"] = pyrepr
    env.filters["call_literal"] = call_literal
    env.filters["call"] = call
    env.filters["exploded"] = exploded
    return env


# -- one package -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    imports: tuple[str, ...]
    lines: tuple[str, ...]
    submit: str
    call_args: str
    required_args: str
    """The submit call's arguments with only the required body fields."""
    wait: str
    wait_args: str


def _example(doc: ir.Document, client: PyClient) -> Example:
    """README usage: submit and wait for the first operation that has a waiter; build its request
    body and read its success response as models."""
    operation = next(op for op in doc.operations if op.request_body and op.request_body.schema)
    assert operation.request_body is not None and operation.request_body.schema is not None
    body_schema = operation.request_body.schema
    response = next(r for r in operation.responses if r.status.startswith("2") and r.schema)
    assert response.schema is not None
    body, reply = _model_name(body_schema), _model_name(response.schema)
    body_json = sample(doc, body_schema, optional_object=True)
    reply_json = sample(doc, response.schema)
    waiter = client.waiters[0] if client.waiters else None
    if waiter is None:
        raise RenderError("the README example needs an operation that can be waited for")
    path_args = ", ".join(
        pyrepr(f"{p.name.replace('_id', '')}-1") for p in waiter.submit.path_parameters
    )
    keywords = ", ".join(f"{k}={pyrepr(v)}" for k, v in body_json.items())
    required = ", ".join(f"{k}={pyrepr(v)}" for k, v in sample(doc, body_schema).items())
    return Example(
        submit=waiter.submit.method_name,
        call_args=", ".join(a for a in (path_args, keywords) if a),
        required_args=", ".join(a for a in (path_args, required) if a),
        wait=waiter.method_name,
        wait_args=", ".join(a for a in (path_args, "operation") if a),
        imports=tuple(sorted({body, reply})),
        lines=(
            f"body = {body}.from_dict({pyrepr(body_json)})",
            "print(body.to_json())",
            "",
            f"reply = {reply}.from_dict({pyrepr(reply_json)})",
            "print(reply)",
        ),
    )


def _reference(doc: ir.Document, client: PyClient, roles: FieldRoles) -> ReferenceView:
    """What the reference templates need: the rules of the request fields, and the routes of the
    operation the reference serves and of its retrieve twin."""
    operation = doc.operation(roles.operation)
    waiter = next((w for w in client.waiters if operation and w.submit.key == operation.key), None)
    if waiter is None:
        raise RenderError(
            f"{roles.source}#/operation: the local reference serves {roles.operation!r}, which "
            "needs a GET twin that reads its operations back"
        )
    return reference_view(doc, roles, waiter.retrieve.path, waiter.id_parameter)


def _model_name(schema: ir.Schema) -> str:
    if not isinstance(schema, ir.Ref):
        raise RenderError(
            "the README example needs request and response bodies that are named schemas"
        )
    return class_name(schema.name)


# What models.py may import from _model; it imports those its fields use.
_MODEL_HELPERS = frozenset(
    {
        "check_string",
        "check_integer",
        "check_number",
        "check_boolean",
        "check_any",
        "nullable",
        "one_of",
        "list_of",
        "dict_of",
        "strict_enum",
        "open_enum",
        "write_enum",
        "write_model",
    }
)


def _helpers(module: PyModule) -> list[str]:
    """The names models.py imports from ``_model``: only those it uses, constants first."""
    used = {"Model", "put"}
    for field in (f for m in module.models for f in m.fields):
        used.add("required" if field.required else "optional")
        if not field.required:
            used.update({"UNSET", "Unset"})
        names = re.findall(r"[A-Za-z_]\w*", f"{field.reader} {field.writer}")
        used.update(_MODEL_HELPERS.intersection(names))
    return sorted(used, key=lambda name: (not name.isupper(), name[0].islower(), name))


def render_package(
    env: jinja2.Environment, history: Sequence[VersionedChanges], roles: FieldRoles
) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The files of the package of the last revision in ``history``, by path relative to the
    package folder, each as ``(template name, text)``, and the warnings of its rendering.

    ``history`` holds the revisions up to this one and no later: a package never depends on the
    revisions that came after it, so appending a revision leaves the older packages as they were.
    Python is not formatted yet (see :func:`render_all`).
    """
    revisions = [entry.revision for entry in history]
    revision = revisions[-1]
    doc = revision.document
    module = build_module(revisions, len(revisions) - 1)
    client = build_client(doc, module)
    reference = _reference(doc, client, roles)
    pages = [operation_page(doc, op) for op in doc.operations]
    context: dict[str, Any] = {
        "revision": revision,
        "version": history[-1].version,
        "entries": history,
        "module": module,
        "client": client,
        "reference": reference,
        "helpers": _helpers(module),
        "exports": sorted([e.name for e in module.enums] + [m.name for m in module.models]),
        "pages": pages,
        "example": _example(doc, client),
    }
    files = {"openapi.yaml": ("", revision.file.read_text(encoding="utf-8"))}
    for template_name, output in PACKAGE_FILES:
        template = env.get_template(template_name)
        if "{operation}" in output:
            for page in pages:
                changes = changelog.changes_section(
                    changelog.for_operation(history[1:], page.operation.key), limit=4
                )
                text = _render(template, page=page, changes=changes, **context)
                files[output.format(operation=page.file_name)] = (template_name, text)
        else:
            files[output] = (template_name, _render(template, **context))
    warnings = [
        f"{revision.file}#{field.pointer}: the request field `{field.path}` of revision "
        f"{revision.id} has no role in the local reference ({field.reason}); the reference "
        "answers a request that sets it with FAILED / INVALID_INPUT"
        for field in reference.rules.unassigned
    ]
    return files, warnings


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


def render_all(
    index: RevisionIndex,
    revision_ids: Sequence[str] | None = None,
    *,
    templates: Path = TEMPLATES_DIR,
) -> Rendering:
    """Every package's files (or those of ``revision_ids``).

    Python files are formatted by the pinned black once all templates rendered: each distinct
    text once (many files are the same in every package), in parallel processes.
    """
    env = environment(templates)
    roles = load_field_roles(index.spec_dir)
    versions = package_versions(index)
    wanted = set(revision_ids) if revision_ids else {r.id for r in index}
    for revision_id in wanted:
        index.get(revision_id)  # an unknown id is an error
    rendered: dict[str, tuple[str, str]] = {}
    warnings: list[str] = []
    for position, revision in enumerate(index):
        if revision.id in wanted:
            files, notes = render_package(env, versions[: position + 1], roles)
            warnings += notes
            for path, entry in files.items():
                rendered[f"{revision.id}/{path}"] = entry
    sources = sorted(
        {text for path, (_, text) in rendered.items() if path.endswith(".py")}, key=len
    )
    formatted = dict(zip(sources, format_sources(sources)))
    result: dict[str, bytes] = {}
    for path, (template_name, text) in rendered.items():
        if path.endswith(".py"):
            ok, text = formatted[text]
            if not ok:
                raise RenderError(f"{template_name} rendered invalid Python for {path}: {text}")
        result[path] = text.encode()
    return Rendering(result, tuple(warnings))


def format_sources(sources: Sequence[str]) -> list[tuple[bool, str]]:
    """``(True, formatted)`` or ``(False, black's error)`` for each source, using every core."""
    workers = min(os.cpu_count() or 1, len(sources))
    if workers < 2:
        return [_format(source) for source in sources]
    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork")
    ) as pool:
        return list(pool.map(_format, sources))


def _format(source: str) -> tuple[bool, str]:
    try:
        return True, black.format_str(source, mode=BLACK_MODE)
    except black.InvalidInput as exc:
        return False, str(exc)
