"""Whatever it is given, a generated package raises only its own errors: models, the client and
the reference's router, fed arbitrary JSON values and bytes."""

from __future__ import annotations

import gzip
import json
import zlib

import httpx
from hypothesis import HealthCheck, given, settings, strategies as st

import together_rl_runtime as runtime
from support import facts
from support.anyvalues import json_values, models_raise_only_validation_errors
from support.packages import load, reference

NEWEST = facts.NEWEST


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values)
def test_models_raise_only_validation_errors(value):
    """The newest revision's (each other one's: tests/e2e/test_every_revision.py)."""
    models_raise_only_validation_errors(NEWEST, value)


@settings(max_examples=150, deadline=None)
@given(value=json_values)
def test_the_client_raises_only_its_own_errors(value):
    package = load(NEWEST)
    answers = iter([value, value])

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=json.dumps(next(answers)).encode())

    with package.Client(api_key="k", transport=httpx.MockTransport(serve), max_retries=0) as c:
        arguments = value if isinstance(value, dict) else {"adam_params": value}
        try:
            c.optim_step("s", **{k: v for k, v in arguments.items() if k.isidentifier()})
        except (package.APIError, TypeError):  # TypeError: an argument the method does not take
            pass


ENCODERS = {"gzip": gzip.compress, "x-gzip": gzip.compress, "deflate": zlib.compress}


@st.composite
def answers(draw):
    """An answer as the server may send it: a status, a Content-Encoding (one the client reads
    or not), a body encoded as declared or not, whole or cut short, in pieces of any size."""
    body = draw(st.binary(max_size=256) | json_values.map(lambda v: json.dumps(v).encode()))
    coding = draw(st.sampled_from(["", "identity", "gzip", "x-gzip", "deflate", "br", "gzip, br"]))
    if draw(st.booleans()):
        body = ENCODERS.get(coding, bytes)(body)
    body = body[: draw(st.integers(0, len(body)))] if draw(st.booleans()) else body
    size = draw(st.integers(1, 64))
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return draw(st.sampled_from([200, 404, 503])), coding, pieces


def answering(status, coding, pieces):
    headers = {"content-encoding": coding} if coding else {}
    return httpx.MockTransport(
        lambda request: httpx.Response(status, headers=headers, content=iter(pieces))
    )


@settings(max_examples=200, deadline=None)
@given(answer=answers(), limit=st.integers(1, 512))
def test_the_client_reads_any_body_within_its_bounds_and_raises_only_its_own_errors(answer, limit):
    package = load(NEWEST)
    with package.Client(
        api_key="k", transport=answering(*answer), max_retries=0, max_response_bytes=limit
    ) as c:
        try:
            c.get_optim_step_operation("s", "op-1")
        except package.APIError:
            pass


class Streams(runtime.SyncAPIClient):
    """A client of an API with one operation that streams events."""

    _spec = runtime.ClientSpec(
        package="streams",
        user_agent="streams/1",
        base_url="http://streams.example",
        default_auth=None,
        key_required=False,
    )

    def watch(self):
        request = self._build_request("GET", "/events", accept="text/event-stream")
        return self._events(request, resendable=True, error=None)


event_lines = st.lists(
    st.sampled_from(["data: ", "event: ", "id: ", "retry: ", ": ", ""]).flatmap(
        lambda field: st.text(max_size=40).map(lambda text: field + text)
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(
    lines=event_lines,
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
    answer=answers(),
    limit=st.integers(1, 128),
)
def test_an_event_stream_raises_only_the_client_s_own_errors(lines, ending, answer, limit):
    """Events written any way, or any answer at all, read within any limit."""
    status, coding, pieces = answer
    stream = ending.join(lines).encode()
    if not coding:  # the events themselves, in pieces of a size the answer chose
        size = max(1, len(pieces[0]) if pieces else 1)
        pieces = [stream[i : i + size] for i in range(0, len(stream), size)]
    transport = answering(status, coding, pieces)
    with Streams(transport=transport, max_retries=0, max_response_bytes=limit) as c:
        try:
            for event in c.watch():
                assert len(event.data.encode()) <= limit
        except runtime.APIError:
            pass


@settings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=64) | json_values.map(lambda v: json.dumps(v).encode()))
def test_the_reference_router_always_answers(body):
    import torch

    from together_rl_runtime.reference import _routes as routes

    ref = reference(NEWEST)
    router = routes.Router(
        routes.Sessions(lambda sid: ref.LocalSession(torch.nn.Linear(2, 1))),
        ref.LocalSession.revision,
    )
    status, payload = router.respond(
        "POST", facts.path(NEWEST, "s"), facts.required_headers(NEWEST), body
    )
    assert status in (200, 400, 422) and isinstance(payload, dict)
