"""Docstrings and descriptions are wrapped as textwrap wraps them, in time linear in the text."""

from __future__ import annotations

import textwrap

from hypothesis import given, strategies as st

from generator.literals import fill

WORDS = st.lists(
    st.text(alphabet=st.sampled_from("ab-\\x0é漢"), min_size=1, max_size=30), max_size=12
)


@given(WORDS, st.integers(min_value=8, max_value=60), st.sampled_from(["", "  ", "    - "]))
def test_a_text_is_wrapped_as_textwrap_wraps_it(words, width, initial):
    text = " ".join(words)
    expected = textwrap.fill(
        text,
        width,
        initial_indent=initial,
        subsequent_indent="  ",
        break_on_hyphens=False,
    )
    if "\\" not in text:  # textwrap may break inside an escape sequence; fill never does
        assert fill(text, width, initial, "  ") == expected


def test_a_text_that_fits_is_its_first_line_whole():
    assert fill("a short text", 40, "    ") == "    a short text"
    assert fill("a short text", 16, "    ") == "    a short text"
    assert fill("a short text", 15, "    ") == "    a short\ntext"


def test_a_word_of_megabytes_is_broken_at_the_width():
    word = "x" * 2_000_000
    lines = fill(word, 100).split("\n")
    assert len(lines) == 20_000 and set(map(len, lines)) == {100}
