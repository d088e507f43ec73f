"""What every test of the project shares, the generator's (tests/) and the runtime's
(runtime/tests/): its tier, given by its folder (:mod:`support.tiers`), and the project's own
files, which no test changes."""

from __future__ import annotations

import pytest

# The checks the tests share are plain functions of support/: their asserts say what they compared.
pytest.register_assert_rewrite("support")

from support import tiers  # noqa: E402
from support.paths import ROOT, SPEC_DIR  # noqa: E402

TREES = (ROOT / "tests", ROOT / "runtime" / "tests")
"""The folders of tests, each with its tier folders."""

collect_ignore_glob = ["tests/golden/*"]
"""The golden packages (tests/golden/) are the generator's output, never tests: their Python is
compared byte for byte (tests/e2e/test_golden_packages.py), not collected."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for tree in TREES:
        tiers.mark_by_folder(items, tree)


def pytest_runtest_setup(item):
    tiers.refuse_misplaced(item)


@pytest.fixture(scope="session", autouse=True)
def project_files_stay_as_they_are():
    """No test writes the project's own README or spec/: tests work on copies."""
    watched = [ROOT / "README.md", ROOT / "COMPATIBILITY.md", *sorted(SPEC_DIR.iterdir())]
    before = {path: path.read_bytes() for path in watched}
    yield
    changed = [path.name for path in watched if path.read_bytes() != before[path]]
    assert not changed, f"tests changed {changed}"
