"""The generated models of every revision: round trips, strict requests, tolerant responses."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings, strategies as st

from generator.reading import ir
from generator.reading.parser import parse_document
from generator.reading.revisions import load_index
from generator.reading.values import sample
from generator.views.pymodel import class_name
from support.packages import GENERATED, REVISIONS, load, models
from support.paths import ROOT

INDEX = load_index(ROOT / "spec")


def object_schemas():
    for revision in INDEX:
        for name, schema in revision.document.schemas.items():
            if isinstance(schema, ir.Object):
                yield pytest.param(revision, name, id=f"{revision.id}-{name}")


@pytest.mark.parametrize(("revision", "schema_name"), list(object_schemas()))
def test_round_trip_of_every_model(revision, schema_name):
    module = models(revision.id)
    model = getattr(module, class_name(schema_name))
    for full in (False, True):
        data = sample(revision.document, ir.Ref(name=schema_name, pointer=""), full=full)
        instance = model.from_dict(data)
        assert instance.to_dict() == data
        assert model.from_dict(instance.to_dict()) == instance
        assert model.from_json(instance.to_json()) == instance


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "number", "minimum": 0, "maximum": 1}, 0.5),
        ({"type": "number", "minimum": 1, "maximum": 10}, 1),
        ({"type": "number", "exclusiveMinimum": 2, "exclusiveMaximum": 3}, 2.5),
        ({"type": "number", "exclusiveMaximum": 0}, -1),
        ({"type": "integer", "minimum": 3}, 3),
        ({"type": "integer", "maximum": -2}, -2),
    ],
)
def test_a_sample_number_is_within_its_declared_bounds(schema, expected):
    """The READMEs' examples and the tests' bodies are samples: a sample the model refuses
    would be a wrong example."""
    doc = parse_document(
        {
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {},
            "components": {"schemas": {"N": schema}},
        },
        source="bounds.yaml",
    )
    assert sample(doc, ir.Ref(name="N", pointer="")) == expected


def test_left_out_fields_are_unset_and_not_sent():
    m = models("f4885bc38424")
    pkg = load("f4885bc38424")
    body = m.RLOptimStepBody(adam_params=m.RLAdamParams(learning_rate=1e-4))
    assert body.muon_params is pkg.UNSET and body.adam_params.beta1 is pkg.UNSET
    assert body.to_dict() == {"adam_params": {"learning_rate": 1e-4}}
    assert not pkg.UNSET and pkg.UNSET is not None


@pytest.mark.parametrize(
    ("revision", "payload", "message"),
    [
        (
            "f4885bc38424",
            {"muon_params": {"adam": {"beta1": "high"}}},
            "muon_params.adam.beta1: expected a number, got 'high'",
        ),
        (
            "f4885bc38424",
            {"adam_params": {"beta1": True}},
            "adam_params.beta1: expected a number, got True",
        ),
        (
            "f4885bc38424",
            {"adam_params": {"eps": math.inf}},
            "adam_params.eps: expected a finite number, got inf",
        ),
        (
            "f4885bc38424",
            {"muon_params": {"newton_schulz_steps": 5.5}},
            "muon_params.newton_schulz_steps: expected an integer, got 5.5",
        ),
        (
            "f4885bc38424",
            {"adam_params": {"lr": 0.1}},
            "adam_params.lr: unknown field (known: beta1, beta2, eps, grad_clip_norm, learning_rate, weight_decay), got 0.1",
        ),
        ("f4885bc38424", {"adam_params": []}, "adam_params: expected an object, got []"),
        (
            "baseline",
            {"weight_sync_type": "WEIGHT_SYNC_TYPE_SOMETIMES"},
            "weight_sync_type: expected one of WEIGHT_SYNC_TYPE_UNSPECIFIED, WEIGHT_SYNC_TYPE_SYNCHRONOUS, WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH, WEIGHT_SYNC_TYPE_PIPELINE, got 'WEIGHT_SYNC_TYPE_SOMETIMES'",
        ),
        ("baseline", {}, "weight_sync_type: is required"),
    ],
)
def test_requests_are_strict_and_name_the_json_path(revision, payload, message):
    m, pkg = models(revision), load(revision)
    with pytest.raises(pkg.ValidationError) as caught:
        m.RLOptimStepBody.from_dict(payload)
    assert str(caught.value) == message


def test_wrong_types_are_caught_when_sending_a_model_built_in_code():
    m, pkg = models("f4885bc38424"), load("f4885bc38424")
    body = m.RLOptimStepBody(muon_params=m.RLMuonParams(adam=m.RLAdamParams(beta1="0.9")))
    with pytest.raises(
        pkg.ValidationError, match=r"^muon_params\.adam\.beta1: expected a number, got '0\.9'$"
    ):
        body.to_dict()
    with pytest.raises(pkg.ValidationError, match=r"^adam_params: expected a RLAdamParams, got 5"):
        m.RLOptimStepBody(adam_params=5).to_dict()


def test_a_dict_stands_for_its_model_and_is_checked_as_the_model():
    m, pkg = models("f4885bc38424"), load("f4885bc38424")
    assert m.RLOptimStepBody(adam_params={"beta1": 0.9}).to_dict() == {
        "adam_params": {"beta1": 0.9}
    }
    with pytest.raises(
        pkg.ValidationError, match=r"^adam_params\.beta1: expected a number, got '0\.9'$"
    ):
        m.RLOptimStepBody(adam_params={"beta1": "0.9"}).to_dict()
    with pytest.raises(pkg.ValidationError, match=r"^adam_params\.beta: unknown field"):
        m.RLOptimStepBody(adam_params={"beta": 0.9}).to_dict()


def test_a_field_of_another_revision_says_where_it_went():
    m, pkg = models("f4885bc38424"), load("f4885bc38424")
    with pytest.raises(pkg.RevisionMismatchError) as caught:
        m.RLOptimStepBody(weight_sync_type="WEIGHT_SYNC_TYPE_SYNCHRONOUS")
    assert str(caught.value) == (
        "RLOptimStepBody: `weight_sync_type` was removed in revision f26a23fab8e0, 2026-08-08 "
        "(this package implements revision f4885bc38424)"
    )
    with pytest.raises(
        pkg.ValidationError,
        match=r"^weight_sync_type: `weight_sync_type` was removed in revision f26a23fab8e0",
    ):
        m.RLOptimStepBody.from_dict({"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"})


def test_a_package_knows_nothing_of_later_revisions():
    """A released package never changes: fields added after its revision are simply unknown."""
    old, old_pkg = models("baseline"), load("baseline")
    with pytest.raises(old_pkg.ValidationError, match=r"^adam_params: unknown field"):
        old.RLOptimStepBody.from_dict({"adam_params": {}})
    assert (
        "added in revision"
        not in (GENERATED / "baseline" / "together_rl" / "models.py").read_text()
    )


@pytest.mark.parametrize("revision", REVISIONS)
def test_payloads_from_a_newer_server_parse(revision):
    m = models(revision)
    reply = m.RLOptimStepOperation.from_dict(
        {
            "id": "op-1",
            "status": "TRAINING_OPERATION_STATUS_PAUSED",
            "output": {"step": "7", "loss": 0.5},
            "error": {"code": "TRAINING_OPERATION_ERROR_CODE_FROM_THE_FUTURE", "message": "later"},
            "weights_version": 3,
        }
    )
    assert reply.status == "TRAINING_OPERATION_STATUS_PAUSED"
    assert reply.error.code == "TRAINING_OPERATION_ERROR_CODE_FROM_THE_FUTURE"
    assert reply.extra == {"weights_version": 3} and reply.output.extra == {"loss": 0.5}
    assert reply.output.step == "7"
    assert m.RLOptimStepResult.from_dict({"step": 7}).step == 7
    known = m.RLOptimStepOperation.from_dict(
        {"id": "a", "status": "TRAINING_OPERATION_STATUS_COMPLETED"}
    )
    assert known.status is m.RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED
    assert m.RLOptimStepOperation.from_dict(reply.to_dict()) == reply


def test_non_finite_loss_is_known_from_ebd4756a41e4_on():
    code = "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
    assert not hasattr(
        models("9ccc57e5e4b9").RLTrainingOperationErrorCode,
        "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS",
    )
    assert models("ebd4756a41e4").RLTrainingOperationErrorCode(code) == code


def test_package_metadata():
    for revision in INDEX:
        pkg = load(revision.id)
        assert pkg.SPEC_REVISION == revision.id
        assert pkg.SPEC_DATE == (revision.date.isoformat() if revision.date else None)
    assert load("f4885bc38424").__version__ == "5.0.1.post1"


# -- property-based request validation -------------------------------------------------------------

json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
NUMBER_FIELDS = ["learning_rate", "beta1", "beta2", "eps", "weight_decay", "grad_clip_norm"]


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(NUMBER_FIELDS), value=json_values, nested=st.booleans())
def test_number_fields_accept_exactly_finite_numbers(field, value, nested):
    m, pkg = models("f4885bc38424"), load("f4885bc38424")
    payload = (
        {"muon_params": {"adam": {field: value}}} if nested else {"adam_params": {field: value}}
    )
    path = f"muon_params.adam.{field}" if nested else f"adam_params.{field}"
    if is_number(value):
        assert m.RLOptimStepBody.from_dict(payload).to_dict() == payload
    else:
        with pytest.raises(pkg.ValidationError) as caught:
            m.RLOptimStepBody.from_dict(payload)
        assert caught.value.path == path and caught.value.value is value


@settings(max_examples=200, deadline=None)
@given(extra=st.dictionaries(st.text(min_size=1, max_size=8), json_values, min_size=1, max_size=3))
def test_unknown_request_fields_are_rejected_with_their_path(extra):
    m, pkg = models("f4885bc38424"), load("f4885bc38424")
    unknown = {k: v for k, v in extra.items() if k not in m.RLAdamParams._FIELDS}
    payload = {"adam_params": {"beta1": 0.9, **unknown}}
    if not unknown:
        assert m.RLOptimStepBody.from_dict(payload).adam_params.beta1 == 0.9
        return
    with pytest.raises(pkg.ValidationError) as caught:
        m.RLOptimStepBody.from_dict(payload)
    assert caught.value.path == "adam_params." + next(iter(unknown))


@settings(max_examples=200, deadline=None)
@given(
    body=st.fixed_dictionaries(
        {},
        optional={
            "adam_params": st.fixed_dictionaries(
                {},
                optional={
                    f: st.floats(allow_nan=False, allow_infinity=False) for f in NUMBER_FIELDS
                },
            ),
            "muon_params": st.fixed_dictionaries(
                {},
                optional={"momentum": st.floats(0, 1), "newton_schulz_steps": st.integers(1, 100)},
            ),
        },
    )
)
def test_valid_bodies_round_trip(body):
    m = models("f4885bc38424")
    instance = m.RLOptimStepBody.from_dict(body)
    assert instance.to_dict() == body
    assert dataclasses.replace(instance) == instance


# -- typing -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", REVISIONS)
def test_unset_prints_as_unset(revision):
    unset = load(revision).UNSET
    assert (str(unset), repr(unset), f"{unset}", f"{unset!r}") == ("UNSET",) * 4
