"""What the tests of the runtime's surface share: the release before this runtime, a copy of spec/
where this runtime is not released yet, and ``release`` run there."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from generator.reading import runtime
from generator.release.freezing import release
from generator.release.records import load_releases
from generator.release.surface import SurfaceError, load_surfaces
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


def without_this_runtime(spec: Path) -> Path:
    """The copy ``spec`` of spec/, with this checkout's runtime version no longer released."""
    releases = load_releases(spec)
    kept = [
        r for r in releases.releases if r.revision is not None or r.version != runtime.version()
    ]
    replace(releases, releases=tuple(kept)).write()
    return spec


def with_previous(spec: Path, surface: Any) -> None:
    """Record ``surface`` in the copy ``spec`` as that of the runtime release before this one."""
    load_surfaces(spec).with_surface(PREVIOUS, surface).write()


def releasing(spec: Path) -> str:
    """What ``release`` of every package and the runtime refuses in the copy ``spec``."""
    with pytest.raises(SurfaceError) as refused:
        release(spec, GENERATED, [], include_runtime=True)
    return str(refused.value)


def generated_sources() -> list[ast.Module]:
    """Every module of every generated package, parsed."""
    return [ast.parse(p.read_text()) for p in sorted(GENERATED.glob("*/together_rl/**/*.py"))]
