"""The API's next revision, made up: a realistic change to the newest document of ``spec/``.

The API's real next revision arrives after the code and the tests are written, and it will not
look like the last one. :func:`change` makes the kinds of change the API already shows elsewhere
(Together's SDK sends a required ``Idempotency-Key``; the published document declares defaults):

- a required ``Idempotency-Key`` header on the served operation (made required where it was
  optional);
- a new optional boolean field inside an existing group of Adam settings;
- a new terminal value of the operations' status enum (a cancellation), with its entry in the
  copy's ``spec/statuses.yaml``, as a maintainer would add it;
- a changed declared default (the Adam group's weight decay);
- a changed description of the served operation.

Every place is found in the documents and in ``spec/reference-fields.yaml``, never named here,
so that the change applies to whatever the newest revision is.

Run as a script (what ``nox -s next-revision`` does), it copies the project, appends such a
revision with ``add-revision``, generates, and runs the whole test suite in the copy::

    python tests/nextrevision.py [--into DIR] [-- PYTEST ARGS]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator import ir  # noqa: E402
from generator.fieldroles import load_field_roles  # noqa: E402
from generator.parser import parse_document  # noqa: E402
from generator.pointer import split  # noqa: E402
from generator.revisions import load_index  # noqa: E402
from generator.statuses import STATUSES_FILE  # noqa: E402

IDEMPOTENCY_HEADER = "Idempotency-Key"
NEW_FIELD = "amsgrad"
NEW_FIELD_DESCRIPTION = "Whether to use the AMSGrad variant of Adam for this step"
NEW_STATUS_WORDS = ("CANCELLED", "ABORTED", "EXPIRED")
DESCRIPTION_SUFFIX = " Resending a request with the same idempotency key returns its operation."


def at(raw: Any, pointer: str) -> Any:
    """The node of ``raw`` at a JSON pointer."""
    node = raw
    for token in split(pointer):
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def _unused(taken: set[str], candidates: Iterator[str]) -> str:
    return next(name for name in candidates if name not in taken)


class Places:
    """Where a decoded document keeps what the made-up changes touch, found through the
    generator's parser and the field roles of ``spec_dir``."""

    def __init__(self, raw: dict[str, Any], spec_dir: Path) -> None:
        self.raw = raw
        self.doc = parse_document(raw, source="next.yaml")
        self.roles = load_field_roles(spec_dir)
        operation = self.doc.operation(self.roles.operation)
        assert operation is not None and operation.request_body is not None
        self.operation = operation
        body = self.doc.resolve(operation.request_body.schema)  # type: ignore[arg-type]
        assert isinstance(body, ir.Object)
        self.body = body

    @property
    def post(self) -> dict[str, Any]:
        """The served operation, as written in the document."""
        return at(self.raw, self.operation.pointer)  # type: ignore[no-any-return]

    def set_header(self, parameter: dict[str, Any]) -> str:
        """Declare a header parameter on the served operation, replacing one of the same name
        (headers compare without case); what was done."""
        parameters = self.post.setdefault("parameters", [])
        name = parameter["name"].lower()
        for position, p in enumerate(parameters):
            if p.get("in") == "header" and str(p.get("name", "")).lower() == name:
                parameters[position] = parameter
                return f"the header {parameter['name']} redeclared"
        parameters.append(parameter)
        return f"a header {parameter['name']}"

    def group(self, role: str) -> ir.Object:
        """The schema of the first body field that is a group of this role (``adam``)."""
        return next(
            schema
            for prop in self.body.properties
            if (entry := self.roles.fields.get(prop.name)) is not None
            and entry.role == role
            and isinstance(schema := self.doc.resolve(prop.schema), ir.Object)
        )

    def setting(self, group_role: str, role: str) -> ir.Property:
        """The field of a group of ``group_role`` whose role is ``role`` (``weight_decay``)."""
        group = self.group(group_role)
        entries = next(e for e in self.roles.fields.values() if e.role == group_role).fields
        return next(
            p for p in group.properties if (e := (entries or {}).get(p.name)) and e.role == role
        )

    def status(self) -> ir.Enum:
        """The status enum of the served operation's answers."""
        response = next(
            r for r in self.operation.responses if r.status.startswith("2") and r.schema
        )
        reply = self.doc.resolve(response.schema)  # type: ignore[arg-type]
        assert isinstance(reply, ir.Object)
        status = reply.property("status")
        assert status is not None
        enum = self.doc.resolve(status.schema)
        assert isinstance(enum, ir.Enum)
        return enum


def change(raw: dict[str, Any], spec_dir: Path) -> list[str]:
    """Change the newest revision's document ``raw`` into a realistic next one, in place, and
    record the new status in ``spec_dir/statuses.yaml``; returns what was changed."""
    places = Places(raw, spec_dir)
    done = [
        places.set_header(
            {
                "name": IDEMPOTENCY_HEADER,
                "in": "header",
                "required": True,
                "description": "Required key that makes retries return the original operation; "
                "use a new key for changed request bodies.",
                "schema": {"type": "string"},
            }
        )
    ]

    group = places.group("adam")
    names = {p.name for p in group.properties}
    field = _unused(names, (f"{NEW_FIELD}{n or ''}" for n in range(100)))
    at(raw, group.pointer).setdefault("properties", {})[field] = {
        "type": "boolean",
        "description": NEW_FIELD_DESCRIPTION,
    }
    done.append(f"a new field {field} in {group.pointer}")
    decay = places.setting("adam", "weight_decay")
    before = decay.schema.default if decay.schema.has_default else None
    after = 0.1 if before != 0.1 else 0.05
    at(raw, decay.schema.pointer)["default"] = after
    done.append(f"the default of {decay.schema.pointer} changed from {before} to {after}")

    enum = places.status()
    values = [str(v) for v in enum.values]
    prefix = os.path.commonprefix(values).rpartition("_")[0]
    new_status = _unused(set(values), (f"{prefix}_{word}" for word in NEW_STATUS_WORDS))
    at(raw, enum.pointer)["enum"].append(new_status)
    statuses = spec_dir / STATUSES_FILE
    statuses.write_text(
        statuses.read_text(encoding="utf-8").rstrip("\n") + f"\n  {new_status}: cancelled\n",
        encoding="utf-8",
    )
    done.append(f"a new terminal status {new_status} (cancelled)")

    post = places.post
    post["description"] = (post.get("description") or "").rstrip() + DESCRIPTION_SUFFIX
    done.append("the operation's description changed")
    return done


def copy_project(target: Path) -> Path:
    """The project's files as git sees them (tracked, and untracked but not ignored; in a copy
    that is no git checkout, every file but what .gitignore names), with the shared material
    linked beside the copy as it is beside the project."""
    if (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout.decode()
        for name in filter(None, listed.split("\0")):
            source = ROOT / name
            if source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:
        ignored = [
            line.strip().rstrip("/")
            for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(*ignored))
    shared = ROOT.parent / "shared"
    if shared.is_dir() and not (target.parent / "shared").exists():
        (target.parent / "shared").symlink_to(shared)
    return target


def append(
    project: Path, env: dict[str, str] | None = None
) -> tuple[str, list[subprocess.CompletedProcess[str]]]:
    """Append the made-up next revision to ``project`` and generate (with ``env``, else this
    process's environment); its id, and what ``add-revision`` and ``generate`` printed (also
    printed here)."""
    spec_dir = project / "spec"
    index = load_index(spec_dir)
    raw = yaml.safe_load(index[-1].file.read_text(encoding="utf-8"))
    for line in change(raw, spec_dir):
        print(f"next revision: {line}")
    text = yaml.safe_dump(raw, sort_keys=False, allow_unicode=True)
    revision_id = hashlib.sha256(text.encode()).hexdigest()[:12]
    published = project.resolve().parent / f"published-{revision_id}.yaml"
    published.write_text(text, encoding="utf-8")
    dates = [r.date for r in index if r.date]
    date = (max(dates) + datetime.timedelta(days=1)) if dates else datetime.date(2026, 1, 1)
    results = []
    for command in (
        ["add-revision", str(published), "--id", revision_id, "--date", date.isoformat()],
        ["generate"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "generator", *command],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        )
        print(result.stdout, end="")
        print(result.stderr, end="", file=sys.stderr)
        if result.returncode:
            raise SystemExit(f"next revision: `{' '.join(command[:1])}` failed")
        results.append(result)
    return revision_id, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--into", type=Path, help="a folder for the copy (default: a new one)")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest, after --")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(dir=args.into, prefix="next-revision-")).resolve()
    project = copy_project(base / "project")
    revision_id, _ = append(project)
    print(f"next revision: appended {revision_id}; running the test suite in {project}")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args.pytest_args]
    return subprocess.run(command, cwd=project).returncode


if __name__ == "__main__":
    sys.exit(main())
