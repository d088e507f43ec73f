"""The generated reference pages follow the API documentation's format."""

from __future__ import annotations

import pytest

from support.paths import ROOT, SEEDS

GENERATED = ROOT / "generated"


def test_optim_step_page_of_f4885bc38424_equals_the_seed_apart_from_links():
    ours = (
        (GENERATED / "f4885bc38424" / "together_rl" / "docs" / "OptimStep.md")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    seed = (SEEDS / "optim-step-operation.md").read_text(encoding="utf-8").splitlines()
    assert len(ours) == len(seed)
    for number, (mine, theirs) in enumerate(zip(ours, seed), start=1):
        if "](" in theirs:
            assert "](" in mine, f"line {number} should hold links"
            continue
        assert mine == theirs, f"line {number} differs"


def test_every_package_has_a_page_per_operation(index):
    for revision in index:
        pages = sorted(p.name for p in (GENERATED / revision.id / "together_rl" / "docs").iterdir())
        expected = sorted(f"{op.operation_id}.md" for op in revision.document.operations)
        assert pages == expected, revision.id


def test_older_pages_show_their_own_fields_and_history():
    page = (GENERATED / "baseline" / "together_rl" / "docs" / "OptimStep.md").read_text(
        encoding="utf-8"
    )
    assert "  - `weight_sync_type` 'WEIGHT_SYNC_TYPE_UNSPECIFIED' | " in page
    assert "  - `adamw_params` RLAdamWParams — Per-step AdamW optimizer overrides." in page
    assert "## Changes\n\nNo recorded changes.\n" in page
    page = (GENERATED / "9ccc57e5e4b9" / "together_rl" / "docs" / "OptimStep.md").read_text(
        encoding="utf-8"
    )
    assert "- **2026-07-31** `9ccc57e5e4b9` — 3 warning, 3 info" in page
    assert "- **2026-08-04**" not in page


@pytest.mark.parametrize("package", sorted(GENERATED.iterdir()), ids=lambda path: path.name)
def test_package_readme_examples_run_against_a_server(tmp_path, package):
    """Every python block of every package README runs, the client part against loopback."""
    import os
    import re
    import subprocess
    import sys

    from support.loopback import LoopbackServer, Reply

    readme = (package / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) >= 2, package.name
    with LoopbackServer() as server:
        server.script(
            Reply(200, {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_PENDING"}),
            Reply(
                200,
                {
                    "id": "op-1",
                    "status": "TRAINING_OPERATION_STATUS_COMPLETED",
                    "output": {"step": "1"},
                },
            ),
        )
        result = subprocess.run(
            [sys.executable, "-c", "\n".join(blocks)],
            cwd=tmp_path,
            env={
                **os.environ,
                "PYTHONPATH": str(package),
                "TOGETHER_API_KEY": "k",
                "TOGETHER_BASE_URL": server.url,
            },
            capture_output=True,
            text=True,
        )
    assert result.returncode == 0, f"{package.name}: {result.stderr}"
    assert "completed:" in result.stdout
    assert [s.method for s in server.seen] == ["POST", "GET"]


def test_pages_show_defaults_and_formats():
    """The documentation site's format, with a field's default (not an enum's) and format."""
    page = (GENERATED / "0c4fdad77435" / "together_rl" / "docs" / "OptimStep.md").read_text(
        encoding="utf-8"
    )
    line = next(x for x in page.splitlines() if x.startswith("  - `max_grad_norm` "))
    assert line.endswith("clipped to the session default (1.0). Default: `1.0`.")
    page = (GENERATED / "baseline" / "together_rl" / "docs" / "OptimStep.md").read_text(
        encoding="utf-8"
    )
    assert "    - `beta1` number (float) — Exponential decay rate" in page
    assert "`newton_schulz_steps` integer (int64) — Number of Newton-Schulz iterations" in page
