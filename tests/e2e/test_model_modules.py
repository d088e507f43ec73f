"""A document of many schemas: ``models.py`` is split into modules that import only the modules
before them, and the package works as if it were one module."""

from __future__ import annotations

import json
import re

import pytest

from generator.cli import main
from generator.views import pyparts
from support.packages import load_package
from support.pycode import assert_tidy
from support.specdocs import document
from support.typecheck import mypy_strict

SIZE = 10
CHAIN = 35  # Link0 <- Link1 <- ... : more modules than one
RING = 14  # Ring0 -> Ring1 -> ... -> Ring13 -> Ring0: one cycle, larger than a module


def schemas() -> dict:
    found: dict = {}
    for i in range(CHAIN):
        properties: dict = {
            "name": {"type": "string"},
            "kind": {"type": "string", "enum": ["a", "b"]},
        }
        if i:
            properties["previous"] = {"$ref": f"#/components/schemas/Link{i - 1}"}
        found[f"Link{i}"] = {"type": "object", "required": ["name"], "properties": properties}
    for i in range(RING):
        found[f"Ring{i}"] = {
            "type": "object",
            "properties": {"next": {"$ref": f"#/components/schemas/Ring{(i + 1) % RING}"}},
        }
    found["Either"] = {
        "oneOf": [{"$ref": "#/components/schemas/Link0"}, {"$ref": "#/components/schemas/Ring0"}]
    }
    found["Holder"] = {
        "type": "object",
        "properties": {
            "either": {"$ref": "#/components/schemas/Either"},
            "last": {"$ref": f"#/components/schemas/Link{CHAIN - 1}"},
        },
    }
    return found


@pytest.fixture(scope="module")
def split_package(tmp_path_factory):
    folder = tmp_path_factory.mktemp("split")
    source = folder / "many.json"
    source.write_text(
        json.dumps(
            document(
                body={"$ref": "#/components/schemas/Holder"},
                response={"$ref": "#/components/schemas/Holder"},
                schemas=schemas(),
            )
        )
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pyparts, "CLASSES_PER_MODULE", SIZE)
        status = main(
            ["generate", "--spec", str(source), "--out", str(folder / "out"), "--package", "many"]
        )
    assert status == 0
    return folder / "out"


def imports_of(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^from \._models_(\d+) import", text, re.MULTILINE)]


def test_each_module_imports_only_the_modules_before_it(split_package):
    modules = sorted((split_package / "many").glob("_models_*.py"))
    assert len(modules) > 2
    for module in modules:
        number = int(module.stem.removeprefix("_models_"))
        assert all(n < number for n in imports_of(module.read_text())), module.name
    ring_homes = {
        m.name for m in modules if re.search(r"^class Ring\d+\(", m.read_text(), re.MULTILINE)
    }
    assert len(ring_homes) == 1  # a cycle is never split


def test_models_exports_every_class_from_its_module(split_package):
    text = (split_package / "many" / "models.py").read_text()
    assert "class " not in text
    for name in [f"Link{i}" for i in range(CHAIN)] + [f"Ring{i}" for i in range(RING)]:
        assert f"    {name},\n" in text and f'"{name}",' in text


def test_the_split_package_reads_and_writes_nested_models(split_package):
    many = load_package(split_package, "many", "split_many")
    data = {"name": "x", "kind": "a"}
    for i in range(1, CHAIN):
        data = {"name": f"n{i}", "kind": "b", "previous": data}
    ring = {"next": {"next": {}}}
    holder = many.models.Holder.from_dict({"either": ring, "last": data})
    assert isinstance(holder.either, many.models.Ring0)
    assert holder.last.previous.previous.name == f"n{CHAIN - 3}"
    assert holder.to_dict() == {"either": ring, "last": data}


def test_the_split_package_is_black_s_layout_and_passes_mypy_strict(split_package, mypy_cache):
    assert_tidy(split_package)
    typed = mypy_strict(split_package, "many", cache=mypy_cache)
    assert typed.returncode == 0, typed.stdout[-3000:]


@pytest.mark.parametrize(
    "schemas",
    [
        {},
        {
            "Free": {"type": "object"},
            "Either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        },
        {"Kind": {"type": "string", "enum": ["x", "y"]}},
    ],
    ids=["no-schemas", "aliases-only", "enums-only"],
)
def test_a_document_without_models_gives_tidy_modules(tmp_path, schemas):
    source = tmp_path / "bare.json"
    source.write_text(json.dumps(document(schemas=schemas)))
    out = tmp_path / "out"
    assert main(["generate", "--spec", str(source), "--out", str(out), "--package", "bare"]) == 0
    assert_tidy(out)


def test_a_document_of_few_schemas_keeps_one_models_module(tmp_path):
    source = tmp_path / "few.json"
    body = {"type": "object", "properties": {"a": {"type": "string"}}}
    source.write_text(json.dumps(document(body=body, schemas={"A": body})))
    out = str(tmp_path / "out")
    assert main(["generate", "--spec", str(source), "--out", out, "--package", "few"]) == 0
    assert not list((tmp_path / "out" / "few").glob("_models_*.py"))
    assert "class A(Model)" in (tmp_path / "out" / "few" / "models.py").read_text()
