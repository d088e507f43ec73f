"""The generated clients' bounds in real seconds, against a real HTTP server on loopback: a
Retry-After honoured, timeouts of an attempt and of a call, deadlines of a wait. A verdict is
what the client did (the error it raised, the sleeps it asked for, the answer it left unread),
never how long it took: a loaded machine makes a test slower, not failed."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

from support.clients import ERROR_BODY, KEY, SESSION, client_for, operation
from support.loopback import DripServer, Reply
from support.packages import load

pytestmark = pytest.mark.usefixtures("quick_retries")


def test_429_is_retried_for_a_post_after_retry_after(server):
    server.script(Reply(429, ERROR_BODY, headers={"Retry-After": "1"}), Reply(200, operation()))
    with client_for("f4885bc38424", server) as client:
        client.optim_step(SESSION)
    first, second = server.seen
    assert second.at - first.at >= 0.95  # the server asked for one second


def test_timeouts_raise_api_timeout_error_and_a_post_is_not_resent(server):
    pkg = load("f4885bc38424")
    server.script(
        Reply(200, operation(), delay=1.0),
        Reply(200, operation(), delay=1.0),
        Reply(200, operation(), delay=1.0),
    )
    with client_for("f4885bc38424", server, timeout=0.2, max_retries=1) as client:
        with pytest.raises(pkg.APITimeoutError):
            client.optim_step(SESSION)
        assert len(server.seen) == 1
        with pytest.raises(pkg.APITimeoutError):
            client.get_optim_step_operation(SESSION, "op-1")
    assert [s.method for s in server.seen] == ["POST", "GET", "GET"]


def errors_of_optim_step(url, **options):
    """The error that optim_step raises through the sync client, the async one, and the sync one
    over an ``httpx.Client`` of the caller's own (None where it returns)."""
    pkg = load("f4885bc38424")

    def sync(**more):
        with pkg.Client(api_key=KEY, base_url=url, **options, **more) as client:
            client.optim_step(SESSION)

    async def in_async():
        async with pkg.AsyncClient(api_key=KEY, base_url=url, **options) as client:
            await client.optim_step(SESSION)

    def over_own_pool():
        with httpx.Client() as own:
            sync(http_client=own)

    errors = []
    for call in (sync, lambda: asyncio.run(in_async()), over_own_pool):
        try:
            call()
            errors.append(None)
        except pkg.APIError as exc:
            errors.append(exc)
    return errors


@pytest.mark.parametrize("head", [True, False], ids=["head", "body"])
def test_a_server_that_drips_its_answer_is_cut_at_the_timeout(head):
    """The server sends a byte every 10 ms without end (a header line after another, or a body
    of white space): each read is in time, and only the bound of the attempt as a whole ends
    the call; the server gives up after 30 s, which an unbounded call would fail on."""
    with DripServer(head=head) as server:
        errors = errors_of_optim_step(server.url, timeout=0.5, max_retries=0)
    assert [type(e) for e in errors] == [load("f4885bc38424").APITimeoutError] * 3
    assert server.connections == 3


def test_the_deadline_ends_a_call_whose_attempts_are_each_cut_at_the_timeout():
    """Each attempt of a GET is cut at 0.5 s and retried; six would take 3 s at least, and the
    deadline of 1.2 s ends the call first."""
    pkg = load("f4885bc38424")
    with DripServer(head=False) as server:
        with pkg.Client(
            api_key=KEY, base_url=server.url, timeout=0.5, max_retries=5, deadline=1.2
        ) as client:
            with pytest.raises(pkg.APITimeoutError, match="within its deadline of 1.2 s"):
                client.get_optim_step_operation(SESSION, "op-1")


class RecordedSleeps:
    """The runtime client's ``time`` module, recording each sleep it asks for (and sleeping)."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.asked.append(seconds)
        time.sleep(seconds)

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


@pytest.fixture
def sleeps(monkeypatch):
    from together_rl_runtime import _client

    recorded = RecordedSleeps()
    monkeypatch.setattr(_client, "time", recorded)
    return recorded.asked


def test_wait_raises_timeout_error_at_the_deadline_without_sleeping_past_it(server, sleeps):
    """The second sleep is cut to what is left of the deadline, not the doubled 0.8 s."""
    pkg = load("f4885bc38424")
    server.script(*[Reply(200, operation())] * 20)
    with client_for("f4885bc38424", server) as client:
        with pytest.raises(TimeoutError) as caught:
            client.wait_for_optim_step(SESSION, "op-1", timeout=0.5, interval=0.4)
    assert isinstance(caught.value, pkg.OperationTimeoutError)
    assert sleeps[0] == 0.4 and sum(sleeps) <= 0.5, sleeps


@pytest.mark.parametrize("stall", [False, True], ids=["retries", "a stalled request"])
def test_a_waiter_s_retries_and_requests_keep_its_deadline(stall, server, sleeps):
    """The poll's retries wait 0.8 s each, and the next one would pass the deadline: it is not
    slept; or the server holds its answer to a poll for as long as the test runs, and the
    request ends at the deadline (its own timeout is a minute)."""
    pkg = load("f4885bc38424")
    held = threading.Event()
    if stall:
        server.script(Reply(200, operation()), Reply(200, operation(), held=held))
    else:
        retry = Reply(503, ERROR_BODY, headers={"Retry-After": "0.8"})
        server.script(Reply(200, operation()), *[retry] * 5)
    try:
        with client_for("f4885bc38424", server, max_retries=5, timeout=60.0) as client:
            with pytest.raises(pkg.OperationTimeoutError) as caught:
                client.wait_for_optim_step(SESSION, "op-1", timeout=1.0, interval=0.1)
        assert not held.is_set()
    finally:
        held.set()
    assert sum(sleeps) <= 1.0, sleeps
    assert caught.value.operation.status == "TRAINING_OPERATION_STATUS_PENDING"
