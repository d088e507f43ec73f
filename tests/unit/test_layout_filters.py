"""The templates' filters lay Python out as black does, so that a text with no long line, which
black is not given, is black's already."""

from __future__ import annotations

import black
import pytest

from generator.output.formatting import black_mode
from generator.output.templating import tuple_literal


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("width", [10, 40, 79, 80, 81, 90])  # each item fits a line of its own
def test_a_tuple_is_laid_out_as_black_lays_it_out(count, width):
    items = [f'Parameter("{"x" * (width - 15)}", {i})' for i in range(count)]
    text = f"VALUE = call(\n    first=1,\n    parameters={tuple_literal(items, 4, 15)},\n)\n"
    assert black.format_str(text, mode=black_mode()) == text
