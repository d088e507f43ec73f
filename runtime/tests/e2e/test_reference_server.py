"""The reference server and the local transport behave like the API: a session per id,
idempotency, requests that change nothing when refused, HTTP/1.1 done properly, saved state,
API keys, and the user's own model."""

from __future__ import annotations

import json
import socket
import textwrap

import pytest
import torch
from torch import nn

from support import facts
from support.facts import NEWEST, body, field_for, statuses
from support.packages import load, reference
from support.serving import Served

torch.set_num_threads(1)

(COMPLETED,) = statuses(NEWEST, "succeeded")
(FAILED,) = statuses(NEWEST, "failed")


def path(session: str = "s-1") -> str:
    return facts.path(NEWEST, session)


def adam(**settings: float) -> dict:
    """A body of the newest revision that sets Adam's settings (``beta1=0.8``)."""
    return body(NEWEST, "adam", {f"adam.{name}": value for name, value in settings.items()})


def arguments() -> dict:
    """The newest client's arguments for a step that sets nothing."""
    return {**facts.required_body(NEWEST), **facts.required_arguments(NEWEST)}


def field(setting: str) -> str:
    found = field_for(NEWEST, "adam", setting)
    assert found is not None
    return found


@pytest.fixture(scope="module")
def served():
    with Served(NEWEST) as server:
        yield server


def test_each_session_id_has_a_session_of_its_own(served):
    for number in (1, 2):
        status, operation = served.request("POST", path("own-a"), served.required_body())
        assert (status, operation["output"]["step"]) == (200, facts.step(NEWEST, number))
    status, operation = served.request("POST", path("own-b"), served.required_body())
    assert operation["output"]["step"] == facts.step(NEWEST, 1)


def test_an_idempotency_key_applies_one_step_and_guards_its_body(served):
    key = {"Idempotency-Key": "key-1"}
    first = served.request("POST", path("idem"), adam(beta1=0.8), key)
    again = served.request("POST", path("idem"), adam(beta1=0.8), key)
    assert first == again and first[1]["output"]["step"] == facts.step(NEWEST, 1)
    status, problem = served.request("POST", path("idem"), adam(beta1=0.7), key)
    assert status == 422
    assert problem["error"]["code"] == "idempotency_key_reused"
    assert first[1]["id"] in problem["error"]["message"]
    assert served.request("POST", path("idem"), served.required_body())[1]["output"][
        "step"
    ] == facts.step(NEWEST, 2)


def test_operation_ids_are_unique_and_unknown_ones_are_404(served):
    ids = {served.request("POST", path("ids"), served.required_body())[1]["id"] for _ in range(3)}
    assert len(ids) == 3
    status, problem = served.request("GET", path("ids") + "/nope")
    assert status == 404 and problem["error"]["type"] == "not_found_error"


def test_a_refused_step_leaves_no_gradient_behind():
    """The server computes a step's gradients only once its request is checked: a step after a
    refused one applies one batch's gradients, not two."""
    from together_rl_runtime.reference import _routes as routes, _store, serve

    session_class = reference(NEWEST).LocalSession
    make = serve.session_factory(session_class, serve.demo_model, 0, {"optimizer": "adam"})
    store = _store.SessionStore(make, NEWEST)
    router = routes.Router(store, session_class.revision, gradients=store.gradients)
    good = json.dumps(adam(learning_rate=0.01)).encode()
    for sid in ("a", "b"):
        router.respond("POST", path(sid), facts.required_headers(NEWEST), good)
    refused = router.respond(
        "POST", path("a"), facts.required_headers(NEWEST), json.dumps(adam(eps=0)).encode()
    )
    assert refused[1]["status"] == FAILED
    for sid in ("a", "b"):
        router.respond("POST", path(sid), facts.required_headers(NEWEST), good)
    a, b = store.find("a"), store.find("b")
    assert a.step == b.step == 2
    assert all(
        torch.equal(x, y)
        for x, y in zip(
            a.state_dict()["parameters"].values(), b.state_dict()["parameters"].values()
        )
    )


def broken_update(session, after_touching: bool):
    """Make the session's update raise, after changing a parameter where ``after_touching``."""

    def fail(names, settings, total_norm):
        if after_touching:
            with torch.no_grad():
                next(iter(session._params.values())).add_(1.0)
        raise RuntimeError("out of memory")

    session._apply = fail


@pytest.mark.parametrize("after_touching", [False, True])
def test_an_exception_inside_a_step_rolls_back(after_touching):
    ref = reference(NEWEST)
    model = nn.Linear(3, 2)
    model(torch.ones(4, 3)).sum().backward()
    session = ref.LocalSession(model, "adam", rollback=True)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    grads = [p.grad.clone() for p in model.parameters()]
    broken_update(session, after_touching)
    operation = session.optim_step(facts.required_body(NEWEST))
    assert operation.status == FAILED
    assert operation.error.code == "TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR"
    assert (
        "out of memory" in operation.error.message
        and "nothing was changed" in operation.error.message
    )
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters()))
    assert session.step == 0 and session.state_dict()["adam"] == {}
    del session._apply
    assert session.optim_step(facts.required_body(NEWEST)).status == COMPLETED


def test_without_rollback_a_failed_update_stops_the_session_until_a_state_is_loaded():
    ref = reference(NEWEST)
    model = nn.Linear(3, 2)
    session = ref.LocalSession(model, "adam")
    saved = session.state_dict()
    model(torch.ones(4, 3)).sum().backward()
    broken_update(session, after_touching=True)
    assert session.optim_step(facts.required_body(NEWEST)).status == FAILED
    del session._apply
    refused = session.optim_step(facts.required_body(NEWEST))
    assert refused.status == FAILED and "load_state_dict" in refused.error.message
    session.load_state_dict(saved)
    model(torch.ones(4, 3)).sum().backward()
    assert session.optim_step(facts.required_body(NEWEST)).status == COMPLETED


def test_a_huge_number_gets_an_answer(served):
    status, operation = served.request("POST", path("huge"), adam(beta1=10**400))
    assert status == 200 and operation["status"] == FAILED
    assert operation["error"]["message"].startswith(
        f"{field('adam.beta1')}: expected a number a double"
    )
    deep = "[" * 10_000 + "]" * 10_000
    connection = served.connection()
    headers = {"Content-Type": "application/json", **facts.required_headers(NEWEST)}
    connection.request("POST", path("huge"), body=deep, headers=headers)
    response = connection.getresponse()
    problem = json.loads(response.read())
    assert response.status == 400 and problem["error"]["message"] == (
        "the request body nests more than 32 objects and arrays deep, at " + "[0]" * 32
    )


def test_keep_alive_serves_several_requests_on_one_connection(served):
    connection = served.connection()
    status, operation = served.request(
        "POST", path("alive"), served.required_body(), connection=connection
    )
    for _ in range(5):
        assert served.request(
            "GET", f"{path('alive')}/{operation['id']}", connection=connection
        ) == (
            200,
            operation,
        )
    connection.close()


def raw(served, data: bytes) -> bytes:
    with socket.create_connection((served.host, served.port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks) and b"}" in chunk:
                break
        return b"".join(chunks)


def test_a_chunked_body_is_read(served):
    data = json.dumps(adam(eps=0)).encode()
    headers = "".join(f"{k}: {v}\r\n" for k, v in facts.required_headers(NEWEST).items())
    request = (
        f"POST {path('chunked')} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        f"{headers}Connection: close\r\n\r\n"
    ).encode()
    request += b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (10, data[:10], len(data) - 10, data[10:])
    answer = raw(served, request)
    assert answer.startswith(b"HTTP/1.1 200")
    assert f"{field('adam.eps')}: must be > 0".encode() in answer  # the step saw the body


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ("Content-Length: 99999999", b"413"),
        ("Content-Length: lots", b"400"),
        ("Transfer-Encoding: chunked", b"400"),
    ],
)
def test_malformed_or_oversized_bodies_are_refused(served, headers, status):
    request = f"POST {path('bad')} HTTP/1.1\r\nHost: x\r\n{headers}\r\n\r\nzz\r\n".encode()
    answer = raw(served, request)
    assert answer.split(b" ")[1] == status
    assert b'"type": "invalid_request_error"' in answer


def test_a_request_that_stalls_is_answered_408():
    """A body that stops short of its Content-Length is answered 408 once the read timeout
    passes, not held open until the client gives up (the client's own timeout, 10 s, only ends
    a test that would hang)."""
    with Served(NEWEST, "--read-timeout", "0.3") as server:
        answer = raw(
            server, f"POST {path()} HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{{".encode()
        )
        assert answer.split(b" ")[1] == b"408"


def test_state_dir_continues_after_a_restart(tmp_path):
    with Served(NEWEST, "--state-dir", str(tmp_path)) as server:
        first = [server.request("POST", path("kept"), server.required_body())[1] for _ in range(2)]
        key = {"Idempotency-Key": "k"}
        keyed = server.request("POST", path("kept"), server.required_body(), key)[1]
    assert "saved in" in server.banner
    with Served(NEWEST, "--state-dir", str(tmp_path)) as server:
        assert server.request("GET", f"{path('kept')}/{first[0]['id']}") == (200, first[0])
        assert (
            server.request("POST", path("kept"), server.required_body(), key)[1] == keyed
        )  # still the same step
        later = server.request("POST", path("kept"), server.required_body())[1]
        assert later["output"]["step"] == facts.step(NEWEST, 4) and later["id"] not in {
            op["id"] for op in first
        }


def test_an_api_key_is_checked():
    env = {"TOGETHER_RL_REFERENCE_API_KEYS": "sekrit", "TOGETHER_API_KEY": "the-client-s"}
    with Served(NEWEST, env=env) as server:
        for token in (None, "wrong", "the-client-s"):
            headers = {} if token is None else {"Authorization": f"Bearer {token}"}
            status, problem = server.request("POST", path(), server.required_body(), headers)
            assert status == 401 and problem["error"]["type"] == "authentication_error"
        status, operation = server.request(
            "POST", path(), server.required_body(), {"Authorization": "Bearer sekrit"}
        )
        assert status == 200 and operation["status"] == COMPLETED
    assert "1 API key, each seeing only its own sessions" in server.banner


def test_the_user_s_own_model_is_served(tmp_path):
    (tmp_path / "my_model.py").write_text(textwrap.dedent("""
            import torch
            from torch import nn

            def make(seed):
                torch.manual_seed(seed)
                model = nn.Linear(3, 1)
                inputs = torch.randn(32, 3)
                targets = inputs.sum(dim=1, keepdim=True)
                return model, lambda: nn.functional.mse_loss(model(inputs), targets)
            """))
    env = {"PYTHONPATH": str(tmp_path)}
    with Served(
        NEWEST, "--model", "my_model:make", "--state-dir", str(tmp_path / "s"), env=env
    ) as server:
        for _ in range(40):
            server.request("POST", path("mine"), adam(learning_rate=0.05))
    assert "over my_model:make" in server.banner
    (snapshot,) = (tmp_path / "s").glob("*/snapshot-*.pt")  # written at shutdown
    state = torch.load(snapshot, weights_only=True)["state"]
    weight = state["parameters"]["weight"]
    assert torch.allclose(weight, torch.ones_like(weight), atol=0.5)  # it learned the sum


def test_the_local_transport_keeps_sessions_apart():
    pkg, ref = load(NEWEST), reference(NEWEST)
    session = ref.LocalSession(nn.Linear(2, 1), "adam")
    with pkg.Client(api_key="local", transport=ref.LocalTransport(session)) as client:
        assert client.optim_step("first", **arguments()).output.step == facts.step(NEWEST, 1)
        with pytest.raises(pkg.NotFoundError, match="no training session 'second'"):
            client.optim_step("second", **arguments())
    made = {}
    transport = ref.LocalTransport(
        lambda sid: made.setdefault(sid, ref.LocalSession(nn.Linear(2, 1)))
    )
    with pkg.Client(api_key="local", transport=transport) as client:
        client.optim_step("x", **arguments())
        client.optim_step("x", **arguments())
        assert client.optim_step("y", **arguments()).output.step == facts.step(NEWEST, 1)
    assert sorted(made) == ["x", "y"] and made["x"].step == 2


def test_the_server_starts_quietly_and_says_what_it_serves():
    server = Served(NEWEST)
    log = server.stop()
    assert "one adam session per session id, over the demonstration model" in server.banner
    assert "NumPy" not in log and "Warning" not in log
