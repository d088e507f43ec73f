"""What black is given of a text with long lines: only what it would change."""

from __future__ import annotations

import black
import pytest
from hypothesis import given, settings, strategies as st

from generator.output import formatting
from generator.output.formatting import black_mode

words = st.text(
    st.characters(min_codepoint=32, max_codepoint=126, exclude_characters='"\\{}'), max_size=30
)
names = words.map(lambda w: w.replace("'", "")[:5])
pieces = st.lists(words | names.map(lambda w: "{check(name, '" + w + "')}"), max_size=8)


def exploded(depth: int, element: str) -> str:
    """A call laid out one element to a line, as black lays it out, inside ``depth`` classes."""
    lines = [f"{'    ' * level}class Level{level}:" for level in range(depth)]
    indent = "    " * depth
    lines += [f"{indent}request = build(", f"{indent}    'GET'.lower(),", f"{indent}    {element},"]
    return "\n".join([*lines, f"{indent}    auth=None,", f"{indent})", ""])


@settings(max_examples=60, deadline=None)
@given(
    depth=st.integers(0, 3),
    keyword=st.sampled_from(["", "pattern="]),
    prefix=st.sampled_from(["", "f", "b"]),
    parts=pieces,
)
def test_a_long_string_alone_on_its_line_is_left_as_it_is(depth, keyword, prefix, parts):
    """Black splits no string: a long one alone among a call's exploded arguments (a path's
    f-string, a keyword's pattern) is kept as the templates laid it out, without black, which
    leaves it so too."""
    body = "/".join(parts) + "x" * 100
    if prefix == "b":
        body = body.replace("{", "").replace("}", "")
    element = f'{keyword}{prefix}"{body}"'
    text = exploded(depth, element).replace("'GET'.lower()", '"GET".lower()')
    lines = text.split("\n")
    assert formatting._spans(text, lines) == []
    assert black.format_str(text, mode=black_mode()) == text


@pytest.mark.parametrize("depth", [0, 1, 2])
@pytest.mark.parametrize("name", ["M" * 100, "models.M" + "x" * 100])
def test_a_long_name_alone_on_its_line_is_left_as_it_is(depth, name):
    """Black splits no name: a long one alone among a call's exploded arguments, or among the
    names an import takes from a module of models, is kept as it is, without black."""
    imported = "".join(["from ._models_001 import (\n", "    A,\n", f"    {name},\n", ")\n"])
    for text in (exploded(depth, name).replace("'GET'", '"GET"'), imported):
        if text is imported and "." in name:
            continue  # an import takes names, not dotted ones
        lines = text.split("\n")
        assert any(formatting._too_long(line) for line in lines)
        assert formatting._spans(text, lines) == []
        assert black.format_str(text, mode=black_mode()) == text


def test_a_string_black_would_write_otherwise_is_given_to_black():
    """Where black would change the string (its quotes, its escapes) or it is not alone on its
    line (two strings joined, a keyword's string and more), black gets it."""
    for element in [
        "'" + "x" * 100 + "'",
        '"' + "x" * 100 + '\\"x"',
        '"' + "x" * 50 + '" "' + "x" * 50 + '"',
        'path="' + "x" * 100 + '" + suffix',
    ]:
        text = exploded(1, element)
        assert formatting._spans(text, text.split("\n")), element


def reader(depth: int, argument: str) -> str:
    """A model's reader as the templates lay it out, inside ``depth`` classes: a call whose
    arguments are calls laid out one argument to a line, ``argument`` the last of one."""
    indent = "    " * depth
    lines = [f"{'    ' * level}class Level{level}:" for level in range(depth)]
    lines += [
        f"{indent}return cls(",
        f"{indent}    number=required(fields, 'number', path, check_integer),",
        f"{indent}    pull_request=required(",
        f"{indent}        fields,",
        f'{indent}        "pull_request",',
        f"{indent}        path,",
        f"{indent}        {argument},",
        f"{indent}    ),",
        f"{indent}    reason=optional(fields, 'reason', path, check_string),",
        f"{indent})",
        "",
    ]
    return "\n".join(lines).replace("'", '"')


long_names = st.text(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=90
)
arguments = st.one_of(
    st.tuples(st.sampled_from(["check", "strict_enum", "list_of"]), long_names).map(
        lambda p: f"{p[0]}(Model{p[1]})"
    ),
    st.tuples(long_names, long_names).map(lambda p: f"one_of(A{p[0]}, B{p[1]}.from_dict)"),
    long_names.map(lambda n: f"Model{n}.from_dict"),
    long_names.map(lambda n: f'"{n * 2}"'),
)


@settings(max_examples=80, deadline=None)
@given(depth=st.integers(0, 3), argument=arguments)
def test_an_argument_of_a_call_inside_exploded_brackets_is_formatted_as_black_does(depth, argument):
    """An argument too long for its line, of a call laid out one argument to a line that is
    itself an element of a statement's exploded brackets, comes out as black's formatting of
    the whole text has it."""
    text = reader(depth, argument)
    assert formatting.format_long_lines([text]) == [
        (True, black.format_str(text, mode=black_mode()))
    ]


def test_black_gets_the_argument_alone_not_the_arguments_beside_it(monkeypatch):
    """Of a call inside exploded brackets, black gets the argument that holds the long line,
    in ``_(`` and ``)`` at the call's depth: not the statement, nor the other arguments."""
    given: list[str] = []
    format_sources = formatting.format_sources

    def recording(sources, cache=None):
        given.extend(sources)
        return format_sources(sources, cache)

    monkeypatch.setattr(formatting, "format_sources", recording)
    text = reader(2, f"strict_enum(Model{'X' * 90})")
    ((ok, formatted),) = formatting.format_long_lines([text])
    assert ok and formatted == black.format_str(text, mode=black_mode())
    assert len(given) == 1
    piece = given[0]
    assert f"strict_enum(Model{'X' * 90})" in piece
    assert "return cls(" not in piece and '"pull_request"' not in piece and "fields" not in piece


@pytest.mark.parametrize("depth", [0, 1, 2])
@pytest.mark.parametrize("name", ["M" * 95, "Module." + "M" * 100])
def test_a_long_name_black_put_on_its_own_line_is_left_as_it_is(depth, name):
    """A call of one name laid out as black lays out one too long for its line (the name alone
    one level in, however long) is not given to black, which leaves it as it is."""
    text = reader(depth, f"check({name})")
    laid_out = black.format_str(text, mode=black_mode())
    assert f"check(\n" in laid_out  # black's own layout of it
    lines = laid_out.split("\n")
    assert any(formatting._too_long(line) for line in lines)
    assert formatting._spans(laid_out, lines) == []
    assert formatting.format_long_lines([laid_out]) == [(True, laid_out)]
