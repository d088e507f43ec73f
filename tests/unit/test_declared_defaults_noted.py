"""``generate`` notes every default a revision declares that differs from the session default,
at each request path that alone sets the setting in a session (a schema shared by two groups,
such as an Adam group at the top and inside the Muon group, is noted at both): the fields are
found through the field roles, never by name."""

from __future__ import annotations

import copy

from generator.output.render import _declared_defaults, _reference
from generator.reading.fieldroles import _property, load_field_roles, resolve
from generator.reading.loader import load_yaml
from generator.reading.parser import parse_document
from generator.reading.revisions import Revision, load_index
from generator.reading.statuses import load_statuses
from generator.views.pyclient import build_client
from generator.views.pymodel import build_module
from support.nextrevision import at
from support.paths import SPEC_DIR
from together_rl_runtime.settings import SESSION_DEFAULTS, SETTING_KINDS, SETTING_RANGES, Sets

INDEX = load_index(SPEC_DIR)
ROLES = load_field_roles(SPEC_DIR)
NEWEST = INDEX[-1]


def other_value(setting: str) -> float | bool:
    """A value of ``setting`` within its range that is not its session default."""
    usual = SESSION_DEFAULTS[setting]
    name = setting.rpartition(".")[2]
    if SETTING_KINDS.get(name) == "boolean":
        return not usual
    limits = SETTING_RANGES.get(name)
    for candidate in (usual * 0.5, usual + 0.01, 0.5, 1, 2, 0.001):
        if candidate != usual and (limits is None or limits.problem(candidate) is None):
            return int(candidate) if SETTING_KINDS.get(name) == "integer" else candidate
    raise AssertionError(f"no value for {setting}")


def test_every_differing_default_is_noted_at_every_path_that_sets_it():
    doc = NEWEST.document
    rules = resolve(doc, ROLES)
    operation = doc.operation(ROLES.operation)
    assert operation is not None and operation.request_body is not None
    top = doc.resolve(operation.request_body.schema)
    raw = copy.deepcopy(load_yaml(NEWEST.file))
    wanted: set[tuple[str, str]] = set()
    for _, session_rules in rules.sessions:
        setters = [
            (path, rule.settings[0])
            for path, rule in session_rules
            if isinstance(rule, Sets) and not rule.fallback and len(rule.settings) == 1
        ]
        for path, setting in setters:
            pointer = _property(doc, top, path).schema.pointer
            at(raw, pointer)["default"] = other_value(setting)
            # where two fields set one setting in a session, the group's own applies: one note
            if [s for _, s in setters].count(setting) == 1:
                wanted.add((path, setting))
    assert wanted, "the newest revision has a field that sets a setting"
    raw["info"]["version"] = "declared"
    revision = Revision.of_document(parse_document(raw, source=str(NEWEST.file)), NEWEST.file)
    module = build_module([revision], 0)
    client = build_client(revision.document, module, load_statuses(SPEC_DIR), revision_package=True)
    notes = _declared_defaults(revision, _reference(revision.document, module, client, ROLES))
    noted = {
        (path, setting)
        for path, setting in wanted
        if any(f"for `{path}` ({setting}, whose session default" in n for n in notes)
    }
    assert noted == wanted, sorted(wanted - noted)
