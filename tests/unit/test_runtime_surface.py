"""A runtime major is a decision, not an accident: what revision packages use of the runtime (its
surface) is recorded with each runtime release, and ``release`` refuses a minor or patch release
that removes or changes any of it, naming each difference, and a major release that a revision's
package does not accept. Every test works on a copy of spec/ (and of generated/)."""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from packaging.version import Version

from generator.reading import runtime
from generator.release.freezing import release
from generator.release.records import load_releases
from generator.release.runtimes import runtime_surface
from generator.release.sources import Sources
from generator.release.surface import (
    SURFACE_FILE,
    SurfaceError,
    breaks,
    describe,
    load_surfaces,
    signature_break,
)
from support.paths import ROOT, SPEC_DIR

GENERATED = ROOT / "generated"


def _previous() -> str:
    """The newest runtime release that spec/releases.yaml records before this checkout's
    runtime version."""
    releases = load_releases(SPEC_DIR).releases
    earlier = [
        Version(r.version)
        for r in releases
        if r.distribution == runtime.DISTRIBUTION
        and Version(r.version) < Version(runtime.version())
    ]
    return str(max(earlier))


PREVIOUS = _previous()


@pytest.fixture
def spec(spec):
    """A copy of spec/ where this checkout's runtime version is not released (yet)."""
    releases = load_releases(spec)
    kept = [
        r for r in releases.releases if r.revision is not None or r.version != runtime.version()
    ]
    replace(releases, releases=tuple(kept)).write()
    return spec


@pytest.fixture(scope="module")
def current():
    """The surface of this checkout's runtime."""
    return describe()


def with_previous(spec: Path, surface) -> None:
    """Record ``surface`` in the copy ``spec`` as that of the runtime release before this one."""
    load_surfaces(spec).with_surface(PREVIOUS, surface).write()


def releasing(spec: Path) -> str:
    """What ``release`` of every package and the runtime refuses in the copy ``spec``."""
    with pytest.raises(SurfaceError) as refused:
        release(spec, GENERATED, [], include_runtime=True)
    return str(refused.value)


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


def test_a_name_removed_or_a_member_changed_is_a_difference_naming_both_sides(current):
    old = copy.deepcopy(current)
    old["together_rl_runtime.gone"] = "function (value)"
    old["together_rl_runtime.put"] = "function (data, key, value, path, write, as_received=...)"
    old["together_rl_runtime.SyncAPIClient"]["members"]["_send"] = "method (self, request)"
    old["together_rl_runtime.SyncAPIClient"]["members"]["_gone"] = "attribute"
    new = copy.deepcopy(current)
    new["together_rl_runtime.put"] = "function (data, key, value, path, write)"
    new["together_rl_runtime.SyncAPIClient"]["members"]["_send"] = "method (self)"
    found = {(d.name, d.old, d.new) for d in breaks(old, new)}
    assert found == {
        ("together_rl_runtime.gone", "function (value)", "(removed)"),
        (
            "together_rl_runtime.put",
            "function (data, key, value, path, write, as_received=...)",
            "function (data, key, value, path, write)",
        ),
        ("together_rl_runtime.SyncAPIClient._send", "method (self, request)", "method (self)"),
        ("together_rl_runtime.SyncAPIClient._gone", "attribute", "(removed)"),
    }


def test_a_class_keeps_its_bases_and_constructor_and_a_value_its_type(current):
    new = copy.deepcopy(current)
    new["together_rl_runtime.NotFoundError"]["bases"].remove("APIStatusError")
    new["together_rl_runtime.ClientSpec"]["constructor"] = "(self, package)"
    new["together_rl_runtime.UNSET"] = "value NoneType"
    found = {d.name: d.why for d in breaks(current, new)}
    assert found == {
        "together_rl_runtime.NotFoundError": "no longer derives from APIStatusError",
        "together_rl_runtime.ClientSpec": "`user_agent` is no longer a parameter",
        "together_rl_runtime.UNSET": "a value of another type",
    }


def test_a_method_generated_classes_define_again_keeps_even_its_optional_parameters(current):
    new = copy.deepcopy(current)
    new["together_rl_runtime.Model"]["members"]["to_dict"] = "method (self, path=..., strict=...)"
    new["together_rl_runtime.Model"]["members"]["from_json"] = "classmethod (cls, text, strict=...)"
    (found,) = breaks(current, new)
    assert found.name == "together_rl_runtime.Model.to_dict" and "define this method" in found.why


def test_additions_break_nothing(current):
    old = copy.deepcopy(current)
    del old["together_rl_runtime.AuthScheme"]
    del old["together_rl_runtime.SyncAPIClient"]["members"]["close"]
    old["together_rl_runtime.ClientSpec"]["constructor"] = "(self, package, user_agent, base_url)"
    assert breaks(old, current) == []


def test_this_runtime_keeps_the_surface_of_the_release_before_it(current):
    assert breaks(load_surfaces(SPEC_DIR).get(PREVIOUS), current) == []


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


def test_release_refuses_a_minor_that_removes_a_name_or_a_parameter_naming_each(spec, current):
    previous = copy.deepcopy(current)
    previous["together_rl_runtime.check_everything"] = "function (value, path)"
    previous["together_rl_runtime.wire"] = "function (value, strict=...)"
    with_previous(spec, previous)
    before = {p.name: p.read_bytes() for p in spec.iterdir()}
    refused = releasing(spec)
    version = runtime.version()
    assert f"together-rl-runtime {version} removes or changes what revision packages use" in refused
    assert "  together_rl_runtime.check_everything: function (value, path) -> (removed)" in refused
    assert (
        "  together_rl_runtime.wire: function (value, strict=...) -> function (value) "
        "(`strict` is no longer a parameter)"
    ) in refused
    assert f"make this release {int(version.split('.')[0]) + 1}.0.0" in refused
    assert {p.name: p.read_bytes() for p in spec.iterdir()} == before  # nothing recorded


def test_release_records_a_minor_that_adds_a_name_and_an_optional_parameter(spec, current):
    previous = copy.deepcopy(current)
    del previous["together_rl_runtime.AuthScheme"]
    previous["together_rl_runtime.put"] = "function (data, key, value, path, write)"
    with_previous(spec, previous)
    recorded = release(spec, GENERATED, [], include_runtime=True)
    assert [(r.distribution, r.version) for r in recorded] == [
        ("together-rl-runtime", runtime.version())
    ]
    surfaces = load_surfaces(spec)
    assert surfaces.get(runtime.version()) == current
    assert surfaces.get(PREVIOUS) == previous
    versions = [
        r["version"] for r in yaml.safe_load((spec / "releases.yaml").read_text())["releases"]
    ]
    assert runtime.version() in versions


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


# -- what the surface covers ----------------------------------------------------------------------


def _generated_sources() -> list[ast.Module]:
    return [ast.parse(p.read_text()) for p in sorted(GENERATED.glob("*/together_rl/**/*.py"))]


def test_every_name_generated_code_imports_of_the_runtime_is_in_its_surface(current):
    imported = set()
    for module in _generated_sources():
        for node in ast.walk(module):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                runtime.IMPORT_NAME
            ):
                imported |= {f"{node.module}.{alias.name}" for alias in node.names}
    assert imported
    missing = {
        name
        for name in imported
        if name not in current and not any(key.startswith(f"{name}.") for key in current)
    }
    assert not missing, f"generated code imports what the surface leaves out: {sorted(missing)}"


def test_every_member_generated_classes_use_of_the_runtime_is_in_its_surface(current):
    """What a generated class sets, calls or defines again of the runtime class it derives from:
    its underscored members are declared, and a method it defines again is held as it is."""
    used: dict[str, set[str]] = {}
    defined: dict[str, set[str]] = {}
    for module in _generated_sources():
        bases = {
            alias.asname or alias.name: f"{node.module}.{alias.name}"
            for node in module.body
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("together_rl_")
            for alias in node.names
        }
        for cls in (n for n in module.body if isinstance(n, ast.ClassDef)):
            ours = [bases[b.id] for b in cls.bases if isinstance(b, ast.Name) and b.id in bases]
            methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
            names = {
                node.attr
                for node in ast.walk(cls)
                if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            }
            for statement in cls.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    names.add(statement.target.id)
                if isinstance(statement, ast.Assign):
                    names |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
            for base in ours:
                used.setdefault(base, set()).update(n for n in names - methods if n[0] == "_")
                defined.setdefault(base, set()).update(methods)
    assert used and defined
    for base, names in used.items():
        members = current[base].get("members", {})
        assert names <= set(members), f"{base}: {sorted(names - set(members))} not in the surface"
    for base, methods in defined.items():
        again = {m for m in methods if m in current[base].get("members", {})}
        assert again <= runtime.OVERRIDDEN.get(base, frozenset()), (base, again)
