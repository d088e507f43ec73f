"""The strongly connected components of a graph of names: the groups of classes of ``models.py``
that name each other (:mod:`generator.views.pyparts`), and the schemas that refer to themselves
through a list, a map or a union (:mod:`generator.views.pymodel`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def strongly_connected(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of the graph of names, each after every component it
    reaches (Tarjan's algorithm, without recursion: a chain of schemas may be long). Roots are
    taken in the order of ``edges``, and neighbours in sorted order, so the result is
    deterministic."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(edges[root], reverse=True))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges[nxt], reverse=True)))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(sorted(group))
    return groups
