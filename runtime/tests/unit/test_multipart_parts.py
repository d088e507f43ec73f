"""What the client core makes of a multipart body's values, read back by python-multipart (the
parser Starlette uses): nothing for ``None``, a JSON part for what has no text of its own or a
JSON content type, and an empty body that is still multipart/form-data."""

from __future__ import annotations

import pytest

import together_rl_runtime as rt
from support.multipart import parts


class Client(rt.SyncAPIClient):
    _spec = rt.ClientSpec(package="parts", user_agent="parts/1", base_url="http://x.invalid")


def body_of(payload, encoding=None):
    request = Client(api_key="k")._build_request(
        "POST", "/up", multipart=payload, encoding=encoding, auth=None
    )
    request.read()
    return [
        (p.name, p.filename, p.content_type, p.data)
        for p in parts(request.headers["content-type"], request.content)
    ]


def test_none_sends_nothing_and_nested_values_go_as_json():
    assert body_of({"gone": None, "grid": [[1, 2], [3]], "flag": True, "ratio": 0.5}) == [
        ("grid", None, "application/json", b"[1,2]"),
        ("grid", None, "application/json", b"[3]"),
        ("flag", None, None, b"true"),
        ("ratio", None, None, b"0.5"),
    ]


def test_a_json_content_type_sends_the_value_as_one_json_part():
    encoding = {
        "ids": {"Content-Type": "application/json"},
        "name": {"Content-Type": "application/json"},
    }
    assert body_of({"ids": [1, 2], "name": "a"}, encoding) == [
        ("ids", None, "application/json", b"[1,2]"),
        ("name", None, "application/json", b'"a"'),
    ]


def test_a_file_s_type_comes_from_the_encoding_else_its_name():
    class Named:
        name = "/tmp/photo.png"

        def __init__(self) -> None:
            self.done = False

        def read(self, size: int = -1) -> bytes:
            if self.done:
                return b""
            self.done = True
            return b"\x89PNG"

    assert body_of({"a": Named(), "b": bytearray(b"raw")}, {"b": {"Content-Type": "x/y"}}) == [
        ("a", "photo.png", "image/png", b"\x89PNG"),
        ("b", "upload", "x/y", b"raw"),
    ]


@pytest.mark.parametrize("payload", [{}, {"only": None}])
def test_a_body_of_no_part_is_an_empty_multipart_body(payload):
    request = Client(api_key="k")._build_request("POST", "/up", multipart=payload, auth=None)
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert parts(request.headers["content-type"], request.read()) == []


def test_a_part_header_that_holds_a_line_break_is_refused_before_anything_is_sent():
    with pytest.raises(rt.ValidationError, match="cannot travel in an HTTP header"):
        body_of({"note": "x"}, {"note": {"X-Part": "v\r\nX-Injected: 1"}})
