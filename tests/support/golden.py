"""The golden packages of ``generate --spec``: small public documents in ``tests/golden/specs/``
and, committed beside them in ``tests/golden/packages/``, the package each renders, byte for byte.
``tests/e2e/test_golden_packages.py`` renders each document again and compares the trees, so that
any change of what ``--spec`` renders shows as a diff to review (the idea of
openapi-python-client's end-to-end tests); this tier needs nothing outside the repository.

A package's ``_runtime/`` is a copy of the runtime's client core (``runtime/together_rl_runtime``,
see :func:`generator.reading.runtime.vendored_files`): the record holds the list of its files
(:data:`RUNTIME_LIST`), and each file is compared with the runtime's own rather than with a copy
in the record, which a change of the runtime alone would make stale.

Run as a script (what ``nox -s golden`` does) to render them again and record the result, after
reviewing the difference the test reports::

    python tests/support/golden.py [NAME ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from generator.cli import main as generator  # noqa: E402
from generator.output.tree import read_tree, tree_differences  # noqa: E402
from generator.reading.runtime import VENDORED, vendored_files  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"
SPECS = GOLDEN / "specs"
PACKAGES = GOLDEN / "packages"
RUNTIME_LIST = "_runtime.txt"
"""The file of a golden package that lists the files of its ``_runtime/`` copy."""


def documents() -> list[Path]:
    """The golden documents, by name."""
    return sorted(p for p in SPECS.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def render(document: Path, out: Path) -> dict[str, bytes]:
    """The files of the package ``generate --spec`` renders of ``document`` (written to ``out``,
    a folder that does not exist yet), by path in it, as its golden package records them: its
    ``_runtime/`` copy as the list of its files (:data:`RUNTIME_LIST`), once each of them is
    found to be the runtime's own."""
    if generator(["generate", "--spec", str(document), "--out", str(out)]) != 0:
        raise RuntimeError(f"`generate --spec {document}` failed: see its error above")
    files = read_tree(out)
    core = vendored_files()
    copied = sorted(p for p in files if p.partition("/")[2].startswith(f"{VENDORED}/"))
    for path in copied:
        if files[path] != core.get(path.partition("/")[2]):
            raise AssertionError(f"{out}/{path} is not the runtime's {path.partition('/')[2]}")
    recorded = {path: content for path, content in files.items() if path not in copied}
    recorded[RUNTIME_LIST] = "".join(f"{path}\n" for path in copied).encode()
    return recorded


def differences(document: Path, out: Path) -> list[str]:
    """A unified diff for each file of the package of ``document`` (rendered into ``out``) that
    is not as its golden package holds it, is missing there or is extra."""
    rendered = render(document, out)
    recorded = read_tree(PACKAGES / document.stem)
    label = f"tests/golden/packages/{document.stem}"
    return list(tree_differences(rendered, recorded, label=label))


def refresh(names: list[str]) -> list[str]:
    """Render the golden documents named (all where none is) and record each package in place
    of its golden one; the packages that changed."""
    chosen = [d for d in documents() if not names or d.stem in names]
    unknown = set(names) - {d.stem for d in chosen}
    if unknown:
        raise SystemExit(f"no golden document {sorted(unknown)} in {SPECS}")
    changed = []
    with tempfile.TemporaryDirectory() as scratch:
        for document in chosen:
            rendered = render(document, Path(scratch) / document.stem)
            folder = PACKAGES / document.stem
            if rendered == read_tree(folder):
                continue
            changed.append(document.stem)
            shutil.rmtree(folder, ignore_errors=True)
            for path, content in rendered.items():
                (folder / path).parent.mkdir(parents=True, exist_ok=True)
                (folder / path).write_bytes(content)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="golden documents by name (default: all)")
    args = parser.parse_args(argv)
    changed = refresh(args.names)
    for name in changed:
        print(f"golden: recorded tests/golden/packages/{name}/ (review `git diff` and commit it)")
    if not changed:
        print("golden: every golden package is as the generator renders it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
