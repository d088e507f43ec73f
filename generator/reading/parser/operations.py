"""The operations of each path item, and their parameters (a request body and the responses are
read in :mod:`.bodies`, security requirements in :mod:`.security`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ...errors import UnsupportedConstructError
from ...pointer import join
from .. import ir
from .bodies import read_request_body, read_response
from .context import Context, json_kind
from .http import HTTP_TOKEN, is_json
from .security import read_requirements

if TYPE_CHECKING:
    from .schemas import SchemaReader

# Where a parameter of each location may be, by style (OpenAPI's table of styles).
_STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}


def read_path_item(reader: SchemaReader, path: str, item: Any) -> list[ir.Operation]:
    """The operations of a path item; one that ``$ref`` s another (``#/components/pathItems/``,
    a file beside) has its fields, with the item's own beside the ``$ref`` first."""
    pointer = join("/paths", path)
    item = reader.ctx.mapping(item, pointer, "a path item")
    fields = {key: (value, join(pointer, key)) for key, value in item.items()}
    if "$ref" in item:
        target, at = reader.refs.follow({"$ref": item["$ref"]}, pointer)
        target = reader.ctx.mapping(target, at, "a path item")
        fields = {
            **{key: (value, join(at, key)) for key, value in target.items()},
            **{key: entry for key, entry in fields.items() if key != "$ref"},
        }
    shared: tuple[ir.Parameter, ...] = ()
    if "parameters" in fields:
        node, at = fields["parameters"]
        try:
            shared = _read_parameters(reader, node, at)
        except UnsupportedConstructError as exc:
            methods = [m for m in fields if m in ir.HTTP_METHODS]
            for method in methods:
                _omit(reader.ctx, fields[method][1], exc)
            return []
    operations = []
    for method, (node, at) in fields.items():
        if method not in ir.HTTP_METHODS:
            continue
        try:
            operations.append(
                _read_operation(reader, path, cast(ir.HttpMethod, method), node, at, shared)
            )
        except UnsupportedConstructError as exc:
            _omit(reader.ctx, at, exc)
    return operations


def _omit(ctx: Context, pointer: str, exc: UnsupportedConstructError) -> None:
    """Leave out the operation at ``pointer`` (leniently), else raise ``exc``."""
    if ctx.mode == "strict":
        raise exc
    ctx.omitted.append(ir.Omission(pointer=pointer, reason=f"{exc.pointer}: {exc.message}"))


def _read_operation(
    reader: SchemaReader,
    path: str,
    method: ir.HttpMethod,
    node: Any,
    pointer: str,
    shared: tuple[ir.Parameter, ...],
) -> ir.Operation:
    """The operation of ``method`` on ``path``; its own parameters replace the path item's
    ``shared`` ones of the same name and location."""
    node = reader.ctx.mapping(node, pointer, "an operation")
    if "callbacks" in node:
        reader.ctx.note(join(pointer, "callbacks"), "callbacks are not generated")
    own = _read_parameters(reader, node.get("parameters", []), join(pointer, "parameters"))
    own_keys = {(p.name, p.location) for p in own}
    parameters = tuple(p for p in shared if (p.name, p.location) not in own_keys) + own
    body = None
    if "requestBody" in node:
        body = read_request_body(reader, node["requestBody"], join(pointer, "requestBody"))
    responses_node = reader.ctx.mapping(
        node.get("responses", {}), join(pointer, "responses"), "responses"
    )
    tags = node.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise reader.ctx.error(join(pointer, "tags"), "must be a list of strings")
    return ir.Operation(
        pointer=pointer,
        method=method,
        path=path,
        operation_id=reader.ctx.string(node, "operationId", pointer),
        summary=reader.ctx.string(node, "summary", pointer),
        description=reader.ctx.string(node, "description", pointer),
        tags=tuple(tags),
        deprecated=reader.ctx.boolean(node, "deprecated", pointer),
        parameters=parameters,
        request_body=body,
        responses=tuple(
            read_response(reader, str(status), value, join(pointer, "responses", str(status)))
            for status, value in responses_node.items()
        ),
        security=read_requirements(reader.ctx, node.get("security"), join(pointer, "security")),
    )


def _read_parameters(reader: SchemaReader, nodes: Any, pointer: str) -> tuple[ir.Parameter, ...]:
    """A list of parameters: one listed again is noted and left out, and so is an optional one
    whose header or cookie name no request can carry (leniently)."""
    if not isinstance(nodes, list):
        raise reader.ctx.error(pointer, f"parameters must be a list, got {json_kind(nodes)}")
    kept: dict[tuple[str, str], ir.Parameter] = {}
    for i, node in enumerate(nodes):
        parameter = _read_parameter(reader, node, join(pointer, i))
        if parameter.location in ("header", "cookie") and not HTTP_TOKEN.fullmatch(parameter.name):
            problem = (
                f"the {parameter.location} name {parameter.name!r} is not an HTTP token "
                "(RFC 9110), so no request can carry it"
            )
            if parameter.required or reader.ctx.mode == "strict":
                raise UnsupportedConstructError(parameter.pointer, problem)
            reader.ctx.note(parameter.pointer, f"{problem}; the optional parameter is left out")
            continue
        key = (parameter.location, _parameter_key(parameter))
        if key in kept:  # OpenAPI: a name and location may appear once
            reader.ctx.note(
                parameter.pointer,
                f"the {parameter.location} parameter {parameter.name!r} is listed again "
                f"(first at {kept[key].pointer}); the first is kept",
            )
            continue
        kept[key] = parameter
    return tuple(kept.values())


def _read_parameter(reader: SchemaReader, node: Any, pointer: str) -> ir.Parameter:
    """A parameter (or the one its ``$ref`` names), with a ``schema`` or a JSON ``content``."""
    node, at = reader.refs.follow(node, pointer)
    node = reader.ctx.mapping(node, at, "a parameter")
    name = reader.ctx.string(node, "name", at)
    location = node.get("in")
    if not name:
        raise reader.ctx.error(at, "a parameter needs a name")
    if location not in ("path", "query", "header", "cookie"):
        raise reader.ctx.error(
            join(at, "in"), f"must be path, query, header or cookie, got {location!r}"
        )
    required = reader.ctx.boolean(node, "required", at)
    if location == "path" and not required:
        raise reader.ctx.error(join(at, "required"), "a path parameter must be required")
    content_type = None
    if "content" in node:
        content = reader.ctx.mapping(node["content"], join(at, "content"), "content")
        if len(content) != 1:
            raise reader.ctx.error(join(at, "content"), "a parameter's content has one media type")
        content_type = str(next(iter(content)))
        here = join(at, "content", content_type)
        if not is_json(content_type):
            raise reader.ctx.unsupported(here, f"a parameter of the media type {content_type!r}")
        media = reader.ctx.mapping(content[content_type], here, "a media type")
        schema = reader.schema(media.get("schema", {}), join(here, "schema"))
    else:
        schema = reader.schema(node.get("schema", {}), join(at, "schema"))
    style = reader.ctx.string(node, "style", at)
    if style is not None and style not in _STYLES[location]:
        raise reader.ctx.error(
            join(at, "style"), f"a {location} parameter cannot have the style {style!r}"
        )
    explode = node.get("explode")
    if explode is not None and not isinstance(explode, bool):
        raise reader.ctx.error(join(at, "explode"), f"must be a boolean, got {json_kind(explode)}")
    if explode and style in ("spaceDelimited", "pipeDelimited"):
        reader.ctx.note(
            join(at, "explode"),
            f"the style {style!r} with explode has no meaning in OpenAPI's style table; its "
            "values are joined as without explode",
        )
    if style == "deepObject" and isinstance(schema, ir.Array):
        reader.ctx.note(
            join(at, "style"),
            "the style 'deepObject' writes objects, not arrays; the array is sent as a "
            "repeated key (the style 'form' with explode)",
        )
        style, explode = "form", True
    allow_reserved = reader.ctx.boolean(node, "allowReserved", at)
    if allow_reserved and location != "query":
        reader.ctx.note(
            join(at, "allowReserved"),
            f"allowReserved applies to query parameters only; the {location} parameter "
            "is sent without it",
        )
        allow_reserved = False
    return ir.Parameter(
        pointer=at,
        name=name,
        location=location,
        required=required,
        schema=schema,
        description=reader.ctx.string(node, "description", at),
        deprecated=reader.ctx.boolean(node, "deprecated", at),
        style=style,
        explode=explode,
        allow_reserved=allow_reserved,
        content_type=content_type,
    )


def _parameter_key(parameter: ir.Parameter) -> str:
    """What tells parameters of one location apart: the name (a header's without case)."""
    return parameter.name.lower() if parameter.location == "header" else parameter.name
