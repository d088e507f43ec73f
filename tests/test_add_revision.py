"""``python -m generator add-revision``: from the API's published document to a revision of spec/."""

from __future__ import annotations

import datetime
import shutil

import pytest
import yaml
from conftest import CORPUS, SPEC_DIR

from generator.cli import main
from generator.revisions import load_index
from generator.tree import read_tree


@pytest.fixture
def spec(tmp_path):
    """A copy of spec/ to add revisions to."""
    target = tmp_path / "spec"
    shutil.copytree(SPEC_DIR, target)
    return target


def next_date(spec) -> str:
    latest = max(r.date for r in load_index(spec) if r.date)
    return (latest + datetime.timedelta(days=1)).isoformat()


def add(spec, document, revision_id: str, *extra: str) -> int:
    return main(
        ["--spec-dir", str(spec), "add-revision", str(document), "--id", revision_id, *extra]
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
    assert "removed the request property `adam_params`" in out


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
    assert (
        "other.yaml#/paths: the document has no operation 'OptimStep', 'getOptimStepOperation'"
        in err
    )
    assert read_tree(spec) == before


def test_a_document_that_stays_invalid_is_refused_with_its_pointers(spec, tmp_path, capsys):
    doc = yaml.safe_load(load_index(spec)[-1].file.read_text())
    doc["components"]["schemas"]["RLAdamParams"]["properties"]["beta1"]["type"] = "numbr"
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(doc, sort_keys=False))
    before = read_tree(spec)
    assert add(spec, broken, "broken1") == 1
    captured = capsys.readouterr()
    assert "broken1.yaml#/components/schemas/RLAdamParams/properties/beta1/type" in captured.out
    assert "spec/ is unchanged" in captured.err
    assert read_tree(spec) == before


def test_a_missing_document_is_a_clear_error(spec, tmp_path, capsys):
    assert add(spec, tmp_path / "nowhere.yaml", "x1") == 1
    assert "nowhere.yaml#/: cannot read the file" in capsys.readouterr().err
