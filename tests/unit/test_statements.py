"""Formatting parses only the top-level statements that hold a long line: they, and so the pieces
black gets, are those of the whole text's parse, whatever strings, brackets, comments, clauses
and decorators the text holds at the margin; a text the lexer cannot cut is parsed whole."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from generator.output import formatting
from generator.output.document import render_document
from generator.output.package import PackageInfo, load_templates
from generator.output.statements import statements_holding
from generator.reading.loader import load_yaml
from generator.reading.parser import parse_document
from generator.reading.revisions import Revision
from support.golden import documents

LONG = "x" * 120

TRICKY = f'''"""A module docstring whose lines sit at the margin and look like code:
x = [
def not_code(): {LONG}
"""

from __future__ import annotations

import a  # a quote ' and a bracket ( in a comment


@decorator(
    "{LONG}",
)
@other
class A:
    """doc {LONG}"""

    x: int = 1
    y: str = "{LONG}"


if a:
    pass
else:
    value = "{LONG}"
try:
    pass
except E:
    pass
finally:
    pass
y = 1 + \\
2
z = (
1,
"{LONG}",
)
s = """
multi {LONG}
line
"""
t = 'a' "b" f"{{x['k']}}"; u = "{LONG}"
# a comment at the margin that is long {LONG}


class Client(
    Base,
):
    """A class of many methods: only those holding a line asked for are parsed."""

    limit = 1

    @property
    def first(self) -> str:
        return "{LONG}"

    # a comment in the body, long {LONG}
    def second(self) -> None:
        if self.limit:
            pass
        else:
            self.call("""
    def not_a_method(self): {LONG}
""")

    @decorator(
        "a",
    )
    async def third(self):
        """doc"""
        return [
            "{LONG}",
        ]

    def last(self): return "{LONG}"


async def function(a, b):
    x = 1
    try:
        y = "{LONG}"
    except E:
        pass
    return x
'''

STRINGS = (
    'r = r"\\"" + r"\\\\" + r"\\"(" + rb\'\'\'\n'
    ") # \\''' ''' + b\"\\\\\\\\\" + 'x\\\n"
    "] y'\n"
    'q = """ "" \\""" ( """\n'
    "w = (  # ( a comment's bracket\n"
    '    "#", \'"\', "\'"  # )\n'
    ")\n"
    'd = """ \\""" \n'
    "x = (\n"
    "\"\"\" + ''' \\''' \n"
    "y = [\n"
    "'''\n"
)
"""Strings whose quotes, escapes, prefixes and line breaks the lexer must read as Python does."""
TRICKY += STRINGS


def holding(tree: ast.Module, number: int) -> list[str]:
    """The statements holding line ``number``, outermost first: where each is, and the innermost
    whole (a class or a function but for its body, which its own lines' statements show)."""
    chain = formatting._Index(tree).holding(number)
    shown = [f"{type(node).__name__} {place(node)}" for node in chain]
    if chain:
        innermost = chain[-1]
        if isinstance(innermost, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            innermost = type(innermost)(**{**vars(innermost), "body": []})
        shown.append(ast.dump(innermost, include_attributes=True))
    return shown


def place(node: ast.AST) -> tuple[int | None, ...]:
    return tuple(getattr(node, key, None) for key in node._attributes)


def test_the_statements_holding_each_line_are_the_whole_parse_s():
    lines = TRICKY.split("\n")
    whole = ast.parse(TRICKY)
    for number in range(1, len(lines) + 1):
        cut = statements_holding(TRICKY, lines, [number])
        assert cut is not None
        assert ast.dump(cut.body[0], include_attributes=True) == ast.dump(
            whole.body[0], include_attributes=True
        )
        assert holding(cut, number) == holding(whole, number), (number, lines[number - 1])


def test_a_class_s_body_is_parsed_where_it_holds_a_line_asked_for_and_at_its_ends():
    lines = TRICKY.split("\n")
    number = next(n for n, line in enumerate(lines, start=1) if "def first" in line) + 1
    cut = statements_holding(TRICKY, lines, [number])
    assert cut is not None
    client = next(
        node for node in cut.body if isinstance(node, ast.ClassDef) and node.name == "Client"
    )
    whole = next(node for node in ast.parse(TRICKY).body if getattr(node, "name", "") == "Client")
    # the docstring, the method asked about, and a statement standing in for the last, which
    # ends where it ends: the class ends where the whole parse's does
    assert [getattr(node, "name", None) for node in client.body] == [None, "first", None]
    assert place(client.body[-1])[2:] == place(whole.body[-1])[2:]
    assert place(client) == place(whole) and len(whole.body) == 6


def test_the_pieces_are_those_of_the_whole_parse():
    lines = TRICKY.split("\n")
    assert formatting._spans(TRICKY, lines) == formatting._spans(
        TRICKY, lines, tree=ast.parse(TRICKY)
    )  # none: two statements share a long line, so black formats the whole text
    alone = TRICKY.replace("t = 'a' \"b\" f\"{x['k']}\"; u =", "u =")
    lines = alone.split("\n")
    spans = formatting._spans(alone, lines)
    assert spans and spans == formatting._spans(alone, lines, tree=ast.parse(alone))


@pytest.mark.parametrize(
    "text",
    [
        "x = 'unclosed\ny = 1\n",  # a quote the lexer cannot close
        "x = (1,\ny = 2\n",  # a bracket that never closes
        "x = 1)\n",  # one that closes nothing
        "x = 1 \\ 2\n",  # a backslash that continues no line
    ],
)
def test_a_text_the_lexer_cannot_cut_has_no_answer(text):
    assert statements_holding(text, text.split("\n"), [1]) is None


def test_a_statement_that_does_not_parse_alone_has_no_answer():
    text = "def f(:\n    pass\n"
    assert statements_holding(text, text.split("\n"), [1]) is None


def rendered_python(document: Path) -> list[str]:
    doc = parse_document(load_yaml(document), source=str(document), lenient=True)
    info = PackageInfo("golden", "golden", "the API", False)
    files = render_document(load_templates(), Revision.of_document(doc, document), info, "1.0.0")
    return [text for path, (_, text) in files.rendered.items() if path.endswith(".py")]


@pytest.mark.parametrize("document", documents(), ids=lambda path: path.name)
def test_the_pieces_of_every_rendered_module_are_those_of_the_whole_parse(document):
    for text in rendered_python(document):
        lines = text.split("\n")
        assert formatting._spans(text, lines) == formatting._spans(
            text, lines, tree=ast.parse(text)
        )


LONE = f'''class Client:
    """A client."""

    def get(self, owner: str) -> None:
        """The method's docstring.

        Often the longest statement of a method.
        """
        request = self.build(
            "GET",
            f"/repos/{{owner}}/{LONG}",
            params=None,
        )
        nested = self.build(
            "GET",
            path(
                "{LONG}",
            ),
        )
        if self.check(
            "{LONG}",
        ):
            pass
        items = [
            "{LONG}",
        ]
        single = (
            "{LONG}",
        )
        "{LONG}",
        return request

    async def other(self):
        """Another docstring.

        "{LONG}",
        """
        return self.build(
            "{LONG}",
            "b",
        )
'''


def test_lone_strings_are_decided_as_the_whole_parse_decides_them():
    """A long line that is a string alone with its comma is looked up among fewer statements
    first: the pieces are still the whole parse's, wherever such a line stands (an element of a
    statement's brackets, of brackets inside them, of a compound statement's header, a
    docstring's line, a statement of its own)."""
    lines = LONE.split("\n")
    spans = formatting._spans(LONE, lines)
    assert spans == formatting._spans(LONE, lines, tree=ast.parse(LONE))
    held = {line.strip() for span in spans or () for line in lines[span.first : span.last + 1]}
    assert "if self.check(" in held  # what black gets, as before
    assert f'f"/repos/{{owner}}/{LONG}",' not in held  # what it does not
    assert "path(" not in held  # an argument alone inside an argument: black leaves it too


def test_a_lone_string_in_a_method_is_found_without_parsing_the_method_s_docstring(monkeypatch):
    """The statements that hold lone strings are parsed without the first statement of each
    body that holds none (the docstrings of a client of a thousand methods)."""
    from generator.output import statements

    parsed: list[str] = []
    parse = statements.ast.parse

    def recording(text: str, *args, **kwargs):
        parsed.append(text)
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(statements.ast, "parse", recording)
    text = LONE.split("        nested =")[0] + "        return request\n"
    lines = text.split("\n")
    assert formatting._spans(text, lines) == []
    assert parsed and not any("The method's docstring" in each for each in parsed)
    assert not any('"""A client."""' in each for each in parsed)
