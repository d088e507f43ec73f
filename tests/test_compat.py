"""The compatibility matrix: predicted for every pair of revisions, and each cell verified by
running the client of one revision against the reference server of the other, in its own
process and import path."""

from __future__ import annotations

import enum
import json
import textwrap

import facts
import httpx
import pytest
from conftest import ROOT, SPEC_DIR
from packages import load
from serving import ForkServer

from generator import compat, ir
from generator.cli import main
from generator.examples import sample
from generator.fieldroles import load_field_roles
from generator.revisions import load_index

pytestmark = pytest.mark.slow  # processes, servers, installs: not the inner loop
INDEX = load_index(SPEC_DIR)
ROLES = load_field_roles(SPEC_DIR)
PAIRS = compat.matrix(list(INDEX), ROLES)
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


def required_body(revision: str) -> dict:
    """The revision's required body fields, with sample values."""
    doc = INDEX.get(revision).document
    return sample(doc, doc.operation(ROLES.operation).request_body.schema)


def body_for(revision: str, path: str) -> tuple[dict, object]:
    """The revision's required fields and a value at ``path``; and that value."""
    body = required_body(revision)
    value = value_for(revision, path)
    facts.put_field(revision, body, path, value)
    return body, value


def value_for(revision: str, path: str) -> object:
    """A setting's value from VALUES; any other field's sample value (an enum's first named)."""
    leaf = path.rsplit(".", 1)[-1]
    if leaf in VALUES:
        return VALUES[leaf]
    doc = INDEX.get(revision).document
    prop = compat._body(doc, doc.operation(ROLES.operation).request_body.schema)[path]
    return sample(doc, prop.schema)


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """Every pair's requests, sent by the client of one revision to the servers of the other
    (an Adam, a Muon and a failing one per revision); what they answered and what the servers
    logged of the hyperparameters each step used."""
    folder = tmp_path_factory.mktemp("models")
    (folder / "compat_models.py").write_text(textwrap.dedent(MODELS))
    env = {"PYTHONPATH": str(folder), "OMP_NUM_THREADS": "1"}
    # one process per revision imports its server once and forks its three servers
    forks = {revision.id: ForkServer(revision.id, env=env) for revision in INDEX}
    servers = {}
    answers: dict[str, object] = {}
    try:
        for revision in INDEX:
            for kind in KINDS:
                servers[(revision.id, kind)] = forks[revision.id].start(
                    *("--optimizer", kind, "--model", "compat_models:tiny", "--log-steps")
                )
            servers[(revision.id, "nan")] = forks[revision.id].start("--model", "compat_models:nan")
        for number, pair in enumerate(PAIRS):
            package = load(pair.client.id)
            for kind in KINDS:
                url = servers[(pair.server.id, kind)].url
                with package.Client(api_key="k", base_url=url, max_retries=0) as client:
                    answers[f"{number}-{kind}-defaults"] = _send(
                        client, f"{number}-{kind}-defaults", required_body(pair.client.id)
                    )
                    for index, entry in enumerate(pair.entries):
                        if entry.kind != "body" or entry.session not in (kind, "any"):
                            continue
                        sid = f"{number}-{kind}-{index}"
                        answers[sid] = _send(client, sid, body_for(pair.client.id, entry.path)[0])
            url = servers[(pair.server.id, "nan")].url
            with package.Client(api_key="k", base_url=url, max_retries=0) as client:
                answers[f"{number}-nan"] = _send(
                    client, f"{number}-nan", required_body(pair.client.id)
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


def _send(client, session_id: str, body: dict) -> object:
    try:
        return client.optim_step(session_id, **body)
    except Exception as exc:  # the pair's outcome, checked below
        return exc


def _setting(logged: dict, name: str) -> object:
    group, _, key = name.partition(".")
    return logged[group][key] if key else logged[group]


@pytest.mark.parametrize(
    "number", range(len(PAIRS)), ids=[f"{p.client.id}-{p.server.id}" for p in PAIRS]
)
def test_every_cell_of_the_pair_holds(observed, number):
    answers, settings = observed
    pair = PAIRS[number]
    package = load(pair.client.id)
    for kind in KINDS:
        defaults = answers[f"{number}-{kind}-defaults"]
        if pair.blocked:
            assert _refused(pair, package, defaults, "required"), (kind, defaults)
            continue
        assert defaults.status in facts.statuses(pair.server.id, "succeeded"), defaults
        default_settings = settings[f"{number}-{kind}-defaults"]
        for entry in pair.entries:
            if entry.kind == "default" and entry.session in (kind, "any"):
                # a request without the field: the server used its own default, not the client's
                (name,) = entry.settings
                assert _setting(default_settings, name) == entry.values[1], (kind, entry)
                assert entry.values[0] != entry.values[1]
        for index, entry in enumerate(pair.entries):
            if entry.kind != "body" or entry.session not in (kind, "any"):
                continue
            sid = f"{number}-{kind}-{index}"
            answer = answers[sid]
            where = (kind, entry.path, entry.outcome, entry.detail, answer)
            value = value_for(pair.client.id, entry.path)
            if entry.outcome == "rejected":
                assert _refused(pair, package, answer, entry.detail.split(": ")[-1]), where
                continue
            assert answer.status in facts.statuses(pair.server.id, "succeeded"), where
            used = settings[sid]
            if entry.outcome == "works":
                for name in entry.settings:
                    assert _setting(used, name) == value, (where, name, used)
            else:  # ignored: the step ran with the session's defaults for what the client meant
                assert entry.outcome == "ignored", where
                for name in entry.intended:
                    assert _setting(used, name) == _setting(default_settings, name), (where, name)


def _refused(pair, package, answer, words: str) -> bool:
    """Whether the server refused the request (400, or a step FAILED with INVALID_INPUT) for
    a reason with these words."""
    if isinstance(answer, package.APIStatusError):
        return answer.status_code == 400 and words in str(answer)
    return (
        answer.status in facts.statuses(pair.server.id, "failed")
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
        if entry.kind == "response":
            _play(pair, entry, package)


def _server_knows_non_finite(pair) -> bool:
    doc = pair.server.document
    return any(
        isinstance(s, ir.Enum)
        and "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS" in getattr(s, "values", ())
        for s in doc.schemas.values()
    )


def _play(pair, entry, package) -> None:
    """Answer the client with the server's documented response, shaped as the cell says, and
    check how the client's model keeps it."""
    key, _, path = entry.path.partition(": ")
    b = pair.server.document
    schema = next(r.schema for r in b.operation(key).responses if r.status.startswith("2"))
    answer = sample(b, schema, full=True)
    *parents, leaf = path.split(".")
    node = answer
    for part in parents:
        node = node.setdefault(part, {})
    if entry.outcome == "kept-raw" and entry.detail.startswith("the values"):
        node[leaf] = entry.detail.split("the values ", 1)[1].split(" are")[0].split(", ")[0]
    elif entry.outcome == "missing":
        node.pop(leaf, None)
    method, _, template = key.partition(" ")

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=answer)

    with package.Client(api_key="k", transport=httpx.MockTransport(serve)) as client:
        if method == "POST":
            result = client.optim_step("s", **required_body(pair.client.id))
        else:
            result = client.get_optim_step_operation("s", "op-1")
    holder = result
    for part in parents:
        holder = getattr(holder, part)
    if entry.outcome == "kept-raw" and entry.detail.startswith("the values"):
        value = getattr(holder, leaf)
        assert type(value) is str and value == node[leaf], entry
    elif entry.outcome == "kept-raw":
        assert leaf in holder.extra, entry
    else:
        assert leaf in holder.problems, entry


def _client_warnings(revision: str, server_revision: str, caplog, **body) -> list[str]:
    package = load(revision)
    operation = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_PENDING"}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=operation))
    caplog.clear()
    with caplog.at_level("WARNING", logger="together_rl"):
        with package.Client(api_key="k", transport=transport, server_revision=server_revision) as c:
            c.optim_step("s", **required_body(revision), **body)
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
