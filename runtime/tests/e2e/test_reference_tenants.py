"""API keys of the reference server: each key a tenant that sees only its own sessions (over
HTTP, with the generated client and with Together's official SDK, and across a restart), a
missing or wrong key answered 401, no key ever shown, and a server without keys on loopback
only."""

from __future__ import annotations

import json

import pytest
import together

from support import facts
from support.packages import load, reference
from support.serving import ForkServer, Served
from together_rl_runtime.reference import _routes, _store, serve
from together_rl_runtime.reference._tenants import Keys

# The official SDK 3.1.1 sends Adam's settings as `adam_params`: one revision that reads them
# there serves both clients (as in test_official_sdk.py).
SERVER = facts.sdk_server()
(COMPLETED,) = facts.statuses(SERVER, "succeeded")
ALICE, BOB = "alice-5d41402abc4b2a76b971", "bob-7d793037a0760186574b"
ENV = {"OMP_NUM_THREADS": "1"}


def path(session: str) -> str:
    return facts.path(SERVER, session)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def arguments(**settings: float) -> dict:
    """The generated client's arguments of a step that sets Adam's ``settings``."""
    body = facts.body(SERVER, "adam", {f"adam.{name}": v for name, v in settings.items()})
    return {**body, **facts.required_arguments(SERVER)}


@pytest.fixture(scope="module")
def keys_file(tmp_path_factory):
    keys = tmp_path_factory.mktemp("keys") / "keys"
    keys.write_text(f"# the tenants of these tests\n{ALICE}\n\n   {BOB}  \n")
    return keys


@pytest.fixture(scope="module")
def forks():
    with ForkServer(SERVER, env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="module")
def served(forks, keys_file, state):
    with forks.start("--api-keys-file", str(keys_file), "--state-dir", str(state)) as server:
        yield server


def test_two_keys_never_see_each_other_s_sessions_with_the_generated_client(served):
    package = load(SERVER)
    with (
        package.Client(api_key=ALICE, base_url=served.url, max_retries=0) as alice,
        package.Client(api_key=BOB, base_url=served.url, max_retries=0) as bob,
    ):
        first = alice.optim_step("client-shared", **arguments())
        assert first.output.step == facts.step(SERVER, 1)
        # Bob names Alice's session and operation: it is not there for him, as if it did not
        # exist (404, never 403)
        with pytest.raises(package.NotFoundError, match="no training session 'client-shared'"):
            bob.get_optim_step_operation("client-shared", first.id)
        # his step with lr=10 under the same id makes a session of his own
        his = bob.optim_step("client-shared", **arguments(learning_rate=10.0))
        assert his.status == COMPLETED and his.output.step == facts.step(SERVER, 1)
        assert alice.optim_step("client-shared", **arguments()).output.step == facts.step(SERVER, 2)
        assert alice.get_optim_step_operation("client-shared", first.id) == first
        with pytest.raises(package.NotFoundError):
            alice.get_optim_step_operation("client-shared", his.id)


def test_two_keys_never_see_each_other_s_sessions_with_the_official_sdk(served):
    with (
        together.Together(api_key=ALICE, base_url=served.url, max_retries=0) as alice_sdk,
        together.Together(api_key=BOB, base_url=served.url, max_retries=0) as bob_sdk,
    ):
        alice, bob = alice_sdk.post_training.operations, bob_sdk.post_training.operations
        first = alice.optim_step("sdk-shared", idempotency_key="k-1", adam_params={"beta1": 0.8})
        assert first.output.step == facts.step(SERVER, 1)  # the SDK keeps it as sent
        with pytest.raises(together.NotFoundError) as caught:
            bob.retrieve_optim_step(first.id, session_id="sdk-shared")
        assert caught.value.status_code == 404
        # idempotency keys are the tenant's too: Bob's "k-1" with another body is no reuse
        his = bob.optim_step(
            "sdk-shared", idempotency_key="k-1", adam_params={"learning_rate": 10.0}
        )
        assert his.id != first.id and his.output.step == facts.step(SERVER, 1)
        again = alice.optim_step("sdk-shared", idempotency_key="k-1", adam_params={"beta1": 0.8})
        assert again == first
        assert alice.optim_step("sdk-shared", idempotency_key="k-2").output.step == facts.step(
            SERVER, 2
        )
    with together.Together(api_key="not-a-key", base_url=served.url, max_retries=0) as sdk:
        with pytest.raises(together.AuthenticationError) as refused:
            sdk.post_training.operations.optim_step("sdk-shared", idempotency_key="k-3")
        assert refused.value.status_code == 401


@pytest.mark.parametrize(
    "headers",
    [
        {},
        bearer("wrong"),
        bearer(ALICE[:-1]),
        bearer(ALICE + "x"),
        {"Authorization": ALICE},
        {"Authorization": f"Basic {ALICE}"},
    ],
    ids=["none", "wrong", "a prefix", "longer", "no scheme", "basic"],
)
def test_a_missing_or_wrong_key_is_401(served, headers):
    for method, where, body in (
        ("POST", path("guarded"), {}),
        ("GET", path("guarded") + "/o", None),
    ):
        status, problem = served.request(method, where, body, headers)
        assert status == 401 and problem["error"]["type"] == "authentication_error"
    assert served.request("POST", path("guarded"), served.required_body(), bearer(ALICE))[0] == 200


def test_sessions_stay_their_tenant_s_across_a_restart(forks, keys_file, tmp_path):
    args = ("--api-keys-file", str(keys_file), "--state-dir", str(tmp_path))
    with forks.start(*args) as server:
        alice = server.request("POST", path("kept"), server.required_body(), bearer(ALICE))[1]
        bob = server.request("POST", path("kept"), server.required_body(), bearer(BOB))[1]
        assert alice["output"]["step"] == bob["output"]["step"] == facts.step(SERVER, 1)
    with forks.start(*args) as server:
        assert server.request("GET", f"{path('kept')}/{alice['id']}", None, bearer(ALICE)) == (
            200,
            alice,
        )
        assert server.request("GET", f"{path('kept')}/{alice['id']}", None, bearer(BOB))[0] == 404
        assert server.request("POST", path("kept"), server.required_body(), bearer(BOB))[1][
            "output"
        ]["step"] == facts.step(SERVER, 2)
    with forks.start("--state-dir", str(tmp_path)) as server:  # no keys: a tenant of its own
        assert server.request("GET", f"{path('kept')}/{alice['id']}")[0] == 404
        assert server.request("POST", path("kept"), server.required_body())[1]["output"][
            "step"
        ] == facts.step(SERVER, 1)


def test_a_journal_from_before_tenants_is_the_no_key_tenant_s(tmp_path):
    """A session folder whose description names no tenant (as before this change) loads for a
    server without keys, and no key sees it."""
    session_class = reference(SERVER).LocalSession
    plain = json.dumps(facts.required_body(SERVER)).encode()
    options = {"optimizer": "adam", "muon_scaling": "original"}
    make = serve.session_factory(session_class, serve.demo_model, 0, options)
    store = _store.SessionStore(make, SERVER, state_dir=tmp_path)
    router = _routes.Router(store, session_class.revision, gradients=store.gradients)
    old = router.handle("POST", path("old"), facts.required_headers(SERVER), plain)[1]
    store.close()
    meta = _store.session_folder(tmp_path, "old") / "session.json"
    described = json.loads(meta.read_text())
    del described["tenant"]
    meta.write_text(json.dumps(described))
    for keys in (Keys([ALICE]), None):
        store = _store.SessionStore(make, SERVER, state_dir=tmp_path)
        router = _routes.Router(store, session_class.revision, keys=keys, gradients=store.gradients)
        auth = {} if keys is None else bearer(ALICE)
        got = router.handle("GET", f"{path('old')}/{old['id']}", auth, b"")
        assert got[0] == (404 if keys else 200)
        headers = {**facts.required_headers(SERVER), **auth}  # a new idempotency key, if any
        stepped = router.handle("POST", path("old"), headers, plain)[1]
        assert stepped["output"]["step"] == facts.step(SERVER, 1 if keys else 2)
        store.close()


def test_no_key_shows_in_the_log_the_answers_or_the_state_folder(keys_file, tmp_path):
    state = tmp_path / "state"
    third = "carol-0cc175b9c0f1b6a831c3"
    args = ("--api-keys-file", str(keys_file), "--state-dir", str(state), "--log-steps")
    answers = []
    server = Served(SERVER, *args, "--api-key", third, env=ENV)
    try:
        for key in (ALICE, BOB, third):
            auth = bearer(key)
            answers.append(server.request("POST", path("mine"), server.required_body(), auth))
            answers.append(server.request("POST", path("mine"), {"adam_params": {"eps": 0}}, auth))
            answers.append(server.request("GET", path("mine") + "/nope", None, auth))
            answers.append(server.request("POST", path("mine"), [1], auth))
        answers.append(
            server.request("POST", path("mine"), server.required_body(), bearer(ALICE + "-wrong"))
        )
    finally:
        log = server.stop()
    assert [status for status, _ in answers] == [200, 200, 404, 400] * 3 + [401]
    assert "--api-key is deprecated" in log  # and the third key worked
    assert "3 API keys, each seeing only its own sessions" in server.banner
    assert '"tenant": ' in log  # the steps are logged by tenant, never by key
    shown = [server.banner, log, json.dumps(answers)]
    shown += [p.read_bytes().decode("latin-1") for p in state.rglob("*") if p.is_file()]
    for key in (ALICE, BOB, third):
        assert not any(key in text for text in shown)
    assert repr(Keys([ALICE, BOB])) == "<Keys: 2 API keys>"


def test_without_keys_the_server_listens_on_loopback_only():
    refused = Served(
        SERVER, "--host", "0.0.0.0", env={"TOGETHER_API_KEY": "the-client-s"}, wait=False
    )
    assert refused.process.wait(timeout=120) == 2
    log = refused.stop()
    assert "--host 0.0.0.0 is not a loopback address, and the server has no API key" in log
    assert "--no-auth" in log and "does not read TOGETHER_API_KEY" in log
    with Served(SERVER) as server:
        assert "no API key: on loopback only" in server.banner
    with Served(SERVER, "--host", "0.0.0.0", "--no-auth") as server:
        assert "no API key (--no-auth): anyone who reaches it uses every session" in server.banner
        assert server.request("POST", path("open"), server.required_body())[0] == 200
