"""``python -m generator validate`` and the revision index."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from generator.cli import main
from generator.errors import RevisionError
from generator.reading.revisions import load_index
from support import seeds
from support.paths import FIXTURES, SPEC_DIR


def test_every_revision_in_spec_is_valid(capsys, index):
    assert main(["validate"]) == 0
    out = capsys.readouterr().out
    assert sorted(line.removesuffix(": valid") for line in out.splitlines()) == sorted(
        f"spec/{revision.file.name}" for revision in index
    )


def test_missing_ref_target_fails_with_its_pointer(capsys):
    assert main(["validate", str(FIXTURES / "missing-ref.yaml")]) == 1
    out = capsys.readouterr().out
    assert (
        "missing-ref.yaml#/paths/~1things/post/requestBody/content/application~1json/schema/$ref"
        in out
    )
    assert "$ref target #/components/schemas/Thing does not exist" in out


def test_wrong_type_fails_with_its_pointer(capsys):
    assert main(["validate", str(FIXTURES / "wrong-type.yaml")]) == 1
    out = capsys.readouterr().out
    assert (
        "wrong-type.yaml#/components/schemas/Thing/properties/count/type: unknown type 'numbr'"
        in out
    )


def test_yaml_syntax_error_names_the_line(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.1.0\ninfo: [unclosed\n")
    assert main(["validate", str(broken)]) == 1
    out = capsys.readouterr().out
    # where the unclosed list began (the mistake), then where PyYAML noticed it
    assert "not valid YAML: while parsing a flow sequence at line 2, column 7, " in out
    assert "did not find expected ',' or ']' at line 3, column 1" in out


def test_index_holds_the_seed_s_revisions_in_order_with_their_dates():
    index = load_index(SPEC_DIR)
    ids = [r.id for r in index]
    assert ids[0] == "baseline"
    seed = list(reversed(seeds.history()))  # oldest first
    assert [r for r in ids if r in {s.id for s in seed}] == [s.id for s in seed]
    for revision in seed:
        assert index.get(revision.id).date.isoformat() == revision.date
    assert seeds.rendered_from() in ids
    dates = [r.date for r in index if r.date]
    assert dates == sorted(dates)
    assert all(r.note for r in index)


def write_index(folder: Path, text: str) -> Path:
    (folder / "a.yaml").write_text("openapi: 3.1.0\n")
    (folder / "revisions.yaml").write_text(text)
    return folder


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("revisions: []\n", "expected a non-empty list under 'revisions'"),
        (
            "revisions:\n  - {id: baseline, date: null, file: b.yaml, note: x}\n",
            "revisions[0].file: 'b.yaml' is not a file",
        ),
        (
            "revisions:\n  - {id: first, date: null, file: a.yaml, note: x}\n",
            "the first revision must be 'baseline'",
        ),
        (
            "revisions:\n  - {id: baseline, date: 2026-13-01, file: a.yaml, note: x}\n",
            "revisions[0].date: '2026-13-01' is not an ISO date",
        ),
        (
            "revisions:\n  - {id: baseline, date: '2026-13-01', file: a.yaml, note: x}\n",
            "revisions[0].date: '2026-13-01' is not an ISO date",
        ),
        (
            "revisions:\n  - {id: baseline, date: 2026-02-01, file: a.yaml, note: x}\n"
            "  - {id: b, date: 2026-01-01, file: a.yaml, note: x}\n",
            "revisions[1].date: 2026-01-01 is earlier than the revision before it",
        ),
        (
            "revisions:\n  - {id: baseline, date: null, file: a.yaml, note: x}\n"
            "  - {id: baseline, date: null, file: a.yaml, note: x}\n",
            "revisions[1].id: revision 'baseline' is listed twice",
        ),
        ("revisions:\n  - {id: baseline, file: a.yaml}\n", "revisions[0]: missing date, note"),
    ],
)
def test_index_errors_name_the_entry(tmp_path, text, message):
    with pytest.raises(RevisionError) as caught:
        load_index(write_index(tmp_path, text))
    assert message in str(caught.value)


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_the_validator_reports_what_openapi_spec_validator_reports(version):
    from generator.reading.validate import schema_problems

    schema = {"$ref": "#/components/schemas/A"}
    raw = {
        "openapi": version,
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a/{id}": {
                "get": {
                    "parameters": [{"name": "other", "in": "path", "required": True}],
                    "responses": {"200": {"description": "ok"}},
                },
                "post": {
                    "requestBody": {"content": {"application/json": {"schema": schema}}},
                    "responses": {"200": {"description": "ok"}},
                },
            }
        },
        "components": {
            "schemas": {
                "A": {"type": "object", "properties": {"b": schema, "c": {"type": "nothing"}}},
                "B": {"type": "string", "default": 3, "minLength": -1},
            }
        },
    }
    expected = [error.message for error in stock_validator(version)(raw).iter_errors()]
    assert expected  # the document has faults for both to find
    assert_same_findings([p.message for p in schema_problems(raw, "doc.yaml")], expected)


def stock_validator(version: str) -> type:
    """openapi-spec-validator's validator of OpenAPI ``version`` with its jsonschema backend,
    whatever backend the environment picks (our findings are in jsonschema's words)."""
    from jsonschema.validators import validator_for
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

    plain = OpenAPIV31SpecValidator if version.startswith("3.1") else OpenAPIV30SpecValidator
    schema = dict(plain.schema_validator.schema)
    return type(plain.__name__, (plain,), {"schema_validator": validator_for(schema)(schema)})


DEEPEST = " (the deepest reason it matches none of the schemas it may be)"


def assert_same_findings(ours: list[str], theirs: list[str]) -> None:
    """Our findings are the library's, one for one: each in its words, but where it says an
    object matches none of the schemas it may be, which says why instead (the reason of the
    branch that goes deepest into it)."""
    assert len(ours) == len(theirs), (ours, theirs)
    for mine, stock in zip(ours, theirs):
        if stock.endswith("is not valid under any of the given schemas"):
            assert mine.endswith(DEEPEST) and not mine.startswith("{"), (mine, stock)
        else:
            assert mine == stock


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_the_schema_check_finds_what_openapi_spec_validator_finds(version):
    """The OpenAPI schema's validator runs over a registry crawled once (for speed): the same
    findings as the library's own validator, in the same order."""
    from generator.reading.validate import schema_problems

    raw = {
        "openapi": version,
        "info": {"title": "T"},  # no version
        "paths": {"/a": {"get": {"responses": {"200": {"description": 1}}}}},
        "components": {"schemas": {"A": {"type": "object", "properties": {"b": {"minimum": "x"}}}}},
    }
    expected = [error.message for error in stock_validator(version)(raw).iter_errors()]
    found = schema_problems(raw, "doc.yaml")
    assert expected
    assert_same_findings([problem.message for problem in found], expected)
    # each named where it is, the one under a oneOf too (in 3.0's schema)
    places = {p.pointer: p.message.removesuffix(DEEPEST) for p in found}
    assert places == {
        "/info": "'version' is a required property",
        "/paths/~1a/get/responses/200/description": "1 is not of type 'string'",
        "/components/schemas/A/properties/b/minimum": "'x' is not of type 'number'",
    }


def test_each_finding_of_the_validator_names_its_place_in_the_document():
    """openapi-spec-validator reports what its keyword validators find (a schema's ``default``,
    a schema against its dialect, a duplicate operationId) with no place, and walks references
    as if their targets stood there: each finding is named at the place of the document that
    holds it, through the references, and an exception it raises at the object it was reading."""
    from generator.reading.validate import schema_problems
    from support.specdocs import PATH, document, obj

    raw = document(
        body={"$ref": "#/components/schemas/Settings"},
        schemas={
            "Settings": obj(
                rate={"type": "number", "default": "0.1"},
                mode={"$ref": "#/components/schemas/Mode"},
            ),
            "Mode": {"type": "string", "minLength": -1},
        },
    )
    raw["paths"]["/other"] = {
        "get": {"operationId": "makeThing", "responses": {"200": {"description": "ok"}}}
    }
    found = [(p.pointer, p.message) for p in schema_problems(raw, "doc.yaml")]
    assert sorted(found) == [
        ("/components/schemas/Mode/minLength", "-1 is less than the minimum of 0"),
        ("/components/schemas/Settings/properties/rate/default", "'0.1' is not of type 'number'"),
        (
            "/paths/~1other/get",
            "Operation ID 'makeThing' for 'get' in '/other' is not unique",
        ),
    ]
    raw["paths"][PATH]["post"]["responses"] = {200: {"description": "ok"}}  # a YAML number key
    (raised,) = schema_problems(raw, "doc.yaml")
    assert str(raised) == (
        "doc.yaml#/paths/~1things~1{thing_id}/post/responses: the key 200 is not a string (quote "
        "it): openapi-spec-validator stopped there (TypeError: expected string or bytes-like "
        "object, got 'int')"
    )


class _Lookup:
    def __contains__(self, key):
        return False

    def __getitem__(self, key):
        raise KeyError(key)

    def __len__(self):
        return 0


class _NotLooked(_Lookup):
    __len__ = None  # type: ignore[assignment]


class _GetOnly:
    def __getitem__(self, key):
        raise KeyError(key)


def test_the_worker_s_lookup_check_answers_as_pathable_s_protocol(monkeypatch):
    """The validator's worker replaces pathable's runtime protocol check by a cached one: the
    same answer for every kind of node, and the same findings on a faulty document."""
    from pathable import accessors, protocols

    from generator.reading.validate import cache_lookup_checks, schema_problems

    nodes = [{}, [], (), "text", b"bytes", 1, 1.5, None, True, object(), _Lookup(), _NotLooked()]
    nodes += [_GetOnly(), range(3), {1}, frozenset(), type, _Lookup]
    nodes += [SimpleNamespace(__contains__=len, __getitem__=len, __len__=len)]  # attributes
    nodes += [SimpleNamespace(__contains__=len, __getitem__=len, __len__=None)]
    protocol = protocols.Subscriptable
    raw = {
        "openapi": "3.1.0",
        "info": {"title": "t"},
        "paths": {"/a/{id}": {"get": {"responses": {"200": {"description": 1}}}}},
        "components": {"schemas": {"A": {"type": "nothing", "default": 3}}},
    }
    before = schema_problems(raw, "doc.yaml")
    monkeypatch.setattr(accessors, "Subscriptable", protocol)  # put back after the test
    cache_lookup_checks()
    cached = accessors.Subscriptable
    assert cached is not protocol
    assert [isinstance(node, cached) for node in nodes] == [
        isinstance(node, protocol) for node in nodes
    ]
    assert before and schema_problems(raw, "doc.yaml") == before


_FINDINGS_SCRIPT = """
import json, os, sys
from pathlib import Path
if sys.argv[1] == "own":
    import openapi_spec_validator  # the libraries' own settings, from the environment
if sys.argv[1] == "other":  # a release whose settings module has other names
    from generator.reading import validator_settings
    made = validator_settings._module
    validator_settings._module = lambda name, **names: made(name)
from generator.reading.validate import file_problems
found = [[str(p) for p in file_problems(Path(name))] for name in sys.argv[2:]]
print(json.dumps({"found": found, "pydantic": "pydantic" in sys.modules}))
"""


def _findings_in_a_process(mode: str, documents: list[Path], env: dict[str, str]) -> dict:
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _FINDINGS_SCRIPT, mode, *map(str, documents)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "env", [{}, {"OPENAPI_SPEC_VALIDATOR_SCHEMA_VALIDATOR_BACKEND": "jsonschema-rs"}]
)
def test_the_validator_with_its_settings_fixed_finds_what_it_finds_with_its_own(
    tmp_path, index, env
):
    """The generator imports the validator with its settings fixed, without pydantic (a fifth
    of its start): the same findings, on valid and faulty documents of both versions, as with
    the libraries' own settings read from the environment."""
    import os

    import yaml

    documents = [revision.file for revision in index]
    for version in ("3.0.3", "3.1.0"):
        faulty = {
            "openapi": version,
            "info": {"title": "t"},
            "paths": {
                "/a/{id}": {
                    "get": {"operationId": "a", "responses": {"200": {"description": 1}}},
                    "post": {"operationId": "a", "responses": {"200": {"description": "ok"}}},
                }
            },
            "components": {
                "schemas": {
                    "A": {"type": "nothing", "pattern": "^\\d+$"},
                    "B": {"type": "string", "default": 3, "minLength": -1},
                }
            },
        }
        documents.append(tmp_path / f"faulty-{version}.yaml")
        documents[-1].write_text(yaml.safe_dump(faulty))
    environment = {**os.environ, **env}
    fixed = _findings_in_a_process("fixed", documents, environment)
    own = _findings_in_a_process("own", documents, environment)
    assert not fixed["pydantic"] and own["pydantic"]
    assert fixed["found"] == own["found"]
    assert all(fixed["found"][-2:]) and not any(fixed["found"][:-2])


def test_a_validator_whose_settings_are_laid_out_otherwise_is_imported_as_it_is(tmp_path):
    """Where the libraries' settings modules have names the fixed ones lack (another release),
    the validator is imported with its own settings, and finds what it finds."""
    import os

    import yaml

    document = tmp_path / "faulty.yaml"
    document.write_text(yaml.safe_dump({"openapi": "3.1.0", "info": {"title": "t"}, "paths": {}}))
    other = _findings_in_a_process("other", [document], dict(os.environ))
    assert other["pydantic"]
    assert other["found"] == _findings_in_a_process("fixed", [document], dict(os.environ))["found"]
    assert other["found"][0]
