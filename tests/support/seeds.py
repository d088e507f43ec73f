"""What the seed documents say, read from them: the change history's revisions and wording.

Golden tests compare our output with the seeds for the revisions the seeds cover, and only
those, so that appending a revision to spec/ keeps them green.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.paths import SEEDS

CHANGES = (SEEDS / "optim-step-changes.md").read_text(encoding="utf-8")
OPERATION_PAGE = (SEEDS / "optim-step-operation.md").read_text(encoding="utf-8")
OPTIM_STEP = "POST /rl/training-sessions/{session_id}/operations/optim-step"
_HEADING = re.compile(r"^- \*\*(\d{4}-\d{2}-\d{2})\*\* `(\w+)` — (.+)$")


@dataclass(frozen=True)
class SeedRevision:
    date: str
    id: str
    summary: str
    messages: tuple[str, ...]


def section(markdown: str, heading: str) -> str:
    """The text of a ``## heading`` section, up to the next section or horizontal rule."""
    match = re.search(rf"^## {heading}\n(.*?)(?=^## |^---$|\Z)", markdown, re.S | re.M)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def history() -> list[SeedRevision]:
    """The revisions of the seed's ``## Changes`` section, newest first, with their changes."""
    revisions: list[SeedRevision] = []
    for line in section(CHANGES, "Changes").splitlines():
        heading = _HEADING.match(line)
        if heading:
            revisions.append(SeedRevision(*heading.groups(), ()))
        elif line.startswith("  - "):
            last = revisions[-1]
            revisions[-1] = SeedRevision(
                last.date, last.id, last.summary, (*last.messages, line[4:])
            )
    assert revisions, "the seed lists no revisions"
    return revisions


def rendered_from() -> str:
    """The revision the seed's operation page was rendered from (its last line says)."""
    match = re.search(r"/revisions/(\w+)/", OPERATION_PAGE.strip().splitlines()[-1])
    assert match, "the operation page does not name its revision"
    return match.group(1)
