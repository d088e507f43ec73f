"""The package of ReadMe's document of every parameter ``style`` and ``explode`` of OpenAPI 3.0
(``readme-parameters-style-3.0.json``, from the public corpus), called against a server on
loopback: the URL's path and query, the ``Cookie`` header and the headers it receives are what
OpenAPI's style table writes for the values ``"blue"``, ``["blue", "black", "brown"]`` and an
object of the document's fields ``name`` and ``description``.

The expected requests are written out by hand from the table (3.1.1's, see
runtime/tests/unit/test_parameter_styles.py), not worked out by the package's serializers."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from support.loopback import LoopbackServer, Reply
from support.packages import load_package
from support.paths import ROOT, SHARED

NAME = "readme-parameters-style-3.0.json"
FOUND = [SHARED / "corpus" / folder / NAME for folder in ("real-world", "real-world-next")]
FOUND = [path for path in FOUND if path.is_file()]
pytestmark = pytest.mark.skipif(not FOUND, reason=f"no {NAME} in the shared corpus")

PRIMITIVE = "blue"
ARRAY = ["blue", "black", "brown"]
FIELDS = {"name": "n1", "description": "d1"}
EXPLODED_QUERY = "primitive=blue&array=blue&array=black&array=brown&name=n1&description=d1"
EXPLODED_COOKIES = "primitive=blue; array=blue; array=black; array=brown; name=n1; description=d1"
JOINED = {"primitive": "blue", "array": "blue,black,brown", "object": "name,n1,description,d1"}

# method: the path after /anything/path/<style>, the query, the headers, the Cookie header
EXPECTED: dict[str, tuple[str, str, dict[str, str], str | None]] = {
    "cookies_standard": ("", "", {}, EXPLODED_COOKIES),
    "cookies_form_non_exploded": (
        "",
        "",
        {},
        "primitive=blue; array=blue,black,brown; object=name,n1,description,d1",
    ),
    "cookies_form_exploded": ("", "", {}, EXPLODED_COOKIES),
    "headers_standard": ("", "", JOINED, None),
    "headers_simple_non_exploded": ("", "", JOINED, None),
    "headers_simple_exploded": ("", "", {**JOINED, "object": "name=n1,description=d1"}, None),
    "paths_standard": ("/blue/blue,black,brown/name,n1,description,d1", "", {}, None),
    "paths_matrix_non_exploded": (
        "/;primitive=blue/;array=blue,black,brown/;object=name,n1,description,d1",
        "",
        {},
        None,
    ),
    "paths_matrix_exploded": (
        "/;primitive=blue/;array=blue;array=black;array=brown/;name=n1;description=d1",
        "",
        {},
        None,
    ),
    "paths_label_non_exploded": ("/.blue/.blue,black,brown/.name,n1,description,d1", "", {}, None),
    "paths_label_exploded": ("/.blue/.blue.black.brown/.name=n1.description=d1", "", {}, None),
    "paths_simple_non_exploded": ("/blue/blue,black,brown/name,n1,description,d1", "", {}, None),
    "paths_simple_exploded": ("/blue/blue,black,brown/name=n1,description=d1", "", {}, None),
    "query_standard": ("", EXPLODED_QUERY, {}, None),
    "query_form_non_exploded": (
        "",
        "primitive=blue&array=blue,black,brown&object=name,n1,description,d1",
        {},
        None,
    ),
    "query_form_exploded": ("", EXPLODED_QUERY, {}, None),
    "query_space_delimited_non_exploded": (
        "",
        "array=blue%20black%20brown&object=name%20n1%20description%20d1",
        {},
        None,
    ),
    "query_pipe_delimited_non_exploded": (
        "",
        "array=blue%7Cblack%7Cbrown&object=name%7Cn1%7Cdescription%7Cd1",
        {},
        None,
    ),
    "query_deep_object_non_exploded": (
        "",
        "object%5Bname%5D=n1&object%5Bdescription%5D=d1",
        {},
        None,
    ),
}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    out = tmp_path_factory.mktemp("styles") / "package"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--spec", str(FOUND[0]), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (name,) = [p.name for p in out.iterdir() if (p / "__init__.py").is_file()]
    return load_package(out, name, "readme_styles")


def arguments(pkg, method: str) -> dict:
    """The method's arguments: the primitive, the array, and the object as its model."""
    parameters = getattr(pkg.Client, method).__annotations__
    given: dict = {}
    for name in ("primitive", "array", "object_"):
        if name in parameters:
            given[name] = {"primitive": PRIMITIVE, "array": ARRAY}.get(name)
    if "object_" in given:
        model = next(
            getattr(pkg.models, m)
            for m in pkg.models.__all__
            if m.lower() == method.replace("_", "") + "object"
        )
        given["object_"] = model.from_dict(FIELDS)
    return given


def call(pkg, server: LoopbackServer, method: str, asynchronous: bool = False):
    server.script(Reply(200, ""))
    given = arguments(pkg, method)
    positional = []
    if method.startswith("paths_"):
        positional = [given.pop(n) for n in ("primitive", "array", "object_")]
    if asynchronous:

        async def run() -> None:
            async with pkg.AsyncClient(base_url=server.url, max_retries=0) as client:
                await getattr(client, method)(*positional, **given)

        asyncio.run(run())
    else:
        with pkg.Client(base_url=server.url, max_retries=0) as client:
            getattr(client, method)(*positional, **given)
    return server.seen[-1]


def test_every_operation_is_a_method(pkg):
    for method in [*EXPECTED, "form_data_standard", "form_data_deep_object_exploded"]:
        assert callable(getattr(pkg.Client, method)) and callable(getattr(pkg.AsyncClient, method))


@pytest.mark.parametrize("method", EXPECTED)
def test_the_request_is_what_the_style_table_writes(pkg, method):
    tail, query, headers, cookie = EXPECTED[method]
    with LoopbackServer() as server:
        seen = call(pkg, server, method)
        assert call(pkg, server, method, asynchronous=True).path == seen.path
    path, _, sent_query = seen.path.partition("?")
    if method.startswith("paths_"):
        style = method.split("_")[1]
        assert path == "/anything/path" + ("" if style == "standard" else f"/{style}") + tail
    assert sent_query == query
    for header, value in headers.items():
        assert seen.headers[header] == value
    assert seen.headers.get("cookie") == cookie


def test_a_value_a_header_or_path_cannot_hold_is_refused_before_anything_is_sent(pkg):
    with LoopbackServer() as server, pkg.Client(base_url=server.url, max_retries=0) as client:
        with pytest.raises(pkg.ValidationError, match="primitive: cannot travel in an HTTP header"):
            client.headers_standard(primitive="two\r\nlines")
        with pytest.raises(pkg.ValidationError, match="primitive: must not be written as '..'"):
            client.paths_label_exploded(
                ".", ARRAY, arguments(pkg, "paths_label_exploded")["object_"]
            )
    assert server.seen == []
