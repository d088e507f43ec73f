"""Parse an OpenAPI 3.x document (already loaded as plain data) into the IR of :mod:`generator.reading.ir`.

The parser is lenient where real documents are commonly sloppy and says so: a string default on a
number (``default: "0.9"``) is coerced and reported as a :class:`~generator.reading.ir.Diagnostic`. It is
strict about structure: a construct it cannot represent raises
:class:`~generator.errors.UnsupportedConstructError` naming its JSON pointer, and a malformed one
raises :class:`~generator.errors.SpecError`. Nothing is skipped silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from .. import ir
from ...errors import UnsupportedConstructError
from ..loader import load_yaml
from ...pointer import join
from .coercion import coerce_value
from .context import Context, Mode, json_kind
from .http import HTTP_TOKEN, is_json, media_essence
from .references import SCHEMA_REF_PREFIX, References
from .schemas import MAX_DEPTH, SchemaReader
from .unsupported import first_opaque, operation_refs, operation_schemas, schema_refs

__all__ = [
    "MAX_DEPTH",
    "SCHEMA_REF_PREFIX",
    "Mode",
    "coerce_value",
    "is_json",
    "media_essence",
    "parse_document",
    "parse_file",
]

# Where a parameter of each location may be, by style (OpenAPI's table of styles).
_STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}


def parse_file(path: Path, *, lenient: bool = False, mode: Mode | None = None) -> ir.Document:
    """Load and parse the document at ``path`` (and the files its ``$ref`` s name, beside it)."""
    return parse_document(load_yaml(path), source=str(path), lenient=lenient, mode=mode)


def parse_document(
    raw: Any, *, source: str | None = None, lenient: bool = False, mode: Mode | None = None
) -> ir.Document:
    """Parse a loaded document into an :class:`ir.Document`.

    Strictly, a construct the generator does not support is an error. ``lenient``ly, the schema
    or operation that uses it is left out, and so is whatever reaches it, each listed in
    :attr:`ir.Document.omitted` with its pointer and reason. In the ``complete`` mode it is kept
    as an :class:`ir.Opaque` schema (see :data:`Mode`).

    A ``$ref`` to another file is read relative to the file that holds it, and must stay within
    the folder of ``source`` (the root document).
    """
    chosen: Mode = mode or ("lenient" if lenient else "strict")
    return _Parser(raw, source, chosen).document()


class _Parser:
    def __init__(self, raw: Any, source: str | None, mode: Mode = "strict") -> None:
        self.ctx = Context(source, mode)
        self.refs = References(self.ctx, raw)
        self.reader = SchemaReader(self.ctx, self.refs)

    # -- document -------------------------------------------------------------------------------

    def document(self) -> ir.Document:
        raw = self.ctx.mapping(self.refs.files[""], "", "the document")
        version = raw.get("openapi")
        if not isinstance(version, str) or not version.startswith("3."):
            raise self.ctx.error(
                "/openapi", f"only OpenAPI 3.x documents are supported, got {version!r}"
            )
        info = self.ctx.mapping(raw.get("info"), "/info", "info")
        components = self.ctx.mapping(raw.get("components", {}), "/components", "components")
        raw_schemas = self.ctx.mapping(
            components.get("schemas", {}), "/components/schemas", "schemas"
        )
        self.refs.component_names = {str(name) for name in raw_schemas}
        schemas: dict[str, ir.Schema] = {}
        for name in raw_schemas:
            schemas[str(name)] = self.reader.component(str(name))
        paths = self.ctx.mapping(raw.get("paths", {}), "/paths", "paths")
        operations: list[ir.Operation] = []
        for path, item in paths.items():
            operations += self.path_item(str(path), item)
        while self.refs.queue:
            name, _ = self.refs.queue[0]
            schemas[name] = self.reader.component(name)
            self.refs.queue.pop(0)
        self.check_aliases(schemas)
        if self.ctx.mode == "lenient":
            schemas, operations = self.without_unsupported(schemas, operations)
        return ir.Document(
            openapi=version,
            title=str(info.get("title", "")),
            version=str(info.get("version", "")),
            description=self.ctx.string(info, "description", "/info"),
            servers=tuple(
                str(self.ctx.mapping(s, join("/servers", i), "a server").get("url", ""))
                for i, s in enumerate(raw.get("servers") or ())
            ),
            security=self.security(raw.get("security"), "/security"),
            requirements=self.requirements(raw.get("security"), "/security") or (),
            security_schemes=self.security_schemes(components, "/components/securitySchemes"),
            operations=tuple(operations),
            schemas=schemas,
            diagnostics=tuple(self.ctx.diagnostics),
            omitted=tuple(self.ctx.omitted),
            files=tuple(sorted(name for name in self.refs.files if name)),
        )

    def check_aliases(self, schemas: dict[str, ir.Schema]) -> None:
        """A component that is only a ``$ref`` must lead, through others, to a schema."""
        for name, schema in schemas.items():
            seen = {name}
            while isinstance(schema, ir.Ref):
                if schema.name in seen:
                    raise self.ctx.error(
                        join(schemas[name].pointer, "$ref"),
                        f"$ref cycle: {name} only refers to itself through {schema.name}",
                    )
                seen.add(schema.name)
                schema = schemas.get(schema.name, ir.AnyValue(pointer=""))

    def without_unsupported(
        self, schemas: dict[str, ir.Schema], operations: list[ir.Operation]
    ) -> tuple[dict[str, ir.Schema], list[ir.Operation]]:
        """Leave out the schemas that hold a construct the generator does not support, what
        reaches them, and the operations that do either (each listed with why)."""
        refs = {name: set(schema_refs(schema)) for name, schema in schemas.items()}
        gone: set[str] = set()
        for name, schema in schemas.items():
            opaque = first_opaque(schema)
            if opaque is not None:
                self.ctx.omitted.append(
                    ir.Omission(pointer=schema.pointer, reason=f"{opaque.at}: {opaque.reason}")
                )
                gone.add(name)
        changed = bool(gone)
        while changed:
            changed = False
            for name, used in refs.items():
                if name not in gone and used & gone:
                    culprit = sorted(used & gone)[0]
                    self.ctx.omitted.append(
                        ir.Omission(
                            pointer=schemas[name].pointer,
                            reason=f"it uses the schema {culprit}, which is left out",
                        )
                    )
                    gone.add(name)
                    changed = True
        kept_operations = []
        for op in operations:
            opaque = next(filter(None, map(first_opaque, operation_schemas(op))), None)
            used = set(operation_refs(op)) & gone
            if opaque is not None:
                reason = f"{opaque.at}: {opaque.reason}"
            elif used:
                reason = f"it uses the schema {sorted(used)[0]}, which is left out"
            else:
                kept_operations.append(op)
                continue
            self.ctx.omitted.append(ir.Omission(pointer=op.pointer, reason=reason))
        return {k: v for k, v in schemas.items() if k not in gone}, kept_operations

    def security(self, node: Any, pointer: str) -> tuple[str, ...]:
        if node is None:
            return ()
        if not isinstance(node, list):
            raise self.ctx.error(pointer, f"must be a list, got {json_kind(node)}")
        return tuple(
            name
            for i, req in enumerate(node)
            for name in self.ctx.mapping(req, join(pointer, i), "a requirement")
        )

    def requirements(self, node: Any, pointer: str) -> tuple[tuple[str, ...], ...] | None:
        """Security requirements as alternatives of scheme names (``None`` where not given)."""
        if node is None:
            return None
        if not isinstance(node, list):
            raise self.ctx.error(pointer, f"must be a list, got {json_kind(node)}")
        return tuple(
            tuple(str(name) for name in self.ctx.mapping(req, join(pointer, i), "a requirement"))
            for i, req in enumerate(node)
        )

    def security_schemes(
        self, components: Mapping[str, Any], pointer: str
    ) -> tuple[ir.SecurityScheme, ...]:
        schemes = self.ctx.mapping(
            components.get("securitySchemes", {}), pointer, "securitySchemes"
        )
        result = []
        for name, node in schemes.items():
            node, here = self.refs.follow(node, join(pointer, name))
            node = self.ctx.mapping(node, here, "a security scheme")
            kind = self.ctx.string(node, "type", here)
            if kind is None:
                raise self.ctx.error(here, "a security scheme needs a type")
            carrier = self.ctx.string(node, "name", here)
            if kind == "apiKey" and node.get("in") in ("header", "cookie"):
                if carrier is None or not HTTP_TOKEN.fullmatch(carrier):
                    raise self.ctx.error(
                        join(here, "name"), f"{carrier!r} is not an HTTP token (RFC 9110)"
                    )
            result.append(
                ir.SecurityScheme(
                    name=name,
                    type=kind,
                    scheme=self.ctx.string(node, "scheme", here),
                    bearer_format=self.ctx.string(node, "bearerFormat", here),
                    description=self.ctx.string(node, "description", here),
                    location=self.ctx.string(node, "in", here),
                    parameter=carrier,
                )
            )
        return tuple(result)

    # -- operations -----------------------------------------------------------------------------

    def path_item(self, path: str, item: Any) -> list[ir.Operation]:
        """The operations of a path item; one that ``$ref`` s another (``#/components/pathItems/``,
        a file beside) has its fields, with the item's own beside the ``$ref`` first."""
        pointer = join("/paths", path)
        item = self.ctx.mapping(item, pointer, "a path item")
        fields = {key: (value, join(pointer, key)) for key, value in item.items()}
        if "$ref" in item:
            target, at = self.refs.follow({"$ref": item["$ref"]}, pointer)
            target = self.ctx.mapping(target, at, "a path item")
            fields = {
                **{key: (value, join(at, key)) for key, value in target.items()},
                **{key: entry for key, entry in fields.items() if key != "$ref"},
            }
        shared: tuple[ir.Parameter, ...] = ()
        if "parameters" in fields:
            node, at = fields["parameters"]
            try:
                shared = self.parameters(node, at)
            except UnsupportedConstructError as exc:
                methods = [m for m in fields if m in ir.HTTP_METHODS]
                for method in methods:
                    self.omit(fields[method][1], exc)
                return []
        operations = []
        for method, (node, at) in fields.items():
            if method not in ir.HTTP_METHODS:
                continue
            try:
                operations.append(
                    self.operation(path, cast(ir.HttpMethod, method), node, at, shared)
                )
            except UnsupportedConstructError as exc:
                self.omit(at, exc)
        return operations

    def omit(self, pointer: str, exc: UnsupportedConstructError) -> None:
        """Leave out the operation at ``pointer`` (leniently), else raise ``exc``."""
        if self.ctx.mode == "strict":
            raise exc
        self.ctx.omitted.append(
            ir.Omission(pointer=pointer, reason=f"{exc.pointer}: {exc.message}")
        )

    def operation(
        self,
        path: str,
        method: ir.HttpMethod,
        node: Any,
        pointer: str,
        shared: tuple[ir.Parameter, ...],
    ) -> ir.Operation:
        node = self.ctx.mapping(node, pointer, "an operation")
        if "callbacks" in node:
            self.ctx.note(join(pointer, "callbacks"), "callbacks are not generated")
        own = self.parameters(node.get("parameters", []), join(pointer, "parameters"))
        own_keys = {(p.name, p.location) for p in own}
        parameters = tuple(p for p in shared if (p.name, p.location) not in own_keys) + own
        body = None
        if "requestBody" in node:
            body = self.request_body(node["requestBody"], join(pointer, "requestBody"))
        responses_node = self.ctx.mapping(
            node.get("responses", {}), join(pointer, "responses"), "responses"
        )
        tags = node.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise self.ctx.error(join(pointer, "tags"), "must be a list of strings")
        return ir.Operation(
            pointer=pointer,
            method=method,
            path=path,
            operation_id=self.ctx.string(node, "operationId", pointer),
            summary=self.ctx.string(node, "summary", pointer),
            description=self.ctx.string(node, "description", pointer),
            tags=tuple(tags),
            deprecated=self.ctx.boolean(node, "deprecated", pointer),
            parameters=parameters,
            request_body=body,
            responses=tuple(
                self.response(str(status), value, join(pointer, "responses", str(status)))
                for status, value in responses_node.items()
            ),
            security=self.requirements(node.get("security"), join(pointer, "security")),
        )

    def parameters(self, nodes: Any, pointer: str) -> tuple[ir.Parameter, ...]:
        if not isinstance(nodes, list):
            raise self.ctx.error(pointer, f"parameters must be a list, got {json_kind(nodes)}")
        kept: dict[tuple[str, str], ir.Parameter] = {}
        for i, node in enumerate(nodes):
            parameter = self.parameter(node, join(pointer, i))
            if parameter.location in ("header", "cookie") and not HTTP_TOKEN.fullmatch(
                parameter.name
            ):
                problem = (
                    f"the {parameter.location} name {parameter.name!r} is not an HTTP token "
                    "(RFC 9110), so no request can carry it"
                )
                if parameter.required or self.ctx.mode == "strict":
                    raise UnsupportedConstructError(parameter.pointer, problem)
                self.ctx.note(parameter.pointer, f"{problem}; the optional parameter is left out")
                continue
            key = (parameter.location, _parameter_key(parameter))
            if key in kept:  # OpenAPI: a name and location may appear once
                self.ctx.note(
                    parameter.pointer,
                    f"the {parameter.location} parameter {parameter.name!r} is listed again "
                    f"(first at {kept[key].pointer}); the first is kept",
                )
                continue
            kept[key] = parameter
        return tuple(kept.values())

    def parameter(self, node: Any, pointer: str) -> ir.Parameter:
        node, at = self.refs.follow(node, pointer)
        node = self.ctx.mapping(node, at, "a parameter")
        name = self.ctx.string(node, "name", at)
        location = node.get("in")
        if not name:
            raise self.ctx.error(at, "a parameter needs a name")
        if location not in ("path", "query", "header", "cookie"):
            raise self.ctx.error(
                join(at, "in"), f"must be path, query, header or cookie, got {location!r}"
            )
        required = self.ctx.boolean(node, "required", at)
        if location == "path" and not required:
            raise self.ctx.error(join(at, "required"), "a path parameter must be required")
        content_type = None
        if "content" in node:
            content = self.ctx.mapping(node["content"], join(at, "content"), "content")
            if len(content) != 1:
                raise self.ctx.error(
                    join(at, "content"), "a parameter's content has one media type"
                )
            content_type = str(next(iter(content)))
            here = join(at, "content", content_type)
            if not is_json(content_type):
                raise self.ctx.unsupported(here, f"a parameter of the media type {content_type!r}")
            media = self.ctx.mapping(content[content_type], here, "a media type")
            schema = self.reader.schema(media.get("schema", {}), join(here, "schema"))
        else:
            schema = self.reader.schema(node.get("schema", {}), join(at, "schema"))
        style = self.ctx.string(node, "style", at)
        if style is not None and style not in _STYLES[location]:
            raise self.ctx.error(
                join(at, "style"), f"a {location} parameter cannot have the style {style!r}"
            )
        explode = node.get("explode")
        if explode is not None and not isinstance(explode, bool):
            raise self.ctx.error(
                join(at, "explode"), f"must be a boolean, got {json_kind(explode)}"
            )
        return ir.Parameter(
            pointer=at,
            name=name,
            location=location,
            required=required,
            schema=schema,
            description=self.ctx.string(node, "description", at),
            deprecated=self.ctx.boolean(node, "deprecated", at),
            style=style,
            explode=explode,
            content_type=content_type,
        )

    def media(self, node: Mapping[str, Any], pointer: str) -> tuple[str | None, ir.Schema | None]:
        content = self.ctx.mapping(node.get("content", {}), join(pointer, "content"), "content")
        if not content:
            return None, None
        content_type = next((t for t in content if is_json(t)), None)
        if content_type is None:
            content_type = next(iter(content))
        media = self.ctx.mapping(
            content[content_type], join(pointer, "content", content_type), "a media type"
        )
        if "schema" not in media:
            return content_type, None
        return content_type, self.reader.schema(
            media["schema"], join(pointer, "content", content_type, "schema")
        )

    def request_body(self, node: Any, pointer: str) -> ir.RequestBody:
        node, at = self.refs.follow(node, pointer)
        node = self.ctx.mapping(node, at, "a request body")
        content_type, schema = self.media(node, at)
        if content_type is None:
            raise self.ctx.error(
                join(at, "content"), "a request body needs at least one media type"
            )
        return ir.RequestBody(
            pointer=at,
            required=self.ctx.boolean(node, "required", at),
            content_type=content_type,
            schema=schema,
            description=self.ctx.string(node, "description", at),
        )

    def response(self, status: str, node: Any, pointer: str) -> ir.Response:
        if not (status == "default" or (len(status) == 3 and status[0] in "12345")):
            raise self.ctx.error(pointer, f"{status!r} is not a response status code")
        node, at = self.refs.follow(node, pointer)
        node = self.ctx.mapping(node, at, "a response")
        content_type, schema = self.media(node, at)
        content = node.get("content") or {}
        return ir.Response(
            pointer=at,
            status=status,
            description=self.ctx.string(node, "description", at) or "",
            content_type=content_type,
            schema=schema,
            content_types=tuple(str(t) for t in content) if isinstance(content, Mapping) else (),
        )


_YET = " is not supported by the generator yet"


def _parameter_key(parameter: ir.Parameter) -> str:
    """What tells parameters of one location apart: the name (a header's without case)."""
    return parameter.name.lower() if parameter.location == "header" else parameter.name
