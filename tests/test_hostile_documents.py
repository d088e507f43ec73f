"""Hostile but valid documents: each either generates a package that works, or fails with an
error that names the document and the JSON pointer, never a traceback or a broken package."""

from __future__ import annotations

import copy
import os
import json
import sys

import httpx
import pytest
from specdocs import PATH, document, obj
from pycode import assert_tidy
from test_any_document import load_package

from generator.cli import main

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def nested(depth: int) -> dict:
    """An object schema with an object property, ``depth`` levels down."""
    schema: dict = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def generate(tmp_path, raw: dict, name: str) -> tuple[int, str]:
    """Run ``generate --spec`` on ``raw``; the exit status and what it wrote to stderr."""
    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(raw))
    out = tmp_path / "out"
    status = main(["generate", "--spec", str(source), "--out", str(out), "--package", name])
    return status, str(source)


def package(tmp_path, raw: dict, name: str):
    status = generate(tmp_path, raw, name)[0]
    assert status == 0
    assert_tidy(tmp_path / "out")
    return load_package(tmp_path / "out", name, f"hostile_{name}")


def with_operation(raw: dict, path: str, method: str, operation: dict) -> dict:
    raw = copy.deepcopy(raw)
    raw["paths"].setdefault(path, {})[method] = {"responses": OK, **operation}
    return raw


# -- refused, with the place named ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "raw", "pointer", "words"),
    [
        (
            "duplicate_ids",
            with_operation(document(), "/other", "get", {"operationId": "makeThing"}),
            "#/paths/~1other/get",
            "both become the method make_thing",
        ),
        (
            "snake_twins",
            with_operation(document(), "/other", "get", {"operationId": "make_thing"}),
            "#/paths/~1other/get",
            "both become the method make_thing",
        ),
        (
            "parameter_not_in_path",
            with_operation(
                document(),
                "/items",
                "get",
                {
                    "operationId": "listItems",
                    "parameters": [
                        {
                            "name": "item_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                },
            ),
            "#/paths/~1items/get",
            "the path parameters ['item_id'] are not in the path",
        ),
        (
            "placeholder_without_parameter",
            with_operation(document(), "/items/{item_id}", "get", {"operationId": "getItem"}),
            "#/paths/~1items~1{item_id}/get",
            "the path's placeholders ['item_id'] have no path parameter",
        ),
        (
            "class_twins",
            document(
                schemas={"foo_bar": obj(a={"type": "string"}), "FooBar": obj(b={"type": "string"})}
            ),
            "#/components/schemas/FooBar",
            "both become the Python class FooBar",
        ),
        (
            "alias_cycle",
            document(
                schemas={
                    "A": {"$ref": "#/components/schemas/B"},
                    "B": {"$ref": "#/components/schemas/A"},
                }
            ),
            "#/components/schemas/A/$ref",
            "$ref cycle",
        ),
        (
            "too_deep",
            document(body=nested(400)),
            "#/paths/~1things~1{thing_id}/post/requestBody/content/application~1json/schema"
            + "/properties/a" * 100,
            "schemas are nested more than 100 deep here",
        ),
    ],
)
def test_what_would_generate_wrong_code_is_refused_with_its_place(
    tmp_path, capsys, name, raw, pointer, words
):
    status, source = generate(tmp_path, raw, name)
    err = capsys.readouterr().err
    assert status == 1
    assert f"error: {source}{pointer}" in err, err
    assert words in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing written


# -- renamed or read as they are, and working ------------------------------------------------------


def test_names_that_would_shadow_the_runtime_or_python_are_renamed(tmp_path):
    raw = document(
        body={"$ref": "#/components/schemas/Model"},
        response={"$ref": "#/components/schemas/UNSET"},
        schemas={
            "Model": obj(
                to_dict={"type": "string"},
                field={"type": "integer"},
                extra={"type": "boolean"},
                problems={"type": "string"},
                self={"type": "string"},
                **{"class": {"type": "string"}, "str": {"type": "string"}},
            ),
            "UNSET": obj(required=["id"], id={"type": "string"}),
            "Client": {"type": "string", "enum": ["a", "b"]},
        },
    )
    pkg = package(tmp_path, raw, "shadows")
    models = sys.modules["hostile_shadows.models"]
    assert {"Model_", "UNSET_", "Client_"} <= set(models.__all__)
    body = models.Model_(
        to_dict_="x", field_=1, extra_=True, problems_="p", self_="s", class_="c", str_="t"
    )
    assert body.to_dict() == {
        "to_dict": "x", "field": 1, "extra": True, "problems": "p", "self": "s", "class": "c", "str": "t"
    }  # fmt: skip
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json={"id": "u-1"})

    transport = httpx.MockTransport(answer)
    with pkg.Client(api_key="k", base_url="http://test", transport=transport) as client:
        reply = client.make_thing("t-1", to_dict_="x", class_="c")
    assert sent == [{"to_dict": "x", "class": "c"}]
    assert isinstance(reply, models.UNSET_) and reply.id == "u-1"


def test_descriptions_that_end_in_quotes_or_hold_backslashes_render(tmp_path):
    raw = document(
        body=obj(a={"type": "string", "description": 'say "hi"'}),
        schemas={"Odd": obj(b={"type": "string", "description": 'ends with """ and \\ and "'})},
    )
    raw["paths"][PATH]["post"]["description"] = 'A summary that ends in a quote"'
    pkg = package(tmp_path, raw, "quotes")
    assert 'ends in a quote"' in pkg.Client.make_thing.__doc__


def test_boolean_and_integer_enums_and_undefined_required_properties(tmp_path):
    raw = document(
        body={"$ref": "#/components/schemas/Choice"},
        schemas={
            "Choice": {
                "type": "object",
                "required": ["flag", "level", "undeclared"],
                "properties": {
                    "flag": {"type": "boolean", "enum": [True]},
                    "level": {"$ref": "#/components/schemas/Level"},
                },
            },
            "Level": {"type": "integer", "enum": [1, 2, 3]},
        },
    )
    pkg = package(tmp_path, raw, "enums")
    models = sys.modules["hostile_enums.models"]
    assert models.Level(2) is models.Level.V_2 and issubclass(models.Level, int)
    choice = models.Choice.from_dict({"flag": True, "level": 3, "undeclared": [1]})
    assert choice.to_dict() == {"flag": True, "level": 3, "undeclared": [1]}
    with pytest.raises(pkg.ValidationError, match=r"^flag: must be one of True, got False$"):
        models.Choice.from_dict({"flag": False, "level": 3, "undeclared": 1})
    with pytest.raises(pkg.ValidationError, match=r"^level: expected one of 1, 2, 3"):
        models.Choice.from_dict({"flag": True, "level": 4, "undeclared": 1})


def test_an_unsupported_construct_is_left_out_and_listed(tmp_path, capsys):
    raw = document(
        body={"$ref": "#/components/schemas/Kept"},
        schemas={
            "Kept": obj(a={"type": "string"}),
            "Odd": {"not": {"type": "string"}},
            "UsesOdd": obj(o={"$ref": "#/components/schemas/Odd"}),
        },
    )
    raw = with_operation(
        raw,
        "/odd",
        "post",
        {
            "operationId": "sendOdd",
            "requestBody": {
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/UsesOdd"}}
                }
            },
        },
    )
    pkg = package(tmp_path, raw, "partial")
    err = capsys.readouterr().err
    assert "left out" in err and "/components/schemas/Odd/not" in err
    readme = (tmp_path / "out" / "README.md").read_text()
    assert "## Left out" in readme
    assert "- `#/components/schemas/UsesOdd`: it uses the schema Odd, which is left out" in readme
    assert "- `#/paths/~1odd/post`: it uses the schema UsesOdd, which is left out" in readme
    assert hasattr(pkg.Client, "make_thing") and not hasattr(pkg.Client, "send_odd")


def test_an_output_folder_with_other_files_is_refused(tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("keep me")
    status, _ = generate(tmp_path, document(), "refused")
    assert (
        status == 1 and "neither empty nor a package the generator wrote" in capsys.readouterr().err
    )
    assert (tmp_path / "out" / "mine.txt").read_text() == "keep me"


def _killed(path):
    os._exit(3)  # as the validator's worker dies when the system kills it


def test_a_validator_worker_that_dies_is_a_warning_not_a_failure(tmp_path, capsys, monkeypatch):
    from generator import validate

    monkeypatch.setattr(validate, "file_problems", _killed)
    assert generate(tmp_path, document(), "survivor")[0] == 0
    assert "openapi-spec-validator did not finish" in capsys.readouterr().err
    assert (tmp_path / "out" / "survivor" / "models.py").is_file()
