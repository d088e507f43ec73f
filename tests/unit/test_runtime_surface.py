"""A runtime major is a decision, not an accident: what revision packages use of the runtime (its
surface) is recorded with each runtime release, and ``release`` refuses a minor or patch release
that removes or changes any of it, naming each difference, and a major release that a revision's
package does not accept. Every test works on a copy of spec/ (and of generated/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.reading import runtime
from generator.release.runtimes import runtime_surface
from generator.release.sources import Sources
from generator.release.surface import (
    SURFACE_FILE,
    SurfaceError,
    describe,
    load_surfaces,
    signature_break,
)
from support.surfaces import GENERATED, PREVIOUS, releasing, without_this_runtime


@pytest.fixture
def spec(spec):
    """A copy of spec/ where this checkout's runtime version is not released (yet)."""
    return without_this_runtime(spec)


# -- signatures -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("(value, path)", "(value, path)"),
        ("(value, path)", "(value, path, strict=...)"),
        ("(value, path)", "(value, path, *, strict=...)"),
        ("(value, *, path)", "(value, path)"),  # keyword-only may become positional too
        ("(value, /, path)", "(item, /, path)"),  # a positional-only name is nobody's
        ("(value, path)", "(value, path=...)"),  # a default added
        ("(self, *, muon_scaling=..., **defaults)", "(self, **options)"),  # taken in **kwargs
        ("(*checks)", "(*checks, strict=...)"),
        ("(value)", "(value, *rest)"),
    ],
)
def test_a_call_that_still_binds_is_compatible(old, new):
    assert signature_break(old, new) is None


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("(value, path)", "(value)", "`path` is no longer a parameter"),
        ("(value, *, strict=...)", "(value)", "`strict` is no longer a parameter"),
        ("(response, error_model)", "(response, error_models)", "`error_model`'s place"),
        ("(value, path)", "(value, *, path)", "`path` can no longer be passed by position"),
        ("(value, path)", "(value, /, path)", "`value` can no longer be passed by name"),
        ("(value, path=...)", "(value, path)", "`path` lost its default"),
        ("(value, *, path=...)", "(value, *, path)", "`path` lost its default"),
        ("(value)", "(value, path)", "`path` is a new parameter without a default"),
        ("(value)", "(value, *, path)", "`path` is a new parameter without a default"),
        ("(*checks)", "(check)", "it no longer takes *args"),
        ("(value, **extra)", "(value)", "it no longer takes **kwargs"),
    ],
)
def test_a_call_that_no_longer_binds_is_named_with_why(old, new, why):
    assert why in signature_break(old, new)


# -- surfaces -------------------------------------------------------------------------------------


def test_the_record_reads_back_as_written(spec):
    recorded = load_surfaces(spec)
    assert {"1.0.0", PREVIOUS} <= set(recorded.by_version)
    before = (spec / SURFACE_FILE).read_bytes()
    recorded.write()
    assert (spec / SURFACE_FILE).read_bytes() == before


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("- 1.0.0\n", "#/: expected a mapping"),
        ("1.0.0: [1]\n", "#/1.0.0: expected a mapping"),
        ("not-a-version: {}\n", "#/not-a-version: expected a runtime version"),
        ("1.0.0:\n  a.b: method (self)\n", "#/1.0.0/a.b: expected one of function, value"),
        ("1.0.0:\n  a.b: function (*, x, /)\n", "#/1.0.0/a.b: a misplaced `/`"),
        ("1.0.0:\n  a.b: function (x, *, x=...)\n", "#/1.0.0/a.b: a parameter named twice"),
        ("1.0.0:\n  a.b: function (1x)\n", "#/1.0.0/a.b: '1x' is not a parameter's name"),
        ("1.0.0:\n  a.B:\n    bases: A\n", "#/1.0.0/a.B/bases: expected a list"),
        ("1.0.0:\n  a.B:\n    constructor: self\n", "#/1.0.0/a.B/constructor: expected a sig"),
        ("1.0.0:\n  a.B:\n    members:\n      x/y: method\n", "#/1.0.0/a.B/members/x~1y: expected"),
        ("1.0.0:\n  a.B:\n    fields: []\n", "#/1.0.0/a.B: expected `function (...)`"),
    ],
)
def test_a_malformed_record_is_refused_naming_the_place(spec, text, where):
    (spec / SURFACE_FILE).write_text(text)
    with pytest.raises(SurfaceError) as refused:
        load_surfaces(spec)
    assert f"{spec / SURFACE_FILE}{where}" in str(refused.value)


# -- release --------------------------------------------------------------------------------------


def test_release_without_the_previous_surface_says_so(spec):
    text = (spec / SURFACE_FILE).read_text()
    (spec / SURFACE_FILE).write_text(text[: text.index(f"\n{PREVIOUS}:\n") + 1])
    assert f"runtime-surface.yaml has no surface of together-rl-runtime {PREVIOUS}" in (
        releasing(spec)
    )


def test_a_major_is_refused_while_released_packages_do_not_accept_it(spec, monkeypatch):
    monkeypatch.setattr(runtime, "version", lambda: "2.0.0")
    refused = releasing(spec)
    assert f"together-rl-runtime 2.0.0 is a new major version (after {PREVIOUS})" in refused
    for revision in Sources(spec).index:
        pyproject = (GENERATED / revision.id / "pyproject.toml").read_text()
        version = re.search(r'^version = "(.+)"$', pyproject, re.M).group(1)
        assert f"  generated/{revision.id} (together-rl {version}): together-rl-runtime>=" in (
            refused
        )
    assert "post-release each of them (`python -m generator post-release ID`)" in refused
    assert "with a range that includes 2.0.0" in refused


def declaring(pyproject: Path, specifier: str) -> None:
    """Let the package of ``pyproject`` declare the runtime in the range ``specifier``."""
    pattern = r'"(together-rl-runtime(\[\w+\])?)[^"]*"'
    text = re.sub(pattern, rf'"\1{specifier}"', pyproject.read_text())
    assert specifier in text
    pyproject.write_text(text)


def test_a_major_is_taken_once_every_package_accepts_it(spec, copy_of_generated, monkeypatch):
    for pyproject in copy_of_generated.glob("*/pyproject.toml"):
        declaring(pyproject, ">=1.0,<3")
    monkeypatch.setattr(runtime, "version", lambda: "2.0.0")
    sources = Sources(spec)
    surface = runtime_surface(spec, sources.releases, sources.index, copy_of_generated)
    assert surface == describe()
    newest = sources.index[-1].id
    declaring(copy_of_generated / newest / "pyproject.toml", ">=1.0,<2")
    with pytest.raises(SurfaceError) as refused:
        runtime_surface(spec, sources.releases, sources.index, copy_of_generated)
    (listed,) = [line for line in str(refused.value).splitlines() if line.startswith("  ")]
    assert listed.startswith(f"  generated/{newest} (together-rl ")
    assert listed.endswith("): together-rl-runtime>=1.0,<2, together-rl-runtime[reference]>=1.0,<2")
