"""The templates' filters lay Python out as black does, so that a text with no long line, which
black is not given, is black's already."""

from __future__ import annotations

import black
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from generator.output.formatting import black_mode
from generator.output.templating import tuple_literal


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("width", [10, 40, 79, 80, 81, 90])  # each item fits a line of its own
def test_a_tuple_is_laid_out_as_black_lays_it_out(count, width):
    items = [f'Parameter("{"x" * (width - 15)}", {i})' for i in range(count)]
    text = f"VALUE = call(\n    first=1,\n    parameters={tuple_literal(items, 4, 15)},\n)\n"
    assert black.format_str(text, mode=black_mode()) == text


@pytest.mark.parametrize("length", [80, 84, 85, 86, 91, 92, 100])
def test_a_class_whose_header_is_too_long_has_its_base_on_a_line_of_its_own(tmp_path, length):
    """A class of a schema whose name is long comes out of the templates as black lays it out:
    the header that does not fit the line with its base on a line of its own, the one that fits
    on one line; black leaves both as they are."""
    import json

    from generator.output.document import render_document
    from generator.output.package import PackageInfo, load_templates
    from generator.reading.loader import load_yaml
    from generator.reading.parser import parse_document
    from generator.reading.revisions import Revision

    enum, model = "E" + "n" * (length - 1), "M" + "o" * (length - 1)
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Long names", "version": "1.0.0"},
        "paths": {
            "/things": {
                "get": {
                    "operationId": "getThing",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": f"#/components/schemas/{model}"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {
            "schemas": {
                enum: {"type": "string", "enum": ["a", "b"]},
                model: {
                    "type": "object",
                    "properties": {"kind": {"$ref": f"#/components/schemas/{enum}"}},
                },
            }
        },
    }
    path = tmp_path / "long.json"
    path.write_text(json.dumps(document))
    doc = parse_document(load_yaml(path), source=str(path), lenient=True)
    info = PackageInfo("long", "long", "the API", False)
    files = render_document(load_templates(), Revision.of_document(doc, path), info, "1.0.0")
    (text,) = [text for name, (_, text) in files.rendered.items() if name.endswith("models.py")]
    formatted = black.format_str(text, mode=black_mode())
    for name, base in ((enum, "StrEnum"), (model, "Model")):
        one_line = f"class {name}({base}):"
        expected = one_line if len(one_line) <= 100 else f"class {name}(\n    {base}\n):"
        assert f"\n{expected}\n" in text and f"\n{expected}\n" in formatted


@pytest.mark.parametrize("indent", [4, 8, 12, 16])
@pytest.mark.parametrize("length", [60, 70, 75, 80, 84, 85, 86, 90, 95, 120])
@pytest.mark.parametrize("argument", ["check({})", "check_list({}.from_dict)"])
def test_a_call_of_a_name_too_long_for_its_line_is_laid_out_as_black_lays_it_out(
    indent, length, argument
):
    """An argument of a call laid out one argument to a line, itself a call of one name that
    does not fit its line, comes out as black lays it out: its argument on a line of its own."""
    from generator.output.templating import call

    lines = [f"{'    ' * level}class Level{level}:" for level in range(indent // 4)]
    pad = " " * indent
    arguments = ["fields", '"name"', "path", argument.format("M" * length)]
    text = "\n".join([*lines, f"{pad}value = " + call("required", arguments, indent, ""), ""])
    assert black.format_str(text, mode=black_mode()) == text


_letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_names = st.text(_letters, min_size=8, max_size=50)
_strings = st.text(
    st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="\"\\'"),
    min_size=8,
    max_size=90,
).map(lambda text: f'"{text}"')
_leaves = st.one_of(
    _names.map(lambda n: f"check_{n}"), _names.map(lambda n: f"M{n}.from_dict"), _strings
)


def _calls(children):
    return st.one_of(
        st.tuples(
            st.sampled_from(["one_of", "list_of", "dict_of"]),
            st.lists(children, min_size=1, max_size=4),
        ).map(lambda p: f"{p[0]}({', '.join(p[1])})"),
        st.tuples(st.sampled_from(["nullable", "write_model"]), children).map(
            lambda p: f"{p[0]}({p[1]})"
        ),
        st.tuples(children, _strings).map(lambda p: f"constrained({p[0]}, pattern={p[1]})"),
        st.tuples(_strings, children).map(lambda p: f"discriminated({p[0]}, {{{p[0]}: {p[1]}}})"),
    )


_expressions = st.recursive(_leaves, _calls, max_leaves=10)


def _as_black_lays_it_out(text: str, flat: str) -> None:
    """``text`` is black's layout of ``flat`` (the same Python on one line) where no line of it is
    too long (black is then not given it), and the formatting of its long lines is black's
    layout of ``flat`` too (not only a layout black would keep: black keeps brackets exploded
    by a comma of their own)."""
    from generator.output import formatting

    laid_out = black.format_str(flat, mode=black_mode())
    if not formatting._too_long(text):
        assert text == laid_out
    assert formatting.format_long_lines([text]) == [(True, laid_out)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(depth=st.integers(0, 4), expression=_expressions)
def test_a_call_among_arguments_laid_out_one_a_line_is_laid_out_as_black_lays_it_out(
    depth, expression
):
    """An argument of a call laid out one argument to a line that is itself a call (of calls,
    strings, keywords, a dict) comes out as black lays it out: split where it does not fit its
    line, its arguments on one line of their own where they fit, else one a line, in turn."""
    from generator.output.templating import call

    classes = "".join(f"{'    ' * level}class Level{level}:\n" for level in range(depth))
    pad, arguments = " " * 4 * depth, ["fields", '"name"', "path", expression]
    statement = call("value = required", arguments, 4 * depth, "")
    flat = f"{pad}value = required({', '.join(arguments)})"
    _as_black_lays_it_out(f"{classes}{pad}{statement}\n", f"{classes}{flat}\n")


@pytest.mark.parametrize("indent", [4, 8, 12, 16])
@pytest.mark.parametrize("spare", [-2, -1, 0, 1, 2])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_arguments_of_a_call_fill_their_line_as_black_fills_it(indent, spare, count):
    """A call among arguments laid out one a line, whose arguments fit one line of their own but
    for ``spare`` characters (or with them to spare), is laid out as black lays it out."""
    from generator.output.templating import call

    pad = " " * indent
    width = 100 - indent - 8 - 2 * (count - 1) + spare  # the arguments' line is `pad + 4 + joined`
    names = [f"check_{'x' * (width // count - 6 + (i < width % count))}" for i in range(count)]
    expression = f"one_of({', '.join(names)})"
    classes = "".join(f"{'    ' * level}class Level{level}:\n" for level in range(indent // 4))
    arguments = ["fields", '"name"', "path", expression]
    statement = call("value = required", arguments, indent, "")
    flat = f"{pad}value = required({', '.join(arguments)})"
    _as_black_lays_it_out(f"{classes}{pad}{statement}\n", f"{classes}{flat}\n")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=_expressions, width=st.integers(0, 60))
def test_a_writer_applied_to_the_body_is_laid_out_as_black_lays_it_out(expression, width):
    """``_payload = writer(body, "body")`` comes out as black lays it out: split at the body's
    brackets where the line up to them fits, else at the writer's."""
    from generator.output.templating import applied

    before = "_payload" + "_" * width + " = "
    statement = applied(expression, ["body", '"body"'], 8, before)
    method = "class Client:\n    def send(self, body):\n        "
    _as_black_lays_it_out(f"{method}{statement}\n", f'{method}{before}{expression}(body, "body")\n')


# the layouts depend on lengths alone: names of every length, rather than of every letter
_types = st.one_of(
    st.integers(3, 95).map(lambda n: "M" + "x" * n),
    st.integers(3, 60).map(lambda n: f"list[M{'x' * n}]"),
    st.integers(3, 60).map(lambda n: f"dict[str, M{'x' * n} | None]"),
    st.sampled_from(["None", "Unset", "str", "Mapping[str, Any]", "models.Model"]),
)
_field_names = st.integers(1, 60).map(lambda n: "f" * n)
_defaults = st.sampled_from([None, "UNSET", "None"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=_field_names,
    types=st.lists(_types, min_size=1, max_size=4),
    default=_defaults,
)
def test_a_field_too_long_for_its_line_is_laid_out_as_black_lays_it_out(name, types, default):
    """A dataclass field whose annotation does not fit the line comes out as black lays it out:
    its default in parentheses where the line up to them fits, else its annotation, on one line
    where it fits, else a type a line."""
    from generator.output.templating import annotated

    annotation = " | ".join(types)
    field = annotated(name, annotation, default, 4)
    flat = f"{name}: {annotation}" + ("" if default is None else f" = {default}")
    _as_black_lays_it_out(f"class Model:\n    {field}\n", f"class Model:\n    {flat}\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=_field_names,
    types=st.lists(_types, min_size=1, max_size=4),
    default=_defaults,
)
def test_a_parameter_too_long_for_its_line_is_laid_out_as_black_lays_it_out(name, types, default):
    """A parameter of a signature laid out one a line whose annotation does not fit the line
    comes out as black lays it out: its annotation in parentheses, on one line where it fits,
    else a type a line."""
    from generator.output.templating import parameter

    annotation = " | ".join(types)
    flat = f"{name}: {annotation}" + ("" if default is None else f" = {default}")

    def method(line: str) -> str:
        return f"class Client:\n    def send(\n        self,\n        {line},\n    ) -> None:\n        pass\n"

    _as_black_lays_it_out(method(parameter(name, annotation, default, 8)), method(flat))


@pytest.mark.parametrize("spare", range(-3, 4))
@pytest.mark.parametrize("default", [None, "UNSET"])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_a_field_at_the_end_of_its_line_is_laid_out_as_black_lays_it_out(spare, default, count):
    """Fields whose line, or whose line up to the default's parentheses, or whose annotation
    one level in, fills the line but for ``spare`` characters, are laid out as black lays them
    out."""
    from generator.output.templating import annotated

    for width in (100, 96 - len(" = UNSET") + 4, 92):  # the whole line; up to ` = (`; the union
        types = [f"M{'x' * ((width - 4 - 10 - 3 * (count - 1)) // count + spare)}"] * count
        annotation = " | ".join(types)
        flat = f"field_name: {annotation}" + ("" if default is None else f" = {default}")
        field = annotated("field_name", annotation, default, 4)
        _as_black_lays_it_out(f"class Model:\n    {field}\n", f"class Model:\n    {flat}\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.integers(1, 95).map(lambda n: "A" * n), types=st.lists(_types, min_size=1, max_size=4)
)
def test_a_type_alias_too_long_for_its_line_is_laid_out_as_black_lays_it_out(name, types):
    """A type alias of a union that does not fit the line comes out as black lays it out: the
    union in parentheses, on one line where it fits, else a type a line."""
    from generator.output.templating import alias

    value = " | ".join(types)
    _as_black_lays_it_out(alias(name, value) + "\n", f"{name}: TypeAlias = {value}\n")
