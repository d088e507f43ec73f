"""From the API's whole published OpenAPI document to a revision document of ``spec/``.

The project keeps only the operations listed in ``spec/operations.yaml``, with every component
they reach. Published documents also need the normalisations the project's documents already
had, each reported with the JSON pointer it applies to:

- schema names become identifiers, as the API's documentation site shows them
  (``RL.OptimStepBody`` becomes ``RLOptimStepBody``), and every ``$ref`` follows;
- an inline object that the previous revision has as a named schema (``ErrorData``'s ``error``,
  ``ErrorDetails``) is named the same way again, so that the generated model keeps its name;
- a ``default`` or ``example`` written as a string on a number, integer or boolean (``"0.9"``,
  and YAML 1.1's ``1e-08``) becomes the value it spells, or is dropped where it spells none;
- OpenAPI 3.0's ``nullable: true`` in a 3.1 document becomes ``type: [T, "null"]``;
- ``info.version`` becomes the revision's id, and where ``info.description`` names the old
  version (``revision f4885bc38424``), the new id replaces it.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..english import listing
from ..errors import GeneratorError, SpecError
from ..pointer import join, references, split
from . import ir
from .loader import load_yaml
from .parser import coerce_value

OPERATIONS_FILE = "operations.yaml"
_COMPONENT_REF = re.compile(r"#/components/([^/]+)/([^/]+)")
_SCHEMA_REF = "#/components/schemas/"
# Keywords whose value is a schema, and those whose value is a list or a map of schemas.
_SCHEMA_KEYS = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
)
_SCHEMA_LISTS = ("allOf", "oneOf", "anyOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def load_operations(spec_dir: Path) -> tuple[str, ...]:
    """The operations the project keeps, from ``spec_dir/operations.yaml``."""
    path = spec_dir / OPERATIONS_FILE
    raw = load_yaml(path)
    operations = raw.get("operations") if isinstance(raw, dict) else None
    if (
        not isinstance(operations, list)
        or not operations
        or not all(isinstance(o, str) and o for o in operations)
    ):
        raise GeneratorError(f"{path}#/operations: expected a non-empty list of operationIds")
    return tuple(operations)


@dataclass(frozen=True)
class Normalised:
    document: dict[str, Any]
    notes: tuple[str, ...]
    """Each normalisation applied: ``#/json/pointer: what was done``."""


def extract(
    raw: Any,
    operations: Sequence[str],
    *,
    revision_id: str,
    previous: Any,
    source: str,
) -> Normalised:
    """The operations of ``raw`` (a published document) with what they reach, normalised.

    ``previous`` is the newest revision's document (decoded YAML), whose schema names are kept.
    Raises :class:`SpecError` for a document that is not OpenAPI 3 or lacks an operation.
    """
    if not isinstance(raw, Mapping):
        raise SpecError("", "the document must be an object", source=source)
    version = raw.get("openapi")
    if not isinstance(version, str) or not version.startswith("3."):
        raise SpecError("/openapi", f"not an OpenAPI 3 document ({version!r})", source=source)
    paths = raw.get("paths")
    if not isinstance(paths, Mapping):
        raise SpecError("/paths", "the document has no paths", source=source)
    kept = _kept_paths(paths, operations, source)
    doc: dict[str, Any] = {"openapi": version}
    notes: list[str] = []
    info = dict(raw.get("info") or {})
    if info.get("version") != revision_id:
        notes.append(
            f"#/info/version: {info.get('version')!r} set to the revision id {revision_id!r}"
        )
    old = info.get("version")
    description = info.get("description")
    if isinstance(old, str) and old and old != revision_id and isinstance(description, str):
        named = re.compile(rf"(?<![\w-]){re.escape(old)}(?![\w-])")
        if named.search(description):  # the document names its version as its revision
            info["description"] = named.sub(revision_id, description)
            notes.append(
                f"#/info/description: the revision {old!r} it names replaced by {revision_id!r}"
            )
    info["version"] = revision_id
    doc["info"] = info
    for key in ("servers", "security"):
        if key in raw:
            doc[key] = copy.deepcopy(raw[key])
    doc["paths"] = kept
    components = _reachable_components(raw, kept, source)
    if components:
        doc["components"] = components
    normaliser = _Normaliser(doc, notes, version.startswith("3.1"))
    normaliser.rename_schemas()
    normaliser.lift_named_objects(previous)
    normaliser.typed_values()
    return Normalised(doc, tuple(notes))


def _kept_paths(paths: Mapping[str, Any], operations: Sequence[str], source: str) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    missing = []
    for wanted in operations:
        found = False
        for path, item in paths.items():
            if not isinstance(item, Mapping):
                continue
            for method in _METHODS:
                op = item.get(method)
                if isinstance(op, Mapping) and wanted in (
                    op.get("operationId"),
                    f"{method.upper()} {path}",
                ):
                    target = kept.setdefault(path, {})
                    for key, value in item.items():  # path-level parameters, summary, ...
                        if key not in _METHODS:
                            target.setdefault(key, copy.deepcopy(value))
                    target[method] = copy.deepcopy(op)
                    found = True
        if not found:
            missing.append(wanted)
    if missing:
        raise SpecError(
            "/paths",
            f"the document lacks {'the operation' if len(missing) == 1 else 'the operations'} "
            f"{listing([repr(m) for m in missing])} (the operations this project keeps are "
            f"listed in spec/{OPERATIONS_FILE})",
            source=source,
        )
    return kept


def _reachable_components(raw: Mapping[str, Any], paths: Any, source: str) -> dict[str, Any]:
    """The components that ``paths`` reach through ``$ref`` s, and the security schemes that the
    document's and the operations' security requirements name, in the document's order."""
    components = raw.get("components") or {}
    wanted: set[tuple[str, str]] = set()
    todo = list(references(paths, "/paths"))
    while todo:
        ref, place = todo.pop()
        match = _COMPONENT_REF.match(ref)
        if match is None:
            continue  # an external or non-component $ref: validation reports what it cannot use
        section, name = match.group(1), split(ref[1:])[2]
        if (section, name) in wanted:
            continue
        target = components.get(section, {}).get(name) if isinstance(components, Mapping) else None
        if target is None:
            raise SpecError(place, f"$ref target {ref} does not exist", source=source)
        wanted.add((section, name))
        todo.extend(references(target, join("/components", section, name)))
    requirements = list(raw.get("security") or [])
    for item in paths.values():
        for method in _METHODS:
            requirements += (item.get(method) or {}).get("security") or []
    for requirement in requirements:
        if isinstance(requirement, Mapping):
            wanted.update(("securitySchemes", str(name)) for name in requirement)
    result: dict[str, Any] = {}
    for section, entries in components.items():
        if not isinstance(entries, Mapping):
            continue
        kept = {name: copy.deepcopy(v) for name, v in entries.items() if (section, name) in wanted}
        if kept:
            result[section] = kept
    return result


class _Normaliser:
    def __init__(self, doc: dict[str, Any], notes: list[str], is_31: bool) -> None:
        self.doc = doc
        self.notes = notes
        self.is_31 = is_31

    @property
    def schemas(self) -> dict[str, Any]:
        result: dict[str, Any] = self.doc.get("components", {}).get("schemas", {})
        return result

    def rename_schemas(self) -> None:
        renames: dict[str, str] = {}
        for name in self.schemas:
            new = re.sub(r"[^0-9A-Za-z_]", "", name)
            if new != name:
                if not new or new in self.schemas or new in renames.values():
                    raise SpecError(
                        join("/components/schemas", name),
                        f"the schema name {name!r} cannot be made an identifier without a clash",
                    )
                renames[name] = new
        if not renames:
            return
        components = self.doc["components"]
        components["schemas"] = {renames.get(k, k): v for k, v in self.schemas.items()}
        for old, new in renames.items():
            self.notes.append(f"#/components/schemas/{old}: renamed to {new}")
        refs = {_SCHEMA_REF + old: _SCHEMA_REF + new for old, new in renames.items()}
        stack: list[Any] = [self.doc]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if node.get("$ref") in refs:
                    node["$ref"] = refs[node["$ref"]]
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)

    def lift_named_objects(self, previous: Any) -> None:
        """Name an inline object property the way the previous revision names it."""
        before = (previous or {}).get("components", {}).get("schemas", {})
        todo = list(self.schemas)
        while todo:
            name = todo.pop(0)
            schema, old = self.schemas.get(name), before.get(name)
            if not isinstance(schema, dict) or not isinstance(old, dict):
                continue
            for prop, value in (schema.get("properties") or {}).items():
                old_prop = (old.get("properties") or {}).get(prop)
                ref = old_prop.get("$ref") if isinstance(old_prop, dict) else None
                if not (isinstance(ref, str) and ref.startswith(_SCHEMA_REF)):
                    continue
                target = ref[len(_SCHEMA_REF) :]
                if not _inline_object(value) or target in self.schemas:
                    continue
                self.schemas[target] = value
                schema["properties"][prop] = {"$ref": ref}
                self.notes.append(
                    f"#/components/schemas/{name}/properties/{prop}: the inline object is the "
                    f"schema {target}, as the previous revision names it"
                )
                todo.append(target)

    def typed_values(self) -> None:
        for pointer, schema in sorted(self._schemas(), key=lambda item: item[0]):
            kind = schema.get("type")
            kinds = kind if isinstance(kind, list) else [kind]
            single = [k for k in kinds if k != "null"]
            for keyword in ("default", "example"):
                if keyword not in schema or len(single) != 1:
                    continue
                if schema[keyword] is None and "null" in kinds:
                    continue
                value, note = coerce_value(schema[keyword], single[0])
                if note is None:
                    continue
                at = join(pointer, keyword)
                if value is ir.NO_VALUE:
                    del schema[keyword]
                    self.notes.append(f"#{at}: {note.replace('; ignored', '; removed')}")
                else:
                    schema[keyword] = value
                    self.notes.append(f"#{at}: {note}")
            if self.is_31 and "nullable" in schema and isinstance(kind, str):
                nullable = schema.pop("nullable")
                if nullable is True:
                    schema["type"] = [kind, "null"]
                    self.notes.append(
                        f"#{pointer}: `nullable: true` written as `type: [{kind}, 'null']`"
                    )
                else:
                    self.notes.append(
                        f"#{join(pointer, 'nullable')}: `nullable: {json.dumps(nullable)}` removed"
                    )

    def _schemas(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every schema object in the document, with its JSON pointer."""
        stack: list[tuple[str, Any]] = [
            (join("/components/schemas", name), schema) for name, schema in self.schemas.items()
        ]
        stack += [(pointer, node) for pointer, node in _media_schemas(self.doc)]
        while stack:
            pointer, schema = stack.pop()
            if not isinstance(schema, dict):
                continue
            yield pointer, schema
            for key in _SCHEMA_KEYS:
                if isinstance(schema.get(key), dict):
                    stack.append((join(pointer, key), schema[key]))
            for key in _SCHEMA_LISTS:
                for i, part in enumerate(schema.get(key) or []):
                    stack.append((join(pointer, key, i), part))
            for key in _SCHEMA_MAPS:
                for name, part in (schema.get(key) or {}).items():
                    stack.append((join(pointer, key, name), part))


def _media_schemas(doc: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """The schemas of parameters, request bodies, responses and headers, wherever they are."""
    stack: list[tuple[str, Any]] = [
        ("/paths", doc.get("paths")),
        ("/components", doc.get("components")),
    ]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "schemas" and pointer == "/components":
                    continue  # walked as schemas already
                if key == "schema":
                    yield join(pointer, key), value
                else:
                    stack.append((join(pointer, str(key)), value))
        elif isinstance(node, list):
            stack.extend((join(pointer, i), value) for i, value in enumerate(node))


def _inline_object(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and "$ref" not in schema
        and (schema.get("type") == "object" or "properties" in schema)
    )
