"""Bodies and responses keep their media types: a multipart body travels as RFC 7578 and
OpenAPI's encoding object say (read here by python-multipart, the parser Starlette and so
FastAPI read uploads with), a ``+json`` body with its declared type, and a response is read as
its ``Content-Type`` says."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest

from generator.reading import ir
from generator.reading.parser import parse_document
from support.multipart import parts
from support.packages import generate_package


def _taking(operation_id: str, media_type: str, field: str) -> dict[str, Any]:
    """An operation whose body, of ``media_type``, is an object of one string ``field``."""
    schema = {"type": "object", "properties": {field: {"type": "string"}}}
    return {
        "operationId": operation_id,
        "requestBody": {"content": {media_type: {"schema": schema}}},
        "responses": {"204": {"description": "done"}},
    }


DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Uploads", "version": "1"},
    "servers": [{"url": "http://uploads.invalid"}],
    "paths": {
        "/upload": {
            "post": {
                "operationId": "upload",
                "requestBody": {
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["file"],
                                "properties": {
                                    "file": {
                                        "type": "string",
                                        "contentMediaType": "application/octet-stream",
                                    },
                                    "image": {"type": "string", "contentMediaType": "image/png"},
                                    "files": {
                                        "type": "array",
                                        "items": {"type": "string", "format": "binary"},
                                    },
                                    "note": {"type": "string"},
                                    "count": {"type": "integer"},
                                    "tags": {"type": "array", "items": {"type": "string"}},
                                    "meta": {
                                        "type": "object",
                                        "properties": {"a": {"type": "integer"}},
                                    },
                                    "text": {"type": "string", "contentMediaType": "text/plain"},
                                },
                            },
                            "encoding": {
                                "note": {
                                    "contentType": "text/markdown",
                                    "headers": {
                                        "X-Part": {"schema": {"type": "string", "const": "v1"}}
                                    },
                                },
                                "files": {"contentType": "image/*, application/pdf"},
                            },
                        }
                    },
                },
                "responses": {"204": {"description": "done"}},
            }
        },
        "/fields": {"post": _taking("fields", "multipart/form-data", "name")},
        "/patch": {"patch": _taking("patch", "application/merge-patch+json", "a")},
        "/download": {
            "get": {
                "operationId": "download",
                "responses": {
                    "200": {
                        "description": "the file",
                        "content": {
                            "application/octet-stream": {
                                "schema": {"type": "string", "format": "binary"}
                            }
                        },
                    }
                },
            }
        },
        "/either": {
            "get": {
                "operationId": "either",
                "responses": {
                    "200": {
                        "description": "a record or its file",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"a": {"type": "integer"}},
                                }
                            },
                            "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                        },
                    }
                },
            }
        },
    },
}


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    folder = tmp_path_factory.mktemp("uploads")
    (folder / "uploads.json").write_text(json.dumps(DOC))
    return generate_package(folder / "uploads.json", folder / "package", "uploads_media_types")


class Recorder:
    """A transport that keeps every request and answers as ``replies`` says, by path."""

    def __init__(self, replies: dict[str, httpx.Response] | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.replies = replies or {}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        reply = self.replies.get(request.url.path, httpx.Response(204))
        return reply() if callable(reply) else reply


class Arriving(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body that arrives as a server's does, in pieces (the client streams it)."""

    def __init__(self, body: bytes, piece: int = 100_000) -> None:
        self.pieces = [body[i : i + piece] for i in range(0, len(body), piece)]

    def __iter__(self) -> Iterator[bytes]:
        yield from self.pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def arriving(body: bytes, **headers: str) -> Callable[[], httpx.Response]:
    """A reply, made anew for each request, whose body arrives in pieces."""
    return lambda: httpx.Response(200, headers=headers, stream=Arriving(body))


def sent(uploads: Any, call: str, replies: dict[str, httpx.Response] | None = None, **kwargs: Any):
    """What ``call(**kwargs)`` returns and the request it sent."""
    recorder = Recorder(replies)
    with uploads.Client(transport=httpx.MockTransport(recorder)) as client:
        result = getattr(client, call)(**kwargs)
    (request,) = recorder.requests
    return result, request


def parts_of(request: httpx.Request):
    return parts(request.headers["content-type"], request.content)


def test_a_3_1_file_field_takes_bytes_and_travels_as_a_file(uploads):
    document = io.BytesIO(b"doc bytes")
    document.name = "/somewhere/report.txt"
    _, request = sent(uploads, "upload", file=document, image=b"\x89PNG")
    file, image = parts_of(request)
    assert (file.name, file.filename, file.data) == ("file", "report.txt", b"doc bytes")
    assert file.content_type == "application/octet-stream"
    assert (image.name, image.filename, image.data) == ("image", "upload", b"\x89PNG")
    assert image.content_type == "image/png"
    with pytest.raises(uploads.ValidationError, match="expected bytes or a binary file"):
        sent(uploads, "upload", file="not a file")


def test_a_list_of_files_is_a_file_part_each(uploads):
    _, request = sent(uploads, "upload", file=b"f", files=[b"one", io.BytesIO(b"two")])
    files = [p for p in parts_of(request) if p.name == "files"]
    assert [p.data for p in files] == [b"one", b"two"]
    assert all(p.filename for p in files)
    # the first concrete type of "image/*, application/pdf"
    assert {p.content_type for p in files} == {"application/pdf"}


def test_fields_travel_as_text_json_and_repeated_parts(uploads):
    _, request = sent(
        uploads, "upload", file=b"f", count=3, tags=["x", "y"], meta={"a": 1}, text="plain"
    )
    fields = [p for p in parts_of(request) if p.name != "file"]
    assert [(p.name, p.filename, p.data) for p in fields] == [
        ("count", None, b"3"),
        ("tags", None, b"x"),
        ("tags", None, b"y"),
        ("meta", None, b'{"a":1}'),
        ("text", None, b"plain"),
    ]
    assert fields[3].content_type == "application/json"


def test_the_encoding_s_content_type_and_headers_are_sent(uploads):
    _, request = sent(uploads, "upload", file=b"f", note="# hi")
    note = next(p for p in parts_of(request) if p.name == "note")
    assert (note.content_type, note.headers["x-part"], note.data) == (
        "text/markdown",
        "v1",
        b"# hi",
    )


@pytest.mark.parametrize("given", [{"name": "n"}, {}])
def test_a_multipart_body_without_a_file_is_still_multipart(uploads, given):
    _, request = sent(uploads, "fields", **given)
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert [(p.name, p.data) for p in parts_of(request)] == [
        (k, v.encode()) for k, v in given.items()
    ]


def test_a_json_based_body_keeps_its_media_type(uploads):
    _, request = sent(uploads, "patch", a="z")
    assert request.headers["content-type"] == "application/merge-patch+json"
    assert json.loads(request.content) == {"a": "z"}


def test_a_response_is_read_as_its_content_type_says(uploads):
    pdf = httpx.Response(200, content=b"%PDF-1.7", headers={"content-type": "application/pdf"})
    record = httpx.Response(200, json={"a": 2})
    assert sent(uploads, "either", {"/either": pdf})[0] == b"%PDF-1.7"
    assert sent(uploads, "either", {"/either": record})[0].a == 2
    download = httpx.Response(200, content=b"\x00\xff", headers={"content-type": "x/y"})
    assert sent(uploads, "download", {"/download": download})[0] == b"\x00\xff"


def _upload_body(extra: dict[str, Any]) -> ir.RequestBody:
    raw = json.loads(json.dumps(DOC))
    raw["paths"]["/upload"]["post"]["requestBody"]["content"]["multipart/form-data"].update(extra)
    doc = parse_document(raw, source="t.json")
    body = next(op for op in doc.operations if op.key == "POST /upload").request_body
    assert body is not None
    return body


def test_the_parser_reads_files_of_3_1_and_the_encoding():
    body = _upload_body({})
    schema = body.schema
    assert isinstance(schema, ir.Object)
    binary = {
        p.name: isinstance(p.schema, ir.Primitive) and p.schema.binary for p in schema.properties
    }
    assert binary == {
        "file": True,
        "image": True,
        "files": False,  # a list, of files
        "note": False,
        "count": False,
        "tags": False,
        "meta": False,
        "text": False,  # a text/plain string is text
    }
    assert body.encoding == (
        ir.PartEncoding(name="note", content_type="text/markdown", headers=(("X-Part", "v1"),)),
        ir.PartEncoding(name="files", content_type="application/pdf"),
    )


def test_a_part_header_without_one_value_is_left_to_the_server():
    body = _upload_body(
        {
            "encoding": {
                "note": {
                    "contentType": "text/*",
                    "headers": {"X-Free": {"schema": {"type": "string"}}},
                }
            }
        }
    )
    assert body.encoding == (ir.PartEncoding(name="note"),)


def test_what_a_header_cannot_hold_never_reaches_one():
    """A content type or part header with a line break (which would write headers of its own
    into the request) is left out, at its pointer; so is a media type key that holds one."""
    raw = json.loads(json.dumps(DOC))
    content = raw["paths"]["/upload"]["post"]["requestBody"]["content"]
    content["multipart/form-data"]["encoding"] = {
        "note": {
            "contentType": "text/plain\r\nX-Injected: 1",
            "headers": {"X-Part": {"schema": {"const": "v\r\nX-Injected: 1"}}},
        }
    }
    content["multipart/x\r\nX-Injected: 1"] = {"schema": {"type": "object"}}
    doc = parse_document(raw, source="t.json")
    body = next(op for op in doc.operations if op.key == "POST /upload").request_body
    assert body is not None and body.content_type == "multipart/form-data"
    assert body.encoding == (ir.PartEncoding(name="note"),)
    at = "/paths/~1upload/post/requestBody/content/multipart~1form-data/encoding/note"
    noted = {d.pointer: d.message for d in doc.diagnostics}
    assert "cannot travel in an HTTP header" in noted[f"{at}/contentType"]
    assert "cannot travel in an HTTP header" in noted[f"{at}/headers/X-Part"]
    assert any("X-Injected" in pointer for pointer in noted)


def test_a_download_comes_whole_within_the_bound_or_in_pieces_of_any_size(uploads):
    big = bytes(range(256)) * 4096  # 1 MiB
    recorder = Recorder({"/download": arriving(big)})
    transport = httpx.MockTransport(recorder)
    with uploads.Client(transport=transport, max_response_bytes=len(big) - 1) as client:
        with pytest.raises(uploads.APIError, match="the client's max_response_bytes"):
            client.download()
        pieces = list(client.download_stream())
    assert b"".join(pieces) == big
    assert len(pieces) > 1 and max(map(len, pieces)) <= 64 * 1024


def test_a_download_in_pieces_is_decoded_and_an_error_raises(uploads):
    big = b"x" * (1 << 20)
    gzipped = arriving(gzip.compress(big), **{"content-encoding": "gzip"})
    recorder = Recorder({"/download": gzipped})
    with uploads.Client(transport=httpx.MockTransport(recorder), max_response_bytes=1) as client:
        assert b"".join(client.download_stream()) == big
    with pytest.raises(uploads.NotFoundError):
        sent(uploads, "download_stream", {"/download": httpx.Response(404, text="gone")})


def test_an_async_download_comes_in_pieces(uploads):
    body = b"y" * 200_000
    recorder = Recorder({"/download": arriving(body)})

    async def run() -> bytes:
        async with uploads.AsyncClient(transport=httpx.MockTransport(recorder)) as client:
            return b"".join([piece async for piece in await client.download_stream()])

    assert asyncio.run(run()) == body
