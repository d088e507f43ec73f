"""The test tiers are folders: ``unit`` (fast and pure: the inner loop), ``e2e`` (servers,
processes, installs, type checks, every revision) and ``corpus`` (every real-world document's
package installed and type-checked). Each test is marked by its folder, so that ``-m "not slow"``
selects what the ``unit`` folders hold and ``-m corpus`` what the ``corpus`` folder holds."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

MARKS = {"unit": (), "e2e": ("slow",), "corpus": ("slow", "corpus")}
"""The markers of each tier's folder."""

MISPLACED = pytest.StashKey[str]()
"""Why a test is in the wrong place, where it is."""


def mark_by_folder(items: Iterable[pytest.Item], root: Path) -> None:
    """Mark each of ``items`` under ``root`` with the markers of its tier's folder. A test under
    ``root`` outside the tier folders, or one in ``unit`` marked slow by hand, is misplaced: the
    folder and the marker would say different things, and :func:`refuse_misplaced` fails it."""
    for item in items:
        try:
            folder = item.path.relative_to(root).parts[0]
        except ValueError:
            continue  # another tree's test
        if folder not in MARKS:
            tiers = ", ".join(str(root / name) for name in MARKS if (root / name).is_dir())
            item.stash[MISPLACED] = f"a test belongs in one of the tier folders {tiers}"
            continue
        if folder == "unit" and item.get_closest_marker("slow") is not None:
            item.stash[MISPLACED] = f"marked slow: the slow tier is the folder {root / 'e2e'}"
        for name in MARKS[folder]:
            item.add_marker(name)


def refuse_misplaced(item: pytest.Item) -> None:
    """Fail a test that :func:`mark_by_folder` found misplaced, saying where it belongs."""
    if MISPLACED in item.stash:
        pytest.fail(f"{item.nodeid}: {item.stash[MISPLACED]}", pytrace=False)
