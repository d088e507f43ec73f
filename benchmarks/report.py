"""Write RESULTS.md and the scaling plot from the benchmark figures (benchmarks/results.json).

Every comparison is a ratio of paired runs (the same round, the same inputs), given for the wall
clock and for CPU time, as the median of the rounds' ratios and as the ratio of the minimums.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path
from typing import Any

TARGETS = {
    "generator_cpu": 1.0,  # ours (all revisions) / openapi-python-client (newest revision), CPU
    "linear": 1.5,  # time per schema at the largest size / at 100 schemas, at most
    "client_raw": 1.15,  # ours / raw httpx, at most
    "concurrent_raw": 0.5,  # 1,000 concurrent async calls: ours / raw sockets, calls a second, at least
    "adam_fused": 0.9,  # ours / (clip_grad_norm_ + AdamW fused), at most
    "adam_floor": 1.15,  # ours / (torch's fused step alone x 32/28), at most, on every set
    "muon": 1.0,  # ours / torch.optim.Muon, below
    "muon_memory": 1.0,  # ours / torch.optim.Muon peak memory, at most
    "corpus_seconds": 5.0,  # generate --spec on the public document, wall, at most
    "document_seconds": 60.0,  # generate --spec on 20,000 schemas, wall, at most
    "document_bytes": 2 * 2**30,  # ... and the peak memory of its processes, at most
    "server_age": 1.25,  # the reference server's step at 10,000 steps / at 10, at most
    "after_add_revision": 2.0,  # generate of every revision / of the new one alone, at most
}


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in (
        "torch",
        "black",
        "jinja2",
        "pyyaml",
        "httpx",
        "openapi-spec-validator",
        "jsonschema",
        "referencing",
        "openapi-python-client",
        "datamodel-code-generator",
        "together",
    ):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "system": platform.platform(),
        "versions": versions,
    }


def _seconds(value: float) -> str:
    if value >= 1:
        return f"{value:,.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:,.1f} ms"
    return f"{value * 1e6:,.0f} µs"


def _t(m: dict[str, Any] | None) -> str:
    """Wall and CPU, median and minimum."""
    if m is None:
        return "not run"
    if "failed" in m:
        return f"failed: {m['failed']}"
    w, c = m["wall"], m["cpu"]
    return (
        f"wall {_seconds(w['median'])} (min {_seconds(w['min'])}), "
        f"CPU {_seconds(c['median'])} (min {_seconds(c['min'])}), n={w['runs']}"
    )


def _r(r: dict[str, Any] | None) -> str:
    """A paired ratio: wall and CPU, median of the rounds' ratios and ratio of the minimums."""
    if r is None:
        return "–"
    w, c = r["wall"], r["cpu"]
    return (
        f"wall {_x(w['median'])} (min {_x(w['min'])}), CPU {_x(c['median'])} (min {_x(c['min'])})"
    )


def _x(value: float) -> str:
    return f"{value:.2f}x" if value >= 0.1 else f"{value:.2g}x"


def _count(value: int) -> str:
    return f"{value:,}" if value < 10**7 else f"{value:.2e}"


def _verdict(met: bool) -> str:
    return "**met**" if met else "**missed**"


def _mb(value: float) -> str:
    return f"{value / 2**20:,.1f} MB"


def write(results: dict[str, Any], markdown: Path, plot: Path | None) -> None:
    header = [
        "# Benchmark results",
        "",
        "Written by `nox -s bench` (`python benchmarks/run.py`) from `benchmarks/results.json`.",
        "Contenders run in turn, round after round (the order rotating), on the same inputs; each",
        "run is timed by the wall clock and by CPU time (for a process: its own and its waited-for",
        "children's, such as black's workers or ruff; in process: all threads). Every ratio is",
        "ours / theirs over paired runs of the same round: the median of the rounds' ratios and, in",
        "brackets, the ratio of the minimums. The machine is shared with other work, so single runs",
        "are noisy; the minimums are the least disturbed runs.",
        "",
    ]
    m = results.get("machine", {})
    machine_lines = [
        "## Machine",
        "",
        f"- CPU: {m.get('cpu')}, {m.get('cores')} cores; {m.get('system')}; Python {m.get('python')}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in m.get("versions", {}).items() if v),
        "",
    ]
    summary: list[str] = []
    body: list[str] = []
    if "generator" in results:
        body += _generator(results["generator"], summary)
    if "document" in results:
        body += _document(results["document"], summary)
    if "client" in results:
        body += _client(results["client"], summary)
    if "concurrent" in results:
        body += _concurrent(results["concurrent"], summary)
    for key in sorted(k for k in results if k.startswith("reference_")):
        body += _reference(results[key], summary)
    if "server" in results:
        body += _server(results["server"], summary)
    if "sharded" in results:
        body += _sharded(results["sharded"], summary)
    if not any(k.startswith("reference_cuda") for k in results):
        body += [
            "GPU: none was available to this run, so the reference optimizer was measured on the",
            "CPU only.",
            "",
        ]
    lines = header + ["## Targets", "", *summary, ""] + machine_lines + body
    markdown.write_text("\n".join(lines))
    if "generator" in results and plot is not None:
        _plot(results["generator"], plot)


def _generator(g: dict[str, Any], summary: list[str]) -> list[str]:
    p = g["pipeline"]
    newest = p["newest"]
    out = [
        "## Generator",
        "",
        f"### Generation: all {p['documents']} revisions and the newest one (`{newest}`)",
        "",
        "Each contender in a fresh process per run. Ours: `python -m generator generate` (every",
        "package, or `--revision` for one) with its format and template cache warm (the usual case:",
        "the cache lives in the user's cache folder), and with an empty cache on every run (Jinja",
        "compiles every template; black formats what the templates could not fit in the line,",
        "every time). The peers take one document per process: one run for the newest revision,",
        "one per revision for all of them.",
        "",
        "| contender | time |",
        "|---|---|",
    ]
    for name, m in p["times"].items():
        out.append(f"| {name} | {_t(m)} |")
    out += [
        "",
        "| ours / peer | openapi-python-client | datamodel-code-generator |",
        "|---|---|---|",
    ]
    labels = list(p["ratios"]["openapi-python-client"])
    for label in labels:
        out.append(
            f"| {label} | {_r(p['ratios']['openapi-python-client'][label])} | "
            f"{_r(p['ratios']['datamodel-code-generator'][label])} |"
        )
    opc = p["ratios"]["openapi-python-client"]
    goal = opc["all revisions (ours) vs newest revision (peer)"]
    cold = opc["all revisions, empty cache (ours) vs newest revision (peer)"]
    if goal:
        met = goal["cpu"]["median"] < TARGETS["generator_cpu"]
        summary.append(
            f"- Generating all {p['documents']} revisions takes less CPU than openapi-python-client "
            f"takes for the newest one: ours / theirs {_r(goal)}, {_verdict(met)} (warm cache)."
            + (
                f" With an empty cache: {_r(cold)}, "
                f"{'met' if cold['cpu']['median'] < TARGETS['generator_cpu'] else 'missed'} too."
                if cold
                else ""
            )
        )
    same = opc["newest revision vs newest revision"]
    every = opc["all revisions vs all revisions"]
    if same and every:
        summary.append(
            "- Like for like against openapi-python-client: one revision each "
            f"{_r(same)}; all revisions each {_r(every)}."
        )
    out += _after_add_revision(g.get("after_add_revision"), summary)
    c = g["corpus"]
    if "skipped" not in c:
        out += [
            "",
            f"### The public spec (2026-04-28): {c['operations']} operations, {c['schemas']} schemas, "
            f"{c['bytes'] / 1e6:.1f} MB",
            "",
            "| stage or process | time |",
            "|---|---|",
        ]
        for name, m in c["stages"].items():
            out.append(f"| ours, in process: {name} | {_t(m)} |")
        for name, m in c["processes"].items():
            what = "load and IR" if name.startswith("ours") else "whole generation"
            out.append(f"| {name.split(':')[0]}, fresh process: {what} | {_t(m)} |")
        if c.get("self_diff_ratio"):
            out += [
                "",
                f"Self-diff, this engine / the one before: {_r(c['self_diff_ratio'])} (a small "
                "document with little sharing: the pair graph costs about what it saves).",
            ]
    out += _shared_graph(g["shared_graph"], summary)
    rows = g["scaling"]["rows"]
    out += [
        "",
        "### Scaling with the number of schemas",
        "",
        "Synthetic documents (objects of five properties chained by `$ref`, one operation per ten",
        "schemas). Ours: load and IR of one document, and load, IR and diff of two versions in",
        "process; the peers: whole generation in a fresh process (not run at 5,000 schemas, where",
        "each takes about 40 s). Medians of wall time (CPU in the JSON). Plot: `scaling.png`.",
        "",
        "| schemas | ours: load + IR | per schema | ours: two loads + IR + diff | changes | "
        "openapi-python-client | datamodel-code-generator |",
        "|---|---|---|---|---|---|---|",
    ]

    def wall(row: dict[str, Any], name: str) -> str:
        m = row["times"].get(name)
        if m is None:
            return "not run"
        if "failed" in m:
            return f"failed: {m['failed']}"
        return _seconds(m["wall"]["median"])

    for row in rows:
        per = row["times"]["ours: load + IR"]["wall"]["median"] / row["schemas"] * 1e6
        out.append(
            f"| {row['schemas']:,} | {wall(row, 'ours: load + IR')} | {per:.0f} µs | "
            f"{wall(row, 'ours: two loads + IR + diff')} | {row['changes']} | "
            f"{wall(row, 'openapi-python-client')} | {wall(row, 'datamodel-code-generator')} |"
        )
    base = next((r for r in rows if r["schemas"] == 100), rows[0])
    top = rows[-1]
    key = "ours: two loads + IR + diff"
    growth = (top["times"][key]["cpu"]["median"] / top["schemas"]) / (
        base["times"][key]["cpu"]["median"] / base["schemas"]
    )
    summary.append(
        f"- Generator cost grows linearly with the number of schemas: CPU per schema (load, IR and "
        f"diff of two versions) at {top['schemas']:,} is {growth:.3f}x that at {base['schemas']:,}, "
        f"{_verdict(growth <= TARGETS['linear'])}."
    )
    return out + [""]


def _shared_graph(s: dict[str, Any], summary: list[str]) -> list[str]:
    out = [
        "",
        "### The diff on a deep, widely shared reference graph",
        "",
        f"`benchmarks/synthetic.py::shared_graph_spec`: layers of {s['width']} object schemas, each",
        f"referring to {s['fanout']} of the next layer, so that an operation's body reaches the",
        "schemas of all layers along exponentially many paths; two versions with changes in the first",
        f"three layers. The engine before (commit `{s['before']}`) walked every path; this one compares",
        "each pair of components once per context and reports along the paths that lead to a change.",
        "Both report the same changes (checked on every row run with both). The engine before is not",
        f"run where its predicted time (from the previous row and the paths) exceeds {s['budget']:g} s.",
        "",
        "| layers | schemas | paths per body | changes | comparisons before | comparisons now | "
        "time before | time now | now / before |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in s["rows"]:
        before = row["times"].get("before")
        out.append(
            f"| {row['layers']} | {row['schemas']:,} | {_count(row['paths_per_body'])} | "
            f"{row['changes']} | "
            f"{row.get('comparisons_before', 'not run'):{',' if 'comparisons_before' in row else ''}} | "
            f"{row['comparisons']:,} | "
            f"{_seconds(before['cpu']['median']) + ' CPU' if before else 'not run'} | "
            f"{_seconds(row['times']['after']['cpu']['median'])} CPU | "
            f"{_r(row.get('ratio'))} |"
        )
    rows = s["rows"]
    first, last = rows[0], rows[-1]
    per_first = first["comparisons"] / first["schemas"]
    per_last = last["comparisons"] / last["schemas"]
    ran = [r for r in rows if "comparisons_before" in r]
    deepest = ran[-1] if ran else None
    summary.append(
        f"- The diff's work grows with distinct schema pairs, not paths: comparisons per schema "
        f"{per_first:.1f} at {first['layers']} layers and {per_last:.1f} at {last['layers']} layers "
        f"({last['paths_per_body']:.2g} paths per body), CPU {_seconds(last['times']['after']['cpu']['median'])}"
        f" at {last['schemas']:,} schemas, {_verdict(per_last <= 1.5 * per_first)}."
        + (
            f" The engine before needed {deepest['comparisons_before']:,} comparisons at "
            f"{deepest['layers']} layers (this one {deepest['comparisons']:,}; time {_r(deepest['ratio'])})"
            " and doubles them with every layer."
            if deepest
            else ""
        )
    )
    return out


def _document(d: dict[str, Any], summary: list[str]) -> list[str]:
    out = [
        "## One document (`generate --spec`)",
        "",
        "A fresh process per run with an empty cache (the worst case), every package written and",
        "smoke-imported; memory is the peak of the memory of the whole process tree (the",
        "generator, its validator and black workers, the smoke import: the sum of their",
        "proportional set sizes, so that pages a forked worker shares are counted once), sampled",
        "every 20 ms.",
        "",
    ]
    c = d["corpus"]
    if "skipped" in c:
        out += [f"Public document: skipped ({c['skipped']}).", ""]
    else:
        out += [
            f"Public document (`shared/corpus`), {c['rounds']} rounds:",
            "",
            "| contender | time | peak memory | ours / contender |",
            "|---|---|---|---|",
        ]
        for name, m in c["times"].items():
            peak = c["peak_rss"].get(name)
            out.append(
                f"| {name} | {_t(m)} | {_mb(peak) if peak else '–'} | "
                f"{_r(c['ratios'].get(name)) if name != 'ours' else ''} |"
            )
        ours = c["times"]["ours"]
        if "failed" not in ours:
            wall = ours["wall"]["median"]
            summary.append(
                f"- `generate --spec` on the public document under "
                f"{TARGETS['corpus_seconds']:g} s: wall {_seconds(wall)} (median), "
                f"{_verdict(wall < TARGETS['corpus_seconds'])}."
            )
        out.append("")
    out += _real_world(d.get("real_world"), summary)
    rows = d["scaling"]["rows"]
    out += [
        "Synthetic documents (`benchmarks/synthetic.py`: chains of ten objects, one operation per",
        "ten schemas):",
        "",
        "| schemas | time | peak memory | wall per 1,000 schemas | ours / openapi-python-client |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        m = row["times"]["ours"]
        peak = row["peak_rss"].get("ours")
        per = _seconds(m["wall"]["median"] * 1000 / row["schemas"]) if "failed" not in m else "–"
        out.append(
            f"| {row['schemas']:,} | {_t(m)} | {_mb(peak) if peak else '–'} | {per} | "
            f"{_r(row.get('ratio'))} |"
        )
    out.append("")
    good = [r for r in rows if "failed" not in r["times"]["ours"]]
    if good:
        largest, smallest = good[-1], good[0]
        wall = largest["times"]["ours"]["wall"]["median"]
        peak = largest["peak_rss"]["ours"] or 0
        summary.append(
            f"- `generate --spec` on {largest['schemas']:,} schemas under "
            f"{TARGETS['document_seconds']:g} s and {TARGETS['document_bytes'] / 2**30:g} GB: "
            f"wall {_seconds(wall)} (median), peak memory {_mb(peak)}, "
            f"{_verdict(wall < TARGETS['document_seconds'] and peak < TARGETS['document_bytes'])}."
        )
        if largest is not smallest:
            growth = (wall / largest["schemas"]) / (
                smallest["times"]["ours"]["wall"]["median"] / smallest["schemas"]
            )
            summary.append(
                f"- `generate --spec` grows linearly: wall per schema at {largest['schemas']:,} / "
                f"at {smallest['schemas']:,} schemas {growth:.2f} (at most "
                f"{TARGETS['linear']:g}), {_verdict(growth <= TARGETS['linear'])}."
            )
    return out


def _after_add_revision(a: dict[str, Any] | None, summary: list[str]) -> list[str]:
    """``generate`` after ``add-revision`` against generating the new revision alone."""
    if a is None:
        return []
    out = [
        "",
        f"### After `add-revision`: all {a['revisions']} revisions against the new one alone",
        "",
        "A copy of the project with a made-up next revision appended",
        "(`tests/support/nextrevision.py`), generated once (the cache a user has by then); then,",
        "paired, `generate` (the released packages confirmed by hash and taken as they are, the",
        "new one rendered) against `generate --revision NEW`.",
        "",
        "| contender | time |",
        "|---|---|",
    ]
    for name, m in a["times"].items():
        out.append(f"| {name} | {_t(m)} |")
    out += ["", f"All / the new one alone: {_r(a['ratio'])}.", ""]
    if a["ratio"]:
        worst = max(a["ratio"]["cpu"]["median"], a["ratio"]["wall"]["median"])
        summary.append(
            f"- `generate` after adding one revision to {a['revisions'] - 1} takes at most "
            f"{TARGETS['after_add_revision']:g}x the time of generating the new revision alone: "
            f"{_r(a['ratio'])}, {_verdict(worst <= TARGETS['after_add_revision'])}."
        )
    return out


def _real_world(r: dict[str, Any] | None, summary: list[str]) -> list[str]:
    """The real-world sample: ours with an empty and a warm cache against openapi-python-client."""
    if r is None:
        return []
    if "skipped" in r:
        return [f"Real-world documents: skipped ({r['skipped']}).", ""]
    peer = "openapi-python-client"
    out = [
        "Real-world documents (`shared/corpus/real-world`, `shared/corpus/real-world-next`, the",
        "public document and GitHub's, from the npm package named), "
        f"{r['rounds']} rounds (GitHub's: as given): ours with an",
        "empty cache (every run formats, validates and smoke-imports from scratch) and with a",
        "warm one (the validator's findings, black's output and the smoke import taken again for",
        "the same bytes), against openapi-python-client (which formats with ruff and validates",
        "nothing beyond its own reading). Ratios are ours / openapi-python-client, CPU time: the",
        "median of the paired rounds' ratios (the ratio of the minimums in brackets). Python's",
        "bytecode of every contender is there before the first run (pip compiles the peers' at",
        "install; the benchmark compiles the project's, installed in place).",
        "`nox -s bench -- real-world` runs this table alone (`--rounds N`, `--github-rounds N`;",
        "`--github-only` measures GitHub's row again, keeping the others)"
        + (
            f", measured so on: {r['machine'].get('cpu')}, {r['machine'].get('cores')} cores."
            if "machine" in r
            else "."
        ),
        f"These figures: `nox -s bench -- real-world --rounds {r['rounds']}`"
        + "".join(
            (
                f" (GitHub's row: `-- real-world --github-only --github-rounds {row['rounds']}`)"
                if row.get("measured_alone")
                else f" (GitHub's document: `--github-rounds {row['rounds']}`)"
            )
            for row in r["rows"]
            if row.get("folder") == "npm" and "rounds" in row
        )
        + "; the timed rounds follow an untimed one (which fills the warm cache).",
        "",
        "| document | rounds | ours, empty cache | ours, warm cache | openapi-python-client | "
        "empty / peer | warm / peer |",
        "|---|---|---|---|---|---|---|",
    ]
    both: dict[str, list[float]] = {"ours, empty cache": [], "ours, warm cache": []}
    handled = 0
    for row in r["rows"]:
        name = f"{row.get('folder', 'real-world')}/{row['document']}"
        if "skipped" in row:
            out.append(f"| {row['document']} | – | skipped: {row['skipped']} | | | | |")
            continue
        t = row["times"]
        ratios = row["ratios"]
        out.append(
            f"| {name} | {row.get('rounds', r['rounds'])} | {_t(t['ours, empty cache'])} | "
            f"{_t(t['ours, warm cache'])} | {_t(t[peer])} | "
            f"{_cpu_ratio(ratios['ours, empty cache'])} | {_cpu_ratio(ratios['ours, warm cache'])} |"
        )
        handled += ratios["ours, warm cache"] is not None
        for key, values in both.items():
            if ratios[key] is not None:
                values.append(ratios[key]["cpu"]["median"])
    out.append("")
    for key, values in both.items():
        if values:
            worst = max(values)
            summary.append(
                f"- `generate --spec` ({key}) takes no more CPU than openapi-python-client on "
                f"each of the {handled} real-world documents both handle: worst ratio "
                f"{worst:.2f} (median of paired rounds), {_verdict(worst <= 1.0)}."
            )
    return out


def _cpu_ratio(r: dict[str, Any] | None) -> str:
    return "–" if r is None else f"{r['cpu']['median']:.2f} ({r['cpu']['min']:.2f})"


def _client(c: dict[str, Any], summary: list[str]) -> list[str]:
    out = [
        "## Client overhead per call",
        "",
        "`optim_step` with a small body against a fixed-response HTTP/1.1 server in another process",
        f"on loopback, {c['rounds']} rounds of {c['calls_per_round']} calls of each contender; per call.",
        "CPU is the client process's own.",
        "",
        "| client | per call | / raw httpx |",
        "|---|---|---|",
    ]
    for name, m in c["times"].items():
        out.append(f"| {name} | {_t(m)} | {_r(c['ratio_to_raw_httpx'].get(name))} |")
    ours = c["ratio_to_raw_httpx"]["generated client"]
    met = ours["wall"]["median"] <= TARGETS["client_raw"]
    summary.append(
        f"- Client within {TARGETS['client_raw']:g}x of raw httpx: {_r(ours)}, {_verdict(met)}."
    )
    sdk = c["ratio_to_raw_httpx"].get("together SDK 3.1.1")
    if sdk:
        summary.append(
            f"- Client faster than the official SDK: SDK / raw httpx {_r(sdk)}, "
            f"{_verdict(ours['wall']['median'] < sdk['wall']['median'])}."
        )
    return out + [""]


def _machine_line(m: dict[str, Any]) -> str:
    return f"{m.get('cpu')}, {m.get('cores')} cores, Python {m.get('python')}"


def _concurrent(c: dict[str, Any], summary: list[str]) -> list[str]:
    out = [
        f"## {c['calls']:,} concurrent async calls",
        "",
        f"Each round, each contender makes {c['calls']:,} `optim_step` calls at once to the reference",
        f"server (another process, on loopback), spread over {c['sessions']} sessions new to the round;",
        f"{c['rounds']} rounds, the order rotating. Raw sockets: a minimal asyncio HTTP/1.1 client on",
        f"{c['raw_connections']} kept-alive connections (as many as the generated client's pool). p99:",
        "the 99th percentile of the calls' times from the start of the round; CPU: this process's",
        "(the client's) and the server's, per round. Median over the rounds, and in brackets the",
        "best round (the most calls a second, the least time), or the most failures in a round.",
        f"Measured on {_machine_line(c.get('machine', {}))}.",
        "",
        "| client | calls / s | p99 | wall | client CPU | server CPU | failures | calls / s, / raw sockets |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def cell(m: dict[str, Any], key: str, show: Any) -> str:
        best = "max" if key in ("per_second", "failures") else "min"
        return f"{show(m[key]['median'])} ({show(m[key][best])})"

    def rate(value: float) -> str:
        return f"{value:,.0f}"

    for name, m in c["figures"].items():
        if "failed" in m:
            out.append(f"| {name} | failed: {m['failed']} | | | | | | |")
            continue
        to_raw = c["throughput_to_raw"].get(name)
        ratio = "–" if to_raw is None else f"{_x(to_raw['median'])} (best {_x(to_raw['best'])})"
        out.append(
            f"| {name} | {cell(m, 'per_second', rate)} | {cell(m, 'p99', _seconds)} | "
            f"{cell(m, 'wall', _seconds)} | {cell(m, 'cpu', _seconds)} | "
            f"{cell(m, 'server_cpu', _seconds)} | {cell(m, 'failures', lambda v: f'{v:,.0f}')} | "
            f"{ratio} |"
        )
    ours = c["throughput_to_raw"].get("generated AsyncClient")
    failures = c["most_failures"].get("generated AsyncClient")
    if ours is not None:
        met = ours["median"] >= TARGETS["concurrent_raw"] and failures == 0
        summary.append(
            f"- {c['calls']:,} concurrent async calls at or above "
            f"{TARGETS['concurrent_raw']:g}x the raw-socket throughput, with no failure: "
            f"calls a second, ours / raw sockets {_x(ours['median'])} (best rounds "
            f"{_x(ours['best'])}), "
            f"failures in a round at most {failures:,.0f}, {_verdict(met)}."
        )
    return out + [""]


def _to_floor(row: dict[str, Any]) -> dict[str, Any] | None:
    """Ours against torch's fused step alone times 32/28 (the norm's read of the gradients
    added to the update's bytes), from the paired ratio to the step alone; ``None`` where the
    row has no such contender."""
    alone = row["ratios"].get("torch AdamW fused, no clip")
    if alone is None:
        return None
    scale = 28 / 32
    return {
        clock: {stat: value * scale for stat, value in alone[clock].items()}
        for clock in ("wall", "cpu")
    }


def _shapes(row: dict[str, Any]) -> str:
    """A row's shape set (results written before there were shape sets name it by its size)."""
    return str(row.get("shapes", row.get("size")))


def _weight_decay(row: dict[str, Any]) -> float:
    """A row's weight decay (0.1 in results written before it varied)."""
    return float(row.get("weight_decay", 0.1))


def _label(row: dict[str, Any]) -> str:
    """The shape set and the weight decay of a row, as the summary names them."""
    return f"{_shapes(row)} wd {_weight_decay(row):g}"


def _reference(r: dict[str, Any], summary: list[str]) -> list[str]:
    device = r["device"]
    rows = r["rows"]
    adam = [row for row in rows if row["optimizer"] == "adam"]
    muon = [row for row in rows if row["optimizer"] == "muon"]
    out = [
        f"## Reference optimizer, one step on {device.upper()}",
        "",
        f"torch {r['torch']}, {r['threads']} threads. Every contender has its own parameters and",
        "gets the same gradients before each step (copied beforehand, untimed); gradient clipping",
        "(max norm 1.0) is included on both sides, and so is clearing the gradients, which a",
        "completed step of the reference does (`zero_grad(set_to_none=True)` for torch). A sample",
        "is as many steps as take about 0.1 s (`steps / sample`), timed together and divided: Linux",
        "adds a running thread's CPU time to the process's clock only at a scheduler tick or when it",
        "stops, so the CPU time of one step of a few milliseconds would be off by as much as the",
        "step takes. The first round is not counted. The bandwidth floor is the traffic any Adam step with",
        "clipping must make: read the gradients (the norm), read them again and read and write the",
        "parameters and both moments, as four multi-tensor ops that do no arithmetic to speak of.",
        "",
        "Shape sets (`benchmarks/reference_bench.py`). Adam runs each with weight decay 0.1 and 0;",
        "Muon with 0.1 (its decay is one multiplication per parameter, the same on both sides).",
        "The hold-out sets (odd sizes, 1-D and 2-D mixed, many small and few large, and one drawn",
        f"afresh each run, this run's seed {r.get('seed', '–')}) run Adam only, with weight decay",
        "0.1 and no memory probe. Sets of more than 40M parameters run Adam without the foreach",
        "and bandwidth-floor contenders (their memory).",
        "The floor of a clipped step is torch's fused step alone (no clip: the update's 28 bytes",
        "per float32 parameter) times 32/28: the norm's read of the gradients added.",
        "A Muon step gives Muon the 2-D parameters but the embedding and the output head, and",
        "Adam the rest (with the same weight decay), on both sides.",
        "",
        "| shape set | what it holds | tensors | parameters |",
        "|---|---|---|---|",
    ]
    seen: set[str] = set()
    for row in rows:
        if _shapes(row) in seen:
            continue
        seen.add(_shapes(row))
        tensors = row.get("tensors")
        out.append(
            f"| `{_shapes(row)}` | {row.get('description', '–')} | "
            f"{'–' if tensors is None else tensors} | {row['parameters']:,} |"
        )
    fused_name, muon_name = "torch AdamW fused", "torch Muon + AdamW fused"
    if adam:
        out += [
            "",
            "### Adam against `clip_grad_norm_` + `AdamW(fused=True)`",
            "",
            "| shape set | weight decay | ours / torch fused | ours / torch foreach | "
            "ours / floor (fused alone x 32/28) | ours / bandwidth floor | "
            "torch fused / floor (wall) | steps / sample |",
            "|---|---|---|---|---|---|---|---|",
        ]
    for row in adam:
        ratios = row["ratios"]
        fused, floor = ratios.get(fused_name), ratios.get("bandwidth floor")
        torch_floor = (
            f"{floor['wall']['median'] / fused['wall']['median']:.2f}x" if fused and floor else "–"
        )
        out.append(
            f"| `{_shapes(row)}` | {_weight_decay(row):g} | {_r(fused)} | "
            f"{_r(ratios.get('torch AdamW foreach'))} | {_r(_to_floor(row))} | {_r(floor)} | "
            f"{torch_floor} | {row.get('steps_per_sample', 1)} |"
        )
    if muon:
        out += [
            "",
            "### Muon against `clip_grad_norm_` + `torch.optim.Muon` + `AdamW(fused=True)` for the "
            "rest",
            "",
            "| shape set | weight decay | ours / torch | steps / sample |",
            "|---|---|---|---|",
        ]
    for row in muon:
        out.append(
            f"| `{_shapes(row)}` | {_weight_decay(row):g} | {_r(row['ratios'].get(muon_name))} | "
            f"{row.get('steps_per_sample', 1)} |"
        )
    out += [
        "",
        "### Every contender",
        "",
        "| shape set | weight decay | optimizer | contender | per step | ours / it | "
        "state bytes per parameter |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        for name, m in row["times"].items():
            state = row["state_bytes_per_parameter"].get(name)
            out.append(
                f"| `{_shapes(row)}` ({row['parameters'] / 1e6:.1f}M) | {_weight_decay(row):g} | "
                f"{row['optimizer']} | {name} | {_t(m)} | "
                f"{_r(row['ratios'].get(name)) if name != 'ours' else ''} | "
                f"{'' if state is None else f'{state:.2f}'} |"
            )

    def medians(x: dict[str, Any]) -> str:
        return f"{x['wall']['median']:.2f}x/{x['cpu']['median']:.2f}x"

    fused_rows = [(row, row["ratios"].get(fused_name)) for row in adam]
    if fused_rows:
        met = all(
            x is not None
            and x["wall"]["median"] <= TARGETS["adam_fused"]
            and x["cpu"]["median"] <= TARGETS["adam_fused"]
            for _, x in fused_rows
        )
        summary.append(
            f"- Reference Adam at most {TARGETS['adam_fused']:g}x of `clip_grad_norm_` + "
            f"`AdamW(fused=True)` on every shape set ({device}; wall/CPU medians): "
            + "; ".join(f"{_label(row)} {medians(x) if x else 'failed'}" for row, x in fused_rows)
            + f", {_verdict(met)} (minimums and the bandwidth floor in the Adam table)."
        )
    floor_rows = [(row, _to_floor(row)) for row in adam]
    if any(x is not None for _, x in floor_rows):
        met = all(
            x is not None and x["wall"]["median"] <= TARGETS["adam_floor"] for _, x in floor_rows
        )
        summary.append(
            f"- Reference Adam with clipping within {TARGETS['adam_floor']:g}x of the floor "
            "(torch's fused step alone x 32/28, the same tensors) on every shape set, hold-out "
            f"and random (seed {r.get('seed', '–')}) included ({device}; wall/CPU medians): "
            + "; ".join(f"{_label(row)} {medians(x) if x else 'failed'}" for row, x in floor_rows)
            + f", {_verdict(met)} (on the wall medians)."
        )
    muon_rows = [(row, row["ratios"].get(muon_name)) for row in muon]
    if muon_rows:
        met = all(
            x is not None and x["wall"]["median"] < TARGETS["muon"] and x["cpu"]["median"] < 1
            for _, x in muon_rows
        )
        summary.append(
            "- Reference Muon faster than `clip_grad_norm_` + `torch.optim.Muon` + "
            f"`AdamW(fused=True)` for the rest on every shape set ({device}; wall/CPU medians): "
            + "; ".join(f"{_label(row)} {medians(x) if x else 'failed'}" for row, x in muon_rows)
            + f", {_verdict(met)}. The Newton-Schulz products (bfloat16 matrix multiplications,"
            " the same calls in both) are most of either step where the matrices are large."
        )
    if any("memory" in row for row in rows):
        out += _memory(r, summary)
    state = all(
        row["state_bytes_per_parameter"]["ours"]
        <= min(
            v
            for k, v in row["state_bytes_per_parameter"].items()
            if k not in ("ours", "bandwidth floor")
        )
        + 1e-9
        for row in rows
    )
    summary.append(
        f"- Reference optimizer state no larger than PyTorch's ({device}): {_verdict(state)}."
    )
    return out + [""]


def _server(s: dict[str, Any], summary: list[str]) -> list[str]:
    lat, age = s["latency"], s["age"]
    old = f"{age['old']:,}"
    out = [
        "## Reference server",
        "",
        f"`python -m together_rl.reference.serve` of revision `{s['revision']}`, each contender a",
        "process of its own, against the server before this one (`http.server`, the whole state",
        f"saved after every step: the runtime of commit `{s['before']}`, run from `git archive`).",
        "Wall time is what the client waits per POST on a kept-alive connection on loopback; CPU is",
        "the server process's own. The state folder's steps are flushed to the disk (ours: one",
        "journal line with `fdatasync`; before: a whole-state file, written and renamed).",
        "",
        f"### Kept-alive POST latency ({lat['rounds']} rounds of {lat['calls_per_round']} steps, a new "
        "session each round)",
        "",
        "| server | per step |",
        "|---|---|",
    ]
    for name, m in lat["times"].items():
        out.append(f"| {name} | {_t(m)} |")
    out += ["", "| ratio | paired |", "|---|---|"]
    for label, r in lat["ratios"].items():
        out.append(f"| {label} | {_r(r)} |")
    out += [
        "",
        f"### A step at about 10 steps and at about {old} ({age['rounds']} rounds of "
        f"{age['calls_per_round']} steps)",
        "",
        f"Our session was driven to {old} steps over HTTP first (the soak: "
        f"{age['soak_seconds']:.1f} s, {age['soak_seconds'] / age['old'] * 1e3:.2f} ms a step).",
        "The server before saves every operation again on every step, so getting there would take it",
        "over an hour: its session is the file it would have written at that step, made in process",
        "by the same `LocalSession` and loaded by the server on its first request. A young session",
        "is a new one each round, taken to step 10 before timing.",
        "",
        "| contender | per step |",
        "|---|---|",
    ]
    for name, m in age["times"].items():
        out.append(f"| {name} | {_t(m)} |")
    out += ["", "| ratio | paired |", "|---|---|"]
    for label, r in age["ratios"].items():
        out.append(f"| {label} | {_r(r)} |")
    ours_age = age["ratios"][f"ours: at {old} / at 10"]
    before_age = age["ratios"][f"before: at {old} / at 10"]
    if ours_age:
        met = ours_age["cpu"]["median"] <= TARGETS["server_age"]
        summary.append(
            f"- Reference server: a step's cost does not grow with the session's age: at {old} "
            f"steps / at 10, ours {_r(ours_age)}, {_verdict(met)} (at most "
            f"{TARGETS['server_age']:g}x CPU); the server before {_r(before_age)}."
        )
    summary.append(
        "- Reference server, kept-alive POST latency, ours / before: without a state folder "
        f"{_r(lat['ratios']['ours / before, no state dir'])}; with one "
        f"{_r(lat['ratios']['ours / before, state dir'])}."
    )
    return out + [""]


def _sharded(r: dict[str, Any], summary: list[str]) -> list[str]:
    """The reference on sharded parameters (``benchmarks/sharded_bench.py``)."""
    device = r["device"].upper()
    out = [
        f"## Reference optimizer on sharded parameters, {r['world']} {r['backend']} ranks on "
        f"{device}",
        "",
        f"torch {r['torch']}, {r['threads_per_rank']} thread per process. DTensor parameters "
        "placed as FSDP2 places",
        "them (rows, `Shard(0)`, on a one-dimensional mesh) against the same parameters whole in",
        "one process, clipping included (max norm 1.0). The sharded step's wall time is the",
        "slower rank's, from a barrier; its CPU time both ranks' together (gloo's threads",
        "included). Bytes per parameter: the step's time in units of the floor's, `28 * t /",
        "t_floor`, measured in the same rounds over what each process holds (the floor of an fp32",
        "Adam step reads parameter, gradient and both moments and writes three: 28 bytes). Muon's",
        "traffic is counted from the shards' shapes (bfloat16, 2 bytes an element). These are CPU",
        "figures: two processes on a machine of two cores shared with other work, so the sharded",
        "step's two halves seldom run at once; no GPU was measured.",
        "",
        "| shape set | optimizer | parameters (per rank) | whole, per step | sharded, per step | "
        "sharded / whole | slower rank's CPU / whole's CPU |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in r["rows"]:
        ratios = row["ratios"]
        per_rank = " + ".join(f"{n:,}" for n in row["parameters_per_rank"])
        rank_cpu = row.get("rank_cpu", {}).get("sharded")
        out.append(
            f"| `{row['shapes']}` | {row['optimizer']} | {row['parameters']:,} ({per_rank}) | "
            f"{_t(row['times'].get('whole'))} | {_t(row['times'].get('sharded'))} | "
            f"{_r(ratios.get('sharded / whole'))} | "
            + ("–" if rank_cpu is None else f"{_x(rank_cpu['median'])} (min {_x(rank_cpu['min'])})")
            + " |"
        )
    adam = [row for row in r["rows"] if row["optimizer"] == "adam"]
    if adam:
        out += [
            "",
            "### Adam: bytes moved per parameter per step (floor 28)",
            "",
            "| shape set | whole: median (from minimums) | sharded, per rank's parameter |",
            "|---|---|---|",
        ]
        for row in adam:
            b = row["bytes_per_parameter"]
            out.append(
                f"| `{row['shapes']}` | {b['whole']['median']:.1f} ({b['whole']['min']:.1f}) | "
                f"{b['sharded']['median']:.1f} ({b['sharded']['min']:.1f}) |"
            )
    muon = [row for row in r["rows"] if row["optimizer"] == "muon"]
    if muon:
        out += [
            "",
            "### Muon: orthogonalised by owners against all-gathered, and what crosses the network",
            "",
            "| shape set | sharded (owners) / all-gather | all-gather / whole | bytes per step: "
            "owners, all-gather | per Muon element | per model parameter |",
            "|---|---|---|---|---|---|",
        ]
        for row in muon:
            t = row["traffic"]
            out.append(
                f"| `{row['shapes']}` | {_r(row['ratios'].get('sharded / sharded all-gather'))} | "
                f"{_r(row['ratios'].get('sharded all-gather / whole'))} | "
                f"{t['owners_bytes']:,}, {t['all_gather_bytes']:,} | "
                f"{t['owners_bytes_per_muon_element']:.2f}, "
                f"{t['all_gather_bytes_per_muon_element']:.2f} | "
                f"{t['owners_bytes_per_parameter']:.2f}, "
                f"{t['all_gather_bytes_per_parameter']:.2f} |"
            )

    def medians(x: dict[str, Any] | None) -> str:
        return "failed" if x is None else f"{x['wall']['median']:.2f}x/{x['cpu']['median']:.2f}x"

    summary.append(
        f"- Sharded reference step ({r['world']} {r['backend']} ranks, {device}; wall/CPU medians, "
        "sharded / whole at the same total size): "
        + "; ".join(
            f"{row['shapes']} {row['optimizer']} {medians(row['ratios'].get('sharded / whole'))}"
            for row in r["rows"]
        )
        + "."
    )
    return out + [""]


def _memory(r: dict[str, Any], summary: list[str]) -> list[str]:
    out = [
        "",
        "### Peak memory",
        "",
        "Each contender in a fresh process per run (`benchmarks/memory_probe.py`), with the modules of",
        "both imported and the contender's code run on a tiny model first, and glibc told to map and",
        "unmap every block of 64 KiB or more (`MALLOC_MMAP_THRESHOLD_`) so that the resident set",
        "follows the live memory. Peak: Linux's VmHWM over the first step (which creates the state)",
        "and two more, above the resident set before them (the model and its gradients, the same for",
        "both); the whole process's peak beside it. Temporaries: the peak of the tensor bytes live",
        "during a later step above those at its start, from torch's profiler, which sees every",
        "allocation. Minimum over the runs; measured with weight decay 0.1.",
        "",
        "| shape set | optimizer | peak above baseline, ours / torch | ratio | "
        "process peak, ours / torch | temporaries, ours / torch | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    for row in r["rows"]:
        mem = row.get("memory")
        if not mem or "failed" in mem:
            continue
        peak, above, temps = {}, {}, {}
        for name in ("ours", "torch"):
            runs = mem["runs"][name]
            peak[name] = min(max(x["first_peak"], x["steady_peak"]) for x in runs)
            above[name] = min(
                max(x["first_peak"], x["steady_peak"]) - x["first_before"] for x in runs
            )
            temps[name] = min(x["temporaries"] for x in runs)
        above_ratio = above["ours"] / above["torch"]
        temp_ratio = temps["ours"] / temps["torch"] if temps["torch"] else None
        out.append(
            f"| `{_shapes(row)}` | {row['optimizer']} | "
            f"{_mb(above['ours'])} / {_mb(above['torch'])} | "
            f"{above_ratio:.2f} | {_mb(peak['ours'])} / {_mb(peak['torch'])} | "
            f"{_mb(temps['ours'])} / {_mb(temps['torch'])} | "
            f"{'–' if temp_ratio is None else f'{temp_ratio:.2f}'} |"
        )
        if row["optimizer"] == "muon":
            verdicts.append((_shapes(row), above_ratio, temp_ratio or 0.0))
    if verdicts:
        met = all(a <= TARGETS["muon_memory"] and t <= 1 for _, a, t in verdicts)
        summary.append(
            "- Reference Muon's peak memory no more than torch's: peak above the model's baseline "
            "ours / torch "
            + "; ".join(f"{s} {a:.2f}x" for s, a, _ in verdicts)
            + ", tensor temporaries of a step "
            + "; ".join(f"{s} {t:.2f}x" for s, _, t in verdicts)
            + f", {_verdict(met)} (whole-process peaks in the table)."
        )
    return out


def _plot(g: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=100)
    rows = g["scaling"]["rows"]
    sizes = [r["schemas"] for r in rows]
    for name in (
        "ours: load + IR",
        "ours: two loads + IR + diff",
        "openapi-python-client",
        "datamodel-code-generator",
    ):
        points = [
            (s, r["times"][name]["wall"]["median"])
            for s, r in zip(sizes, rows)
            if name in r["times"] and "failed" not in r["times"][name]
        ]
        if points:
            label = name if name.startswith("ours") else f"{name} (whole generation)"
            left.plot(*zip(*points), marker="o", label=label)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("schemas in the document")
    left.set_ylabel("seconds (median, wall)")
    left.set_title("Cost against document size")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8)
    s = g["shared_graph"]["rows"]
    for key, label in (("before", "diff engine before"), ("after", "diff engine now")):
        points = [(r["layers"], r["times"][key]["cpu"]["median"]) for r in s if key in r["times"]]
        if points:
            right.plot(*zip(*points), marker="o", label=label)
    right.set_yscale("log")
    right.set_xlabel("layers of the shared reference graph (8 schemas each)")
    right.set_ylabel("seconds (median, CPU)")
    right.set_title("Diff of a deep, widely shared reference graph")
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
