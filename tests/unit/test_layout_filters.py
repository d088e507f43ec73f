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
