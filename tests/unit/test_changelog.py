"""Golden tests: our revisions and diff engine reproduce the API's own change history.

The seed covers some revisions; these tests compare those and stay green when later revisions
are appended to spec/.
"""

from __future__ import annotations

from generator.changes import changelog
from generator.cli import main
from support import seeds


def optim_step_history(index) -> list[changelog.RevisionChanges]:
    return changelog.for_operation(changelog.history(index), seeds.OPTIM_STEP)


def test_changes_section_equals_the_seed_for_the_revisions_it_covers(index):
    covered = {revision.id for revision in seeds.history()}
    ours = [entry for entry in optim_step_history(index) if entry.revision.id in covered]
    assert changelog.changes_section(ours) == seeds.section(seeds.CHANGES, "Changes").strip()


def test_the_command_prints_the_seed_s_changes_in_its_format(capsys, index):
    assert main(["changelog", "--operation", seeds.OPTIM_STEP]) == 0
    ours = capsys.readouterr().out
    for revision in seeds.history():
        heading = f"- **{revision.date}** `{revision.id}` — {revision.summary}"
        assert heading + "\n" + "".join(f"  - {m}\n" for m in revision.messages) in ours
    changed = len(optim_step_history(index))
    assert f"Changed in {changed} of {len(index)} known revisions." in ours


def test_timeline_lists_the_seed_s_revisions_with_their_counts(capsys):
    main(["changelog", "--operation", "OptimStep"])
    timeline = seeds.section(capsys.readouterr().out, "Timeline")
    for revision in seeds.history():
        assert f"- **{revision.date}** `{revision.id}` — {revision.summary}\n" in timeline


def test_seed_counts_per_revision(index):
    ours = {entry.revision.id: entry.summary for entry in optim_step_history(index)}
    for revision in seeds.history():
        assert ours.get(revision.id) == revision.summary, revision.id


def test_the_revision_of_the_reference_page_does_not_change_the_operations(index):
    rendered_from = seeds.rendered_from()
    entry = next(e for e in changelog.history(index) if e.revision.id == rendered_from)
    assert entry.changes == ()


def test_unchanged_operation_has_only_the_shared_error_code_change(capsys, index):
    assert main(["changelog", "--operation", "getOptimStepOperation"]) == 0
    out = capsys.readouterr().out
    entries = changelog.for_operation(
        changelog.history(index),
        "GET /rl/training-sessions/{session_id}/operations/optim-step/{operation_id}",
    )
    assert f"Changed in {len(entries)} of {len(index)} known revisions." in out
    # the new error code reaches its response too, since it returns the same schema
    assert "NON_FINITE_LOSS" in out


def test_unknown_operation_is_a_clear_error(capsys):
    assert main(["changelog", "--operation", "DELETE /nowhere"]) == 1
    assert "no revision has the operation 'DELETE /nowhere'" in capsys.readouterr().err


def test_shortened_changes_section_as_on_the_reference_page(index):
    covered = {revision.id: len(revision.messages) for revision in seeds.history()}
    entries = [e for e in optim_step_history(index) if e.revision.id in covered]
    text = changelog.changes_section(entries, limit=4)
    for count in covered.values():
        if count > 4:
            assert f"  - …{count - 4} more" in text
