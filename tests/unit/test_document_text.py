"""Text from a document never becomes code or markup: whatever a document's strings hold (quotes,
triple quotes, backslashes, newlines, U+2028, NUL, braces, ``%``, lone surrogates, code that
would run if it were spliced, 10,000 characters), its package either renders or is refused with
a located error. A package that renders parses with Python 3.10's grammar (and with the older
interpreters themselves: tests/e2e/test_document_text_pythons.py), holds no name, call or import
the generator did not write, runs nothing from the document when imported, sends each path with
the document's literal text percent-encoded, and its TOML, YAML and Markdown hold the text as
text."""

from __future__ import annotations

import builtins
import contextlib
import inspect
import itertools
import re
import tomllib
import urllib.parse
from pathlib import Path

import httpx
import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from markdown_it import MarkdownIt

from support.generatedcode import (
    SAFE_BUILTINS,
    assert_only_generator_code,
    import_without_effects,
    one_path_document,
    render,
)

PAYLOADS = [
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "\\n",
    "\n",
    "\r",
    "\u2028",
    "\x00",
    "\x7f",
    "{",
    "}",
    "{{ x }}",
    "%",
    "%s",
    "%41",
    "\ud800",
    "#",
    "?",
    " ",
    "`",
    "```",
    "~~~",
    "<script>alert(1)</script>",
    "\\N{BULLET}",
    '"+__import__("os").system("touch /tmp/pwned")+"',
    "'+__import__('os').system('touch /tmp/pwned')+'",
    '\n__import__("os").system("touch /tmp/pwned")\n#',
    '"""\n__import__("os").system("touch /tmp/pwned")\n"""',
]
LONG = "x" * 10_000
"""Longer than any line: wrapped, and broken where it has no space."""
TEXT = st.lists(
    st.sampled_from(PAYLOADS) | st.text(max_size=6) | st.just(LONG[:150]),
    min_size=1,
    max_size=5,
).map("".join)
SEGMENT = TEXT.map(lambda text: text.replace("{", "").replace("}", ""))
"""Literal text of a path (a brace there would be a placeholder)."""

VALUE = "v a/b"
"""What a path parameter is called with: its space and slash are percent-encoded by the client."""


def hostile_document(draw: st.DrawFn) -> dict:
    """A document whose every string a package shows (names, descriptions, values, the path's
    literal parts, the security scheme) is drawn from the hostile texts."""
    text = lambda: draw(TEXT)  # noqa: E731
    path = f"/{draw(SEGMENT)}/{{item_id}}/{draw(SEGMENT)}"
    field_a, field_b, scheme = text(), text(), "key" + text()
    return {
        "openapi": "3.1.0",
        "info": {"title": text(), "version": text(), "description": text()},
        "servers": [{"url": "https://api.example.com", "description": text()}],
        "security": [{scheme: []}],
        "paths": {
            path: {
                "post": {
                    "operationId": text(),
                    "summary": text(),
                    "description": text(),
                    "tags": [text()],
                    "parameters": [
                        {
                            "name": "item_id",
                            "in": "path",
                            "required": True,
                            "description": text(),
                            "schema": {"type": "string", "description": text()},
                        },
                        {
                            "name": text(),
                            "in": "query",
                            "description": text(),
                            "schema": {"type": "string", "default": text(), "example": text()},
                        },
                        {
                            "name": text(),
                            "in": "query",
                            "schema": {"type": "string", "enum": [text(), text()]},
                        },
                    ],
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Body"}}
                        }
                    },
                    "responses": {
                        "200": {
                            "description": text(),
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Body"}
                                }
                            },
                        },
                        "400": {"description": text()},
                    },
                }
            }
        },
        "components": {
            "securitySchemes": {
                scheme: {"type": "apiKey", "in": "header", "name": "X-Key", "description": text()}
            },
            "schemas": {
                "Body": {
                    "type": "object",
                    "description": text(),
                    "properties": {
                        field_a: {
                            "type": "string",
                            "description": text(),
                            "default": text(),
                            "examples": [text()],
                        },
                        field_b: {"$ref": "#/components/schemas/Kind"},
                    },
                },
                "Kind": {"type": "string", "description": text(), "enum": [text(), text()]},
            },
        },
    }


documents = st.composite(hostile_document)


# -- the path on the wire ----------------------------------------------------------------------------

_UNRESERVED = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]")


def rfc3986_path(text: str) -> str:
    """Literal path text as RFC 3986 lets a path hold it: what ``pchar`` and ``/`` allow as it is,
    an escape already written (``%41``) as it is, every other UTF-8 byte as ``%XX``."""
    out = []
    for index, char in enumerate(text):
        if _UNRESERVED.fullmatch(char):
            out.append(char)
        elif char == "%" and re.fullmatch(r"[0-9A-Fa-f]{2}", text[index + 1 : index + 3]):
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
    return "".join(out)


def assert_paths_sent_as_written(module, raw: dict) -> None:
    """Each operation, called with its path parameter, sends the document's path: its literal
    parts percent-encoded, the parameter's value in its place, nothing in the query."""
    (template,) = raw["paths"]
    expected = rfc3986_path(template).replace("%7Bitem_id%7D", urllib.parse.quote(VALUE, safe=""))
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={})

    client = module.Client(api_key="k", transport=httpx.MockTransport(answer), max_retries=0)
    methods = [
        getattr(client, name)
        for name, member in vars(module.Client).items()
        if inspect.isfunction(member) and not name.startswith("_")
    ]
    assert methods
    for method in methods:
        positional = [
            p
            for p in inspect.signature(method).parameters.values()
            if p.kind is p.POSITIONAL_OR_KEYWORD
        ]
        with contextlib.suppress(module.APIError):
            method(*[VALUE] * len(positional))
        assert sent, method
        request = sent.pop()
        assert request.url.raw_path.decode("ascii").partition("?")[0] == expected
        assert request.url.query == b""
        assert "security" not in raw or request.headers["X-Key"] == "k"


# -- TOML, YAML and Markdown hold text as text ---------------------------------------------------------

_MARKDOWN = MarkdownIt("commonmark")


PROJECT_KEYS = {"name", "version", "description", "readme", "requires-python", "license"}
PROJECT_KEYS |= {"dependencies", "classifiers", "optional-dependencies", "keywords"}


def assert_markup_holds_text(package: Path, raw: dict) -> None:
    pyproject = tomllib.loads((package.parent / "pyproject.toml").read_text())
    assert set(pyproject) == {"build-system", "project", "tool"}
    assert set(pyproject["project"]) <= PROJECT_KEYS
    description = pyproject["project"]["description"]
    assert description.startswith("Typed client of the hostile API, revision ")
    ((template, operations),) = raw["paths"].items()
    for page in (package / "docs").glob("*.md"):
        _, front, _ = page.read_text().split("---\n", 2)
        data = yaml.safe_load(front)
        assert data["path"] == _without_surrogates(template)
        operation = operations["post"]
        assert data["title"] == _without_surrogates(
            operation["summary"] or operation["operationId"]
        )
    for document in [package.parent / "README.md", *(package / "docs").glob("*.md")]:
        text = document.read_text()
        if text.startswith("---\n"):  # YAML front matter, read above
            text = text.split("---\n", 2)[2]
        tokens = _MARKDOWN.parse(text)
        for token in itertools.chain(tokens, *(t.children or () for t in tokens)):
            assert token.type not in ("html_block", "html_inline"), (document, token.content)
            if token.type in ("fence", "code_block"):
                assert token.info in ("python", "sh"), (document, token.info, token.content)


def _without_surrogates(text: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in text)


# -- the property and the fixed cases --------------------------------------------------------------

_NAMES = itertools.count()


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
)
@given(raw=documents())
def test_hostile_text_stays_text(tmp_path_factory, raw):
    name = f"hostile_text_{next(_NAMES)}"
    tmp_path = tmp_path_factory.mktemp(name)
    out = render(tmp_path, raw, name)
    if out is None:
        return
    assert_only_generator_code(out / name, name)
    module = import_without_effects(out, name, name)
    assert_paths_sent_as_written(module, raw)
    assert_markup_holds_text(out / name, raw)


KNOWN_PAYLOADS = [
    "/items/{item_id}/\"+__import__('os').system('touch /tmp/pwned')+\"",
    "/items/{item_id}/\n__import__('os').system('touch /tmp/pwned')\n",
    "/items/{item_id}/'+__import__('os').system('touch /tmp/pwned')+'",
    '/items/{item_id}/\\"""\\',
    "/items/{item_id}/a b?c=d#e%zz%41",
    "/items/{item_id}/" + LONG,
]


@pytest.mark.parametrize("path", KNOWN_PAYLOADS)
def test_a_path_that_would_run_code_is_only_a_path(tmp_path, path):
    raw = one_path_document(path, schema={"type": "string"})
    name = f"known_path_{KNOWN_PAYLOADS.index(path)}"
    out = render(tmp_path, raw, name)
    assert out is not None
    assert_only_generator_code(out / name, name)
    module = import_without_effects(out, name, f"{name}_{tmp_path.name}")
    sent = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200, json={}))
    module.Client(api_key="k", transport=transport).call(VALUE)
    assert sent[0].url.raw_path.decode() == rfc3986_path(path).replace("%7Bitem_id%7D", "v%20a%2Fb")
    assert not Path("/tmp/pwned").exists()


@pytest.mark.parametrize("path", ["/items/{item_id}/{{x}}", "/items/{item_id}}", "/{item_id}/{"])
def test_braces_a_path_cannot_mean_are_refused_at_the_operation(tmp_path, path):
    raw = one_path_document(path, schema={"type": "string"})
    name = f"braces_{len(path)}"
    out = render(tmp_path, raw, name)
    if out is None:  # refused, at its place (render checks the message)
        return
    assert_only_generator_code(out / name, name)
    module = import_without_effects(out, name, f"{name}_{tmp_path.name}")
    sent = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200, json={}))
    module.Client(api_key="k", transport=transport).call(VALUE)
    expected = rfc3986_path(path).replace("%7Bitem_id%7D", "v%20a%2Fb")
    assert sent[0].url.raw_path.decode() == expected


def test_builtins_the_check_allows_run_nothing():
    """The names generated code may take from builtins neither import, run nor read."""
    dangerous = {"__import__", "eval", "exec", "compile", "open", "getattr", "globals", "vars"}
    assert not dangerous & SAFE_BUILTINS
    assert SAFE_BUILTINS <= set(dir(builtins))
