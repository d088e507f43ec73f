"""What black is given of a text with long lines: only what it would change."""

from __future__ import annotations

import black
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
@given(depth=st.integers(0, 3), prefix=st.sampled_from(["", "f", "b"]), parts=pieces)
def test_a_long_string_alone_on_its_line_is_left_as_it_is(depth, prefix, parts):
    """Black splits no string: a long one alone among a call's exploded arguments (a path's
    f-string) is kept as the templates laid it out, without black, which leaves it so too."""
    body = "/".join(parts) + "x" * 100
    if prefix == "b":
        body = body.replace("{", "").replace("}", "")
    text = exploded(depth, f'{prefix}"{body}"').replace("'GET'.lower()", '"GET".lower()')
    lines = text.split("\n")
    assert formatting._spans(text, lines) == []
    assert black.format_str(text, mode=black_mode()) == text


def test_a_string_black_would_write_otherwise_is_given_to_black():
    """Where black would change the string (its quotes, its escapes) or it is not alone on its
    line (a keyword's value, two strings joined), black gets it."""
    for element in [
        "'" + "x" * 100 + "'",
        '"' + "x" * 100 + '\\"x"',
        '"' + "x" * 50 + '" "' + "x" * 50 + '"',
        'path="' + "x" * 100 + '"',
    ]:
        text = exploded(1, element)
        assert formatting._spans(text, text.split("\n")), element
