"""The generator against openapi-python-client and datamodel-code-generator on the same inputs,
and the diff engine against the one it replaced, every figure from paired, interleaved rounds."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from synthetic import shared_graph_paths, shared_graph_spec, synthetic_spec
from timing import Sample, ratio, rounds, run_call, run_commands, times

from generator.changes.diff import DiffStats, diff_documents
from generator.reading.loader import load_yaml
from generator.reading.parser import parse_document
from generator.reading.revisions import load_index

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "together-openapi-2026-04-28.yaml"
BIN = Path(sys.executable).parent
SIZES = (10, 100, 1000, 5000)
PEER_SIZES = (10, 100, 1000)  # a peer takes about 40 s at 5,000 schemas: left out
BEFORE = "5799678"  # the last commit with the diff engine that walked every path
LAYERS = (4, 6, 8, 10, 12, 14, 16, 24, 48, 96, 192)
OLD_BUDGET = 4.0  # seconds: the old engine is not run where its predicted time is longer


def _tool(name: str) -> str:
    return str(BIN / name)


class PeerCannotFormat(RuntimeError):
    """The scratch folder is one where openapi-python-client's formatter would format nothing."""


def check_peer_formats_here() -> None:
    """Refuse a scratch folder (``tempfile``'s, where every benchmark writes what the generators
    write) in which ruff finds no Python file to format: openapi-python-client formats its
    package with ``ruff format`` and ``ruff check --fix`` in the package's folder, and ruff
    leaves out by default every path under a folder such as ``.nox``, ``.venv`` or ``build``
    (nox points ``TMPDIR`` into ``.nox/<session>/tmp``): there the peer would skip its
    formatting, a third of its time on a large document, and the figures would not compare."""
    ruff = _tool("ruff")
    if not Path(ruff).is_file():
        return  # no ruff here: the peer fails on its own, and says so
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "package" / "probe.py"
        probe.parent.mkdir()
        probe.write_text("x  =  1\n")
        found = subprocess.run(
            [ruff, "format", "--check", "."],
            cwd=probe.parent,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if found.returncode != 1:  # 1: it found the probe, which it would reformat
        raise PeerCannotFormat(
            f"ruff formats nothing under {tempfile.gettempdir()} (a folder it leaves out by "
            f"default), so openapi-python-client would skip its formatting there: set TMPDIR "
            f"to a folder outside it ({(found.stderr or found.stdout).strip()[:200]})"
        )


def _peer_commands(spec: Path, out: Path) -> dict[str, list[str]]:
    """The command line of each peer generating a client (or models) from one document."""
    return {
        "openapi-python-client": [
            _tool("openapi-python-client"),
            "generate",
            "--path",
            str(spec),
            "--output-path",
            str(out / "opc" / spec.stem),
            "--overwrite",
            "--meta",
            "none",
        ],
        "datamodel-code-generator": [
            _tool("datamodel-codegen"),
            "--input",
            str(spec),
            "--input-file-type",
            "openapi",
            "--output",
            str(out / "dcg" / spec.stem),
            "--output-model-type",
            "dataclasses.dataclass",
        ],
    }


def pipeline(repeat: int) -> dict[str, Any]:
    """``python -m generator generate`` for every revision (with a warm cache, and with an
    empty one each run) and for the newest revision alone, against each peer on the newest
    revision's document and on every revision's document (one process per document, as they
    take one). Every contender runs once per round, in a fresh process."""
    index = load_index(ROOT / "spec")
    specs = [r.file for r in index]
    newest = index[len(index) - 1]
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        warm = out / "cache-warm"

        def ours(*extra: str, cache: Path | None = None) -> Callable[[], Sample]:
            command = [
                sys.executable,
                "-m",
                "generator",
                "--spec-dir",
                str(ROOT / "spec"),
                "generate",
                "--out",
                str(out / "ours"),
                "--readme",
                str(out / "no-readme"),
                *extra,
            ]

            def run() -> Sample:
                folder = cache or Path(tempfile.mkdtemp(dir=out, prefix="cache-cold-"))
                env = {**os.environ, "TOGETHER_RL_CODEGEN_CACHE": str(folder)}
                return run_commands([command], timeout=600, env=env)

            return run

        contenders: dict[str, Callable[[], Sample]] = {
            "ours: all revisions": ours(cache=warm),
            "ours: all revisions, empty cache": ours(),
            "ours: newest revision": ours("--revision", newest.id, cache=warm),
        }
        for name in ("openapi-python-client", "datamodel-code-generator"):
            contenders[f"{name}: newest revision"] = lambda n=name: run_commands(
                [_peer_commands(newest.file, out)[n]], timeout=600
            )
            contenders[f"{name}: all revisions"] = lambda n=name: run_commands(
                [_peer_commands(spec, out)[n] for spec in specs], timeout=600
            )
        result = rounds(contenders, repeat)
    comparisons = {
        "all revisions (ours) vs newest revision (peer)": (
            "ours: all revisions",
            "newest revision",
        ),
        "all revisions, empty cache (ours) vs newest revision (peer)": (
            "ours: all revisions, empty cache",
            "newest revision",
        ),
        "newest revision vs newest revision": ("ours: newest revision", "newest revision"),
        "all revisions vs all revisions": ("ours: all revisions", "all revisions"),
    }
    return {
        "documents": len(specs),
        "newest": newest.id,
        "rounds": repeat,
        "times": {name: times(result, name) for name in contenders},
        "ratios": {
            peer: {
                label: ratio(result, mine, f"{peer}: {theirs}")
                for label, (mine, theirs) in comparisons.items()
            }
            for peer in ("openapi-python-client", "datamodel-code-generator")
        },
    }


def after_add_revision(repeat: int) -> dict[str, Any]:
    """What ``generate`` costs after ``add-revision``: in a copy of the project with a made-up next
    revision appended (``tests/support/nextrevision.py``: a required header, new fields, a new
    status, a declared default), ``generate`` of everything against ``generate --revision NEW``
    of the new revision alone, both with the cache a user has by then (the copy generated once
    before)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support import nextrevision

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        env = {**os.environ, "TOGETHER_RL_CODEGEN_CACHE": str(out / "cache")}
        project = nextrevision.copy_project(out / "project")
        new, _ = nextrevision.append(project, env)  # add-revision, then generate

        def generate(*extra: str) -> Callable[[], Sample]:
            command = [sys.executable, "-m", "generator", "generate", *extra]
            in_copy = nextrevision.environment(project, env)
            return lambda: run_commands([command], timeout=600, env=in_copy, cwd=project)

        revisions = len(load_index(project / "spec"))
        contenders = {
            f"generate, all {revisions} revisions": generate(),
            "generate --revision NEW": generate("--revision", new),
        }
        result = rounds(contenders, repeat)
    names = list(contenders)
    return {
        "revisions": revisions,
        "rounds": repeat,
        "times": {name: times(result, name) for name in contenders},
        "ratio": ratio(result, names[0], names[1]),
    }


def corpus(repeat: int) -> dict[str, Any]:
    """The public spec: our stages in process (absolute figures, for orientation), and our load
    and IR in a fresh process against each peer's whole generation, paired."""
    if not CORPUS.is_file():
        return {"skipped": f"{CORPUS} not found"}
    raw_text = CORPUS.read_text(encoding="utf-8")
    raw = load_yaml(CORPUS)
    doc = parse_document(raw, source="corpus")
    old = _old_diff()
    stages = rounds(
        {
            "YAML load (libyaml)": lambda: run_call(lambda: load_yaml(CORPUS)),
            "build the IR after loading": lambda: run_call(
                lambda: parse_document(raw, source="corpus")
            ),
            "diff the document with itself": lambda: run_call(lambda: diff_documents(doc, doc)),
            **(
                {
                    "diff the document with itself (engine before)": lambda: run_call(
                        lambda: old.diff_documents(doc, doc)
                    )
                }
                if old
                else {}
            ),
        },
        repeat,
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        ours_cli = [
            sys.executable,
            "-c",
            "from pathlib import Path; from generator.reading.parser import parse_file; "
            f"parse_file(Path({str(CORPUS)!r}))",
        ]
        contenders: dict[str, Callable[[], Sample]] = {
            "ours: load and IR": lambda: run_commands([ours_cli], timeout=600)
        }
        for name, command in _peer_commands(CORPUS, out).items():
            contenders[name] = lambda c=command: run_commands([c], timeout=600)
        processes = rounds(contenders, max(3, repeat // 3))
    return {
        "bytes": len(raw_text),
        "operations": len(doc.operations),
        "schemas": len(doc.schemas),
        "stages": {name: times(stages, name) for name in stages["samples"]},
        "self_diff_ratio": (
            ratio(
                stages,
                "diff the document with itself",
                "diff the document with itself (engine before)",
            )
            if old
            else None
        ),
        "processes": {name: times(processes, name) for name in contenders},
    }


def scaling(repeat: int, sizes: tuple[int, ...] = SIZES) -> dict[str, Any]:
    """Cost against the number of schemas: our load + IR, and load + IR + diff of two versions,
    in process; the peers' whole generation in a fresh process (they have no separate stages)."""
    import yaml

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for size in sizes:
            old_path, new_path = out / f"s{size}.yaml", out / f"s{size}-b.yaml"
            old_path.write_text(yaml.safe_dump(synthetic_spec(size), sort_keys=False))
            new_path.write_text(yaml.safe_dump(synthetic_spec(size, variant=1), sort_keys=False))

            def both() -> None:
                diff_documents(
                    parse_document(load_yaml(old_path)), parse_document(load_yaml(new_path))
                )

            contenders: dict[str, Callable[[], Sample]] = {
                "ours: load + IR": lambda p=old_path: run_call(
                    lambda: parse_document(load_yaml(p))
                ),
                "ours: two loads + IR + diff": lambda: run_call(both),
            }
            if size in PEER_SIZES:
                for name, command in _peer_commands(old_path, out).items():
                    contenders[name] = lambda c=command: run_commands([c], timeout=900)
            result = rounds(contenders, repeat if size <= 1000 else max(3, repeat // 2))
            row: dict[str, Any] = {
                "schemas": size,
                "times": {name: times(result, name) for name in contenders},
                "changes": len(
                    diff_documents(
                        parse_document(load_yaml(old_path)), parse_document(load_yaml(new_path))
                    )
                ),
            }
            rows.append(row)
            print(f"  scaling {size}", flush=True)
    return {"rows": rows}


def _old_diff() -> ModuleType | None:
    """The diff engine as it was before it compared each pair of components once (from git)."""
    try:
        source = subprocess.run(
            ["git", "show", f"{BEFORE}:generator/diff.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    name = "generator._diff_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "generator.reading"  # its `from . import ir`, where ir lives now
    sys.modules[name] = module
    exec(compile(source, f"{BEFORE}:generator/diff.py", "exec"), module.__dict__)
    return module


def shared_graph(repeat: int, layers: tuple[int, ...] = LAYERS) -> dict[str, Any]:
    """The diff of two versions of a deep, widely shared reference graph (``shared_graph_spec``,
    8 schemas a layer, 2 references each) by the engine before and after, paired; comparisons
    counted for both (the old one's: its schema comparisons, one per path)."""
    old = _old_diff()
    rows = []
    old_running = old is not None
    last: tuple[float, int] | None = None  # the old engine's last median and its paths
    for depth in layers:
        before = parse_document(shared_graph_spec(depth), source="old")
        after = parse_document(shared_graph_spec(depth, variant=1), source="new")
        stats = DiffStats()
        changes = diff_documents(before, after, stats=stats)
        contenders: dict[str, Callable[[], Sample]] = {
            "after": lambda: run_call(lambda: diff_documents(before, after))
        }
        row: dict[str, Any] = {
            "layers": depth,
            "schemas": depth * 8 + 1,
            "paths_per_body": shared_graph_paths(depth),
            "changes": len(changes),
            "comparisons": stats.comparisons,
            "components": stats.components,
        }
        if old_running and old is not None and last is not None:
            # the old engine's cost grows with the paths: predict it before running it
            seconds, paths = last
            if seconds * shared_graph_paths(depth) / paths > OLD_BUDGET:
                old_running = False
        if old_running and old is not None:
            counted = _count_old(old, before, after)
            if counted["changes"] != [c.to_dict() for c in changes]:
                raise AssertionError(f"the engines disagree at {depth} layers")
            row["comparisons_before"] = counted["comparisons"]
            contenders["before"] = lambda: run_call(lambda: old.diff_documents(before, after))
        result = rounds(contenders, repeat if depth <= 16 else max(3, repeat // 2))
        row["times"] = {name: times(result, name) for name in contenders}
        if "before" in contenders:
            row["ratio"] = ratio(result, "after", "before")
            last = (row["times"]["before"]["wall"]["median"], shared_graph_paths(depth))
        rows.append(row)
        print(f"  shared graph {depth} layers", flush=True)
    return {"width": 8, "fanout": 2, "rows": rows, "before": BEFORE, "budget": OLD_BUDGET}


def _count_old(old: ModuleType, before: Any, after: Any) -> dict[str, Any]:
    counter = {"n": 0}
    original = old._OperationDiff.resolved

    def counted(self: Any, *args: Any) -> Any:
        counter["n"] += 1
        return original(self, *args)

    old._OperationDiff.resolved = counted
    try:
        changes = [c.to_dict() for c in old.diff_documents(before, after)]
    finally:
        old._OperationDiff.resolved = original
    return {"comparisons": counter["n"], "changes": changes}


def run(repeat: int = 10, quick: bool = False) -> dict[str, Any]:
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"  # peers call ruff & co
    started = time.perf_counter()
    result = {
        "pipeline": pipeline(repeat),
        "after_add_revision": after_add_revision(repeat),
        "corpus": corpus(repeat),
        "shared_graph": shared_graph(
            max(3, repeat // 2), layers=(4, 8, 12, 24) if quick else LAYERS
        ),
        "scaling": scaling(max(3, repeat // 2), sizes=(10, 100) if quick else SIZES),
    }
    result["seconds"] = time.perf_counter() - started
    return result


if __name__ == "__main__":
    print(json.dumps(run(repeat=3), indent=2))
