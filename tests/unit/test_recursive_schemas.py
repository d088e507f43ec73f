"""A schema that refers to itself through any keyword that nests a schema (``additionalProperties``,
``items``, ``prefixItems``, ``oneOf``/``anyOf``, the inline objects inside those) is a named type: its package
imports, a nested value goes through its models both ways, a wrong value deep inside is refused
at its path, and the work of naming a graph of a thousand recursive schemas grows with the
graph, not beyond."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from generator.reading.parser import parse_document
from generator.reading.revisions import Revision
from generator.reading.values import sample
from generator.views import pymodel, pyparts
from generator.views.naming import Namespace
from support.pycode import assert_tidy
from support.recursive import CASES, document, every_case, ref
from support.rendered import render_package


@pytest.mark.parametrize("case", CASES)
def test_a_recursive_schema_is_a_named_type_that_round_trips(tmp_path, case):
    schemas, field, value, (wrong, where) = CASES[case]
    package, models, _ = render_package(tmp_path, document(schemas, {"tree": field}), f"rec_{case}")
    holder = models.Holder.from_dict({"tree": value})
    assert as_json(holder.to_dict()) == {"tree": value}  # a tuple (prefixItems) is an array
    assert models.Holder.from_json(holder.to_json()) == holder
    with pytest.raises(package.ValidationError) as caught:
        models.Holder.from_dict({"tree": wrong})
    assert caught.value.path.startswith(where), caught.value.path
    named = pymodel.class_name(field["$ref"].rsplit("/", 1)[-1])
    assert named in models.__all__
    # the examples and the tests' bodies are samples: a recursive schema's is finite and valid
    doc = parse_document(document(schemas, {"tree": field}), source="x.json", lenient=True)
    for full in (False, True):
        example = {"tree": sample(doc, doc.schemas["Holder"].properties[0].schema, full=full)}
        assert as_json(models.Holder.from_dict(example).to_dict()) == example


def test_inline_objects_of_a_recursive_list_are_one_class(tmp_path):
    """The item object of a list that refers back to the list is named once, where the list
    is, not again at each place that uses the list (which never ended)."""
    schemas, field, value, _ = CASES["inline_object_in_items"]
    fields = {"tree": field, "other": field, "more": {"type": "array", "items": field}}
    _, models, folder = render_package(tmp_path, document(schemas, fields), "rec_inline_once")
    item = [name for name in models.__all__ if name.startswith("Nodes")]
    assert item == ["Nodes", "NodesItem"]
    holder = models.Holder.from_dict({"tree": value, "more": [value]})
    assert isinstance(holder.tree[0], models.NodesItem)
    assert isinstance(holder.more[0][0].recursive[0], models.NodesItem)
    assert "'list[NodesItem]'" in (folder / "models.py").read_text().replace('"', "'")


def test_the_client_reads_and_writes_a_recursive_answer(tmp_path):
    schemas, field, value, _ = CASES["any_of_nullable"]
    package, models, _ = render_package(
        tmp_path, document(schemas, {"tree": field}, "Json"), "rec_client"
    )
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=value)

    transport = httpx.MockTransport(answer)
    with package.Client(base_url="http://api.test", api_key="k", transport=transport) as client:
        assert client.send(tree=value) == value
    assert sent == [{"tree": value}]


@pytest.mark.parametrize("split", [False, True], ids=["one_module", "split"])
def test_every_kind_of_recursion_in_one_package_is_tidy(tmp_path, monkeypatch, split):
    """The package is laid out as black does and imports what it uses; where ``models.py`` is
    split, a class in one module that holds a recursive alias of another imports the alias and
    its reader and writer from there."""
    if split:
        monkeypatch.setattr(pyparts, "CLASSES_PER_MODULE", 3)
    raw, _, value = every_case()
    _, models, folder = render_package(tmp_path, raw, f"rec_every_{'split' if split else 'one'}")
    assert_tidy(folder)
    assert bool(list(folder.glob("_models_*.py"))) == split
    assert as_json(models.Holder.from_dict(value).to_dict()) == value


def as_json(value: object) -> object:
    """``value`` as JSON reads it back (a tuple as a list)."""
    return json.loads(json.dumps(value))


def test_an_optional_argument_that_may_be_null_says_none_once(tmp_path):
    raw = document({}, {"name": {"type": "string"}})
    raw["paths"]["/holders"]["post"]["parameters"] = [
        {
            "name": "import",
            "in": "query",
            "schema": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        }
    ]
    raw["openapi"] = "3.1.0"
    _, _, folder = render_package(tmp_path, raw, "rec_optional")
    client = (folder / "_client.py").read_text()
    assert "import_: str | None = None" in client
    assert "None | None" not in client


# -- the work grows with the document ---------------------------------------------------------


def recursive_graph(n: int) -> dict:
    """``n`` schemas of each kind: a ring of lists, maps and unions that name the next one, lists
    whose item objects name the list, and models that hold one of each."""
    schemas: dict = {}
    for i in range(n):
        nxt = ref(f"Ring{(i + 1) % n}")
        ring = [
            {"type": "array", "items": nxt},
            {"type": "object", "additionalProperties": nxt},
            {"oneOf": [nxt, {"type": "string"}]},
        ]
        schemas[f"Ring{i}"] = ring[i % 3]
        schemas[f"Self{i}"] = {
            "type": "array",
            "items": {"type": "object", "properties": {"next": ref(f"Self{i}")}},
        }
        schemas[f"Model{i}"] = {
            "type": "object",
            "properties": {"ring": ref(f"Ring{i}"), "self": ref(f"Self{i}")},
        }
    return document(schemas, {"first": ref("Model0")})


def counted_build(monkeypatch, n: int) -> tuple[pymodel.PyModule, dict[str, int]]:
    """The models of :func:`recursive_graph`, with how often the types were asked for and how
    many class names were claimed."""
    counts = {"types": 0, "claims": 0}
    types, claim = pymodel._Builder.types, Namespace.claim

    def counted_types(self, *args, **kwargs):
        counts["types"] += 1
        return types(self, *args, **kwargs)

    def counted_claim(self, *args, **kwargs):
        counts["claims"] += 1
        return claim(self, *args, **kwargs)

    monkeypatch.setattr(pymodel._Builder, "types", counted_types)
    monkeypatch.setattr(Namespace, "claim", counted_claim)
    doc = parse_document(recursive_graph(n), source="graph.json", lenient=True)
    module = pymodel.build_module([Revision.of_document(doc, Path("graph.json"))], 0)
    return module, counts


def test_a_thousand_recursive_schemas_take_work_linear_in_their_number(monkeypatch):
    n = 1000
    module, counts = counted_build(monkeypatch, n)
    schemas = 3 * n + 1
    recursive = {a.name for a in module.aliases if a.recursive}
    assert recursive == {f"Ring{i}" for i in range(n)} | {f"Self{i}" for i in range(n)}
    assert {m.name for m in module.models} >= {f"Self{i}Item" for i in range(n)}
    # each schema's type is asked for where it is defined and once per place that names it, and
    # each name is claimed once: never a number of times that grows with the graph
    assert counts["types"] <= 2 * schemas, counts
    assert counts["claims"] <= 3 * schemas, counts
