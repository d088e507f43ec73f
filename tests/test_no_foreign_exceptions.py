"""Whatever it is given, a generated package raises only its own errors: models, the client and
the reference's router, fed arbitrary JSON values and bytes."""

from __future__ import annotations

import json

import httpx
import facts
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packages import load, models, reference

NEWEST = facts.NEWEST

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**500), max_value=10**500)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(["adam_params", "muon_params", "beta1", "adam", "step", "id", "status"])
        | st.text(max_size=6),
        inner,
        max_size=4,
    ),
    max_leaves=20,
)


@pytest.mark.parametrize("revision", facts.EACH_REVISION)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values)
def test_models_raise_only_validation_errors(revision, value):
    package, m = load(revision), models(revision)
    for model in (m.RLOptimStepBody, m.RLOptimStepOperation):
        try:
            model.from_dict(value).to_json()
        except package.ValidationError:
            pass


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
