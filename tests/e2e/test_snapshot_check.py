"""``check`` catches any drift of a copy of generated/ (each check renders every package), and
rendering in fresh interpreters writes the same bytes (generated/ itself against a fresh render:
tests/unit/test_snapshot.py)."""

from __future__ import annotations

import subprocess
import sys

from generator.cli import main
from generator.output import tree
from generator.reading.runtime import python_path
from support.paths import ROOT


def test_check_fails_with_a_diff_on_a_hand_edit(copy_of_generated, capsys):
    models = copy_of_generated / "f4885bc38424" / "together_rl" / "models.py"
    models.write_text(
        models.read_text().replace('"""Weight decay coefficient"""', '"""Edited by hand"""', 1)
    )
    assert main(["--spec-dir", str(ROOT / "spec"), "check", "--out", str(copy_of_generated)]) == 1
    out = capsys.readouterr().out
    assert "f4885bc38424/together_rl/models.py (on disk)" in out
    assert '-    """Edited by hand"""' in out and '+    """Weight decay coefficient"""' in out


def test_check_reports_missing_and_extra_files(copy_of_generated, capsys):
    (copy_of_generated / "baseline" / "README.md").unlink()
    (copy_of_generated / "baseline" / "notes.txt").write_text("mine")
    assert main(["--spec-dir", str(ROOT / "spec"), "check", "--out", str(copy_of_generated)]) == 1
    out = capsys.readouterr().out
    assert "missing: " in out and "baseline/README.md" in out
    assert "extra: " in out and "baseline/notes.txt" in out


def test_check_passes_on_an_unchanged_copy(copy_of_generated, capsys):
    assert main(["--spec-dir", str(ROOT / "spec"), "check", "--out", str(copy_of_generated)]) == 0


def test_rendering_is_deterministic_across_processes(tmp_path):
    """Two runs in fresh interpreters with different hash seeds write the same bytes."""
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "generator",
                "generate",
                "--out",
                str(out),
                "--readme",
                str(tmp_path / "no-readme.md"),
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin", "PYTHONPATH": python_path()},
        )
        outputs.append(tree.read_tree(out))
    assert outputs[0] == outputs[1]
