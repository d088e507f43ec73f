"""``python -m generator validate`` as a maintainer runs it: a process of its own, whose exit
status says whether every document is valid."""

from __future__ import annotations

import subprocess
import sys

from support.paths import FIXTURES, ROOT


def test_module_entry_point_exits_1_on_invalid_documents():
    result = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(FIXTURES / "wrong-type.yaml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "1 of 1 documents are invalid" in result.stderr
