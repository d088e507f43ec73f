"""Reading a JSON document: the JSON parser reads it (several times faster than YAML's on the
large public documents, which are JSON), into what the YAML reading of the same text gives
wherever YAML reads it, numbers as YAML 1.1 resolves them included; but the characters YAML takes
for line breaks, which a JSON string keeps as they are."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from generator.errors import SpecError
from generator.reading import loader


def yaml_reading(text: str):
    """What the YAML loader alone reads from ``text``."""
    return yaml.load(text, Loader=loader._Loader)  # noqa: S506 - the project's safe loader


def same(a, b) -> bool:
    """Equal, with the types kept apart (``1 == 1.0 == True`` would hide a changed type)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


NUMBERS = [
    "0",
    "-0",
    "7",
    "-12",
    "12345678901234567890123",
    "1.5",
    "-0.0",
    "1.0",
    "1e5",
    "1E5",
    "1e+5",
    "1.5e3",
    "1.5e+3",
    "1.5E-7",
    "-2.5e-3",
    "0.1e1",
    "1.7976931348623157e308",
]
"""JSON numbers, among them those YAML 1.1 reads as strings (an exponent without a point or
without a sign)."""


@pytest.mark.parametrize("number", NUMBERS)
def test_a_json_number_is_what_yaml_reads(number):
    text = f'{{"minimum": {number}, "list": [{number}]}}'
    assert same(loader.parse_yaml(text, "doc.json"), yaml_reading(text))


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_the_constants_json_does_not_have_are_the_strings_yaml_reads(constant):
    text = f'{{"default": {constant}}}'
    assert same(loader.parse_yaml(text, "doc.json"), yaml_reading(text))
    assert loader.parse_yaml(text, "doc.json") == {"default": constant}


def test_what_json_does_not_read_is_read_as_yaml_with_its_errors():
    assert loader.parse_yaml('{"a": 1, b: [x, y]}', "doc.yaml") == {"a": 1, "b": ["x", "y"]}
    assert loader.parse_yaml('{"a": 1} # a comment\n', "doc.yaml") == {"a": 1}
    with pytest.raises(SpecError, match="not valid YAML"):
        loader.parse_yaml('{"a": [1, 2}', "doc.json")


def test_a_json_text_nested_too_deep_for_the_json_parser_is_refused_as_yaml_refuses_it():
    depth = 100_000  # the JSON parser gives up (RecursionError), then YAML refuses it
    text = "[" * depth + "]" * depth
    with pytest.raises(SpecError, match="not valid YAML: .*exceeded maximum nesting depth"):
        loader.parse_yaml(text, "deep.json")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 2]), ascii_only=st.booleans())
def test_wherever_yaml_reads_a_json_text_the_json_reading_is_the_same(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    if any(brk in text for brk in YAML_LINE_BREAKS):
        return  # YAML misreads these (see the test below)
    try:
        expected = yaml_reading(text)
    except yaml.YAMLError:  # a character YAML does not allow in a stream: JSON reads it
        return
    assert same(loader.parse_yaml(text, "doc.json"), expected)


YAML_LINE_BREAKS = ("\x85", "\u2028", "\u2029")
"""Characters that a JSON string holds as they are and YAML 1.1 takes for line breaks."""


@pytest.mark.parametrize("character", YAML_LINE_BREAKS)
def test_a_character_yaml_takes_for_a_line_break_stays_in_its_json_string(character):
    """YAML folds NEL and the Unicode line and paragraph separators inside a string into a
    space or a line break: a JSON document's text would change by being read as YAML."""
    text = json.dumps({"description": f"one{character}two"}, ensure_ascii=False)
    assert loader.parse_yaml(text, "doc.json") == {"description": f"one{character}two"}
