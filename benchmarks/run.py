"""Run the benchmarks side by side and write benchmarks/RESULTS.md and benchmarks/scaling.png.

    python benchmarks/run.py [generator] [document] [client] [concurrent] [reference] [server]
        [sharded] [real-world] [--quick] [--device cuda] [--optimizer adam|muon]

With no part named, all seven run (``real-world`` is the part of ``document`` that compares
``generate --spec`` with openapi-python-client on the real-world documents and GitHub's,
alone). Each part's figures are kept in benchmarks/results.json, so a
part can be re-run (or run on another machine, such as a GPU one) without losing the others;
RESULTS.md is written from that file every time.
"""

from __future__ import annotations

import argparse
import compileall
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import client_bench  # noqa: E402
import document_bench  # noqa: E402
import generator_bench  # noqa: E402
import reference_bench  # noqa: E402
import report  # noqa: E402
import server_bench  # noqa: E402
import sharded_bench  # noqa: E402

RESULTS = HERE / "results.json"


def _compile_the_project() -> None:
    """The bytecode of the generator and the runtime, written before anything is timed. The
    peers are installed by pip, which compiles them at install; the project is installed in
    place (``pip install -e``), its bytecode written when a module is first imported, and not at
    all where ``PYTHONDONTWRITEBYTECODE`` is set: then every timed run of ours would compile
    its own code again (a tenth of a second of CPU) where the peers' runs compile nothing."""
    for folder in (HERE.parent / "generator", HERE.parent / "runtime" / "together_rl_runtime"):
        compileall.compile_dir(folder, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "parts",
        nargs="*",
        metavar="PART",
        help="generator, document, client, concurrent, reference, server, sharded or real-world "
        "(default: all but real-world, which document includes)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer repetitions and sizes (a smoke run)"
    )
    parser.add_argument(
        "--device", default="cpu", help="device of the reference part (cpu or cuda)"
    )
    parser.add_argument(
        "--rounds", type=int, default=None, help="rounds of the real-world part (default 5)"
    )
    parser.add_argument(
        "--github-only",
        action="store_true",
        help="real-world: measure GitHub's document alone, in place of its row of the last run",
    )
    parser.add_argument(
        "--github-rounds",
        type=int,
        default=document_bench.GITHUB_ROUNDS,
        help="rounds on GitHub's document in the real-world part (0: left out)",
    )
    parser.add_argument(
        "--optimizer",
        choices=("adam", "muon"),
        help="the reference part with this optimizer only, with the first weight decay and no "
        "memory probe (a shorter run; the other optimizer's rows are kept from the last run)",
    )
    args = parser.parse_args(argv)
    generator_bench.check_peer_formats_here()
    _compile_the_project()
    everything = ["generator", "document", "client", "concurrent", "reference", "server", "sharded"]
    parts = args.parts or everything
    unknown = set(parts) - {*everything, "real-world"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    results = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    if not _current(results):
        results = {}  # figures of an earlier layout of this file: not comparable, start anew
    if parts != ["real-world"]:  # the machine of the other parts' figures stays theirs
        results["machine"] = report.machine()
    if "generator" in parts:
        print("generator ...", flush=True)
        results["generator"] = generator_bench.run(repeat=2 if args.quick else 10, quick=args.quick)
    if "document" in parts:
        print("document ...", flush=True)
        results["document"] = document_bench.run(repeat=2 if args.quick else 5, quick=args.quick)
    if "real-world" in parts and "document" not in parts:
        print("real-world documents ...", flush=True)
        document = results.setdefault("document", {})
        machine = report.machine()
        if args.github_only:
            kept = document.get("real_world") or {"rounds": 0, "rows": []}
            kept["rows"] = [
                row for row in kept["rows"] if document_bench.GITHUB_PACKAGE not in row["document"]
            ]
            alone = document_bench.github_row(args.github_rounds)
            kept["rows"].append({**alone, "measured_alone": True})
            document["real_world"] = kept
        else:
            document["real_world"] = document_bench.real_world(
                args.rounds or (2 if args.quick else 5),
                github_rounds=0 if args.quick else args.github_rounds,
            )
        document["real_world"]["machine"] = machine
    if "client" in parts:
        print("client ...", flush=True)
        results["client"] = client_bench.run(
            calls=50 if args.quick else 200, rounds=3 if args.quick else 15
        )
    if "concurrent" in parts:
        print("concurrent async calls ...", flush=True)
        results["concurrent"] = client_bench.run_concurrent(
            calls=200 if args.quick else 1000, rounds=1 if args.quick else 3
        )
    if "reference" in parts:
        print(f"reference on {args.device} ...", flush=True)
        sets = reference_bench.QUICK_SETS if args.quick else tuple(reference_bench.SHAPE_SETS)
        key = f"reference_{args.device}"
        kept = [
            row
            for row in results.get(key, {}).get("rows", [])
            if args.optimizer and row.get("optimizer") != args.optimizer
        ]
        results[key] = reference_bench.run(
            repeat=3 if args.quick else 15,
            device=args.device,
            sets=sets,
            memory_repeat=0 if args.optimizer else 1 if args.quick else 2,
            weight_decays=(
                reference_bench.WEIGHT_DECAYS[:1]
                if args.optimizer
                else reference_bench.WEIGHT_DECAYS
            ),
            optimizers=(args.optimizer,) if args.optimizer else ("adam", "muon"),
            holdout=(
                () if args.quick else (*reference_bench.HOLDOUT_SETS, reference_bench.RANDOM_SET)
            ),
        )
        results[key]["rows"] += kept  # another optimizer's, from the run before
    if "server" in parts:
        print("server ...", flush=True)
        results["server"] = server_bench.run(
            calls=20 if args.quick else 50,
            rounds=3 if args.quick else 15,
            old=1_000 if args.quick else 10_000,
        )
    if "sharded" in parts:
        print("sharded reference on cpu ...", flush=True)
        results["sharded"] = sharded_bench.run(
            repeat=3 if args.quick else 10,
            sets=sharded_bench.QUICK_SETS if args.quick else sharded_bench.SETS,
            muon_sets=sharded_bench.QUICK_SETS if args.quick else sharded_bench.MUON_SETS,
        )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    # the plot is of the generator part's figures: drawn again only when they are new
    report.write(
        results, HERE / "RESULTS.md", HERE / "scaling.png" if "generator" in parts else None
    )
    print(f"wrote {HERE / 'RESULTS.md'}")
    return 0


def _current(results: dict[str, object]) -> bool:
    """Whether ``results`` holds figures of this layout (paired ratios with CPU time)."""
    generator = results.get("generator")
    return not isinstance(generator, dict) or "ratios" in generator.get("pipeline", {})


if __name__ == "__main__":
    sys.exit(main())
