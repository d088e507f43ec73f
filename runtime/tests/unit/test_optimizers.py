"""The registry of optimizers holds together: what the settings tables, the reference and the
generator read from it is one consistent description (an entry added wrongly fails here, not in
a user's session)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from together_rl_runtime.optimizers import CLIP, REGISTRY, Setting, choices, runs


def every_setting() -> list[tuple[str, Setting]]:
    return [(o.name, s) for o in REGISTRY.values() for s in o.settings] + [("", CLIP)]


def test_settings_of_one_name_share_their_kind_and_range():
    """The tables key kinds and ranges by a setting's name alone."""
    by_name: dict[str, set[tuple[str, object]]] = defaultdict(set)
    for _, setting in every_setting():
        by_name[setting.name].add((setting.kind, setting.range))
    assert {name: len(kinds) for name, kinds in by_name.items() if len(kinds) > 1} == {}


@pytest.mark.parametrize("owner, setting", every_setting(), ids=lambda v: getattr(v, "name", v))
def test_a_session_default_is_a_value_its_setting_takes(owner, setting):
    if setting.kind == "boolean":
        assert isinstance(setting.default, bool) and setting.range is None
        return
    assert not isinstance(setting.default, bool)
    assert setting.range is not None, "a number setting has a range"
    assert setting.range.problem(setting.default) is None
    if setting.kind == "integer":
        assert float(setting.default).is_integer()


def test_the_rest_of_an_optimizer_is_a_registered_optimizer_that_handles_every_parameter():
    for optimizer in REGISTRY.values():
        if optimizer.rest is None:
            assert optimizer.filter is None, "a filter chooses parameters for a rest to take"
            continue
        assert optimizer.filter is not None
        assert REGISTRY[optimizer.rest].rest is None
        assert runs(optimizer) == (optimizer, REGISTRY[optimizer.rest])


def test_keywords_of_sessions_do_not_collide():
    """A session takes every optimizer's choices, its filter and its session defaults as
    keyword arguments: no keyword means two of them."""
    keywords = [c.keyword for c in choices()]
    keywords += [o.filter for o in REGISTRY.values() if o.filter is not None]
    assert len(keywords) == len(set(keywords))
    for optimizer in REGISTRY.values():
        defaults = {s.name for s in optimizer.settings} | {"grad_clip_norm"}
        defaults |= {f"{o.name}_{s.name}" for o in runs(optimizer)[1:] for s in o.settings}
        assert defaults.isdisjoint(keywords), optimizer.name
    for choice in choices():
        assert choice.default in choice.values


def test_every_optimizer_has_its_algorithm_and_its_exported_defaults():
    """The module an entry names holds the algorithm, with what an optimizer with a filter
    needs; the reference exports the entry's session defaults under the name a revision's
    package imports them by."""
    pytest.importorskip("torch")
    import together_rl_runtime.reference as reference
    from together_rl_runtime.reference._algorithm import algorithm_of

    for optimizer in REGISTRY.values():
        algorithm = algorithm_of(optimizer)
        assert (algorithm.chooses is not None) == (optimizer.filter is not None)
        assert (algorithm.check is not None) == (optimizer.filter is not None)
        assert optimizer.defaults_name in reference.__all__
        assert getattr(reference, optimizer.defaults_name) == dict(optimizer.defaults)
