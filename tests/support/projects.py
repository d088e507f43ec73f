"""Copies of the project with a revision appended, as a maintainer appends one: the copy's own
generator adds it with ``add-revision`` and renders it with ``generate``."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from generator.reading.revisions import load_index
from support.nextrevision import compiled, environment
from support.paths import ROOT

PROJECT_PARTS = ("generator", "runtime", "templates", "spec", "generated")


def run(
    project: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m generator ARGS`` with the copy's own code (``env``: variables to set)."""
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=environment(project, {**os.environ, **(env or {})}),
    )


def copy_project(target: Path) -> Path:
    for name in PROJECT_PARTS:
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("README.md", "COMPATIBILITY.md"):
        shutil.copy(ROOT / name, target / name)
    return compiled(target)


def released_copy(target: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A copy of the project in ``target`` with everything released by ``release``: the records
    taken back first, the post-releases they name kept (generated/ holds those versions), and
    what ``release`` printed."""
    project = copy_project(target)
    record = project / "spec" / "releases.yaml"
    posts = yaml.safe_load(record.read_text()).get("post-releases") if record.is_file() else None
    record.write_text(yaml.safe_dump({"post-releases": posts} if posts else {}))
    result = run(project, "release")
    assert result.returncode == 0, result.stderr
    return project, result


def append_revision(
    project: Path, revision_id: str, change: Callable[[dict[str, Any]], None]
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """Add, as ``revision_id`` dated the day after the newest date, the newest document changed
    by ``change``; then generate. Returns both commands' results."""
    index = load_index(project / "spec")
    doc = yaml.safe_load(index[-1].file.read_text(encoding="utf-8"))
    change(doc)
    published = project / f"published-{revision_id}.yaml"
    published.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    latest = max(r.date for r in index if r.date)
    date = (latest + datetime.timedelta(days=1)).isoformat()
    added = run(project, "add-revision", str(published), "--id", revision_id, "--date", date)
    return added, run(project, "generate")


def appended_copy(
    folder: Path, revision_id: str, change: Callable[[dict[str, Any]], None]
) -> tuple[Path, str]:
    """A copy of the project in ``folder`` with ``revision_id`` appended (see
    :func:`append_revision`), both commands having succeeded; the copy, and what ``generate``
    printed on its standard error (its warnings and notes)."""
    project = copy_project(folder)
    added, generated = append_revision(project, revision_id, change)
    assert added.returncode == 0, added.stdout + added.stderr
    assert generated.returncode == 0, generated.stderr
    return project, generated.stderr
