"""The package of one OpenAPI document, whatever its API (``generate --spec``): its models, its
client and its docs pages, with a copy of the client core (no changelog, compatibility or local
reference). What the generator cannot represent is left out and listed, operation by operation."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..changes.versions import VersionedChanges
from ..errors import SpecError, UnsupportedConstructError
from ..findings import LEFT_OUT, READ, Finding
from ..pointer import locate
from ..reading import ir
from ..reading.metadata import GENERIC
from ..reading.revisions import Revision
from ..views.pyclient import PyClient, build_client
from ..views.pymodel import PyModule, build_module
from .package import (
    TEMPLATES_DIR,
    PackageFiles,
    PackageInfo,
    Templates,
    load_templates,
    located,
    package_files,
)
from .render import Rendering, finish, renamed


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
        "metadata": GENERIC,
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
    warnings = [
        Finding(LEFT_OUT, f"left out {locate(source, o.pointer)}: {o.reason}") for o in doc.omitted
    ]
    warnings += [
        Finding(READ, f"read {locate(source, d.pointer)}: {d.message}") for d in doc.diagnostics
    ]
    warnings += renamed(source, module)
    return package_files(templates, doc, revision, module, client, context, [], warnings)


def _views(revision: Revision) -> tuple[Revision, PyModule, PyClient]:
    """The models and the client of one document; an operation that the views cannot render
    (a construct the parser reads but the generator cannot represent in Python) is left out
    and listed, as the parser leaves out what it cannot read."""
    doc = revision.document
    while True:
        try:
            with located(revision):
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
    rendering = finish({"": files}, cache_dir, black_everything=False)
    return Rendering(
        {k.removeprefix("/"): v for k, v in rendering.files.items()}, rendering.warnings
    )


def _pep440(version: str) -> str:
    """The document's version where it is one pip accepts, else ``0.0.0``."""
    return version if re.fullmatch(r"\d+(\.\d+)*([ab]|rc)?\d*", version or "") else "0.0.0"
