"""The API's next revisions, made up (tests/support/nextrevision.py): each kind of change of the
catalogue applies to a released document and gives a valid one (the default next revision
appended to a copy of the project: tests/e2e/test_next_revision_appended.py)."""

from __future__ import annotations

import copy
import shutil

import pytest

from generator.reading.fieldroles import load_field_roles
from generator.reading.statuses import load_statuses
from generator.reading.validate import validate_document
from support import facts
from support.nextrevision import KINDS, catalogue, change


def test_the_catalogue_lists_every_kind_with_the_decision_it_needs():
    listed = catalogue().splitlines()
    assert len(listed) == len(KINDS) >= 25
    for kind, line in zip(KINDS.values(), listed):
        assert line.startswith(f"{kind.name}: {kind.summary}")
        assert ("[decision: " in line) == (kind.decision is not None)


RELEASED = "f4885bc38424"
"""A released revision, whose document never changes: the catalogue's kinds are tested on it
here (``nox -s next-revision`` applies them to the newest revision, whatever it is; a copy with
a made-up revision appended may lack what a kind changes)."""


@pytest.mark.parametrize("name", list(KINDS))
def test_each_kind_changes_a_document_into_a_valid_one(name, tmp_path):
    """Every kind finds its places in the document (never named), and what it makes validates;
    one that needs a decision names the warning that asks for it and gives it in the spec
    folder as the README says, in a form the generator reads."""
    spec = shutil.copytree(facts.SPEC_DIR, tmp_path / "spec")
    raw = facts.raw(RELEASED)
    before = copy.deepcopy(raw)
    (done,) = change(raw, spec, (name,))
    assert (raw == before) == (name == "identical"), done.what
    assert validate_document(raw, "next.yaml") == []
    if done.decide is not None:
        assert KINDS[name].decision and done.warning
        roles, statuses = load_field_roles(spec), load_statuses(spec)
        decided = done.decide(spec)
        changed = (load_field_roles(spec), load_statuses(spec))
        assert changed != (roles, statuses), decided
