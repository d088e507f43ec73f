"""The reference server never loses an acknowledged step: its journal under kill -9 and restarts,
a journal that cannot be written, bounded sessions, requests that create nothing, idempotency by
value, and a state folder of runtime 1.0.0 taken over."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest
import together
import torch

from support import facts
from support.facts import NEWEST, body
from support.packages import reference
from support.router import make_sessions, plain, step, store_and_router
from support.serving import ForkServer
from together_rl_runtime.reference import _routes, _store, serve

# The official SDK 3.1.1 sends Adam's settings as `adam_params`: the newest revision that reads
# them there serves it (as in test_official_sdk.py).
SDK_SERVER = facts.sdk_server()
(COMPLETED,) = facts.statuses(NEWEST, "succeeded")
(FAILED,) = facts.statuses(NEWEST, "failed")
ENV = {"OMP_NUM_THREADS": "1"}


def path(session: str, revision: str = NEWEST) -> str:
    return facts.path(revision, session)


def adam(revision: str = NEWEST, **settings: float) -> dict:
    return body(revision, "adam", {f"adam.{name}": value for name, value in settings.items()})


def tensors(folder) -> dict:
    """The parameters of the newest snapshot in a session's folder."""
    snapshots = sorted(folder.glob("snapshot-*.pt"))
    return torch.load(snapshots[-1], weights_only=True)["state"]["parameters"]


def sessions(state_dir) -> list:
    """The sessions' folders in a state folder (which also holds the server's lock)."""
    return [p for p in state_dir.iterdir() if p.name != "server.lock"]


def learning_rate(stream: int, index: int) -> float:
    return 1e-3 * (1 + (7 * stream + index) % 11)


def test_kill_9_at_random_moments_loses_no_acknowledged_step(tmp_path):
    """Four keyed streams through the official SDK into one session; the server is killed with
    SIGKILL three times at random moments and another takes over the state folder; every stream
    resends its unacknowledged key until it is answered. Then every acknowledged operation is
    still there, the steps are exactly 1..N, and the parameters are those of a sequential replay
    of the steps in order.

    A moment is counted in acknowledgements, not in time: each server is killed once every
    stream has had a random number of steps acknowledged since it started (the other streams'
    requests are then at any point of their way), so that a loaded machine makes the test
    longer, never shorter of steps. The servers are forked from one process that has imported
    them already (serving.ForkServer), so that a restart takes milliseconds and the test a few
    seconds."""
    torch.set_num_threads(1)
    args = ("--state-dir", str(tmp_path), "--snapshot-every", "7")
    streams = 4
    acknowledged: dict[str, tuple[float, dict]] = {}
    counts = [0] * streams  # each stream's acknowledged steps so far
    changed = threading.Condition()
    stop = threading.Event()
    rounds = random.Random(21)
    forks = ForkServer(SDK_SERVER, env=ENV)
    server = forks.start(*args)
    current = {"url": server.url}

    def stream(number: int) -> None:
        index, url, sdk = 0, None, None
        while not stop.is_set():
            key, rate = f"stream-{number}-{index}", learning_rate(number, index)
            while True:  # the same key until it is answered
                if url != current["url"]:
                    url = current["url"]
                    sdk = together.Together(api_key="k", base_url=url, max_retries=0, timeout=5)
                try:
                    operation = sdk.post_training.operations.optim_step(
                        "chaos", idempotency_key=key, adam_params={"learning_rate": rate}
                    )
                    break
                except together.APIConnectionError:
                    time.sleep(0.01)  # the pace of resending to a server that is restarting
            with changed:
                acknowledged[key] = (rate, operation.model_dump(exclude_none=True))
                counts[number] += 1
                changed.notify_all()
            index += 1

    def after_acknowledgements(least: int) -> None:
        """Wait until every stream has had ``least`` more steps acknowledged (or a stream
        died: the threads' check below says so)."""
        with changed:
            since = list(counts)
            changed.wait_for(
                lambda: all(n - s >= least for n, s in zip(counts, since))
                or not all(t.is_alive() for t in threads)
            )

    threads = [threading.Thread(target=stream, args=(n,)) for n in range(streams)]
    for thread in threads:
        thread.start()
    least = [rounds.randint(2, 6) for _ in range(3)] + [2]
    try:
        for steps_before_kill in least[:-1]:
            after_acknowledgements(steps_before_kill)
            server.kill()  # SIGKILL: no shutdown, no snapshot
            server = forks.start(*args)
            current["url"] = server.url
        after_acknowledgements(least[-1])  # the last server serves steps too
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    try:
        assert not any(thread.is_alive() for thread in threads)
        for key, (_, operation) in acknowledged.items():
            status, now = server.request("GET", f"{path('chaos', SDK_SERVER)}/{operation['id']}")
            assert (status, now) == (200, operation), key
    finally:
        server.stop()  # a graceful stop: the last snapshot holds the final tensors
        log = forks.close()
    assert "Traceback" not in log, log
    steps = sorted(int(op["output"]["step"]) for _, op in acknowledged.values())
    assert steps == list(range(1, len(acknowledged) + 1)) and len(steps) >= streams * sum(least)
    session, gradients = make_sessions(SDK_SERVER)()
    for rate, operation in sorted(acknowledged.values(), key=lambda a: int(a[1]["output"]["step"])):
        again = session.optim_step(adam(SDK_SERVER, learning_rate=rate), gradients=gradients)
        assert again.output.step == operation["output"]["step"]
    replayed = session.state_dict()["parameters"]
    saved = tensors(_store.session_folder(tmp_path, "chaos"))
    assert replayed.keys() == saved.keys()
    assert all(torch.equal(replayed[name], saved[name]) for name in saved)


def test_a_step_whose_record_cannot_be_written_is_taken_back_and_applies_once_when_resent(
    tmp_path, monkeypatch
):
    store, router = store_and_router(tmp_path)
    assert step(router, "s", adam(learning_rate=0.01), "k-1")[0] == 200
    session = store.find("s")
    store.release("s")
    before = {k: v.clone() for k, v in session.state_dict()["parameters"].items()}
    journal = (_store.session_folder(tmp_path, "s") / "journal").read_bytes()
    failures = iter([OSError(28, "No space left on device")])

    def failing_sync(fd):
        error = next(failures, None)
        if error is not None:
            raise error

    monkeypatch.setattr(_store, "_sync", failing_sync)
    status, problem, headers = step(router, "s", adam(learning_rate=0.02), "k-2")
    assert status == 503 and headers["x-should-retry"] == "true"
    message = problem["error"]["message"]
    assert "No space left on device" in message and "nothing was changed" in message
    assert session.step == 1
    after = session.state_dict()["parameters"]
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert (_store.session_folder(tmp_path, "s") / "journal").read_bytes() == journal
    status, operation, _ = step(router, "s", adam(learning_rate=0.02), "k-2")  # the resend
    assert status == 200 and operation["output"]["step"] == facts.step(NEWEST, 2)
    assert step(router, "s", adam(learning_rate=0.02), "k-2")[1] == operation  # applied once
    store.close()


def test_the_sdk_resends_a_step_answered_503_and_it_is_applied_once(tmp_path, monkeypatch):
    """The answer to a step that could not be made durable, read by the official SDK: it retries
    with the same key (x-should-retry, Retry-After) and the step is applied once."""
    store = _store.SessionStore(make_sessions(SDK_SERVER), SDK_SERVER, state_dir=tmp_path)
    revision = reference(SDK_SERVER).LocalSession.revision
    router = _routes.Router(store, revision, gradients=store.gradients)
    server = serve.make_server("127.0.0.1", 0, router)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    failures = iter([OSError(5, "Input/output error")])

    def failing_sync(fd):
        error = next(failures, None)
        if error is not None:
            raise error

    monkeypatch.setattr(_store, "_sync", failing_sync)
    try:
        with together.Together(api_key="k", base_url=server.url, max_retries=2) as sdk:
            operations = sdk.post_training.operations
            first = operations.optim_step("s", idempotency_key="k", adam_params={"beta1": 0.8})
            again = operations.optim_step("s", idempotency_key="k", adam_params={"beta1": 0.8})
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
        store.close()
    assert (
        first == again
        and first.status == COMPLETED
        and first.output.step == facts.step(SDK_SERVER, 1)
    )
    records = (_store.session_folder(tmp_path, "s") / "journal").read_text().splitlines()
    assert len(records) == 1


@pytest.fixture(scope="module")
def forks():
    with ForkServer(NEWEST) as running:
        yield running


def test_a_get_or_an_invalid_request_creates_nothing(forks, tmp_path):
    with forks.start("--state-dir", str(tmp_path)) as server:
        for n in range(50):
            assert server.request("GET", f"{path(f'ghost-{n}')}/op")[0] == 404
        status, operation = server.request("POST", path("invalid"), adam(eps=0))
        assert status == 200 and operation["status"] == FAILED
        assert server.request("GET", f"{path('invalid')}/{operation['id']}")[0] == 404
        assert sessions(tmp_path) == []
        assert server.request("POST", path("valid"), server.required_body())[1]["output"][
            "step"
        ] == facts.step(NEWEST, 1)
        assert len(sessions(tmp_path)) == 1


def test_without_a_state_dir_sessions_beyond_the_limit_are_refused(forks):
    with forks.start("--max-sessions", "2") as server:
        for sid in ("a", "b"):
            assert server.request("POST", path(sid), server.required_body())[0] == 200
        connection = server.connection()
        headers = {"Content-Type": "application/json", **facts.required_headers(NEWEST)}
        plain = json.dumps(server.required_body()).encode()
        connection.request("POST", path("c"), body=plain, headers=headers)
        response = connection.getresponse()
        problem = json.loads(response.read())
        assert response.status == 429 and response.getheader("x-should-retry") == "false"
        assert "--max-sessions" in problem["error"]["message"]
        assert server.request("POST", path("a"), server.required_body())[1]["output"][
            "step"
        ] == facts.step(NEWEST, 2)


def test_with_a_state_dir_the_least_recently_used_sessions_go_to_disk(tmp_path):
    store, router = store_and_router(tmp_path, max_sessions=2)
    for turn in range(1, 4):
        for sid in ("a", "b", "c", "d"):
            status, operation, _ = step(
                router, sid, adam(learning_rate=0.01 * turn), f"{sid}{turn}"
            )
            assert operation["output"]["step"] == facts.step(NEWEST, turn)
            assert len(store.ids()) <= 2
    assert step(router, "a", adam(learning_rate=0.01), "a1")[1]["output"]["step"] == facts.step(
        NEWEST, 1
    )
    store.close()


def test_an_idempotency_key_matches_a_request_by_value(forks):
    with forks.start() as server:
        key = {"Idempotency-Key": "by-value"}
        first = server.request("POST", path("v"), adam(learning_rate=1, beta1=0.5), key)
        again = server.request("POST", path("v"), adam(beta1=0.50, learning_rate=1.0), key)
        assert first == again and first[1]["output"]["step"] == facts.step(NEWEST, 1)
        status, problem = server.request("POST", path("v"), adam(learning_rate=1.5), key)
        assert status == 422 and problem["error"]["code"] == "idempotency_key_reused"


def test_a_step_costs_the_same_at_any_age(tmp_path):
    """One line of journal per step, and a snapshot whose size does not grow with the steps."""
    store, router = store_and_router(tmp_path, snapshot_every=50)
    folder = _store.session_folder(tmp_path, "old")
    sizes = []
    for n in range(1, 201):
        step(router, "old", plain(), f"k{n}")
        if n % 50 == 0:
            snapshot = folder / f"snapshot-{n:012d}.pt"
            deadline = time.monotonic() + 10
            while not snapshot.exists() and time.monotonic() < deadline:  # a background write
                time.sleep(0.01)
            sizes.append(snapshot.stat().st_size)
    store.close()
    assert len(set(sizes)) == 1
    lines = (folder / "journal").read_bytes().splitlines()
    assert len(lines) == 200 and max(map(len, lines)) - min(map(len, lines)) < 20


def test_a_restart_replays_the_journal_after_the_last_snapshot(tmp_path):
    store, router = store_and_router(tmp_path, snapshot_every=10)
    answers = [
        step(router, "r", adam(learning_rate=0.001 * (n % 5 + 1)), f"k{n}")[1] for n in range(25)
    ]
    session = store.find("r")
    expected = session.state_dict()
    store.release("r")
    # no snapshot at shutdown: as after kill -9, which also releases the state folder's lock
    store._snapshots.put(None)
    store._writer.join()
    store._owner.release()
    folder = _store.session_folder(tmp_path, "r")
    assert sorted(p.name for p in folder.glob("snapshot-*.pt")) == ["snapshot-000000000020.pt"]
    with open(folder / "journal", "ab") as journal:
        journal.write(b'0badc0de {"seq": 26')  # a record cut short: never answered
    again, router = store_and_router(tmp_path)
    loaded = again.find("r")
    assert loaded.step == 25
    state = loaded.state_dict()
    assert all(torch.equal(expected["parameters"][k], v) for k, v in state["parameters"].items())
    assert state["operations"] == expected["operations"]
    assert step(router, "r", adam(learning_rate=0.001 * (3 % 5 + 1)), "k3")[1] == answers[3]
    again.release("r")
    again.close()
    assert (folder / "journal").read_bytes().endswith(b"}\n")


def test_a_damaged_journal_refuses_to_load_with_a_clear_answer(tmp_path):
    store, router = store_and_router(tmp_path)
    for n in range(3):
        step(router, "d", plain(), f"k{n}")
    store.close()
    journal = _store.session_folder(tmp_path, "d") / "journal"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + lines[1].replace(b'"seq":2', b'"seq":9') + lines[2])
    store, router = store_and_router(tmp_path)
    status, problem, _ = step(router, "d", plain())
    assert status == 500 and problem["error"]["message"] == (
        "the saved training session 'd' cannot be loaded: journal record 2 is damaged"
    )  # the session and the record, not the server's path
    store.close()


def test_a_state_folder_of_runtime_1_0_is_taken_over(tmp_path):
    """The file runtime 1.0.0 wrote after every step (`<hash>.pt`, the whole state) becomes a
    journal and a snapshot on the session's first use, and the session continues."""
    session, gradients = make_sessions()()
    keyed = session.optim_step(
        adam(learning_rate=0.01), idempotency_key="old-key", gradients=gradients
    )
    session.optim_step(plain(), gradients=gradients)
    saved = {"revision": NEWEST, "session_id": "legacy", "state": session.state_dict()}
    legacy = tmp_path / (_store.session_folder(tmp_path, "legacy").name + ".pt")
    torch.save(saved, legacy)
    store, router = store_and_router(tmp_path)
    status, operation, _ = step(router, "legacy", plain())
    assert status == 200 and operation["output"]["step"] == facts.step(NEWEST, 3)
    assert router.handle("GET", f"{path('legacy')}/{keyed.id}", {}, b"")[1] == keyed.to_dict()
    assert step(router, "legacy", adam(learning_rate=0.01), "old-key")[1] == keyed.to_dict()
    store.close()
    assert not legacy.exists()
    again, router = store_and_router(tmp_path)
    assert step(router, "legacy", plain())[1]["output"]["step"] == facts.step(NEWEST, 4)
    again.close()
