"""The diff's work grows with the distinct pairs of schemas it compares, not with the paths
through a shared reference graph (which grow exponentially with its depth)."""

from __future__ import annotations

import sys

import pytest

from generator.changes.diff import DiffStats, diff_documents
from support.paths import ROOT
from support.specdocs import parse

sys.path.insert(0, str(ROOT / "benchmarks"))
from synthetic import shared_graph_paths, shared_graph_spec  # noqa: E402


@pytest.mark.parametrize(("layers", "width", "fanout"), [(6, 4, 2), (60, 6, 3)])
def test_a_deep_shared_reference_graph_diffs_in_bounded_work(layers, width, fanout):
    old = parse(shared_graph_spec(layers, width=width, fanout=fanout))
    new = parse(shared_graph_spec(layers, width=width, fanout=fanout, variant=1))
    assert shared_graph_paths(layers, fanout) >= fanout ** (layers - 1)  # 3**59 at 60 layers
    stats = DiffStats()
    changes = diff_documents(old, new, stats=stats)

    # Every change is still reported at each path that reaches it: per operation and body
    # (request, 200 response), two changes of the first layer at one path, two of the second
    # at `fanout` paths, one of the third at `fanout**2` paths.
    per_body = 2 + 2 * fanout + fanout**2
    assert len(changes) == width * 2 * per_body
    assert len(set(changes)) == len(changes)
    assert sum(c.path.count("/") == 2 and c.path.startswith("child") for c in changes) == (
        width * 2 * fanout**2
    )

    # Each pair of components is compared once per context (request, 200, 400): at most three
    # times the schemas; each comparison looks at the schema and its four inline properties.
    schemas = layers * width + 1
    assert stats.components <= 3 * schemas
    assert stats.comparisons <= 5 * stats.components + 3 * width * 5
    # Reporting enters only the pairs on paths that lead to a change.
    assert stats.visits == width * 2 * (1 + fanout + fanout**2)


def test_the_work_is_linear_in_the_depth():
    counts = []
    for layers in (20, 40, 80):
        stats = DiffStats()
        diff_documents(
            parse(shared_graph_spec(layers)),
            parse(shared_graph_spec(layers, variant=1)),
            stats=stats,
        )
        counts.append(stats.comparisons)
    assert counts[2] - counts[1] == 2 * (counts[1] - counts[0])
