"""The surface of this checkout's runtime, as read in a process of its own: what each difference
of a surface says, that this runtime keeps the surface of the runtime released before it, that
`release` refuses a minor that breaks it and records one that adds to it, and that every name and
member generated code uses is in it (the rules themselves, on records:
tests/unit/test_runtime_surface.py)."""

from __future__ import annotations

import ast
import copy

import pytest
import yaml

from generator.reading import runtime
from generator.release.freezing import release
from generator.release.surface import breaks, describe, load_surfaces
from support.paths import SPEC_DIR
from support.surfaces import (
    GENERATED,
    PREVIOUS,
    generated_sources,
    releasing,
    with_previous,
    without_this_runtime,
)


@pytest.fixture
def spec(spec):
    """A copy of spec/ where this checkout's runtime version is not released (yet)."""
    return without_this_runtime(spec)


@pytest.fixture(scope="module")
def current():
    """The surface of this checkout's runtime."""
    return describe()


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
    # the runtime, and any revision appended to the project since the last release
    assert ("together-rl-runtime", runtime.version()) in [
        (r.distribution, r.version) for r in recorded
    ]
    assert all(r.revision is not None for r in recorded if r.distribution != runtime.DISTRIBUTION)
    surfaces = load_surfaces(spec)
    assert surfaces.get(runtime.version()) == current
    assert surfaces.get(PREVIOUS) == previous
    versions = [
        r["version"] for r in yaml.safe_load((spec / "releases.yaml").read_text())["releases"]
    ]
    assert runtime.version() in versions


def test_every_name_generated_code_imports_of_the_runtime_is_in_its_surface(current):
    imported = set()
    for module in generated_sources():
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
    for module in generated_sources():
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
