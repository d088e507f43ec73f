"""What the tests of document text share: a document's package rendered as ``generate --spec``
renders it, the check that it holds only code the generator wrote, and its import watched for
anything it would run."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from generator.errors import GeneratorError
from generator.output.document import render_one_document
from generator.output.package import PackageInfo
from generator.reading.parser import parse_document
from support.audits import watched
from support.packages import load_package


def render(tmp_path: Path, raw: dict, name: str) -> Path | None:
    """The package of ``raw`` written under ``tmp_path`` (``None``: refused, with its place)."""
    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(raw))
    try:
        doc = parse_document(raw, source=str(source), lenient=True)
        info = PackageInfo(name, name.replace("_", "-"), "the hostile API", False)
        rendering = render_one_document(source, doc, info)
    except GeneratorError as exc:
        assert "#/" in str(exc) or str(source) in str(exc), exc
        return None
    out = tmp_path / "out"
    for relative, content in rendering.files.items():
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return out


# -- what the generator writes, and nothing else ---------------------------------------------------

SAFE_BUILTINS = frozenset(
    {"bool", "bytes", "classmethod", "dict", "float", "frozenset", "int", "list", "object", "str"}
    | {"tuple", "type", "property", "staticmethod", "super", "isinstance", "len", "__name__"}
)
"""The built-in names generated modules may use: none of them runs or reads anything."""

ALLOWED_MODULES = ("__future__", "collections.abc", "dataclasses", "enum", "typing")
"""What the modules of a document's package import, besides their own package."""

MODULE_STATEMENTS = (
    ast.Import,
    ast.ImportFrom,
    ast.ClassDef,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Assign,
    ast.AnnAssign,
)


def generated_modules(package: Path) -> dict[Path, str]:
    """The modules the generator rendered (the vendored runtime is a copy, not rendered)."""
    return {
        path: path.read_text()
        for path in sorted(package.rglob("*.py"))
        if "_runtime" not in path.relative_to(package).parts
    }


def bound_names(tree: ast.AST) -> set[str]:
    """Every name a module binds: classes, functions, arguments, targets, imports."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def assert_only_generator_code(package: Path, import_name: str) -> None:
    modules = generated_modules(package)
    trees = {path: ast.parse(text, feature_version=(3, 10)) for path, text in modules.items()}
    bound = set().union(*map(bound_names, trees.values()))
    for path, tree in trees.items():
        compile(tree, str(path), "exec")
        for (
            statement
        ) in tree.body:  # a string alone is a docstring (of the module, or the name before)
            docstring = isinstance(statement, ast.Expr) and isinstance(
                statement.value, ast.Constant
            )
            assert docstring or isinstance(statement, MODULE_STATEMENTS), (
                path,
                ast.dump(statement),
            )
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                assert node.id in bound or node.id in SAFE_BUILTINS, (path, node.id)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                assert node.module in ALLOWED_MODULES, (path, node.module)
            elif isinstance(node, ast.Import):
                raise AssertionError(f"{path}: import {[a.name for a in node.names]}")
            elif isinstance(node, ast.Attribute):
                assert not node.attr.startswith("__"), (path, node.attr)


# -- importing runs nothing --------------------------------------------------------------------------

_FORBIDDEN_EVENTS = ("os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn")
_FORBIDDEN_EVENTS += ("socket.connect", "socket.getaddrinfo", "ctypes.", "urllib.Request")
_FORBIDDEN_EVENTS += ("builtins.input", "os.remove", "os.rename", "shutil.")


def import_without_effects(out: Path, name: str, alias: str):
    """The package, imported while every audit event is watched: nothing may run a process,
    open a socket, or open a file outside the package's folder. The import writes no bytecode
    cache, which would be the interpreter's own doing (a rename into ``__pycache__``), not the
    package's."""
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        with watched() as events:
            module = load_package(out, name, alias)
    finally:
        sys.dont_write_bytecode = writes_bytecode
    readable = [(out / name).resolve(), *(Path(p).resolve() for p in sys.path if p)]
    for event, args in events:
        assert not event.startswith(_FORBIDDEN_EVENTS), (event, args)
        if event == "open" and isinstance(args[0], (str, Path)):  # modules, and nothing else
            opened = Path(args[0]).resolve()
            assert any(opened.is_relative_to(folder) for folder in readable), (event, args)
    return module


def one_path_document(path: str, **parameter) -> dict:
    """A document of one operation at ``path`` whose path parameter ``item_id`` has ``parameter``
    (its schema, say)."""
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            path: {
                "post": {
                    "operationId": "call",
                    "parameters": [
                        {"name": "item_id", "in": "path", "required": True, **parameter}
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": schema}},
                        }
                    },
                }
            }
        },
    }
