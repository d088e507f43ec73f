"""Golden tests: our revisions and diff engine reproduce the API's own change history."""

from __future__ import annotations

import re

from conftest import SEEDS

from generator import changelog
from generator.cli import main

OPTIM_STEP = "POST /rl/training-sessions/{session_id}/operations/optim-step"


def section(markdown: str, heading: str) -> str:
    """The text of a ``## heading`` section, up to the next section or horizontal rule."""
    match = re.search(rf"^## {heading}\n(.*?)(?=^## |^---$|\Z)", markdown, re.S | re.M)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def test_changes_section_equals_the_seed_byte_for_byte(capsys):
    assert main(["changelog", "--operation", OPTIM_STEP]) == 0
    ours = capsys.readouterr().out
    seed = (SEEDS / "optim-step-changes.md").read_text(encoding="utf-8")
    assert section(ours, "Changes") == section(seed, "Changes")


def test_timeline_lists_the_changed_revisions_with_their_counts(capsys):
    main(["changelog", "--operation", "OptimStep"])
    ours = section(capsys.readouterr().out, "Timeline")
    seed = section((SEEDS / "optim-step-changes.md").read_text(encoding="utf-8"), "Timeline")
    assert "Changed in 4 of 6 known revisions." in ours
    assert ours.split("\n\n")[1] == seed.split("\n\n")[1]  # the four dated lines


def test_seed_counts_per_revision(index):
    entries = changelog.for_operation(changelog.history(index), OPTIM_STEP)
    assert [(e.revision.id, e.summary) for e in entries] == [
        ("0c4fdad77435", "3 warning, 11 info"),
        ("9ccc57e5e4b9", "3 warning, 3 info"),
        ("ebd4756a41e4", "1 warning"),
        ("f26a23fab8e0", "1 warning"),
    ]


def test_f4885bc38424_does_not_change_the_operations(index):
    entries = changelog.history(index)
    assert entries[-1].revision.id == "f4885bc38424"
    assert entries[-1].changes == ()


def test_unchanged_operation_has_an_empty_history(capsys):
    assert main(["changelog", "--operation", "getOptimStepOperation"]) == 0
    out = capsys.readouterr().out
    assert (
        "Changed in 1 of 6 known revisions." in out
    )  # the new error code reaches its response too
    assert "NON_FINITE_LOSS" in out


def test_unknown_operation_is_a_clear_error(capsys):
    assert main(["changelog", "--operation", "DELETE /nowhere"]) == 1
    assert "no revision has the operation 'DELETE /nowhere'" in capsys.readouterr().err


def test_shortened_changes_section_as_on_the_reference_page(index):
    entries = changelog.for_operation(changelog.history(index), OPTIM_STEP)
    text = changelog.changes_section(entries, limit=4)
    assert "  - …2 more" in text and "  - …10 more" in text
