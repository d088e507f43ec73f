"""Hostile but valid documents: each either generates a package that works, or fails with an
error that names the document and the JSON pointer, never a traceback or a broken package."""

from __future__ import annotations

import copy
import json
import os
import sys

import httpx
import pytest

from generator.cli import main
from support.packages import load_package
from support.pycode import assert_tidy
from support.specdocs import PATH, document, obj

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}


def nested(depth: int) -> dict:
    """An object schema with an object property, ``depth`` levels down."""
    schema: dict = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def generate(tmp_path, raw: dict, name: str) -> tuple[int, str]:
    """Run ``generate --spec`` on ``raw`` (every warning printed); the exit status and the
    document's path."""
    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(raw))
    out = tmp_path / "out"
    args = ["generate", "--spec", str(source), "--out", str(out), "--package", name, "--verbose"]
    status = main(args)
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


def _killed(*args):
    os._exit(3)  # as the validator's worker dies when the system kills it


def test_a_validator_worker_that_dies_is_a_warning_not_a_failure(tmp_path, capsys, monkeypatch):
    from generator.reading import validate

    monkeypatch.setattr(validate, "file_problems", _killed)
    monkeypatch.setenv("TOGETHER_RL_CODEGEN_CACHE", str(tmp_path / "cache"))  # nothing known
    assert generate(tmp_path, document(), "survivor")[0] == 0
    assert "openapi-spec-validator did not finish" in capsys.readouterr().err
    assert (tmp_path / "out" / "survivor" / "models.py").is_file()


# -- names that collide: one rule, reported ---------------------------------------------------------


def _colliding() -> dict:
    raw = document(
        body={"$ref": "#/components/schemas/Reactions"},
        schemas={
            "Reactions": obj(
                ["-1"],
                **{"_group": {"type": "string"}, "group": {"type": "string"}},
                **{"+1": {"type": "integer"}, "-1": {"type": "integer"}},
                thing_id={"type": "string"},
                kind={"type": "string", "enum": ["a-b", "a_b", "A_B"]},
            ),
            "foo_bar": obj(a={"type": "string"}),
            "FooBar": obj(b={"type": "string"}),
        },
        parameters=[{"name": "group", "in": "query", "schema": {"type": "string"}}],
    )
    raw = with_operation(raw, "/other", "get", {"operationId": "make_thing"})
    return with_operation(raw, "/more", "get", {"operationId": "makeThing"})


def test_colliding_names_get_names_by_one_rule_and_each_rename_is_reported(tmp_path, capsys):
    pkg = package(tmp_path, _colliding(), "collide")
    err = capsys.readouterr().err
    models = sys.modules["hostile_collide.models"]
    assert {"FooBar", "FooBar_"} <= set(models.__all__)
    assert models.FooBar_.from_dict({"a": "x"}).a == "x"  # foo_bar: FooBar spells it exactly
    fields = {f.name: f.metadata for f in __import__("dataclasses").fields(models.Reactions)}
    assert {"group", "group_", "field_1", "field_1_", "thing_id"} <= set(fields)
    # "A_B" spells its member name exactly; the others come in the document's order
    assert [(m.name, m.value) for m in models.ReactionsKind] == [
        ("A_B_", "a-b"), ("A_B_2", "a_b"), ("A_B", "A_B")
    ]  # fmt: skip
    # the methods: make_thing (GET /other) spells its name exactly; then the document's order
    assert hasattr(pkg.Client, "make_thing") and hasattr(pkg.Client, "make_thing_")
    assert hasattr(pkg.Client, "make_thing_2")
    for words in (
        "#/components/schemas/Reactions/properties/_group: the property '_group' of Reactions "
        "is named `group_`: `group` is taken by the property 'group' of Reactions",
        "#/components/schemas/foo_bar: the schema foo_bar is named `FooBar_`: "
        "`FooBar` is taken by the schema FooBar",
        "/properties/-1: the property '-1' of Reactions is named `field_1_`: `field_1` is "
        "taken by the property '+1' of Reactions",
        "#/paths/~1things~1{thing_id}/post/parameters/1: the query parameter 'group' is named "
        "`group_`: `group` is taken by the body field 'group'",
        "the body field '_group' is named `group_2`: `group` is taken by the body field 'group'",
        "#/paths/~1more/get: the page of GET /more is named `makeThing_`: `makeThing` is taken by "
        "the page of POST /things/{thing_id}",
        "the body field 'thing_id' is named `thing_id_`: `thing_id` is taken by the path "
        "parameter 'thing_id'",
    ):
        assert words in err, (words, err)
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append((request.url.path, request.url.query.decode(), json.loads(request.content)))
        return httpx.Response(200, json={})

    with pkg.Client(api_key="k", base_url="http://t", transport=httpx.MockTransport(answer)) as c:
        c.make_thing_(
            "t-1", thing_id_="body", group="h", group_2="g", group_="q", field_1=1, field_1_=2
        )
    assert sent == [
        (
            "/things/t-1",
            "group=q",
            {"thing_id": "body", "group": "h", "_group": "g", "+1": 1, "-1": 2},
        )
    ]


def test_names_do_not_depend_on_the_order_of_what_is_spelled_exactly():
    from generator.reading.revisions import Revision
    from generator.views.pymodel import build_module
    from support.specdocs import parse

    def attributes(order):
        raw = document(body=obj(**{key: {"type": "string"} for key in order}))
        module = build_module([Revision.of_document(parse(raw), "t.yaml")], 0)
        return {(f.key, f.name) for f in module.models[0].fields}

    forwards, backwards = attributes(["_group", "group"]), attributes(["group", "_group"])
    assert forwards == backwards == {("group", "group"), ("_group", "group_")}
    assert attributes(["_group", "group"]) == forwards  # the same on every run


def test_a_later_revision_never_renames_what_an_earlier_one_named():
    from generator.reading.revisions import Revision
    from generator.views.pymodel import build_module
    from support.specdocs import parse

    first = parse(document(body=obj(_group={"type": "string"})))
    second = parse(
        document(
            body=obj(group={"type": "string"}, _group={"type": "string"}, new={"type": "string"})
        )
    )
    revisions = [Revision.of_document(first, "1.yaml"), Revision.of_document(second, "2.yaml")]
    alone = build_module(revisions[1:], 0)
    assert {(f.key, f.name) for f in alone.models[0].fields} >= {("group", "group")}
    module = build_module(revisions, 1)
    names = {f.key: f.name for f in module.models[0].fields}
    assert names == {"group": "group_", "_group": "group", "new": "new"}
    renames = [str(r) for r in module.names.renames]
    assert renames == [
        "/paths/~1things~1{thing_id}/post/requestBody/content/application~1json/schema/properties"
        "/group: the property 'group' of MakeThingBody is named `group_`: `group` is taken by "
        "the property '_group' of MakeThingBody",
        "/paths/~1things~1{thing_id}/post/requestBody: the body field 'group' is named `group_`: "
        "`group` is taken by the body field '_group'",
    ]


# -- no operation, hostile input -----------------------------------------------------------------


def test_a_package_without_a_single_operation_is_an_error(tmp_path, capsys):
    raw = document(body={"not": {"type": "string"}})
    status, source = generate(tmp_path, raw, "empty")
    err = capsys.readouterr().err
    assert status == 1 and not (tmp_path / "out").exists()
    assert f"error: {source}#/paths: no package to write: every operation was left out" in err
    assert "left out" in err and "the schema keyword 'not'" in err


def test_a_yaml_alias_bomb_is_refused_where_it_expands(tmp_path, capsys):
    lines = ["openapi: 3.1.0", "info: {title: t, version: '1'}", "paths: {}", "x-lol:"]
    lines.append('  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]')
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        lines.append(f"  {level}: &{level} [" + ", ".join([f"*{previous}"] * 9) + "]")
    source = tmp_path / "bomb.yaml"
    source.write_text("\n".join(lines) + "\n")
    status = main(["generate", "--spec", str(source), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 1
    assert f"error: {source}#/x-lol/f/0: a YAML alias here expands the anchor at line 9" in err


def test_nul_bytes_control_characters_and_very_long_names(tmp_path, capsys):
    long_id = "o" * 300
    raw = document(
        body=obj(**{"a\u0000b": {"type": "string", "description": "x\u0000y\u001bz"}}),
        schemas={
            "N\u0000ul" + "S" * 300: obj(**{"p" * 300: {"type": "string", "enum": ["v" * 300]}})
        },
    )
    raw["info"]["description"] = "a\u0000b"
    raw["paths"][PATH]["post"]["operationId"] = "make\u0000Thing"
    raw = with_operation(raw, "/long", "get", {"operationId": long_id})
    pkg = package(tmp_path, raw, "odd")
    assert sorted(p.name for p in (tmp_path / "out" / "odd" / "docs").iterdir()) == [
        "make_thing.md",
        f"{'o' * 91}_{__import__('hashlib').sha256(long_id.encode()).hexdigest()[:8]}.md",
    ]
    models = sys.modules["hostile_odd.models"]
    long_classes = [n for n in models.__all__ if n.startswith("NUlSSS")]
    assert len(long_classes) == 2 and {len(n) for n in long_classes} == {100}
    assert "is longer than 100 characters" in capsys.readouterr().err
    assert "x\x00y\x1bz" in pkg.Client.make_thing.__doc__


# -- parameters of every style ---------------------------------------------------------------------

COLOR = obj(R={"type": "integer"}, G={"type": "integer"})
NUMBERS = {"type": "array", "items": {"type": "integer"}}


def _styles() -> dict:
    def param(name, where, **given):
        return {"name": name, "in": where, "required": where == "path", **given}

    json_content = {"application/json": {"schema": obj(a={"type": "integer"})}}
    return with_operation(
        document(),
        "/styles/{plain}/{labelled}/{matrixed}",
        "get",
        {
            "operationId": "styles",
            "parameters": [
                param("plain", "path", schema=NUMBERS),
                param("labelled", "path", style="label", schema={"type": "string"}),
                param("matrixed", "path", style="matrix", schema=NUMBERS),
                param("color", "query", schema=COLOR),
                param("tint", "query", explode=False, schema=COLOR),
                param("filter", "query", style="deepObject", explode=True, schema=COLOR),
                param("ids", "query", explode=False, schema=NUMBERS),
                param("spaced", "query", style="spaceDelimited", explode=False, schema=NUMBERS),
                param("piped", "query", style="pipeDelimited", explode=False, schema=NUMBERS),
                param("repeated", "query", schema=NUMBERS),
                param("where", "query", content=json_content),
                param("either", "query", schema={"oneOf": [{"type": "string"}, COLOR]}),
                param("X-Ids", "header", schema=NUMBERS),
                param("X-Color", "header", explode=True, schema=COLOR),
                param("X-Where", "header", content=json_content),
                param("session", "cookie", content=json_content),
            ],
        },
    )


def test_parameters_of_every_style_travel_as_the_document_says(tmp_path):
    from generator.reading.revisions import Revision
    from generator.views.pyclient import build_client
    from generator.views.pymodel import build_module
    from support.loopback import LoopbackServer
    from support.specdocs import parse
    from support.wire import call_and_check

    raw = _styles()
    pkg = package(tmp_path, raw, "styles")
    doc = parse(raw)
    view = build_client(doc, build_module([Revision.of_document(doc, "t.yaml")], 0))
    with LoopbackServer() as server:
        with pkg.Client(api_key="k", base_url=server.url, max_retries=0) as client:
            call_and_check(
                server,
                client,
                sys.modules["hostile_styles.models"],
                doc,
                view,
                doc.operation("styles"),
            )
    seen = server.seen[-1]
    assert seen.path.startswith("/styles/1/.text/;matrixed=1?")
    assert "filter%5BR%5D=1" in seen.path and "where=%7B%22a%22%3A1%7D" in seen.path
    assert seen.headers["x-color"] == "R=1,G=1" and seen.headers["x-where"] == '{"a":1}'


def test_what_the_views_cannot_render_is_left_out_per_operation(tmp_path, capsys):
    raw = with_operation(
        document(),
        "/upload",
        "post",
        {
            "operationId": "upload",
            "requestBody": {
                "content": {"multipart/form-data": {"schema": {"type": "array", "items": {}}}}
            },
        },
    )
    pkg = package(tmp_path, raw, "views")
    err = capsys.readouterr().err
    assert "left out" in err and "#/paths/~1upload/post: /paths/~1upload/post/requestBody" in err
    assert "a form or multipart body that is not an object of fields" in err
    assert hasattr(pkg.Client, "make_thing") and not hasattr(pkg.Client, "upload")
