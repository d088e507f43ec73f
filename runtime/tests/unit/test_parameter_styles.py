"""Every ``style`` and ``explode`` of a parameter, in each location that allows it, written as
OpenAPI's "Style Examples" table writes ``color`` = ``"blue"``, ``["blue", "black", "brown"]``
and ``{"R": 100, "G": 200, "B": 150}``, in the request the client builds.

The table is OpenAPI 3.1's as its patch release 3.1.1 (and 3.0.4) corrected it: ``label``
without explode joins with commas (3.1.0 printed ``.blue.black.brown``, the exploded form, in
both rows), and ``|``, ``[`` and ``]`` are percent-encoded, as RFC 3986 wants them in a query
(3.1.0 printed them bare beside an encoded space). A cookie's multiple values are joined by the
cookie's own ``; `` (the row OpenAPI 3.2 gives the style ``cookie``), since ``&`` would write
one cookie holding the others."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import together_rl_runtime as rt
from together_rl_runtime._styles import in_path

STRING = "blue"
ARRAY = ["blue", "black", "brown"]
OBJECT = {"R": 100, "G": 200, "B": 150}
VALUES = {"empty": "", "string": STRING, "array": ARRAY, "object": OBJECT}
NA = None
"""A combination the table leaves undefined (n/a)."""

# style, explode: empty, string, array, object (the table's columns)
PATH_TABLE = {
    ("matrix", False): (
        ";color",
        ";color=blue",
        ";color=blue,black,brown",
        ";color=R,100,G,200,B,150",
    ),
    ("matrix", True): (
        ";color",
        ";color=blue",
        ";color=blue;color=black;color=brown",
        ";R=100;G=200;B=150",
    ),
    ("label", False): (".", ".blue", ".blue,black,brown", ".R,100,G,200,B,150"),
    ("label", True): (".", ".blue", ".blue.black.brown", ".R=100.G=200.B=150"),
    ("simple", False): (NA, "blue", "blue,black,brown", "R,100,G,200,B,150"),
    ("simple", True): (NA, "blue", "blue,black,brown", "R=100,G=200,B=150"),
}
QUERY_TABLE = {
    ("form", False): (
        "color=",
        "color=blue",
        "color=blue,black,brown",
        "color=R,100,G,200,B,150",
    ),
    ("form", True): (
        "color=",
        "color=blue",
        "color=blue&color=black&color=brown",
        "R=100&G=200&B=150",
    ),
    ("spaceDelimited", False): (
        NA,
        NA,
        "color=blue%20black%20brown",
        "color=R%20100%20G%20200%20B%20150",
    ),
    ("pipeDelimited", False): (
        NA,
        NA,
        "color=blue%7Cblack%7Cbrown",
        "color=R%7C100%7CG%7C200%7CB%7C150",
    ),
    ("deepObject", True): (NA, NA, NA, "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"),
}
HEADER_TABLE = {
    ("simple", False): ("", "blue", "blue,black,brown", "R,100,G,200,B,150"),
    ("simple", True): ("", "blue", "blue,black,brown", "R=100,G=200,B=150"),
}
COOKIE_TABLE = {
    ("form", False): QUERY_TABLE[("form", False)],  # one pair, as in a query
    ("form", True): (
        "color=",
        "color=blue",
        "color=blue; color=black; color=brown",
        "R=100; G=200; B=150",
    ),
}


def cases(table: dict[tuple[str, bool], tuple[str | None, ...]]) -> list[Any]:
    return [
        pytest.param(style, explode, VALUES[column], expected, id=f"{style}-{explode}-{column}")
        for (style, explode), row in table.items()
        for column, expected in zip(VALUES, row)
        if expected is not NA
    ]


class Client(rt.SyncAPIClient):
    _spec = rt.ClientSpec(package="styles", user_agent="styles/1.0", base_url="https://x.test")


def built(path: str = "/p", **given: Any) -> httpx.Request:
    with Client(api_key="k") as client:
        return client._build_request("GET", path, **given)


def sent_query(params: dict[str, Any]) -> str:
    return built(params=params).url.query.decode("ascii")


@pytest.mark.parametrize("style, explode, value, expected", cases(PATH_TABLE))
def test_a_path_parameter_is_the_table_s_segment(style, explode, value, expected):
    assert in_path(value, "color", style, explode) == expected
    if expected == ".":  # a segment of its own, "." would be read as "this folder"
        with pytest.raises(rt.ValidationError, match="change the URL's path"):
            rt.styled_path(value, "color", rt.check_any, style, explode)
        return
    segment = rt.styled_path(value, "color", rt.check_any, style, explode)
    assert built(f"/p/{segment}").url.raw_path == f"/p/{expected}".encode()


@pytest.mark.parametrize("style, explode, value, expected", cases(QUERY_TABLE))
def test_a_query_parameter_is_the_table_s_query(style, explode, value, expected):
    assert sent_query(rt.query(value, "color", rt.check_any, style, explode)) == expected


@pytest.mark.parametrize("style, explode, value, expected", cases(HEADER_TABLE))
def test_a_header_parameter_is_the_table_s_value(style, explode, value, expected):
    text = rt.styled(value, "color", rt.check_any, style, explode)
    assert built(headers={"X-Color": text}).headers["x-color"] == expected


@pytest.mark.parametrize("style, explode, value, expected", cases(COOKIE_TABLE))
def test_a_cookie_parameter_is_the_table_s_cookies(style, explode, value, expected):
    cookies = rt.cookie(value, "color", rt.check_any, style, explode)
    assert built(cookies=cookies).headers["cookie"] == expected


def test_the_plain_serializers_write_the_default_styles_rows():
    assert rt.path_parameter(STRING, "color", rt.check_string) == "blue"
    assert sent_query({"color": rt.parameter(ARRAY, "color", rt.list_of(rt.check_string))}) == (
        QUERY_TABLE[("form", True)][2]
    )
    assert sent_query({"color": rt.parameter("", "color", rt.check_string)}) == "color="
    cookies = {"color": rt.parameter(STRING, "color", rt.check_string)}
    assert built(cookies=cookies).headers["cookie"] == "color=blue"


def test_two_exploded_objects_that_share_a_field_name_are_both_sent():
    """``joined``: the parameters of one location, in order; a key two of them write is
    repeated, never dropped (a mapping spread from each would keep the last alone)."""
    first = rt.query({"a": 1, "b": 2}, "first", rt.check_any, "form", True)
    second = rt.query({"a": 3}, "second", rt.check_any, "form", True)
    plain = {"a": rt.parameter(ARRAY[:2], "a", rt.list_of(rt.check_string)), "c": None}
    assert sent_query(rt.joined(plain, first, second)) == "a=blue&a=black&a=1&a=3&b=2"
    cookies = rt.joined(
        {"c": rt.parameter("x", "c", rt.check_string)},
        rt.cookie({"c": "y"}, "o", rt.check_any, "form", True),
    )
    assert built(cookies=cookies).headers["cookie"] == "c=x; c=y"


def test_an_empty_array_or_object_exploded_in_a_query_or_cookie_sends_nothing():
    for empty in ([], {}):
        for style, explode in PATH_TABLE:
            assert in_path(empty, "color", style, explode) == in_path("", "color", style, explode)
        assert rt.query(empty, "color", rt.check_any, "form", True) == {}
        assert rt.cookie(empty, "color", rt.check_any, "form", True) == {}
        assert sent_query(rt.query(empty, "color", rt.check_any, "form", False)) == "color="
    assert rt.query(None, "color", rt.check_any, "form", True) == {}
    assert "cookie" not in built(cookies=rt.cookie(None, "c", rt.check_any, "form", True)).headers


def test_values_are_percent_encoded_and_delimiters_are_not():
    items = ["a,b", "c d", "e/f"]
    assert sent_query(rt.query(items, "x y", rt.check_any, "form", False)) == (
        "x%20y=a%2Cb,c%20d,e%2Ff"
    )
    assert rt.styled_path(items, "p", rt.check_any, "matrix", True) == (";p=a%2Cb;p=c%20d;p=e%2Ff")
    assert rt.styled_path({"k;": "v="}, "p", rt.check_any, "simple", True) == "k%3B=v%3D"
    assert sent_query(rt.query({"a b": "&"}, "o", rt.check_any, "deepObject", True)) == (
        "o%5Ba%20b%5D=%26"
    )


def test_allow_reserved_keeps_reserved_characters_but_not_those_that_break_the_query():
    value = "a/b?c:d@e!$'()*,;=f#g&h+i[j]k%41%zz é"
    kept = sent_query(rt.query(value, "q", rt.check_string, "form", False, True))
    assert kept == "q=a/b?c:d@e!$'()*,;=f%23g%26h%2Bi%5Bj%5Dk%41%25zz%20%C3%A9"
    short = sent_query(rt.query("a b%41", "q", rt.check_string, "form", False, True))
    assert short == "q=a%20b%41"
    plain = sent_query(rt.query(value, "q", rt.check_string, "form", False))
    assert plain.startswith("q=a%2Fb%3Fc%3Ad%40e%21") and "%2541" in plain


def test_a_cookie_s_value_escapes_only_what_a_cookie_cannot_hold():
    cookies = {
        "plain": rt.parameter('a b;c,d"e\\é', "plain", rt.check_string),
        **rt.cookie(["x;y", "z=/"], "styled", rt.check_any, "form", False),
    }
    assert built(cookies=cookies).headers["cookie"] == (
        "plain=a%20b%3Bc%2Cd%22e%5C%C3%A9; styled=x%3By,z=/"
    )


def test_a_deep_object_nests_objects():
    params = rt.query({"a": {"b": 1, "c": True}}, "o", rt.check_any, "deepObject", True)
    assert sent_query(params) == "o%5Ba%5D%5Bb%5D=1&o%5Ba%5D%5Bc%5D=true"


@pytest.mark.parametrize(
    "write, path, problem",
    [
        (lambda: rt.query({"R": {"x": 1}}, "color", rt.check_any, "form", True), "color.R", "object"),
        (lambda: rt.query([[1]], "color", rt.check_any, "form", False), "color[0]", "array"),
        (lambda: rt.styled_path({"R": [1]}, "c", rt.check_any, "label", True), "c.R", "array"),
        (lambda: rt.styled([{}], "X-C", rt.check_any, "simple", False), "X-C[0]", "object"),
        (lambda: rt.cookie({"R": {}}, "c", rt.check_any, "form", True), "c.R", "object"),
        (lambda: rt.query(ARRAY, "c", rt.check_any, "deepObject", True), "c", "array"),
        (lambda: rt.query({"a": [1]}, "c", rt.check_any, "deepObject", True), "c[a]", "array"),
        (lambda: rt.cookie({"a b": 1}, "c", rt.check_any, "form", True), "c.a b", "cookie name"),
        (lambda: rt.styled_path("", "c", rt.check_any, "simple", False), "c", "empty"),
        (lambda: rt.styled_path(".", "c", rt.check_any, "label", False), "c", "'..'"),
        (lambda: rt.styled_path(["", ""], "c", rt.check_any, "label", True), "c", "'..'"),
        (lambda: built(headers={"X-C": "a\r\nb"}), "X-C", "header"),
        (lambda: built(headers={"X-C": rt.styled("é", "X-C", rt.check_any, "simple", False)}),
         "X-C", "ASCII"),  # fmt: skip
    ],
)
def test_a_value_no_style_can_write_is_a_validation_error(write, path, problem):
    with pytest.raises(rt.ValidationError) as raised:
        write()
    assert raised.value.path == path
    assert problem in raised.value.problem
