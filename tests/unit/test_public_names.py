"""Public names are a promise: a component schema renamed with the same shape keeps its old name
importable (deprecated) and is a minor release; a public name gone is a major one. Revision ids
are compared without their case, since they name files and folders."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.changes.diff import COMPONENTS, Level, diff_documents, renamed_schemas
from generator.changes.versions import package_versions
from generator.errors import RevisionError
from generator.reading.revisions import Revision, load_index
from generator.views.pymodel import build_module
from support.paths import SPEC_DIR
from support.specdocs import document, newest_renamed, obj, parse, rename

NUM = {"type": "number"}
PARAMS = obj(learning_rate=NUM, beta1=NUM)


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def body_with(name: str, schema: dict[str, Any] = PARAMS, **extra: Any) -> dict[str, Any]:
    """A document whose request body has ``adam`` (and ``muon/adam``) of the component ``name``."""
    return document(
        ref("Body"),
        schemas={
            "Body": obj(adam=ref(name), muon=ref("Muon")),
            "Muon": obj(adam=ref(name)),
            name: schema,
            **extra,
        },
    )


def component_changes(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (c.level.value, c.check, c.message)
        for c in diff_documents(parse(old), parse(new))
        if c.operation == COMPONENTS
    ]


# -- the diff -------------------------------------------------------------------------------------


def test_a_component_renamed_with_the_same_shape_is_an_info_change():
    old = body_with("AdamParams")
    new = parse(rename(old, "AdamParams", "AdamWParams"))
    assert [c.operation for c in diff_documents(parse(old), new)] == [COMPONENTS]
    assert component_changes(old, rename(old, "AdamParams", "AdamWParams")) == [
        (
            "info",
            "api-schema-renamed",
            "renamed the schema `AdamParams` to `AdamWParams`; the old name stays importable, "
            "deprecated",
        )
    ]


def test_a_renamed_component_whose_shape_changed_is_removed_and_its_changes_listed():
    old = body_with("AdamParams")
    new = body_with("AdamWParams", obj(learning_rate=NUM))
    changes = diff_documents(parse(old), parse(new))
    assert [(c.level, c.check, c.path) for c in changes if c.operation == COMPONENTS] == [
        (Level.WARNING, "api-schema-removed", "AdamParams")
    ]
    assert {c.path for c in changes if c.check == "request-property-removed"} == {
        "adam/beta1",
        "muon/adam/beta1",
    }


def test_a_component_now_inline_where_it_was_is_removed():
    old = body_with("AdamParams")
    new = copy.deepcopy(old)
    schemas = new["components"]["schemas"]
    schemas["Body"]["properties"]["adam"] = copy.deepcopy(PARAMS)
    schemas["Muon"]["properties"]["adam"] = copy.deepcopy(PARAMS)
    del schemas["AdamParams"]
    assert component_changes(old, new) == [
        (
            "warning",
            "api-schema-removed",
            "removed the schema `AdamParams`; the old name is no longer importable",
        )
    ]


def test_a_component_that_went_with_its_places_is_reported_by_them_alone():
    old = body_with("AdamParams")
    new = document(ref("Body"), schemas={"Body": obj(muon=ref("Muon")), "Muon": obj()})
    changes = diff_documents(parse(old), parse(new))
    assert not [c for c in changes if c.operation == COMPONENTS]
    assert "request-property-removed" in {c.check for c in changes}


def test_two_places_that_now_hold_two_components_are_no_rename():
    old = body_with("AdamParams")
    new = copy.deepcopy(old)
    schemas = new["components"]["schemas"]
    schemas["Body"]["properties"]["adam"] = ref("A")
    schemas["Muon"]["properties"]["adam"] = ref("B")
    schemas["A"] = schemas["B"] = schemas.pop("AdamParams")
    assert renamed_schemas(parse(old), parse(new)) == {}
    assert [check for _, check, _ in component_changes(old, new)] == ["api-schema-removed"]


def test_the_diff_command_prints_a_rename(tmp_path, capsys):
    from generator.cli import main

    old = body_with("AdamParams")
    paths = []
    for name, raw in (("old", old), ("new", rename(old, "AdamParams", "AdamWParams"))):
        paths.append(tmp_path / f"{name}.yaml")
        paths[-1].write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert main(["diff", *map(str, paths), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"## `{COMPONENTS}`\n\n- **info** `api-schema-renamed`: renamed")


# -- the package's names and versions -------------------------------------------------------------


def revisions(*raws: dict[str, Any]) -> list[Revision]:
    """A stream of revisions of the documents, ``r0``, ``r1``, ..."""
    result = []
    for number, raw in enumerate(raws):
        raw = copy.deepcopy(raw)
        raw["info"]["version"] = f"r{number}"
        result.append(Revision.of_document(parse(raw), Path(f"r{number}.yaml")))
    return result


def deprecated(stream: list[Revision], position: int = -1) -> dict[str, tuple[str, str]]:
    module = build_module(stream, position % len(stream))
    return {r.name: (r.target, r.revision) for r in module.renamed}


def test_the_old_name_stays_an_alias_of_the_renamed_class_while_it_lasts():
    first = body_with("AdamParams")
    second = rename(first, "AdamParams", "AdamWParams")
    third = rename(second, "AdamWParams", "AdamXParams")
    stream = revisions(first, second, second, third)
    assert deprecated(stream, 0) == {}
    assert deprecated(stream, 1) == {"AdamParams": ("AdamWParams", "r1")}
    assert deprecated(stream, 2) == {"AdamParams": ("AdamWParams", "r1")}  # carried forward
    assert deprecated(stream, 3) == {
        "AdamParams": ("AdamXParams", "r1"),
        "AdamWParams": ("AdamXParams", "r3"),
    }
    assert [v.version for v in package_versions(stream)] == ["1.0.0", "1.1.0", "1.1.1", "1.2.0"]


def test_an_alias_ends_where_its_name_is_reused_or_its_class_is_removed():
    first = body_with("AdamParams")
    second = rename(first, "AdamParams", "AdamWParams")
    reused = body_with("AdamWParams", AdamParams={"type": "string"})
    reused["components"]["schemas"]["Body"]["properties"]["other"] = ref("AdamParams")
    assert deprecated(revisions(first, second, reused)) == {}
    gone = document(ref("Body"), schemas={"Body": obj(muon=ref("Muon")), "Muon": obj()})
    stream = revisions(first, second, gone)
    assert deprecated(stream) == {}
    assert [v.version for v in package_versions(stream)] == ["1.0.0", "1.1.0", "2.0.0"]


def test_a_public_name_removed_without_an_alias_is_a_major_release():
    first = body_with("AdamParams")
    new = body_with("AdamWParams", obj(learning_rate=NUM, beta1=NUM, beta2=NUM))
    stream = revisions(first, new)
    assert deprecated(stream) == {}
    (entry,) = [v for v in package_versions(stream) if not v.first]
    assert entry.version == "2.0.0"
    assert ("api-schema-removed", "AdamParams") in {(c.check, c.path) for c in entry.changes}


def test_a_rename_of_the_newest_revision_keeps_its_old_name_importable(tmp_path):
    raw, old, new = newest_renamed()
    index = load_index(SPEC_DIR)
    stream = list(index) + revisions(raw)[:1]
    module = build_module(stream, len(stream) - 1)
    before = build_module(list(index), len(index) - 1)
    old_class = before.classes[old]
    # the old name, and the names kept for it before, all lead to the renamed class
    carried = [r.name for r in before.renamed if r.target == old_class]
    assert sorted(r.name for r in module.renamed if r.target == module.classes[new]) == sorted(
        [*carried, old_class]
    )
    assert old_class not in module.exports  # importable, never listed in __all__


# -- revision ids ---------------------------------------------------------------------------------


def with_letters(spec) -> Revision:
    """The newest revision whose id has a letter (one of digits alone has no other case)."""
    return next(r for r in reversed(list(load_index(spec))) if r.id.lower() != r.id.upper())


def test_an_id_differing_only_in_case_is_refused_by_add_revision(spec, capsys):
    from generator.cli import main

    newest = with_letters(spec)
    before = {p.name: p.read_bytes() for p in spec.iterdir()}
    other = newest.id.upper() if newest.id != newest.id.upper() else newest.id.lower()
    args = ["--spec-dir", str(spec), "add-revision", str(newest.file), "--id", other]
    assert main([*args, "--date", "unknown"]) == 1
    err = capsys.readouterr().err
    assert f"revision {other!r} differs only in case from revision {newest.id!r}" in err
    assert {p.name: p.read_bytes() for p in spec.iterdir()} == before


def test_an_index_with_ids_differing_only_in_case_is_refused(spec):
    newest = with_letters(spec)
    other = newest.id.swapcase()
    shutil.copy(newest.file, spec / f"{other}-copy.yaml")
    with (spec / "revisions.yaml").open("a", encoding="utf-8") as index:
        index.write(f"  - id: '{other}'\n    date: null\n    file: {other}-copy.yaml\n")
        index.write("    note: a copy\n")
    with pytest.raises(RevisionError, match=f"differs only in case from revision '{newest.id}'"):
        load_index(spec)


def test_a_lookup_in_another_case_is_refused_naming_the_revision(capsys):
    from generator.cli import main

    newest = with_letters(SPEC_DIR)
    other = newest.id.swapcase()
    with pytest.raises(RevisionError, match=f"did you mean '{newest.id}'"):
        load_index(SPEC_DIR).get(other)
    assert main(["diff", other, newest.id]) == 1
    assert f"did you mean {newest.id!r}" in capsys.readouterr().err


# -- the generated package ------------------------------------------------------------------------
