"""``python -m generator add-revision``: from the API's published document to a revision of spec/."""

from __future__ import annotations

import datetime
import shutil

import pytest
import yaml

from generator.changes import changelog
from generator.cli import main
from generator.english import listing
from generator.output.tree import read_tree
from generator.pointer import references
from generator.reading.fieldroles import load_field_roles
from generator.reading.parser import parse_document
from generator.reading.revisions import load_index
from generator.reading.upstream import load_operations
from support.nextrevision import Places, at
from support.paths import CORPUS, ROOT, SPEC_DIR


def next_date(spec) -> str:
    latest = max(r.date for r in load_index(spec) if r.date)
    return (latest + datetime.timedelta(days=1)).isoformat()


def add(spec, document, revision_id: str, *extra: str) -> int:
    """``add-revision``; the date ``unknown`` where ``extra`` gives none."""
    dated = extra if "--date" in extra else ("--date", "unknown", *extra)
    return main(
        ["--spec-dir", str(spec), "add-revision", str(document), "--id", revision_id, *dated]
    )


def test_the_published_document_is_cut_to_the_operations_and_normalised(spec, capsys):
    if not CORPUS.is_file():
        pytest.skip("the corpus document is not beside the project")
    date = next_date(spec)
    assert add(spec, CORPUS, "upstream1", "--date", date) == 0
    out = capsys.readouterr().out
    # what the project's documents needed, each reported with its pointer
    for note in (
        "#/components/schemas/RL.OptimStepBody: renamed to RLOptimStepBody",
        "#/components/schemas/ErrorData/properties/error: the inline object is the schema "
        "ErrorDetails, as the previous revision names it",
        "#/components/schemas/RLAdamWOptimizerParams/properties/beta1/default: string '0.9' "
        "read as the number 0.9",
        "#/components/schemas/RLAdamWOptimizerParams/properties/eps/example: string '1e-08' "
        "read as the number 1e-08",
        "#/components/schemas/ErrorDetails/properties/param: `nullable: true` written as "
        "`type: [string, 'null']`",
        "#/info/version: '2.0.0' set to the revision id 'upstream1'",
    ):
        assert f"normalised {note}\n" in out
    index = load_index(spec)
    new = index[-1]
    assert (new.id, new.file.name, str(new.date)) == ("upstream1", "upstream1.yaml", date)
    raw = yaml.safe_load(new.file.read_text())
    assert sorted(op["operationId"] for item in raw["paths"].values() for op in item.values()) == [
        "OptimStep",
        "getOptimStepOperation",
    ]
    assert all("." not in name for name in raw["components"]["schemas"])
    assert "RL.SampleBody" not in raw["components"]["schemas"]  # not reached from optim-step
    assert (
        raw["components"]["schemas"]["RLAdamWOptimizerParams"]["properties"]["beta1"]["default"]
        == 0.9
    )
    assert main(["--spec-dir", str(spec), "validate", str(new.file)]) == 0
    # and the diff against the revision before it
    assert f"changes from {index[-2].id} to upstream1 (descriptions included):" in out


def test_a_document_that_drops_what_an_earlier_revision_added_is_pointed_out(
    spec, tmp_path, capsys
):
    """A document older than the newest revision lacks what later revisions added: the diff
    reports it as removed, and add-revision says which revision added it."""
    index = load_index(spec)
    newest = yaml.safe_load(index[-1].file.read_text())
    history = changelog.history(index)
    added = next(
        (entry.revision, change)
        for entry in history
        for change in entry.changes
        if change.check == "new-optional-request-property"
        and "/" not in change.path
        and change.path in body_properties(newest)
    )
    revision, change = added
    body_properties(newest).pop(change.path)
    older = tmp_path / "older.yaml"
    older.write_text(yaml.safe_dump(newest, sort_keys=False))
    assert add(spec, older, "older1") == 0
    err = capsys.readouterr().err
    # the operation as the newest revision names it (a path parameter may have been renamed)
    operation = index[-1].document.operation(change.operation)
    assert (
        f"warning: {operation.key}: the document removes the request property "
        f"`{change.path}`, which revision {revision.id}, {revision.date} added "
        f"({change.message}); is the document older than revision {index[-1].id}?"
    ) in err


def body_properties(raw: dict) -> dict:
    """The properties of the served operation's request body schema, in a decoded document."""
    roles = load_field_roles(SPEC_DIR)
    doc = parse_document(raw, source="doc.yaml")
    body = doc.operation(roles.operation).request_body.schema
    return at(raw, doc.resolve(body).pointer)["properties"]


def test_the_date_is_required_and_unknown_says_so_on_purpose(spec, capsys):
    newest = load_index(spec)[-1].file
    with pytest.raises(SystemExit):
        main(["--spec-dir", str(spec), "add-revision", str(newest), "--id", "nodate1"])
    assert "the following arguments are required: --date" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--spec-dir", str(spec), "add-revision", str(newest), "--id", "x1", "--date", "soon"])
    assert "'soon' is not a date (YYYY-MM-DD, or `unknown`)" in capsys.readouterr().err
    assert add(spec, newest, "unknown1", "--date", "unknown") == 0
    assert load_index(spec)[-1].date is None


def test_a_document_identical_to_the_previous_revision_is_accepted_with_a_note(spec, capsys):
    assert add(spec, load_index(spec)[-1].file, "same2", "--date", next_date(spec)) == 0
    assert "none: the kept operations are as in the previous revision" in capsys.readouterr().out


def test_the_index_keeps_its_comments_and_gains_one_entry(spec):
    before = (spec / "revisions.yaml").read_text()
    newest = load_index(spec)[-1]
    assert add(spec, newest.file, "same1", "--note", "The same operations, again.") == 0
    after = (spec / "revisions.yaml").read_text()
    assert after.startswith(before)
    entry = load_index(spec)[-1]
    assert (entry.id, entry.date, entry.note) == ("same1", None, "The same operations, again.")


@pytest.mark.parametrize(
    ("revision_id", "extra", "message"),
    [
        ("baseline", (), "revision 'baseline' is already in"),
        ("../escape", (), "is not a revision id"),
        ("late1", ("--date", "2026-01-01"), "is before that of revision"),
    ],
)
def test_refusals_leave_spec_untouched(spec, capsys, revision_id, extra, message):
    before = read_tree(spec)
    assert add(spec, load_index(spec)[-1].file, revision_id, *extra) == 1
    assert message in capsys.readouterr().err
    assert read_tree(spec) == before


def test_a_document_without_the_operations_is_refused(spec, tmp_path, capsys):
    other = tmp_path / "other.yaml"
    other.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n"
        "  /models:\n    get:\n      operationId: listModels\n      responses: {'200': {description: ok}}\n"
    )
    before = read_tree(spec)
    assert add(spec, other, "other1") == 1
    err = capsys.readouterr().err
    kept = [repr(name) for name in load_operations(SPEC_DIR)]
    assert f"other.yaml#/paths: the document lacks the operations {listing(kept)}" in err
    assert read_tree(spec) == before


def test_a_document_that_stays_invalid_is_refused_with_its_pointers(spec, tmp_path, capsys):
    doc = yaml.safe_load(load_index(spec)[-1].file.read_text())
    beta1 = Places(doc, spec).setting("adam", "beta1").schema.pointer
    at(doc, beta1)["type"] = "numbr"
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(doc, sort_keys=False))
    before = read_tree(spec)
    assert add(spec, broken, "broken1") == 1
    captured = capsys.readouterr()
    # named as the file given (spec/broken1.yaml was never written)
    assert f"{broken} (normalised)#{beta1}/type" in captured.out
    assert "spec/broken1.yaml" not in captured.out
    assert f"{broken} is not valid, normalised as revision broken1; spec/ is unchanged" in (
        captured.err
    )
    assert read_tree(spec) == before


def test_a_description_that_names_the_old_version_names_the_new_revision(spec, tmp_path, capsys):
    newest = load_index(spec)[-1]
    doc = yaml.safe_load(newest.file.read_text())
    old = doc["info"]["version"]
    doc["info"]["description"] = f"Revision {old} of the API (not {old}x)."
    given = tmp_path / "given.yaml"
    given.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert add(spec, given, "fresh1") == 0
    assert (
        f"normalised #/info/description: the revision {old!r} it names replaced by 'fresh1'"
        in capsys.readouterr().out
    )
    written = yaml.safe_load(load_index(spec).get("fresh1").file.read_text())["info"]
    assert written == {**doc["info"], "version": "fresh1"} | {
        "description": f"Revision fresh1 of the API (not {old}x)."
    }


def test_a_dangling_ref_is_refused_at_the_place_of_the_ref(spec, tmp_path, capsys):
    doc = yaml.safe_load(load_index(spec)[-1].file.read_text())
    ref, place = next(
        (ref, place)
        for ref, place in references(doc["paths"], "/paths")
        if ref.startswith("#/components/schemas/")
    )
    at(doc, place.removesuffix("/$ref"))["$ref"] = ref + "Gone"
    dangling = tmp_path / "dangling.yaml"
    dangling.write_text(yaml.safe_dump(doc, sort_keys=False))
    before = read_tree(spec)
    assert add(spec, dangling, "dangling1") == 1
    assert f"{dangling}#{place}: $ref target {ref}Gone does not exist" in capsys.readouterr().err
    assert read_tree(spec) == before


def test_a_missing_document_is_a_clear_error(spec, tmp_path, capsys):
    assert add(spec, tmp_path / "nowhere.yaml", "x1") == 1
    assert "nowhere.yaml#/: cannot read the file" in capsys.readouterr().err


@pytest.fixture
def project(tmp_path, spec):
    """spec/ copied, with the README and COMPATIBILITY.md as generate leaves them."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copy(ROOT / "COMPATIBILITY.md", tmp_path / "COMPATIBILITY.md")
    (tmp_path / "generated").mkdir()
    return tmp_path


def remove(project, revision_id: str) -> int:
    return main(
        [
            "--spec-dir",
            str(project / "spec"),
            "remove-revision",
            revision_id,
            "--out",
            str(project / "generated"),
            "--readme",
            str(project / "README.md"),
        ]
    )


def test_remove_revision_takes_back_the_newest_revision_everywhere(project, capsys):
    before = read_tree(project)
    assert add(project / "spec", load_index(project / "spec")[-1].file, "oops1") == 0
    package = project / "generated" / "oops1"
    (package / "together_rl").mkdir(parents=True)
    (package / "pyproject.toml").write_text("[project]\nname = 'together-rl'\n")
    (package / "together_rl" / "_revision.py").write_text("SPEC_REVISION = 'oops1'\n")
    assert main(["--spec-dir", str(project / "spec"), "compat"]) == 0
    readme = project / "README.md"
    from generator.project import Project

    for document in Project(project / "spec", project / "generated", readme).documents():
        document.write()
    assert "`oops1`" in readme.read_text()
    capsys.readouterr()
    assert remove(project, "oops1") == 0
    out = capsys.readouterr().out
    assert "removed revision oops1" in out and f"deleted {package}" in out
    assert read_tree(project) == before


@pytest.mark.parametrize("released", [False, True])
def test_remove_revision_refuses_all_but_an_unreleased_newest_revision(project, capsys, released):
    spec = project / "spec"
    index = load_index(spec)
    if released:
        (spec / "releases.yaml").write_text(
            "releases:\n"
            f"  - {{distribution: together-rl, version: 9.9.9, revision: '{index[-1].id}'}}\n"
        )
        target, words = index[-1].id, "was released as together-rl 9.9.9"
    else:
        target, words = index[0].id, "is not the newest"
    before = read_tree(project)
    assert remove(project, target) == 1
    assert words in capsys.readouterr().err
    assert read_tree(project) == before
