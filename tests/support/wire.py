"""Call a package's operations against the loopback server and check what travels: the
arguments' wire format as OpenAPI's style table writes it, worked out here from the document
(not from the package's own serializers)."""

from __future__ import annotations

import base64
import json
import urllib.parse
from typing import Any

from generator.reading import ir
from generator.reading.parser import is_json
from generator.reading.values import sample
from generator.views.pyclient import PyClient, PyOperation, PyParameter
from generator.views.pymodel import PyType
from support.loopback import LoopbackServer, Reply, Seen


def text(value: Any) -> str:
    """A scalar as a parameter carries it: strings as they are, others as JSON writes them."""
    return value if isinstance(value, str) else json.dumps(value)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


_JOINED = {"spaceDelimited": " ", "pipeDelimited": "|"}


def query_pairs(param: ir.Parameter, value: Any) -> list[tuple[str, str]]:
    """The query pairs of a parameter's JSON value (OpenAPI 3.1, 4.8.12.4, style values)."""
    if param.content_type is not None:
        return [(param.name, compact(value))]
    style, explode = param.how
    if isinstance(value, dict):
        if style == "deepObject":
            return [(f"{param.name}[{k}]", text(v)) for k, v in value.items()]
        if explode and style == "form":
            return [(k, text(v)) for k, v in value.items()]
        flat = [part for k, v in value.items() for part in (k, text(v))]
        return [(param.name, _JOINED.get(style, ",").join(flat))]
    if isinstance(value, list):
        if style == "form" and explode:
            return [(param.name, text(v)) for v in value]
        return [(param.name, _JOINED.get(style, ",").join(text(v) for v in value))]
    return [(param.name, text(value))]


def cookie_pairs(param: ir.Parameter, value: Any) -> list[tuple[str, str]]:
    """The cookies of a cookie parameter's JSON value (``form``: exploded, an array repeats
    the cookie and an object is a cookie per field)."""
    if param.content_type is not None:
        return [(param.name, compact(value))]
    _, explode = param.how
    if explode and isinstance(value, dict):
        return [(k, text(v)) for k, v in value.items()]
    if explode and isinstance(value, list):
        return [(param.name, text(v)) for v in value]
    return [(param.name, simple(param, value))]


def simple(param: ir.Parameter, value: Any) -> str:
    """A path or header parameter's text (styles simple, label, matrix)."""
    if param.content_type is not None:
        return compact(value)
    style, explode = param.how
    name = param.name
    if isinstance(value, dict):
        parts = [f"{k}={text(v)}" if explode else f"{k},{text(v)}" for k, v in value.items()]
        if style == "matrix" and explode:
            return "".join(f";{part}" for part in parts) or f";{name}"
    elif isinstance(value, list):
        parts = [text(v) for v in value]
        if style == "matrix" and explode and parts:
            return "".join(f";{name}={part}" for part in parts)
    else:
        parts = [text(value)]
    result = ("." if style == "label" and explode else ",").join(parts)
    if style == "label":
        return "." + result
    if style == "matrix":
        return f";{name}={result}" if result else f";{name}"
    return result


def argument(kind: PyType, value: Any, models: Any) -> Any:
    """A JSON value as the Python value a method takes for ``kind`` (models built from it)."""
    if value is None:
        return None
    if kind.kind == "model":
        return getattr(models, kind.name).from_dict(value)
    if kind.kind == "list" and isinstance(value, list):
        return [argument(kind.args[0], v, models) for v in value]
    if kind.kind == "dict" and isinstance(value, dict):
        return {k: argument(kind.args[0], v, models) for k, v in value.items()}
    if kind.kind == "union":
        for option in kind.args:
            try:
                return argument(option, value, models)
            except Exception:  # noqa: BLE001 - another option may read it
                continue
    return value


def reply(doc: ir.Document, op: ir.Operation) -> Reply:
    """What a server of the document answers the operation with."""
    success = next((r for r in op.responses if r.status.startswith("2")), None)
    if success is None or not success.content_types:
        return Reply(200, "")
    if success.schema is not None and success.content_type and is_json(success.content_type):
        return Reply(200, sample(doc, success.schema, full=True))
    kind = success.content_types[0].split(";")[0]
    if kind == "text/event-stream":
        return Reply(200, "data: {}\n\n", headers={"Content-Type": kind})
    body = b"\x00\x01" if not kind.startswith("text/") else "text"
    return Reply(200, body, headers={"Content-Type": kind})


def one_per_tag(doc: ir.Document) -> dict[str, ir.Operation]:
    """The first operation of every tag (``""`` for operations without one)."""
    chosen: dict[str, ir.Operation] = {}
    for op in doc.operations:
        for tag in op.tags or ("",):
            chosen.setdefault(tag, op)
    return chosen


def call_and_check(
    server: LoopbackServer,
    client: Any,
    models: Any,
    doc: ir.Document,
    view: PyClient,
    op: ir.Operation,
    prefix: str = "",
) -> None:
    """Call ``op`` with a value for each of its parameters (and its body's required fields)
    and check the request the server received, then that the reply was read."""
    method = next(m for m in view.operations if m.key == op.key and m.response.kind != "events")
    params = {p.key + "\0" + p.location: p for p in _all(method)}
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    query: list[tuple[str, str]] = []
    headers: dict[str, str | None] = {}
    cookies: list[tuple[str, str]] = []
    path = prefix + op.path
    for param in op.parameters:
        python = params[param.name + "\0" + param.location]
        value = sample(doc, param.schema, full=True)
        given = argument(python.type, value, models)
        if param.location == "path":
            positional.append(given)
            path = path.replace("{" + param.name + "}", simple(param, value))
            continue
        keywords[python.name] = given
        if param.location == "query":
            query += query_pairs(param, value)
        elif param.location == "header":
            headers[param.name.lower()] = simple(param, value)
        else:
            cookies += cookie_pairs(param, value)
    body = op.request_body
    expected_body: Any = None
    if body is not None and body.schema is not None and method.body is not None:
        value = sample(doc, body.schema)
        if method.body.fields:
            for field in method.body.fields:
                if field.field.type.files:  # files are sent, required or not
                    value[field.key] = b"file bytes"
                if field.key in value:
                    keywords[field.name] = value[field.key]
        elif method.body.type is not None:
            keywords["body"] = argument(method.body.type, value, models)
        else:
            keywords["body"] = value = b"raw bytes"
        expected_body = value
    elif body is not None and method.body is not None and method.body.kind == "bytes":
        keywords["body"] = expected_body = b"raw bytes"
    if method.auth is not None:  # the client's key, sent as the operation's scheme says
        key = client._api_key
        scheme = next(s for s in view.schemes if s.name == method.auth)
        if scheme.kind == "bearer":
            headers["authorization"] = f"Bearer {key}"
        elif scheme.kind == "basic":
            headers["authorization"] = "Basic " + base64.b64encode(key.encode()).decode()
        elif scheme.kind == "header":
            headers[scheme.parameter.lower()] = key
        elif scheme.kind == "query":
            query.append((scheme.parameter, key))
        else:
            cookies.append((scheme.parameter, key))
    else:
        headers["authorization"] = None  # no credentials for an operation that needs none
    server.script(reply(doc, op))
    result = getattr(client, method.method_name)(*positional, **keywords)
    seen = server.seen[-1]
    assert seen.method == op.method.upper(), op.key
    raw_path, _, raw_query = seen.path.partition("?")
    assert urllib.parse.unquote(raw_path) == path, (op.key, seen.path)
    got = urllib.parse.parse_qsl(raw_query, keep_blank_values=True)
    assert sorted(got) == sorted(query), (op.key, got, query)
    for name, value in headers.items():
        assert seen.headers.get(name) == value, (op.key, name, seen.headers.get(name), value)
    sent = [urllib.parse.unquote(c) for c in seen.headers.get("cookie", "").split("; ")]
    for name, value in cookies:
        assert f"{name}={value}" in sent, (op.key, name, sent)
    _check_body(op, method, seen, expected_body)
    if method.response.kind == "json":
        assert result is not None, op.key


def _all(method: PyOperation) -> tuple[PyParameter, ...]:
    return method.path_parameters + method.keyword_parameters


def _check_body(op: ir.Operation, method: PyOperation, seen: Seen, expected: Any) -> None:
    if method.body is None or expected is None:
        return
    kind = method.body.kind
    if kind == "json":
        assert seen.json() == expected, (op.key, seen.body[:200], expected)
    elif kind == "multipart":
        assert seen.headers["content-type"].startswith("multipart/form-data"), op.key
        if any(v == b"file bytes" for v in expected.values()):
            assert b"file bytes" in seen.body, op.key
    elif kind == "form":
        got = dict(urllib.parse.parse_qsl(seen.body.decode(), keep_blank_values=True))
        assert got == {k: text(v) for k, v in expected.items() if not isinstance(v, list)}, op.key
    else:
        assert seen.body == expected, op.key
