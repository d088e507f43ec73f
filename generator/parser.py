"""Parse an OpenAPI 3.x document (already loaded as plain data) into the IR of :mod:`generator.ir`.

The parser is lenient where real documents are commonly sloppy and says so: a string default on a
number (``default: "0.9"``) is coerced and reported as a :class:`~generator.ir.Diagnostic`. It is
strict about structure: a construct it cannot represent raises
:class:`~generator.errors.UnsupportedConstructError` naming its JSON pointer, and a malformed one
raises :class:`~generator.errors.SpecError`. Nothing is skipped silently.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

from . import ir
from .errors import SpecError, UnsupportedConstructError
from .loader import load_yaml
from .pointer import join, split, unescape

SCHEMA_REF_PREFIX = "#/components/schemas/"

# Keywords that annotate a schema without changing what the generator produces.
_ANNOTATIONS = frozenset(
    {
        "title",
        "examples",
        "readOnly",
        "writeOnly",
        "externalDocs",
        "xml",
        "$comment",
        "contentMediaType",
        "contentEncoding",
        "$schema",
        "$id",
    }
)
# Validation keywords kept on the IR node as constraints.
_CONSTRAINTS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
)
_STRUCTURE = frozenset(
    {
        "type",
        "format",
        "description",
        "nullable",
        "default",
        "example",
        "deprecated",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "oneOf",
        "anyOf",
        "allOf",
        "discriminator",
        "$ref",
    }
)
_KNOWN = _ANNOTATIONS | _STRUCTURE | frozenset(_CONSTRAINTS)
# JSON Schema keywords the IR cannot represent: an error, never a silent skip.
_UNSUPPORTED = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
        "propertyNames",
        "prefixItems",
        "contains",
        "dependentSchemas",
        "dependentRequired",
        "unevaluatedProperties",
        "unevaluatedItems",
        "$dynamicRef",
        "$defs",
    }
)
_PRIMITIVES = ("string", "number", "integer", "boolean", "null")


MAX_DEPTH = 100
"""How deep schemas may nest inside one another (``$ref`` s to components do not count)."""


def parse_file(path: Path, *, lenient: bool = False) -> ir.Document:
    """Load and parse the document at ``path``."""
    return parse_document(load_yaml(path), source=str(path), lenient=lenient)


def parse_document(raw: Any, *, source: str | None = None, lenient: bool = False) -> ir.Document:
    """Parse a loaded document into an :class:`ir.Document`.

    Strictly, a construct the generator does not support is an error. ``lenient``ly, the schema
    or operation that uses it is left out, and so is whatever reaches it, each listed in
    :attr:`ir.Document.omitted` with its pointer and reason.
    """
    return _Parser(raw, source, lenient).document()


class _Parser:
    def __init__(self, raw: Any, source: str | None, lenient: bool = False) -> None:
        self.raw = raw
        self.source = source
        self.lenient = lenient
        self.depth = 0
        self.omitted: list[ir.Omission] = []
        self.diagnostics: list[ir.Diagnostic] = []

    # -- errors and small readers ---------------------------------------------------------------

    def error(self, pointer: str, message: str) -> SpecError:
        return SpecError(pointer, message, source=self.source)

    def unsupported(self, pointer: str, construct: str) -> UnsupportedConstructError:
        return UnsupportedConstructError(
            pointer, f"{construct} is not supported by the generator yet", source=self.source
        )

    def note(self, pointer: str, message: str) -> None:
        self.diagnostics.append(ir.Diagnostic(pointer=pointer, message=message))

    def mapping(self, node: Any, pointer: str, what: str) -> Mapping[str, Any]:
        if not isinstance(node, Mapping):
            raise self.error(pointer, f"{what} must be an object, got {_kind(node)}")
        return cast(Mapping[str, Any], node)

    def string(self, node: Mapping[str, Any], key: str, pointer: str) -> str | None:
        value = node.get(key)
        if value is not None and not isinstance(value, str):
            raise self.error(join(pointer, key), f"must be a string, got {_kind(value)}")
        return value

    def boolean(self, node: Mapping[str, Any], key: str, pointer: str) -> bool:
        value = node.get(key, False)
        if not isinstance(value, bool):
            raise self.error(join(pointer, key), f"must be a boolean, got {_kind(value)}")
        return value

    def follow(self, node: Any, pointer: str, section: str) -> tuple[Any, str]:
        """Resolve a ``$ref`` to ``#/components/<section>/...``; other nodes pass through."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and "$ref" in node:
            ref = node["$ref"]
            prefix = f"#/components/{section}/"
            if not isinstance(ref, str) or not ref.startswith(prefix):
                raise self.unsupported(
                    join(pointer, "$ref"), f"$ref {ref!r} (only {prefix}... here)"
                )
            if ref in seen:
                raise self.error(join(pointer, "$ref"), f"$ref cycle through {ref}")
            seen.add(ref)
            node, pointer = self.lookup(ref, join(pointer, "$ref")), ref[1:]
        return node, pointer

    def lookup(self, ref: str, at: str) -> Any:
        node = self.raw
        for token in split(ref[1:]):
            if not isinstance(node, Mapping) or token not in node:
                raise self.error(at, f"$ref target {ref} does not exist")
            node = node[token]
        return node

    # -- document -------------------------------------------------------------------------------

    def document(self) -> ir.Document:
        raw = self.mapping(self.raw, "", "the document")
        version = raw.get("openapi")
        if not isinstance(version, str) or not version.startswith("3."):
            raise self.error(
                "/openapi", f"only OpenAPI 3.x documents are supported, got {version!r}"
            )
        info = self.mapping(raw.get("info"), "/info", "info")
        components = self.mapping(raw.get("components", {}), "/components", "components")
        raw_schemas = self.mapping(components.get("schemas", {}), "/components/schemas", "schemas")
        schemas: dict[str, ir.Schema] = {}
        for name, node in raw_schemas.items():
            at = join("/components/schemas", name)
            try:
                schemas[name] = self.schema(node, at)
            except UnsupportedConstructError as exc:
                self.omit(at, exc)
        self.check_aliases(schemas)
        paths = self.mapping(raw.get("paths", {}), "/paths", "paths")
        operations: list[ir.Operation] = []
        for path, item in paths.items():
            try:
                operations += self.path_item(path, item)
            except UnsupportedConstructError as exc:
                self.omit(join("/paths", path), exc)
        if self.omitted:
            schemas, operations = self.without_omitted(schemas, operations)
        return ir.Document(
            openapi=version,
            title=str(info.get("title", "")),
            version=str(info.get("version", "")),
            description=self.string(info, "description", "/info"),
            servers=tuple(
                str(self.mapping(s, join("/servers", i), "a server").get("url", ""))
                for i, s in enumerate(raw.get("servers") or ())
            ),
            security=self.security(raw.get("security"), "/security"),
            security_schemes=self.security_schemes(components, "/components/securitySchemes"),
            operations=tuple(operations),
            schemas=schemas,
            diagnostics=tuple(self.diagnostics),
            omitted=tuple(self.omitted),
        )

    def omit(self, pointer: str, exc: UnsupportedConstructError) -> None:
        """Leave out the schema or path item at ``pointer`` (leniently), else raise ``exc``."""
        if not self.lenient:
            raise exc
        self.omitted.append(ir.Omission(pointer=pointer, reason=f"{exc.pointer}: {exc.message}"))

    def check_aliases(self, schemas: dict[str, ir.Schema]) -> None:
        """A component that is only a ``$ref`` must lead, through others, to a schema."""
        for name, schema in schemas.items():
            seen = {name}
            while isinstance(schema, ir.Ref):
                if schema.name in seen:
                    raise self.error(
                        join("/components/schemas", name, "$ref"),
                        f"$ref cycle: {name} only refers to itself through {schema.name}",
                    )
                seen.add(schema.name)
                schema = schemas.get(schema.name, ir.AnyValue(pointer=""))

    def without_omitted(
        self, schemas: dict[str, ir.Schema], operations: list[ir.Operation]
    ) -> tuple[dict[str, ir.Schema], list[ir.Operation]]:
        """Leave out, too, what reaches a schema that was left out."""
        refs = {name: set(_refs(schema)) for name, schema in schemas.items()}
        gone = {
            o.pointer.rsplit("/", 1)[-1]
            for o in self.omitted
            if o.pointer.startswith("/components/schemas/")
        }
        gone = {unescape(name) for name in gone}
        changed = True
        while changed:
            changed = False
            for name, used in refs.items():
                if name not in gone and used & gone:
                    culprit = sorted(used & gone)[0]
                    self.omitted.append(
                        ir.Omission(
                            pointer=join("/components/schemas", name),
                            reason=f"it uses the schema {culprit}, which is left out",
                        )
                    )
                    gone.add(name)
                    changed = True
        kept_operations = []
        for op in operations:
            used = set(_operation_refs(op))
            if used & gone:
                culprit = sorted(used & gone)[0]
                self.omitted.append(
                    ir.Omission(
                        pointer=op.pointer,
                        reason=f"it uses the schema {culprit}, which is left out",
                    )
                )
            else:
                kept_operations.append(op)
        return {k: v for k, v in schemas.items() if k not in gone}, kept_operations

    def security(self, node: Any, pointer: str) -> tuple[str, ...]:
        if node is None:
            return ()
        if not isinstance(node, list):
            raise self.error(pointer, f"must be a list, got {_kind(node)}")
        return tuple(
            name
            for i, req in enumerate(node)
            for name in self.mapping(req, join(pointer, i), "a requirement")
        )

    def security_schemes(
        self, components: Mapping[str, Any], pointer: str
    ) -> tuple[ir.SecurityScheme, ...]:
        schemes = self.mapping(components.get("securitySchemes", {}), pointer, "securitySchemes")
        result = []
        for name, node in schemes.items():
            here = join(pointer, name)
            node = self.mapping(node, here, "a security scheme")
            kind = self.string(node, "type", here)
            if kind is None:
                raise self.error(here, "a security scheme needs a type")
            result.append(
                ir.SecurityScheme(
                    name=name,
                    type=kind,
                    scheme=self.string(node, "scheme", here),
                    bearer_format=self.string(node, "bearerFormat", here),
                    description=self.string(node, "description", here),
                )
            )
        return tuple(result)

    # -- operations -----------------------------------------------------------------------------

    def path_item(self, path: str, item: Any) -> list[ir.Operation]:
        pointer = join("/paths", path)
        item = self.mapping(item, pointer, "a path item")
        if "$ref" in item:
            raise self.unsupported(join(pointer, "$ref"), "a path item $ref")
        shared = self.parameters(item.get("parameters", []), join(pointer, "parameters"))
        return [
            self.operation(
                path, cast(ir.HttpMethod, method), item[method], join(pointer, method), shared
            )
            for method in item
            if method in ir.HTTP_METHODS
        ]

    def operation(
        self,
        path: str,
        method: ir.HttpMethod,
        node: Any,
        pointer: str,
        shared: tuple[ir.Parameter, ...],
    ) -> ir.Operation:
        node = self.mapping(node, pointer, "an operation")
        if "callbacks" in node:
            self.note(join(pointer, "callbacks"), "callbacks are not generated")
        own = self.parameters(node.get("parameters", []), join(pointer, "parameters"))
        own_keys = {(p.name, p.location) for p in own}
        parameters = tuple(p for p in shared if (p.name, p.location) not in own_keys) + own
        body = None
        if "requestBody" in node:
            body = self.request_body(node["requestBody"], join(pointer, "requestBody"))
        responses_node = self.mapping(
            node.get("responses", {}), join(pointer, "responses"), "responses"
        )
        tags = node.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise self.error(join(pointer, "tags"), "must be a list of strings")
        return ir.Operation(
            pointer=pointer,
            method=method,
            path=path,
            operation_id=self.string(node, "operationId", pointer),
            summary=self.string(node, "summary", pointer),
            description=self.string(node, "description", pointer),
            tags=tuple(tags),
            deprecated=self.boolean(node, "deprecated", pointer),
            parameters=parameters,
            request_body=body,
            responses=tuple(
                self.response(str(status), value, join(pointer, "responses", str(status)))
                for status, value in responses_node.items()
            ),
        )

    def parameters(self, nodes: Any, pointer: str) -> tuple[ir.Parameter, ...]:
        if not isinstance(nodes, list):
            raise self.error(pointer, f"parameters must be a list, got {_kind(nodes)}")
        return tuple(self.parameter(node, join(pointer, i)) for i, node in enumerate(nodes))

    def parameter(self, node: Any, pointer: str) -> ir.Parameter:
        node, at = self.follow(node, pointer, "parameters")
        node = self.mapping(node, at, "a parameter")
        name = self.string(node, "name", at)
        location = node.get("in")
        if not name:
            raise self.error(at, "a parameter needs a name")
        if location not in ("path", "query", "header", "cookie"):
            raise self.error(
                join(at, "in"), f"must be path, query, header or cookie, got {location!r}"
            )
        if "content" in node:
            raise self.unsupported(join(at, "content"), "a parameter described by content")
        required = self.boolean(node, "required", at)
        if location == "path" and not required:
            raise self.error(join(at, "required"), "a path parameter must be required")
        return ir.Parameter(
            pointer=at,
            name=name,
            location=location,
            required=required,
            schema=self.schema(node.get("schema", {}), join(at, "schema")),
            description=self.string(node, "description", at),
            deprecated=self.boolean(node, "deprecated", at),
        )

    def media(self, node: Mapping[str, Any], pointer: str) -> tuple[str | None, ir.Schema | None]:
        content = self.mapping(node.get("content", {}), join(pointer, "content"), "content")
        if not content:
            return None, None
        content_type = next((t for t in content if is_json(t)), None)
        if content_type is None:
            content_type = next(iter(content))
        media = self.mapping(
            content[content_type], join(pointer, "content", content_type), "a media type"
        )
        if "schema" not in media:
            return content_type, None
        return content_type, self.schema(
            media["schema"], join(pointer, "content", content_type, "schema")
        )

    def request_body(self, node: Any, pointer: str) -> ir.RequestBody:
        node, at = self.follow(node, pointer, "requestBodies")
        node = self.mapping(node, at, "a request body")
        content_type, schema = self.media(node, at)
        if content_type is None:
            raise self.error(join(at, "content"), "a request body needs at least one media type")
        return ir.RequestBody(
            pointer=at,
            required=self.boolean(node, "required", at),
            content_type=content_type,
            schema=schema,
            description=self.string(node, "description", at),
        )

    def response(self, status: str, node: Any, pointer: str) -> ir.Response:
        if not (status == "default" or (len(status) == 3 and status[0] in "12345")):
            raise self.error(pointer, f"{status!r} is not a response status code")
        node, at = self.follow(node, pointer, "responses")
        node = self.mapping(node, at, "a response")
        content_type, schema = self.media(node, at)
        content = node.get("content") or {}
        return ir.Response(
            pointer=at,
            status=status,
            description=self.string(node, "description", at) or "",
            content_type=content_type,
            schema=schema,
            content_types=tuple(str(t) for t in content) if isinstance(content, Mapping) else (),
        )

    # -- schemas --------------------------------------------------------------------------------

    def schema(self, node: Any, pointer: str) -> ir.Schema:
        if self.depth >= MAX_DEPTH:
            raise self.error(pointer, f"schemas are nested more than {MAX_DEPTH} deep here")
        self.depth += 1
        try:
            return self._schema(node, pointer)
        finally:
            self.depth -= 1

    def _schema(self, node: Any, pointer: str) -> ir.Schema:
        if node is True:
            return ir.AnyValue(pointer=pointer)
        node = self.mapping(node, pointer, "a schema")
        for key in node:
            if key in _UNSUPPORTED:
                raise self.unsupported(join(pointer, key), f"the schema keyword {key!r}")
            if key not in _KNOWN and not key.startswith("x-"):
                # JSON Schema ignores unknown keywords; say so, since it is often a misplaced property.
                self.note(join(pointer, key), f"unknown schema keyword {key!r} ignored")
        if "$ref" in node:
            return self.ref(node, pointer)
        if "allOf" in node:
            return self.all_of(node, pointer)
        types, nullable = self.types(node, pointer)
        common = self.common(node, pointer, types[0] if len(types) == 1 else None, nullable)
        if "oneOf" in node or "anyOf" in node:
            return self.union(node, pointer, common)
        if "enum" in node or "const" in node:
            return self.enum(node, pointer, types, common)
        if len(types) > 1:
            variants = tuple(
                ir.Primitive(pointer=pointer, type=cast(ir.PrimitiveType, t)) for t in types
            )
            return ir.Union(kind="anyOf", variants=variants, **common)
        kind = types[0] if types else None
        if kind == "object" or (
            kind is None and ("properties" in node or "additionalProperties" in node)
        ):
            return self.object(node, pointer, common)
        if kind == "array":
            items = self.schema(node.get("items", {}), join(pointer, "items"))
            return ir.Array(items=items, **common)
        if kind is None:
            return ir.AnyValue(**common)
        return ir.Primitive(
            type=cast(ir.PrimitiveType, kind), format=self.string(node, "format", pointer), **common
        )

    def types(self, node: Mapping[str, Any], pointer: str) -> tuple[list[str], bool]:
        """The declared types other than ``null``, and whether the value may be null."""
        declared = node.get("type")
        listed = declared if isinstance(declared, list) else [] if declared is None else [declared]
        for t in listed:
            if t not in (*_PRIMITIVES, "object", "array"):
                raise self.error(join(pointer, "type"), f"unknown type {t!r}")
        nullable = node.get("nullable", False) is True or "null" in listed
        types = [t for t in listed if t != "null"]
        if listed and not types:  # ``type: "null"`` alone
            return ["null"], False
        return types, nullable

    def common(
        self, node: Mapping[str, Any], pointer: str, kind: str | None, nullable: bool
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "pointer": pointer,
            "description": self.string(node, "description", pointer),
            "nullable": nullable,
            "deprecated": self.boolean(node, "deprecated", pointer),
            "constraints": tuple((k, node[k]) for k in _CONSTRAINTS if k in node),
        }
        for keyword in ("default", "example"):
            if keyword in node:
                fields[keyword] = self.coerce(node[keyword], kind, nullable, join(pointer, keyword))
        return fields

    def coerce(self, value: Any, kind: str | None, nullable: bool, pointer: str) -> Any:
        """Return ``value`` as the declared type, noting any conversion; an impossible one drops it."""
        if value is None and nullable:
            return value
        result, note = coerce_value(value, kind)
        if note is not None:
            self.note(pointer, note)
        return result

    def ref(self, node: Mapping[str, Any], pointer: str) -> ir.Ref:
        ref = node["$ref"]
        at = join(pointer, "$ref")
        if not isinstance(ref, str):
            raise self.error(at, f"$ref must be a string, got {_kind(ref)}")
        if not ref.startswith(SCHEMA_REF_PREFIX) or "/" in ref[len(SCHEMA_REF_PREFIX) :]:
            if ref.startswith("#"):
                raise self.unsupported(at, f"$ref {ref!r} (only {SCHEMA_REF_PREFIX}<name>)")
            raise self.unsupported(at, f"the external $ref {ref!r}")
        target = self.lookup(ref, at)
        # A ``type`` beside a ``$ref`` repeats the target's; the target decides.
        allowed = {"$ref", "type", "description", "nullable", "default", "example", "deprecated"}
        unsupported = sorted(
            k for k in node if k not in allowed and k not in _ANNOTATIONS and not k.startswith("x-")
        )
        if unsupported:
            raise self.unsupported(pointer, f"$ref with the sibling keywords {unsupported}")
        name = split(ref[1:])[-1]
        kind = target.get("type") if isinstance(target, Mapping) else None
        nullable = node.get("nullable", False) is True
        return ir.Ref(
            name=name,
            **self.common(node, pointer, kind if isinstance(kind, str) else None, nullable),
        )

    def all_of(self, node: Mapping[str, Any], pointer: str) -> ir.Schema:
        """``allOf``: a single part (with sibling description, nullable, enum) or merged objects."""
        parts_node = node["allOf"]
        if not isinstance(parts_node, list) or not parts_node:
            raise self.error(join(pointer, "allOf"), "allOf must be a non-empty list")
        nullable = node.get("nullable", False) is True
        parts: list[ir.Schema] = []
        for i, part in enumerate(parts_node):
            at = join(pointer, "allOf", i)
            if isinstance(part, Mapping) and set(part) <= {"nullable", "description"}:
                nullable = nullable or part.get("nullable") is True
                continue
            parts.append(self.schema(part, at))
        siblings = {k: v for k, v in node.items() if k != "allOf"}
        rest = (
            self.schema(siblings, pointer)
            if set(siblings) & {"properties", "enum", "type"}
            else None
        )
        if len(parts) == 1 and (rest is None or isinstance(rest, ir.Enum)):
            base = rest if rest is not None else parts[0]
            common = self.common(node, pointer, None, nullable)
            overrides = {k: v for k, v in common.items() if v not in (None, (), False, ir.NO_VALUE)}
            return replace(base, **overrides)
        if rest is not None:
            parts.append(rest)
        properties: dict[str, ir.Property] = {}
        for i, part in enumerate(parts):
            resolved = self.resolve_raw(part)
            if not isinstance(resolved, ir.Object):
                raise self.unsupported(
                    join(pointer, "allOf", i), "allOf of a schema that is not an object"
                )
            for prop in resolved.properties:
                properties[prop.name] = prop
        return ir.Object(
            properties=tuple(properties.values()),
            title=self.string(node, "title", pointer),
            **self.common(node, pointer, "object", nullable),
        )

    def resolve_raw(self, schema: ir.Schema) -> ir.Schema:
        """Resolve a ref while the document is still being parsed (for ``allOf`` merging)."""
        seen: set[str] = set()
        while isinstance(schema, ir.Ref):
            if schema.name in seen:
                raise self.error(schema.pointer, f"allOf through the $ref cycle {schema.name!r}")
            seen.add(schema.name)
            at = join("/components/schemas", schema.name)
            schema = self.schema(self.lookup(SCHEMA_REF_PREFIX + schema.name, at), at)
        return schema

    def union(self, node: Mapping[str, Any], pointer: str, common: dict[str, Any]) -> ir.Union:
        kind: Literal["oneOf", "anyOf"] = "oneOf" if "oneOf" in node else "anyOf"
        if "oneOf" in node and "anyOf" in node:
            raise self.unsupported(pointer, "oneOf together with anyOf")
        if "properties" in node:
            raise self.unsupported(pointer, f"{kind} beside properties")
        variants_node = node[kind]
        if not isinstance(variants_node, list) or not variants_node:
            raise self.error(join(pointer, kind), f"{kind} must be a non-empty list")
        variants = [self.schema(v, join(pointer, kind, i)) for i, v in enumerate(variants_node)]
        nulls = [v for v in variants if isinstance(v, ir.Primitive) and v.type == "null"]
        discriminator = None
        mapping: list[tuple[str, str]] = []
        if "discriminator" in node:
            at = join(pointer, "discriminator")
            disc = self.mapping(node["discriminator"], at, "a discriminator")
            discriminator = self.string(disc, "propertyName", at)
            given = self.mapping(disc.get("mapping", {}), join(at, "mapping"), "a mapping")
            for value, target in given.items():
                if not isinstance(target, str):
                    raise self.error(join(at, "mapping", str(value)), "must be a $ref string")
                name = target.removeprefix(SCHEMA_REF_PREFIX) if target.startswith("#") else target
                mapping.append((str(value), name))
        if nulls:
            common = {**common, "nullable": True}
        return ir.Union(
            kind=kind,
            variants=tuple(v for v in variants if v not in nulls),
            discriminator=discriminator,
            mapping=tuple(mapping),
            **common,
        )

    def enum(
        self, node: Mapping[str, Any], pointer: str, types: list[str], common: dict[str, Any]
    ) -> ir.Schema:
        at = join(pointer, "enum" if "enum" in node else "const")
        values = node["enum"] if "enum" in node else [node["const"]]
        if not isinstance(values, list) or not values:
            raise self.error(at, "enum must be a non-empty list")
        if None in values:
            common = {**common, "nullable": True}
            values = [v for v in values if v is not None]
        kind: Literal["string", "integer", "boolean"]
        if types in ([], ["string"]) and all(isinstance(v, str) for v in values):
            kind = "string"
        elif types in ([], ["integer"]) and all(type(v) is int for v in values):
            kind = "integer"
        elif types in ([], ["boolean"]) and all(isinstance(v, bool) for v in values):
            kind = "boolean"
        else:
            raise self.unsupported(
                at, "an enum of values that are not all strings, all integers or all booleans"
            )
        if len(set(values)) != len(values):
            raise self.error(at, "enum values must be unique")
        if common.get("default") not in (ir.NO_VALUE, None) and common["default"] not in values:
            raise self.error(
                join(pointer, "default"),
                f"default {common['default']!r} is not one of the enum values",
            )
        return ir.Enum(type=kind, values=tuple(values), **common)

    def object(self, node: Mapping[str, Any], pointer: str, common: dict[str, Any]) -> ir.Schema:
        props_node = self.mapping(
            node.get("properties", {}), join(pointer, "properties"), "properties"
        )
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise self.error(join(pointer, "required"), "required must be a list of property names")
        for i, name in enumerate(required):
            if props_node and name not in props_node:
                # JSON Schema allows it (the property may be of any value); it is often a slip
                self.note(
                    join(pointer, "required", i),
                    f"required property {name!r} is not defined; read as a property of any value",
                )
        additional: ir.Schema | bool | None = None
        if "additionalProperties" in node:
            extra = node["additionalProperties"]
            at = join(pointer, "additionalProperties")
            additional = extra if isinstance(extra, bool) else self.schema(extra, at)
        properties = tuple(
            ir.Property(
                name=name,
                schema=self.schema(value, join(pointer, "properties", name)),
                required=name in required,
            )
            for name, value in props_node.items()
        )
        properties += tuple(
            ir.Property(
                name=name,
                schema=ir.AnyValue(pointer=join(pointer, "required", i)),
                required=True,
            )
            for i, name in enumerate(required)
            if props_node and name not in props_node
        )
        if not properties and not isinstance(additional, (bool, ir.AnyValue, type(None))):
            return ir.Map(values=additional, **common)
        return ir.Object(
            properties=properties,
            additional_properties=additional,
            title=self.string(node, "title", pointer),
            **common,
        )


def media_essence(media_type: str) -> str:
    """A media type without its parameters, in lower case: ``application/json; charset=utf-8``
    is ``application/json``."""
    return media_type.split(";")[0].strip().lower()


def is_json(media_type: str) -> bool:
    """``application/json``, or a JSON-based type such as ``application/problem+json``."""
    essence = media_essence(media_type)
    return essence == "application/json" or essence.endswith("+json")


def _refs(schema: ir.Schema) -> Iterator[str]:
    """The names of the components a schema refers to (not through them)."""
    todo: list[ir.Schema] = [schema]
    while todo:
        current = todo.pop()
        if isinstance(current, ir.Ref):
            yield current.name
        todo.extend(ir.children(current))


def _operation_refs(op: ir.Operation) -> Iterator[str]:
    for p in op.parameters:
        yield from _refs(p.schema)
    if op.request_body is not None and op.request_body.schema is not None:
        yield from _refs(op.request_body.schema)
    for r in op.responses:
        if r.schema is not None:
            yield from _refs(r.schema)


def coerce_value(value: Any, kind: str | None) -> tuple[Any, str | None]:
    """``value`` (a ``default`` or ``example``) as a value of the declared ``kind``, and a note
    where it was changed: a string read as the number or boolean it spells, or, where it cannot
    be read as one, :data:`ir.NO_VALUE` (dropped). Other kinds keep the value as it is."""
    if kind not in ("number", "integer", "boolean"):
        return value, None
    if kind == "boolean":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true", f"string {value!r} read as the boolean {value.lower()}"
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if kind == "number" or isinstance(value, int) or value.is_integer():
            return (int(value) if kind == "integer" else value), None
    elif isinstance(value, str):
        try:
            number = float(value) if kind == "number" else int(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number, f"string {value!r} read as the {kind} {number!r}"
    return ir.NO_VALUE, f"{value!r} is not a valid {kind}; ignored"


def _kind(value: Any) -> str:
    """A JSON name for the type of ``value``, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
