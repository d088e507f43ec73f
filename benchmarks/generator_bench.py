"""The generator against openapi-python-client and datamodel-code-generator on the same inputs."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from synthetic import synthetic_spec
from timing import Measurement, measure, measure_command

from generator.diff import diff_documents
from generator.loader import load_yaml
from generator.parser import parse_document
from generator.revisions import load_index

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "together-openapi-2026-04-28.yaml"
BIN = Path(sys.executable).parent
SIZES = (10, 100, 1000, 5000)


def _tool(name: str) -> str:
    return str(BIN / name)


def _peer_commands(specs: list[Path], out: Path) -> dict[str, list[list[str]]]:
    """The command lines of each peer generating a client (or models) for every spec."""
    return {
        "openapi-python-client": [
            [
                _tool("openapi-python-client"),
                "generate",
                "--path",
                str(spec),
                "--output-path",
                str(out / "opc" / spec.stem),
                "--overwrite",
                "--meta",
                "none",
            ]
            for spec in specs
        ],
        "datamodel-code-generator": [
            [
                _tool("datamodel-codegen"),
                "--input",
                str(spec),
                "--input-file-type",
                "openapi",
                "--output",
                str(out / "dcg" / spec.stem),
                "--output-model-type",
                "dataclasses.dataclass",
            ]
            for spec in specs
        ],
    }


def pipeline(repeat: int) -> dict[str, Any]:
    """Parse and render all revisions (ours, a fresh process each time) vs the peers on the same
    six documents, a fresh process per document."""
    index = load_index(ROOT / "spec")
    specs = [r.file for r in index]
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        ours = measure_command(
            [
                [
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
                ]
            ],
            repeat=repeat,
            timeout=600,
        )
        peers = {
            name: measure_command(commands, repeat=repeat, timeout=600)
            for name, commands in _peer_commands(specs, out).items()
        }
    return {
        "documents": len(specs),
        "ours": _result(ours),
        "peers": {k: _result(v) for k, v in peers.items()},
    }


def corpus(repeat: int) -> dict[str, Any]:
    """Load the public spec and build its IR (in process), and the peers generating from it."""
    if not CORPUS.is_file():
        return {"skipped": f"{CORPUS} not found"}
    raw_text = CORPUS.read_text(encoding="utf-8")
    yaml_load = measure(lambda: load_yaml(CORPUS), repeat=repeat)
    raw = load_yaml(CORPUS)
    build_ir = measure(lambda: parse_document(raw, source="corpus"), repeat=repeat)
    doc = parse_document(raw, source="corpus")
    self_diff = measure(lambda: diff_documents(doc, doc), repeat=repeat)
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        ours_cli = measure_command(
            [
                [
                    sys.executable,
                    "-c",
                    "import sys; from generator.parser import parse_file; "
                    f"parse_file(__import__('pathlib').Path({str(CORPUS)!r}))",
                ]
            ],
            repeat=repeat,
            timeout=600,
        )
        peers = {
            name: measure_command(commands, repeat=max(3, repeat // 2), timeout=600)
            for name, commands in _peer_commands([CORPUS], out).items()
        }
    return {
        "bytes": len(raw_text),
        "operations": len(doc.operations),
        "schemas": len(doc.schemas),
        "yaml_load": yaml_load.to_dict(),
        "build_ir": build_ir.to_dict(),
        "self_diff": self_diff.to_dict(),
        "ours_process": _result(ours_cli),
        "peers": {k: _result(v) for k, v in peers.items()},
    }


def scaling(repeat: int, sizes: tuple[int, ...] = SIZES) -> dict[str, Any]:
    """Cost against the number of schemas: our load + IR + diff in process; the peers' whole
    generation in a fresh process (they have no separate stages to time)."""
    import yaml

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for size in sizes:
            old_path, new_path = out / f"s{size}.yaml", out / f"s{size}-b.yaml"
            old_path.write_text(yaml.safe_dump(synthetic_spec(size), sort_keys=False))
            new_path.write_text(yaml.safe_dump(synthetic_spec(size, variant=1), sort_keys=False))

            def ours() -> None:
                diff_documents(
                    parse_document(load_yaml(old_path)), parse_document(load_yaml(new_path))
                )

            def ours_ir() -> None:
                parse_document(load_yaml(old_path))

            row: dict[str, Any] = {
                "schemas": size,
                "ours_load_ir": measure(ours_ir, repeat=repeat).to_dict(),
                "ours_load_ir_diff_two": measure(ours, repeat=repeat).to_dict(),
                "changes": len(
                    diff_documents(
                        parse_document(load_yaml(old_path)), parse_document(load_yaml(new_path))
                    )
                ),
            }
            peer_repeat = 3 if size <= 1000 else 1
            for name, commands in _peer_commands([old_path], out).items():
                row[name] = _result(measure_command(commands, repeat=peer_repeat, timeout=900))
            rows.append(row)
    return {"rows": rows}


def _result(value: Measurement | str) -> dict[str, Any]:
    return value.to_dict() if isinstance(value, Measurement) else {"failed": value}


def run(repeat: int = 5) -> dict[str, Any]:
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"  # peers call ruff & co
    started = time.perf_counter()
    result = {
        "pipeline": pipeline(repeat),
        "corpus": corpus(repeat * 2),
        "scaling": scaling(repeat),
    }
    result["seconds"] = time.perf_counter() - started
    return result


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
