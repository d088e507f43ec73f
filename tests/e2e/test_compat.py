"""The compatibility matrix: predicted for every pair of revisions, and each cell verified by
running the client of one revision against the reference server of the other, in its own
process and import path; and the same for a revision appended to a copy of the project with a
change of each kind the verdicts judge (a nested field made required, an integer made a number,
a bound tightened, a query parameter and a header, a response value widened, a status with its
own schema)."""

from __future__ import annotations

import copy
import enum
import json
import textwrap
from pathlib import Path

import httpx
import pytest

from generator.changes import compat
from generator.changes.conformance import refusal
from generator.cli import main
from generator.reading import ir
from generator.reading.fieldroles import load_field_roles
from generator.reading.revisions import Revision, load_index
from generator.reading.statuses import load_statuses
from generator.reading.values import sample
from generator.views.pyclient import build_client
from generator.views.pymodel import build_module
from support import facts
from support.nextrevision import Places, at
from support.packages import GENERATED, load
from support.paths import ROOT, SPEC_DIR
from support.projects import append_revision, copy_project
from support.serving import ForkServer

INDEX = load_index(SPEC_DIR)
ROLES = load_field_roles(SPEC_DIR)
PAIRS = compat.matrix(list(INDEX), ROLES)
QUERY, HEADER = facts.unused_parameter("dry_run"), facts.unused_parameter("X-Priority")
"""Parameters that the newest revision and the field roles lack."""
KINDS = ("adam", "muon")
# A value for each setting, valid in every revision and unlike every session default.
VALUES = {
    "lr": 0.0123,
    "learning_rate": 0.0123,
    "beta1": 0.81,
    "beta2": 0.91,
    "eps": 1e-7,
    "weight_decay": 0.013,
    "momentum": 0.87,
    "newton_schulz_steps": 4,
    "grad_clip_norm": 0.7,
    "max_grad_norm": 0.7,
}
MODELS = """
import torch
from torch import nn

def tiny(seed):
    # a weight matrix (which Muon handles) and a bias (which Adam handles), cheap to step
    model = nn.Linear(3, 2)
    return model, lambda: model(torch.ones(1, 3)).square().sum()

def nan(seed):
    model = nn.Linear(2, 1)
    return model, lambda: model(torch.ones(1, 2)).sum() * float("nan")
"""


def test_the_command_prints_every_pair_as_json(capsys):
    assert main(["compat", "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [(p["client"], p["server"]) for p in printed] == [
        (a.id, b.id) for a in INDEX for b in INDEX
    ]
    assert all(
        {"path", "outcome", "session", "detail"} <= set(e) for p in printed for e in p["entries"]
    )


def test_compatibility_md_is_the_rendered_matrix(capsys):
    assert main(["compat"]) == 0
    assert (ROOT / "COMPATIBILITY.md").read_text(encoding="utf-8") == capsys.readouterr().out


def test_predictions_agree_with_the_seed_s_history():
    """Fields the history removed are ignored by the later server; a field it made required
    blocks the clients that never send it."""
    by_pair = {(p.client.id, p.server.id): p for p in PAIRS}
    removed = by_pair[("ebd4756a41e4", "f26a23fab8e0")]
    assert [
        (e.path, e.outcome) for e in removed.entries if e.kind == "body" and e.outcome != "works"
    ] == [("weight_sync_type", "ignored")]
    assert by_pair[("f26a23fab8e0", "ebd4756a41e4")].blocked == ("`weight_sync_type`",)
    assert by_pair[("f26a23fab8e0", "f4885bc38424")].summary == "works"


def required_body(revision: Revision) -> dict:
    """The revision's required body fields, with sample values."""
    doc = revision.document
    return sample(doc, doc.operation(ROLES.operation).request_body.schema)


def _body_schema(revision: Revision) -> ir.Schema:
    return revision.document.operation(ROLES.operation).request_body.schema


def sent(pair: compat.Pair, entry: compat.Entry) -> tuple[dict, object]:
    """The body a body entry's cell sends, and its value at the entry's path: the request the
    verdict is about, with a setting's value from VALUES where both revisions' schemas allow it
    (a value unlike every session default, so that the step's logged settings tell it)."""
    body = copy.deepcopy(entry.request)
    *groups, leaf = entry.path.split(".")
    node = body
    for group in groups:
        node = node.get(group, {})
    value = node.get(leaf)
    if entry.outcome != "rejected" and entry.value is ir.NO_VALUE and leaf in VALUES:
        node[leaf] = VALUES[leaf]
        if any(refusal(r.document, _body_schema(r), body) for r in (pair.client, pair.server)):
            node[leaf] = value
        value = node[leaf]
    return body, value


def argument(revision: Revision, key: str, name: str, root: Path = GENERATED) -> str:
    """The Python argument of the served operation's parameter ``name`` in the client of
    ``revision``."""
    index = load_index(root.parent / "spec")
    position = [r.id for r in index].index(revision.id)
    module = build_module(list(index), position)
    client = build_client(revision.document, module, load_statuses(root.parent / "spec"))
    op = next(o for o in client.operations if o.key == key)
    return next(p.name for p in op.keyword_parameters if p.key == name)


def _served_parameter(entry: compat.Entry) -> str | None:
    """The parameter's name, for an entry of a query parameter, header or cookie of the served
    operation."""
    key = INDEX[-1].document.operation(ROLES.operation).key
    if entry.kind in ("query", "header", "cookie") and entry.path.startswith(f"{key}: "):
        return entry.path.removeprefix(f"{key}: ")
    return None


def _parameter_value(revision: Revision, name: str) -> object:
    op = revision.document.operation(ROLES.operation)
    parameter = next(p for p in op.parameters if p.name == name)
    return sample(revision.document, parameter.schema)


def observe(pairs, revisions, folder: Path, root: Path = GENERATED):
    """Every pair's requests, sent by the client of one revision to the servers of the other
    (an Adam, a Muon and a failing one per revision); what they answered and what the servers
    logged of the hyperparameters each step used. ``folder`` is for the servers' models."""
    (folder / "compat_models.py").write_text(textwrap.dedent(MODELS))
    env = {"PYTHONPATH": str(folder), "OMP_NUM_THREADS": "1"}
    # one process per revision imports its server once and forks its three servers
    forks = {revision.id: ForkServer(revision.id, env=env, root=root) for revision in revisions}
    servers = {}
    answers: dict[str, object] = {}
    try:
        for revision in revisions:
            for kind in KINDS:
                servers[(revision.id, kind)] = forks[revision.id].start(
                    *("--optimizer", kind, "--model", "compat_models:tiny", "--log-steps")
                )
            servers[(revision.id, "nan")] = forks[revision.id].start("--model", "compat_models:nan")
        for number, pair in enumerate(pairs):
            package = load(pair.client.id, root)
            for kind in KINDS:
                url = servers[(pair.server.id, kind)].url
                with package.Client(api_key="k", base_url=url, max_retries=0) as client:
                    sid = f"{number}-{kind}-defaults"
                    answers[sid] = _send(client, sid, required_body(pair.client))
                    if not isinstance(answers[sid], Exception):
                        answers[f"{sid}-again"] = _call(
                            client.get_optim_step_operation, sid, answers[sid].id
                        )
                    for index, entry in enumerate(pair.entries):
                        if entry.session not in (kind, "any"):
                            continue
                        sid = f"{number}-{kind}-{index}"
                        if entry.kind == "body":
                            answers[sid] = _send(client, sid, sent(pair, entry)[0])
                        elif (name := _served_parameter(entry)) is not None:
                            given = {
                                argument(pair.client, entry.path.split(": ")[0], name, root): (
                                    _parameter_value(pair.client, name)
                                )
                            }
                            answers[sid] = _send(client, sid, required_body(pair.client), given)
            url = servers[(pair.server.id, "nan")].url
            with package.Client(api_key="k", base_url=url, max_retries=0) as client:
                answers[f"{number}-nan"] = _send(
                    client, f"{number}-nan", required_body(pair.client)
                )
    finally:
        for server in servers.values():
            server.stop()
        logs = {key: running.close() for key, running in forks.items()}
    settings = {}
    for log in logs.values():
        for line in log.splitlines():
            if line.startswith("step "):
                step = json.loads(line[5:])
                settings[step["session"]] = step["settings"]
    return answers, settings


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    return observe(PAIRS, list(INDEX), tmp_path_factory.mktemp("models"))


def _send(client, session_id: str, body: dict, parameters: dict | None = None) -> object:
    return _call(client.optim_step, session_id, **body, **(parameters or {}))


def _call(method, *args, **kwargs) -> object:
    try:
        return method(*args, **kwargs)
    except Exception as exc:  # the pair's outcome, checked below
        return exc


def _setting(logged: dict, name: str) -> object:
    group, _, key = name.partition(".")
    return logged[group][key] if key else logged[group]


def _words(entry: compat.Entry) -> str:
    """What the server's refusal says, for a rejected entry: the end of its detail."""
    return entry.detail.split(": ")[-1]


@pytest.mark.parametrize(
    "number", range(len(PAIRS)), ids=[f"{p.client.id}-{p.server.id}" for p in PAIRS]
)
def test_every_cell_of_the_pair_holds(observed, number):
    check_cell(PAIRS[number], number, *observed)


def check_cell(pair: compat.Pair, number: int, answers, settings, root: Path = GENERATED) -> None:
    """Each request verdict of the pair, against what its requests were answered."""
    package = load(pair.client.id, root)
    minimal = required_body(pair.client)
    # what a request with the client's required fields alone (and no optional parameter) lacks
    left_out = [
        e
        for e in pair.entries
        if e.outcome == "rejected"
        and (
            (e.kind == "body" and e.request == minimal and e.value is ir.NO_VALUE)
            or (_served_parameter(e) is not None and e.detail.endswith("is required"))
        )
    ]
    for kind in KINDS:
        defaults = answers[f"{number}-{kind}-defaults"]
        if pair.blocked:
            assert _refused(pair, package, defaults, "required"), (kind, defaults)
            continue
        if left_out:
            assert _refused(pair, package, defaults, _words(left_out[0])), (
                kind,
                defaults,
                left_out,
            )
            default_settings = None
        else:
            assert defaults.status in _statuses(pair, "succeeded"), defaults
            # the path parameters of both operations reach the session and its operation
            assert answers[f"{number}-{kind}-defaults-again"].id == defaults.id
            default_settings = settings[f"{number}-{kind}-defaults"]
        for entry in pair.entries:
            if entry.kind == "default" and entry.session in (kind, "any") and default_settings:
                # a request without the field: the server used its own default, not the client's
                (name,) = entry.settings
                assert _setting(default_settings, name) == entry.values[1], (kind, entry)
                assert entry.values[0] != entry.values[1]
            if entry.kind == "path":
                assert entry.outcome == "works", entry
        for index, entry in enumerate(pair.entries):
            if entry.session not in (kind, "any"):
                continue
            sid = f"{number}-{kind}-{index}"
            if entry.kind == "body":
                _check_body(pair, entry, answers[sid], settings, sid, default_settings, package)
            elif _served_parameter(entry) is not None:
                answer = answers[sid]
                where = (kind, entry.path, entry.outcome, entry.detail, answer)
                if entry.outcome == "rejected" and not entry.detail.endswith("is required"):
                    # one the server's reference refuses wherever it is set
                    assert _refused(pair, package, answer, _words(entry)), where
                    continue
                # sent with the parameter, the step is applied (one the server requires too)
                assert answer.status in _statuses(pair, "succeeded"), where
                if entry.outcome == "ignored" and default_settings is not None:
                    assert settings[sid] == default_settings, where


def _check_body(pair, entry, answer, settings, sid, default_settings, package) -> None:
    where = (entry.path, entry.outcome, entry.detail, answer)
    if entry.outcome == "rejected":
        assert _refused(pair, package, answer, _words(entry)), where
        return
    assert answer.status in _statuses(pair, "succeeded"), where
    used = settings[sid]
    value = sent(pair, entry)[1]
    if entry.outcome == "works":
        for name in entry.settings:
            assert _setting(used, name) == value, (where, name, used)
    else:  # ignored: the step ran with the session's defaults for what the client meant
        assert entry.outcome == "ignored", where
        if default_settings is not None:
            for name in entry.intended:
                assert _setting(used, name) == _setting(default_settings, name), (where, name)


def _statuses(pair, kind: str) -> list[str]:
    """The server's status values of this kind (``succeeded``), in its own spec folder."""
    return facts.of(pair.server.file.parent).statuses(pair.server.id, kind)


def _refused(pair, package, answer, words: str) -> bool:
    """Whether the server refused the request (400, or a step FAILED with INVALID_INPUT) for
    a reason with these words."""
    if isinstance(answer, package.APIStatusError):
        return answer.status_code == 400 and words in str(answer)
    return (
        answer.status in _statuses(pair, "failed")
        and answer.error.code == "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
        and words in answer.error.message
    )


@pytest.mark.parametrize(
    "number", range(len(PAIRS)), ids=[f"{p.client.id}-{p.server.id}" for p in PAIRS]
)
def test_every_answer_cell_of_the_pair_holds(observed, number):
    """Values of the server's answers: a real non-finite step shows the error code the server
    sends, and each predicted answer cell is played to the client's models."""
    answers, _ = observed
    pair = PAIRS[number]
    package = load(pair.client.id)
    failed = answers[f"{number}-nan"]
    if pair.blocked:
        assert _refused(pair, package, failed, "required")
    else:
        code = failed.error.code
        server_code = "NON_FINITE_LOSS" if _server_knows_non_finite(pair) else "INTERNAL_ERROR"
        assert str(code).endswith(server_code)
        known = isinstance(code, enum.Enum)  # an unknown value is kept as the string received
        value = code.value if known else code
        predicted_raw = any(
            e.kind == "response"
            and e.path.endswith(": error.code")
            and e.outcome == "kept-raw"
            and value in e.detail.replace(",", " ").split()
            for e in pair.entries
        )
        assert known == (not predicted_raw), (value, pair.entries)
    for entry in pair.entries:
        if entry.kind in ("response", "status"):
            play(pair, entry, package)


def _server_knows_non_finite(pair) -> bool:
    doc = pair.server.document
    return any(
        isinstance(s, ir.Enum)
        and "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS" in getattr(s, "values", ())
        for s in doc.schemas.values()
    )


def play(pair, entry, package) -> None:
    """Answer the client with the server's documented response, shaped as the cell says, and
    check how the client's model keeps it."""
    place, _, path = entry.path.partition(": ")
    method, template, *status = place.split(" ")
    key = f"{method} {template}"
    if entry.kind == "response" and not path:
        return  # an operation the server lacks: no answer to play
    b = pair.server.document
    code = status[0] if status else None
    schema = next(
        r.schema
        for r in b.operation(key).responses
        if (r.status == code if code else r.status.startswith("2"))
    )
    answer = sample(b, schema, full=True)
    node = answer
    *parents, leaf = path.split(".") if path else [""]
    for part in parents:
        node = node.setdefault(part, {})
    if entry.outcome == "kept-raw" and entry.value is not ir.NO_VALUE:
        node[leaf] = entry.value
    elif entry.outcome == "kept-raw" and entry.detail.startswith("the values"):
        node[leaf] = entry.detail.split("the values ", 1)[1].split(" are")[0].split(", ")[0]
    elif entry.outcome == "missing":
        node.pop(leaf, None)
    number = 200 if code is None else 500 if code == "default" else int(code.replace("X", "0"))

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(number, json=answer)

    with package.Client(api_key="k", transport=httpx.MockTransport(serve), max_retries=0) as client:
        if method == "POST":
            result = _call(client.optim_step, "s", **required_body(pair.client))
        else:
            result = _call(client.get_optim_step_operation, "s", "op-1")
    if entry.kind == "status":
        assert isinstance(result, package.APIStatusError) and result.status_code == number
        assert json.loads(result.body) == answer
        if "kept in `extra`" in entry.detail:
            assert set(answer) - set(result.error.to_dict()) == set() and result.error.extra
        elif entry.outcome == "kept-raw":  # not the documented format: the body as received
            assert result.error is None, entry
        else:
            assert result.error is not None and not result.error.problems, entry
        return
    holder = result.error if code is not None else result
    for part in parents:
        holder = getattr(holder, part)
    if entry.outcome == "kept-raw" and entry.value is not ir.NO_VALUE:
        assert getattr(holder, leaf) == entry.value and leaf in holder.problems, (entry, holder)
    elif entry.outcome == "kept-raw" and entry.detail.startswith("the values"):
        value = getattr(holder, leaf)
        assert type(value) is str and value == node[leaf], entry
    elif entry.outcome == "kept-raw":
        assert leaf in holder.extra, entry
    else:
        assert leaf in holder.problems, entry


REVISION = "c0ffee5ca1e5"


MADE: set[str] = set()
"""The changes :func:`every_kind_of_change` made (the newest revision may have some already;
``status 409``: the status it answered with a schema of its own)."""


def every_kind_of_change(doc: dict) -> None:
    """The newest document with a change of each kind the verdicts judge, found through the
    parser and the field roles: the Adam group's learning rate made required, Muon's
    Newton-Schulz steps a number, a maximum on Muon's momentum, an optional query parameter
    and an optional header with an enum, a number variant added to the first response value
    of several types, a 409 response with a schema of its own."""
    places = Places(doc, SPEC_DIR)
    adam = places.group("adam")
    rate = places.setting("adam", "learning_rate")
    required = at(doc, adam.pointer).setdefault("required", [])
    if rate.name not in required:  # a revision may require it already
        required.append(rate.name)
        MADE.add("required")
    steps = places.doc.resolve(places.setting("muon", "newton_schulz_steps").schema)
    if getattr(steps, "type", None) == "integer":  # a revision may type it number already
        MADE.add("widened")
    at(doc, steps.pointer)["type"] = "number"
    momentum = places.doc.resolve(places.setting("muon", "momentum").schema)
    at(doc, momentum.pointer)["maximum"] = 0.95
    parameters = places.post.setdefault("parameters", [])
    parameters.append({"name": QUERY, "in": "query", "schema": {"type": "boolean"}})
    parameters.append(
        {
            "name": HEADER,
            "in": "header",
            "schema": {"type": "string", "enum": ["low", "high"]},
        }
    )
    success = next(r for r in places.operation.responses if r.status.startswith("2"))
    union = _first_union(places.doc, success.schema)
    if union is not None:
        node = at(doc, union.pointer)
        node["oneOf" if "oneOf" in node else "anyOf"].append({"type": "number"})
        MADE.add("union")
    schemas = doc["components"]["schemas"]
    name = next(f"Conflict{i}" for i in range(100) if f"Conflict{i}" not in schemas)
    schemas[name] = {
        "type": "object",
        "required": ["operation_id"],
        "properties": {"operation_id": {"type": "string"}, "reason": {"type": "string"}},
    }
    status = next(c for c in ("409", "423", "425") if places.operation.response(c) is None)
    MADE.add(f"status {status}")
    places.post["responses"][status] = {
        "description": "The operation conflicts with one under way.",
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
    }


def _first_union(doc: ir.Document, schema: ir.Schema, depth: int = 0) -> ir.Union | None:
    resolved = doc.resolve(schema)
    if isinstance(resolved, ir.Union) and depth:
        return resolved
    if isinstance(resolved, ir.Object) and depth < 5:
        for prop in resolved.properties:
            found = _first_union(doc, prop.schema, depth + 1)
            if found is not None:
                return found
    return None


@pytest.fixture(scope="module")
def revised(tmp_path_factory):
    """A copy of the project with the revision of every kind of change appended; its pairs with
    the newest revision before it (both ways, and with itself), and what their cells saw."""
    project = copy_project(tmp_path_factory.mktemp("revised"))
    added, generated = append_revision(project, REVISION, every_kind_of_change)
    assert added.returncode == 0, added.stdout + added.stderr
    assert generated.returncode == 0, generated.stderr
    index = load_index(project / "spec")
    revisions = [index[-2], index[-1]]
    pairs = compat.matrix(revisions, load_field_roles(project / "spec"))
    folder = tmp_path_factory.mktemp("models")
    return project, pairs, observe(pairs, revisions, folder, project / "generated")


def test_every_kind_of_change_is_judged_and_each_verdict_holds(revised):
    project, pairs, (answers, settings) = revised
    by_pair = {(p.client.id, p.server.id): p for p in pairs}
    older, newer = pairs[0].client.id, REVISION
    # each kind of change is judged, in the direction it breaks
    old_to_new = by_pair[(older, newer)]
    new_to_old = by_pair[(newer, older)]
    assert {e.kind for e in new_to_old.entries if e.outcome == "ignored"} >= {"query", "header"}
    if "widened" in MADE:
        assert any(e.kind == "body" and e.value is not ir.NO_VALUE for e in new_to_old.entries)
    if "required" in MADE:
        assert any("lets a request leave it out" in e.detail for e in old_to_new.entries)
    assert any("must be <= 0.95" in e.detail for e in old_to_new.entries)
    assert any(e.kind == "status" and e.outcome == "kept-raw" for e in old_to_new.entries)
    if "union" in MADE:
        assert any(e.kind == "response" and e.value is not ir.NO_VALUE for e in old_to_new.entries)
    text = (project / "COMPATIBILITY.md").read_text(encoding="utf-8")
    assert QUERY in text
    for number, pair in enumerate(pairs):
        check_cell(pair, number, answers, settings, project / "generated")
        package = load(pair.client.id, project / "generated")
        for entry in pair.entries:
            if entry.kind in ("response", "status"):
                play(pair, entry, package)


def test_a_status_with_its_own_schema_is_read_into_it(revised):
    project, pairs, _ = revised
    package = load(REVISION, project / "generated")
    models = __import__(f"together_rl_{REVISION}.models", fromlist=["models"])
    doc = pairs[-1].server.document
    op = doc.operation(ROLES.operation)
    (code,) = [m.removeprefix("status ") for m in MADE if m.startswith("status ")]
    conflict, other = op.response(code), op.response("default")
    for status, response in ((int(code), conflict), (400, other)):
        answer = sample(doc, response.schema, full=True)
        transport = httpx.MockTransport(lambda request: httpx.Response(status, json=answer))
        with package.Client(api_key="k", transport=transport, max_retries=0) as client:
            failed = _call(client.optim_step, "s", **required_body(pairs[-1].client))
        assert isinstance(failed, package.APIStatusError) and failed.status_code == status
        assert type(failed.error) is getattr(models, response.schema.name), failed.error
        assert not failed.error.problems and not failed.error.extra
        assert failed.error.to_dict() == answer


def _client_warnings(revision: str, server_revision: str, caplog, **body) -> list[str]:
    package = load(revision)
    operation = {"id": "op-1", "status": facts.statuses(revision, "in-progress")[-1]}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=operation))
    caplog.clear()
    with caplog.at_level("WARNING", logger="together_rl"):
        with package.Client(api_key="k", transport=transport, server_revision=server_revision) as c:
            c.optim_step("s", **required_body(INDEX.get(revision)), **body)
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def test_the_client_warns_of_fields_its_server_would_not_apply(caplog):
    (message,) = _client_warnings("9ccc57e5e4b9", "baseline", caplog, adam_params={"beta1": 0.8})
    assert message.startswith(
        "a server of revision baseline does not apply what this client (revision 9ccc57e5e4b9) sends: "
    )
    assert (
        "adam_params.beta1: ignored in an Adam session: the server does not know `adam_params`"
        in message
    )
    assert (
        _client_warnings("9ccc57e5e4b9", "9ccc57e5e4b9", caplog, adam_params={"beta1": 0.8}) == []
    )
    assert (
        _client_warnings("ebd4756a41e4", "9ccc57e5e4b9", caplog, adam_params={"beta1": 0.8}) == []
    )


def test_the_client_warns_when_every_request_would_be_rejected(caplog):
    (message,) = _client_warnings("f26a23fab8e0", "ebd4756a41e4", caplog)
    assert "(request): every request is rejected: the server requires `weight_sync_type`" in message


def test_a_server_revision_unknown_to_the_package_is_said_at_once(caplog):
    (message,) = _client_warnings("9ccc57e5e4b9", "f26a23fab8e0", caplog)  # a later revision
    assert message.startswith("the server's revision f26a23fab8e0 is not known to this package")
