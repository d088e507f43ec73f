"""Revisions are an open, append-only stream: in a copy of the project, a new revision is added
with ``add-revision`` and generated with no code change, and no released package changes."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import yaml

from generator.output.readme import END, START
from generator.output.tree import read_tree
from generator.reading.revisions import load_index
from support import facts
from support.nextrevision import Places, at
from support.packages import load
from support.paths import SPEC_DIR
from support.projects import append_revision, copy_project

# Names no real revision uses, so that the test holds whatever revisions spec/ gains.
NEW_ID = "a11ce0ffee00"
BODY_FIELD = "stream_probe_scale"
OPTIONAL_HEADER, REQUIRED_HEADER = "X-Stream-Probe-Tag", "X-Stream-Probe-Team"
NEW_STATUS = "TRAINING_OPERATION_STATUS_STREAM_PROBE"
NEW_DESCRIPTION = "Submits an optimizer step; the step applies the accumulated gradients."


def table_rows(readme: str) -> list[str]:
    """The rows of the README's revision table."""
    table = readme[readme.index(START) : readme.index(END)]
    return re.findall(r"^\| `\w+` \|.*$", table, re.M)


def next_revision(doc: dict) -> None:
    """A new optional body field, a new optional and a new required header parameter, a new
    value of the status enum (with no entry in spec/statuses.yaml) and a changed description."""
    places = Places(doc, SPEC_DIR)
    at(doc, places.body.pointer)["properties"][BODY_FIELD] = {
        "type": "number",
        "description": "Factor the loss was scaled by before the backward pass",
    }
    places.post["description"] = NEW_DESCRIPTION
    for name, required in ((OPTIONAL_HEADER, False), (REQUIRED_HEADER, True)):
        places.set_header(
            {"name": name, "in": "header", "required": required, "schema": {"type": "string"}}
        )
    at(doc, places.status().pointer)["enum"].append(NEW_STATUS)


@pytest.fixture(scope="module")
def appended(tmp_path_factory):
    """The project copied, a revision added with ``add-revision`` and ``generate`` run."""
    project = copy_project(tmp_path_factory.mktemp("project"))
    index = load_index(project / "spec")
    before = read_tree(project / "generated")
    readme_before = (project / "README.md").read_text(encoding="utf-8")
    added, generated = append_revision(project, NEW_ID, next_revision)
    return project, index, before, readme_before, added, generated


def test_add_revision_and_generate_succeed_with_no_code_change(appended):
    project, _, _, _, added, generated = appended
    assert added.returncode == 0, added.stderr
    assert generated.returncode == 0, generated.stderr
    assert NEW_ID in [r.id for r in load_index(project / "spec")]
    assert (project / "generated" / NEW_ID / "together_rl" / "_revision.py").is_file()


def test_the_diff_names_each_change_at_its_level(appended):
    added = appended[4].stdout
    lines = added[added.index("changes from") :].splitlines()[1:]
    expected = [
        (
            "error",
            "new-required-request-parameter",
            f"`header` request parameter `{REQUIRED_HEADER}`",
        ),
        ("warning", "response-property-enum-value-added", f"`{NEW_STATUS}` enum value"),
        (
            "info",
            "new-optional-request-parameter",
            f"`header` request parameter `{OPTIONAL_HEADER}`",
        ),
        ("info", "new-optional-request-property", f"request property `{BODY_FIELD}`"),
        ("info", "operation-description-changed", "the operation's description changed"),
    ]
    for level, check, words in expected:
        assert any(line.split()[:2] == [level, check] and words in line for line in lines), (
            level,
            check,
            lines,
        )


def test_the_new_package_s_version_follows_the_rule(appended):
    project, index, *_ = appended
    import tomllib

    def version(revision_id: str) -> str:
        text = (project / "generated" / revision_id / "pyproject.toml").read_text()
        return tomllib.loads(text)["project"]["version"]

    major = int(version(index[-1].id).split(".")[0])
    assert version(NEW_ID) == f"{major + 1}.0.0"  # a required parameter breaks callers


def test_older_packages_are_byte_identical(appended):
    project, index, before, *_ = appended
    after = read_tree(project / "generated")
    for revision in index:
        prefix = f"{revision.id}/"
        old = {p: c for p, c in before.items() if p.startswith(prefix)}
        new = {p: c for p, c in after.items() if p.startswith(prefix)}
        assert old == new, revision.id


def test_the_readme_table_only_gains_a_row(appended):
    project, _, _, readme_before, *_ = appended
    old = table_rows(readme_before)
    new = table_rows((project / "README.md").read_text(encoding="utf-8"))
    assert new[: len(old)] == old and len(new) == len(old) + 1
    assert new[-1].startswith(f"| `{NEW_ID}` |")


def newest_places(project) -> Places:
    newest = load_index(project / "spec")[-1].file
    return Places(yaml.safe_load(newest.read_text(encoding="utf-8")), project / "spec")


def test_generate_warns_of_the_field_without_a_role_with_its_pointer(appended):
    project, generated = appended[0], appended[5]
    places = newest_places(project)
    assert (
        f"{NEW_ID}.yaml#{places.body.pointer}/properties/{BODY_FIELD}: "
        f"the request field `{BODY_FIELD}` of revision {NEW_ID} has no role in the local reference"
    ) in generated.stderr


def test_add_revision_and_generate_warn_of_the_status_without_an_entry(appended):
    project, added, generated = appended[0], appended[4], appended[5]
    places = newest_places(project)
    position = [str(v) for v in places.status().values].index(NEW_STATUS)
    where = f"{NEW_ID}.yaml#{places.status().pointer}/enum/{position}: the status value"
    assert f"{where} `{NEW_STATUS}` has no entry in " in added.stderr
    assert (
        f"{where} `{NEW_STATUS}` of revision {NEW_ID} has no entry in spec/statuses.yaml"
    ) in generated.stderr


def test_the_new_client_sends_the_new_field_and_headers(appended):
    project = appended[0]
    package = load(NEW_ID, project / "generated")
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"id": "op-1", "status": NEW_STATUS})

    revision = facts.of(project / "spec")
    required = revision.required_body(NEW_ID)
    arguments = {k: v for k, v in revision.required_arguments(NEW_ID).items()}
    arguments |= {"x_stream_probe_team": "team-7", "x_stream_probe_tag": "tag-1"}
    with package.Client(api_key="k", transport=httpx.MockTransport(answer)) as client:
        operation = client.optim_step("s-1", stream_probe_scale=2.0, **required, **arguments)
    assert json.loads(sent[0].content) == {**required, BODY_FIELD: 2.0}
    assert sent[0].headers[REQUIRED_HEADER] == "team-7"
    assert sent[0].headers[OPTIONAL_HEADER] == "tag-1"
    assert operation.status == NEW_STATUS and type(operation.status) is not str  # an enum member


def test_the_new_reference_refuses_the_field_it_does_not_implement(appended):
    torch = pytest.importorskip("torch")
    project = appended[0]
    load(NEW_ID, project / "generated")
    reference = __import__(f"together_rl_{NEW_ID}.reference", fromlist=["LocalSession"])
    model = torch.nn.Linear(2, 1)
    model(torch.ones(1, 2)).sum().backward()
    session = reference.LocalSession(model, "adam")
    before = [p.detach().clone() for p in model.parameters()]
    revision = facts.of(project / "spec")
    required = revision.required_body(NEW_ID)
    operation = session.optim_step({**required, BODY_FIELD: 2.0})
    assert operation.status in revision.statuses(NEW_ID, "failed")
    assert operation.error.code == "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
    assert operation.error.message == (
        f"{BODY_FIELD}: the local reference does not implement this field yet, got 2.0"
    )
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    assert session.optim_step(required).status in revision.statuses(NEW_ID, "succeeded")


def test_the_compatibility_matrix_gains_a_row_and_a_column(appended):
    project = appended[0]
    text = (project / "COMPATIBILITY.md").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line.startswith("| client \\ server"))
    assert header.endswith(f"| `{NEW_ID}` |")
    assert any(line.startswith(f"| `{NEW_ID}` |") for line in text.splitlines())
    readme = (project / "generated" / NEW_ID / "README.md").read_text(encoding="utf-8")
    assert "## Which servers this client works with" in readme
