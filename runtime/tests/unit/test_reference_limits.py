"""The reference server's own limits: its connections bounded below the file limit (503 with
Retry-After beyond), JSON nesting refused before it is read, a refused request journaled by its
digest, one server per state folder, what a stopped server left behind removed or kept as it
should be, and answers that never show the server's paths."""

from __future__ import annotations

import json
import os

import httpx
import pytest
import torch

from support import facts
from support.facts import NEWEST, body
from support.packages import reference
from support.router import plain, step, store_and_router
from together_rl_runtime.reference import _store, serve
from together_rl_runtime.reference._connections import Budget, Gate, Verdict
from together_rl_runtime.reference._nesting import too_deep
from together_rl_runtime.reference._statedir import LOCK, StateDirInUse
from together_rl_runtime.reference._tenants import (
    KEYS_ENV,
    Keys,
    KeysError,
    keys_from_environment,
    read_keys_file,
)

(FAILED,) = facts.statuses(NEWEST, "failed")


def path(session: str) -> str:
    return facts.path(NEWEST, session)


def journal(state_dir, session: str) -> bytes:
    return (_store.session_folder(state_dir, session) / "journal").read_bytes()


# -- keys --------------------------------------------------------------------------------------


def test_keys_come_one_a_line_from_a_file_and_separated_from_the_environment(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("# ours\n\nk-one\n  k-two  \n# k-three is gone\n")
    assert read_keys_file(keys) == ["k-one", "k-two"]
    assert keys_from_environment({KEYS_ENV: " k-1,k-2\n k-3 ,, "}) == ["k-1", "k-2", "k-3"]
    assert keys_from_environment({"TOGETHER_API_KEY": "theirs"}) == []
    keys.write_text("k-one\nsecret with-a-space\n")
    with pytest.raises(KeysError, match=r"line 2: a key cannot contain spaces") as caught:
        read_keys_file(keys)
    assert "secret" not in str(caught.value)
    keys.write_text("# nothing but comments\n\n")
    with pytest.raises(KeysError, match="holds no API key"):
        read_keys_file(keys)
    with pytest.raises(KeysError, match="cannot be read"):
        read_keys_file(tmp_path / "absent")


def test_a_key_is_a_tenant_of_its_own_by_bearer_token_only():
    keys = Keys(["k-one", "k-two"])
    one, two = (keys.tenant({"authorization": f"Bearer {k}"}) for k in ("k-one", "k-two"))
    assert one is not None and two is not None and one != two
    assert Keys(["k-one"]).tenant({"authorization": "bearer k-one"}) == one  # stable, any case
    for header in ("Basic k-one", "k-one", "Bearer k-on", "Bearer k-one2", ""):
        assert keys.tenant({"authorization": header}) is None
    assert keys.tenant({}) is None
    assert "k-one" not in repr(keys) and "k-one" not in one


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True)]
    + [("0.0.0.0", False), ("::", False), ("192.0.2.1", False), ("no such host.", False)],
)
def test_a_loopback_host_is_told_from_others(host, loopback):
    assert serve._loopback(host) is loopback


# -- connections -------------------------------------------------------------------------------


def test_the_connection_budget_keeps_files_for_the_server():
    budget = Budget.of(20_000, own_files=65, backlog=2048)
    assert budget.backlog == 2048
    usable = 20_000 - 64 - 65 - 2048
    assert budget.connections == usable * 3 // 4 and budget.refusals == usable - budget.connections
    small = Budget.of(1024, own_files=65, backlog=2048)  # the backlog shrinks with the limit
    assert small.backlog == (1024 - 64 - 65) // 4 and small.connections > 0
    assert Budget.of(1024, own_files=65, backlog=2048, connections=3).connections == 3
    with pytest.raises(ValueError, match="--max-connections 900 is more than the file limit"):
        Budget.of(1024, own_files=65, backlog=2048, connections=900)
    with pytest.raises(ValueError, match=r"lower\s+--max-sessions"):
        Budget.of(1024, own_files=65 + 1000, backlog=2048)


def test_the_gate_serves_then_refuses_then_drops():
    gate = Gate(Budget(files=100, connections=2, refusals=1, backlog=1))
    verdicts = [gate.enter() for _ in range(4)]
    assert verdicts == [Verdict.SERVE, Verdict.SERVE, Verdict.REFUSE, Verdict.DROP]
    gate.leave(Verdict.SERVE)
    assert gate.enter() is Verdict.SERVE
    gate.leave(Verdict.REFUSE)
    assert gate.enter() is Verdict.REFUSE


# -- bodies ------------------------------------------------------------------------------------


def test_nesting_too_deep_is_found_before_parsing_and_named_by_its_path():
    assert too_deep(b'{"a": [1, {"b": []}], "s": "[[[[[[[[[[[[[[[[[["}', limit=4) is None
    assert too_deep(b'{"a": [1, {"b": [[]]}]}', limit=4) == (
        "the request body nests more than 4 objects and arrays deep, at a[1].b[0]"
    )
    assert too_deep(b"[[[[", limit=3).endswith("at [0][0][0]")  # not JSON: depth still counts
    assert too_deep(b'{"k\\"ey": {"x": 1, "y": [[0]]}}', limit=3).endswith('at k"ey.y[0]')
    assert too_deep(b"[" * 100_000) is not None and too_deep(b"[]" * 100_000) is None


@pytest.mark.parametrize("depth", [33, 500, 980, 100_000])
def test_a_body_nested_too_deep_anywhere_is_400_and_changes_nothing(tmp_path, depth):
    store, router = store_and_router(tmp_path)
    assert step(router, "deep", plain())[0] == 200
    before = journal(tmp_path, "deep")
    field = facts.field_for(NEWEST, "adam", "adam.learning_rate")
    nested = "[" * (depth - 2) + "1" + "]" * (depth - 2)
    where, _, leaf = field.rpartition(".")
    text = f'{{"{where}": {{"{leaf}": {nested}}}}}'.encode()
    status, problem, _ = router.handle("POST", path("deep"), facts.required_headers(NEWEST), text)
    assert status == 400
    assert problem["error"]["message"] == (
        "the request body nests more than 32 objects and arrays deep, at " f"{field}" + "[0]" * 30
    )
    assert journal(tmp_path, "deep") == before
    assert step(router, "deep", plain())[1]["output"]["step"] == facts.step(NEWEST, 2)
    store.close()


def test_a_refused_request_is_journaled_by_its_digest_and_its_key_still_holds(tmp_path):
    store, router = store_and_router(tmp_path)
    assert step(router, "big", plain())[0] == 200
    huge = body(NEWEST, "adam", {"adam.learning_rate": "x" * 1_000_000})
    sizes, refused = [len(journal(tmp_path, "big"))], []
    for n in range(5):
        status, operation, _ = step(router, "big", huge, f"refused-{n}")
        assert status == 200 and operation["status"] == FAILED
        refused.append(operation)
        sizes.append(len(journal(tmp_path, "big")))
    assert max(b - a for a, b in zip(sizes, sizes[1:])) < 2_000  # a record, not the request
    store.close()
    store, router = store_and_router(tmp_path)  # the keys as the journal holds them
    for n, operation in enumerate(refused):
        assert step(router, "big", huge, f"refused-{n}")[:2] == (200, operation)
    assert step(router, "big", plain(), "refused-4")[0] == 422  # the same key, another request
    assert step(router, "big", plain())[1]["output"]["step"] == facts.step(NEWEST, 2)
    store.close()


# -- the state folder --------------------------------------------------------------------------


def test_one_store_at_a_time_holds_a_state_folder(tmp_path):
    store, _ = store_and_router(tmp_path)
    assert (tmp_path / LOCK).read_text() == f"{os.getpid()}\n"
    with pytest.raises(StateDirInUse) as caught:
        store_and_router(tmp_path)
    assert str(caught.value) == (
        f"the state folder {tmp_path} is in use by another server (pid {os.getpid()}): "
        "one server per state folder"
    )
    store.close()
    again, _ = store_and_router(tmp_path)  # given up at close
    again.close()


def test_temporary_files_left_behind_are_removed_at_start(tmp_path, monkeypatch):
    store, router = store_and_router(tmp_path)
    assert step(router, "left", plain())[0] == 200
    store.close()
    folder = _store.session_folder(tmp_path, "left")
    (folder / ".snapshot-000000000007.pt.tmp").write_bytes(b"half a snapshot")
    (folder / ".session.json.tmp").write_text("{")
    (folder / "notes.tmp").write_text("not the server's")
    store, router = store_and_router(tmp_path)
    assert sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp")) == ["notes.tmp"]

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", full)  # a snapshot that fails leaves nothing either
    assert step(router, "left", plain())[0] == 200
    store.close()
    assert not list(folder.glob(".snapshot-*"))


def test_a_whole_last_record_without_its_end_of_line_is_kept(tmp_path):
    store, router = store_and_router(tmp_path, snapshot_every=1000)
    answers = [step(router, "eol", plain(), f"k{n}")[1] for n in range(3)]
    store._snapshots.put(None)  # no snapshot at shutdown: as after kill -9
    store._writer.join()
    store._owner.release()
    record = _store.session_folder(tmp_path, "eol") / "journal"
    record.write_bytes(record.read_bytes().removesuffix(b"\n"))
    store, router = store_and_router(tmp_path)
    assert step(router, "eol", plain(), "k2")[1] == answers[2]  # the acknowledged step is there
    assert step(router, "eol", plain())[1]["output"]["step"] == facts.step(
        NEWEST, 4
    )  # and its number not reused
    store.close()
    lines = record.read_bytes().split(b"\n")
    assert len(lines) == 5 and lines[-1] == b""
    store, router = store_and_router(tmp_path)
    assert step(router, "eol", plain())[1]["output"]["step"] == facts.step(NEWEST, 5)
    store.close()


def test_answers_about_the_state_folder_name_the_session_but_no_path(tmp_path, monkeypatch):
    store, router = store_and_router(tmp_path)
    step(router, "moved", plain())
    store.close()
    moved = _store.session_folder(tmp_path, "moved") / "journal"
    moved.unlink()
    moved.mkdir()  # what cannot be read: an OSError naming the path
    store, router = store_and_router(tmp_path)
    status, problem, _ = step(router, "moved", plain())
    assert status == 500 and problem["error"]["message"] == (
        "the saved training session 'moved' cannot be loaded: "
        "IsADirectoryError: [Errno 21] Is a directory"
    )

    def refused(folder, *args):
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(_store.Journal, "create", staticmethod(refused))
    status, problem, _ = step(router, "new", plain())
    assert status == 503 and str(tmp_path) not in json.dumps(problem)
    assert "PermissionError: [Errno 13] Permission denied" in problem["error"]["message"]
    store.close()


def test_the_local_transport_refuses_deep_bodies_too():
    module = reference(NEWEST)
    made = {}
    transport = module.LocalTransport(
        lambda sid: made.setdefault(sid, module.LocalSession(torch.nn.Linear(2, 1)))
    )
    deep = b'{"a": ' + b"[" * 900 + b"]" * 900 + b"}"
    with httpx.Client(transport=transport, base_url="http://local") as client:
        response = client.post(path("s"), content=deep, headers=facts.required_headers(NEWEST))
    assert response.status_code == 400
    assert response.json()["error"]["message"].endswith("at a" + "[0]" * 31)
    assert made == {}
