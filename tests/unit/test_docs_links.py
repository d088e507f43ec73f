"""The project's own pages link only to what is there: every relative link names a file of the
project, every ``#anchor`` a heading of the page it points into, as GitHub names headings, every
path they name in code is there, and
the README stays a front door, short enough to read through, with the rest in ``docs/``."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from support.markdown import MARKDOWN, inline, links
from support.paths import ROOT

README_LINES = 250
"""The README holds fewer lines than this; what does not fit goes to a page of ``docs/``."""

_LINE_ANCHOR = re.compile(r"L\d+(-L\d+)?")
"""GitHub's anchor of a line (or lines) of a file that is not Markdown."""


def pages(root: Path) -> list[Path]:
    """The pages whose links are held: the README, ``docs/``, the runtime's README and the
    benchmarks' pages."""
    found = {root / "README.md", root / "runtime" / "README.md"}
    found |= {*root.glob("docs/*.md"), *root.glob("benchmarks/*.md")}
    return sorted(path for path in found if path.is_file())


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it from the heading's text: lower case, every
    character but letters, digits, ``_``, ``-`` and spaces dropped, spaces made ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings; a heading's second and later namesakes get ``-1``,
    ``-2``, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    tokens = MARKDOWN.parse(text)
    for opening, content in zip(tokens, tokens[1:]):
        if opening.type != "heading_open":
            continue
        words = "".join(
            c.content for c in content.children or [] if c.type in ("text", "code_inline")
        )
        base = slug(words)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path, root: Path) -> list[str]:
    """What of ``page``'s relative links leads nowhere, one line each: a file that is not in the
    project under ``root``, or an anchor that no heading of the target has."""
    problems = []
    headings: dict[Path, set[str]] = {}
    where = page.relative_to(root).as_posix()
    for line, target in links(page.read_text(encoding="utf-8")):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue
        path, anchor = unquote(parts.path), unquote(parts.fragment)
        destination = (page.parent / path).resolve() if path else page
        if not destination.is_relative_to(root.resolve()):
            problem = "outside the project"
        elif not destination.exists():
            problem = "no such file"
        elif not anchor:
            continue
        elif destination.suffix != ".md":
            if not destination.is_file() or not _LINE_ANCHOR.fullmatch(anchor):
                problem = "an anchor into a file with no headings"
            else:
                continue
        else:
            if destination not in headings:
                headings[destination] = anchors(destination.read_text(encoding="utf-8"))
            if anchor in headings[destination]:
                continue
            problem = f"no heading #{anchor} there"
        problems.append(f"{where}:{line}: {target}: {problem}")
    return problems


_NAMED_PATH = re.compile(r"[\w.-]+(/[\w.-]+)*(\.\w+|/)")
"""What a code span holds when it names a file or a folder: ``tests/unit/``, ``spec/x.yaml``."""


def missing_paths(page: Path, root: Path) -> list[str]:
    """The files and folders of the project that ``page`` names in code spans and that are not
    there: a span that is a path starting with one of the project's top-level folders
    (``generator/views/pymodel.py``, ``tests/unit/``); one with a placeholder
    (``generated/<id>/``) names no one file and is left alone."""
    tops = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}
    problems = []
    where = page.relative_to(root).as_posix()
    for line, child in inline(page.read_text(encoding="utf-8")):
        if child.type != "code_inline":
            continue
        named = child.content.split("::")[0]
        if named.split("/")[0] in tops and _NAMED_PATH.fullmatch(named):
            if not (root / named).exists():
                problems.append(f"{where}:{line}: `{named}`: no such file or folder")
    return problems


def test_every_relative_link_and_anchor_of_the_pages_leads_somewhere():
    assert {"README.md", "docs", "runtime", "benchmarks"} <= {
        path.relative_to(ROOT).parts[0] for path in pages(ROOT)
    }
    problems = [problem for page in pages(ROOT) for problem in broken_links(page, ROOT)]
    assert not problems, "\n".join(problems)


def test_every_file_the_pages_name_is_there():
    problems = [problem for page in pages(ROOT) for problem in missing_paths(page, ROOT)]
    assert not problems, "\n".join(problems)


def test_a_named_file_that_is_not_there_is_reported(tmp_path):
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tests" / "unit" / "test_a.py").write_text("", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "# Front door\n\n`tests/unit/test_a.py::test_x`, `tests/unit/`, `generated/<id>/`,\n"
        "`tests/test_a.py`, `nox -s tests`, `docs/gone.md` and `tests/unit/gone/`\n",
        encoding="utf-8",
    )
    assert missing_paths(tmp_path / "README.md", tmp_path) == [
        "README.md:4: `tests/test_a.py`: no such file or folder",
        "README.md:4: `tests/unit/gone/`: no such file or folder",
    ]


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_LINES, f"README.md has {len(lines)} lines: move a part to docs/"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("## Any OpenAPI document (`generate --spec`)", "any-openapi-document-generate---spec"),
        (
            "## Security: what is trusted, and what is not",
            "security-what-is-trusted-and-what-is-not",
        ),
        ("## spec/", "spec"),
        (
            "### Sharded parameters (torch.distributed, FSDP2)",
            "sharded-parameters-torchdistributed-fsdp2",
        ),
        (
            "## Is the suite ready for the next revision?",
            "is-the-suite-ready-for-the-next-revision",
        ),
        ("# together_rl.reference", "together_rlreference"),
        ("## [Linked](other.md) *words*", "linked-words"),
    ],
)
def test_an_anchor_is_the_heading_as_github_names_it(heading, anchor):
    assert anchors(heading + "\n") == {anchor}


def test_headings_of_one_name_are_told_apart_by_a_number():
    assert anchors("# Notes\n\n## Notes\n\n### Notes\n") == {"notes", "notes-1", "notes-2"}


def test_a_missing_file_anchor_or_way_out_of_the_project_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## The part (`x --y`)\n", encoding="utf-8")
    (tmp_path / "script.py").write_text("print()\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "# Front door\n\n"
        "[fine](docs/a.md#the-part-x---y), [a folder](docs/), [a line](script.py#L1),\n"
        "[here](#front-door), [away](https://example.org/#nowhere), `[code](nope.md)`\n\n"
        "```\n[in a block](nope.md)\n```\n\n"
        "| table |\n|---|\n| [missing file](docs/b.md) |\n\n"
        "[missing anchor](docs/a.md#the-part) and [missing here](#back-door)\n"
        "![missing image](docs/picture.png) [out](../elsewhere.md) [no headings](script.py#main)\n",
        encoding="utf-8",
    )
    assert broken_links(tmp_path / "README.md", tmp_path) == [
        "README.md:12: docs/b.md: no such file",
        "README.md:14: docs/a.md#the-part: no heading #the-part there",
        "README.md:14: #back-door: no heading #back-door there",
        "README.md:15: docs/picture.png: no such file",
        "README.md:15: ../elsewhere.md: outside the project",
        "README.md:15: script.py#main: an anchor into a file with no headings",
    ]
