"""The default next revision made up by tests/support/nextrevision.py (a required
Idempotency-Key, a new field in an existing group, a new terminal status, a changed declared
default, a changed description), appended to a copy of the project: what the maintainer sees, and
what its package and reference do."""

from __future__ import annotations

import json
import logging
import re

import httpx
import pytest
import yaml

from generator.cli import main
from generator.reading import ir
from generator.reading.revisions import load_index
from generator.views.pymodel import class_name
from support import facts
from support.nextrevision import NEW_FIELD, Places, append, copy_project
from support.packages import load
from together_rl_runtime.settings import SESSION_DEFAULTS


@pytest.fixture(scope="module")
def appended(tmp_path_factory):
    """The project copied, the made-up next revision added and generated."""
    project = copy_project(tmp_path_factory.mktemp("next") / "project")
    revision_id, (added, generated) = append(project)
    spec = project / "spec"
    raw = yaml.safe_load(load_index(spec).get(revision_id).file.read_text(encoding="utf-8"))
    return project, revision_id, added, generated, Places(raw, spec), facts.of(spec)


def test_generate_notes_the_changed_default(appended):
    project, revision_id, _, generated, places, _ = appended
    decay = places.setting("adam", "weight_decay")
    assert (
        f"note: spec/{revision_id}.yaml#{decay.schema.pointer}: revision {revision_id} declares "
        f"the default {decay.schema.default!r} for `"
    ) in generated.stderr
    assert "its reference applies the declared default" in generated.stderr


def test_the_new_field_in_the_adam_group_is_applied_with_the_runtime_that_knows_it(appended):
    """The new boolean field of the Adam group is AMSGrad, which the runtime applies from its
    1.1 release: the revision's reference applies it, and its package requires that release."""
    torch = pytest.importorskip("torch")
    project, revision_id, _, generated, places, revision = appended
    field = revision.field_for(revision_id, "adam", "adam.amsgrad")
    assert field is not None and field.rpartition(".")[2].startswith(NEW_FIELD)
    assert f"`{field}` of revision {revision_id} has no role" not in generated.stderr
    load(revision_id, project / "generated")
    reference = __import__(f"together_rl_{revision_id}.reference", fromlist=["LocalSession"])
    model = torch.nn.Linear(2, 1)
    session = reference.LocalSession(model, "adam")
    model(torch.ones(1, 2)).sum().backward()
    operation = session.optim_step(revision.body(revision_id, "adam", {"adam.amsgrad": True}))
    assert operation.status in revision.statuses(revision_id, "succeeded")
    assert session.last_settings["adam"]["amsgrad"] is True
    assert all("max_exp_avg_sq" in s for s in session.state_dict()["adam"].values())
    pyproject = (project / "generated" / revision_id / "pyproject.toml").read_text()
    # at least 1.1 (a later release where the revision needs more of the runtime, such as the
    # rules of its headers)
    (low,) = re.findall(r'"together-rl-runtime>=(\d+)\.(\d+),<2"', pyproject)
    assert tuple(map(int, low)) >= (1, 1)


def test_a_cancelled_operation_ends_a_wait_at_once(appended):
    project, revision_id, *_, revision = appended
    package = load(revision_id, project / "generated")
    cancelled = revision.statuses(revision_id, "cancelled")[-1]  # the one the change added
    polls = []

    def answer(request: httpx.Request) -> httpx.Response:
        polls.append(request)
        return httpx.Response(200, json={"id": "op-1", "status": cancelled})

    with package.Client(api_key="k", transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(package.OperationCancelledError) as caught:
            client.wait_for_optim_step("s-1", "op-1", timeout=30)
    assert len(polls) == 1
    assert caught.value.operation.status == cancelled
    assert str(caught.value) == f"operation op-1 was cancelled (status {cancelled})"


def test_an_older_package_polls_on_an_unknown_status_and_names_it_at_its_deadline(appended, caplog):
    _, revision_id, *_, revision = appended
    cancelled = revision.statuses(revision_id, "cancelled")[-1]
    older = facts.NEWEST  # the project's newest revision, which does not know the status
    assert cancelled not in facts.status_values(older)
    package = load(older)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "op-1", "status": cancelled})

    with caplog.at_level(logging.WARNING, logger="together_rl"):
        with package.Client(api_key="k", transport=httpx.MockTransport(answer)) as client:
            with pytest.raises(package.OperationTimeoutError) as caught:
                client.wait_for_optim_step("s-1", "op-1", timeout=0.3, interval=0.05)
    assert f"last status {cancelled}" in str(caught.value)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and f"has the status {cancelled}, which this package" in warnings[0]


def test_the_declared_default_is_applied_and_documented_alike(appended):
    torch = pytest.importorskip("torch")
    project, revision_id, _, _, places, revision = appended
    decay = places.setting("adam", "weight_decay")
    declared = decay.schema.default
    package = load(revision_id, project / "generated")
    reference = __import__(f"together_rl_{revision_id}.reference", fromlist=["LocalSession"])
    model = torch.nn.Linear(2, 1)
    session = reference.LocalSession(model, "adam")
    model(torch.ones(1, 2)).sum().backward()
    operation = session.optim_step(revision.required_body(revision_id))
    assert operation.status in revision.statuses(revision_id, "succeeded")
    assert session.last_settings["adam"]["weight_decay"] == declared
    path = revision.field_for(revision_id, "adam", "adam.weight_decay")
    readme = (project / "generated" / revision_id / "README.md").read_text(encoding="utf-8")
    assert f"`{path}` {declared!r}" in " ".join(readme.split())
    source = (project / "generated" / revision_id / "together_rl" / "models.py").read_text()
    group = places.group_field("adam").schema
    assert isinstance(group, ir.Ref)
    model = source[source.index(f"\nclass {class_name(group.name)}(") :]  # the group's model
    attribute = model[model.index(f"    {decay.name}: float | Unset = UNSET\n") :]
    assert attribute.split('"""')[1].strip().endswith(f"The server's default: ``{declared!r}``.")
    page = (project / "generated" / revision_id / "together_rl" / "docs").glob("*.md")
    assert any(f"Default: `{declared!r}`." in p.read_text() for p in page)
    del package
    # a session's own default wins over the document's
    own = reference.LocalSession(torch.nn.Linear(2, 1), "adam", weight_decay=0.0)
    own.optim_step(revision.required_body(revision_id))
    assert own.last_settings["adam"]["weight_decay"] == 0.0


def test_every_field_and_header_the_new_client_sends_is_in_the_matrix(appended, capsys):
    project, revision_id, _, _, places, revision = appended
    assert main(["--spec-dir", str(project / "spec"), "compat", "--format", "json"]) == 0
    pairs = json.loads(capsys.readouterr().out)
    mine = [p for p in pairs if p["client"] == revision_id]
    assert len(mine) == len(revision.ids)
    body_paths = {path for _, rules in revision.rules(revision_id).sessions for path, _ in rules}
    headers = {p.name for p in revision.served(revision_id).parameters if p.location == "header"}
    for pair in mine:
        seen = {e["path"] for e in pair["entries"] if e["kind"] == "body"}
        sent = {e["path"].rpartition(": ")[2] for e in pair["entries"] if e["kind"] == "header"}
        if not pair["blocked_by"]:
            assert body_paths <= seen, (pair["server"], body_paths - seen)
        assert headers <= sent, pair["server"]
    group = revision.field_for(revision_id, "adam", "adam.beta1").rpartition(".")[0]
    older = Places(facts.raw(facts.NEWEST), facts.SPEC_DIR)
    known = {p.name for p in older.group("adam").properties}
    (added,) = [p.name for p in places.group("adam").properties if p.name not in known]
    assert added.startswith(NEW_FIELD)
    new_field = f"{group}.{added}"
    against_older = next(p for p in mine if p["server"] == facts.NEWEST)
    entry = next(e for e in against_older["entries"] if e["path"] == new_field)
    assert entry["outcome"] == "ignored"
    differs = [e for e in against_older["entries"] if e["outcome"] == "default-differs"]
    declared = places.setting("adam", "weight_decay").schema.default
    theirs = older.setting("adam", "weight_decay").schema
    server_default = theirs.default if theirs.has_default else SESSION_DEFAULTS["adam.weight_decay"]
    assert any(
        e["client_default"] == declared and e["server_default"] == server_default for e in differs
    )
    readme = (project / "generated" / revision_id / "README.md").read_text(encoding="utf-8")
    assert f"`{new_field}`" in readme and "default-differs" in readme
