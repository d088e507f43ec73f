"""Validation of spec documents: the OpenAPI schema (openapi-spec-validator), then the generator's parser."""

from __future__ import annotations

import functools
import json
import sys
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..caching import Store, digest
from ..errors import SpecError
from ..pointer import join, locate, references, shown, split
from .compiled import PreChecked, checking_references, meta_check
from .loader import load_yaml, read_referenced, referenced_file
from .parser import parse_document

if TYPE_CHECKING:
    from openapi_spec_validator.validation.validators import SpecValidator

_MAX_MESSAGE = 240


@dataclass(frozen=True)
class Problem:
    """One reason a document is invalid, at a JSON pointer."""

    source: str
    pointer: str
    message: str

    def __str__(self) -> str:
        pointer = self.pointer or "/"
        if pointer.startswith("/"):  # in the document
            return f"{self.source}#{shown(pointer)}: {self.message}"
        return f"{locate(self.source, pointer)}: {self.message}"  # in a file it reads


def validate_file(path: Path) -> list[Problem]:
    """Every problem found in the document at ``path``; empty when it is valid."""
    return _read_then(path, validate_document)


def file_problems(path: Path, cache_dir: Path | None = None) -> list[Problem]:
    """What openapi-spec-validator finds wrong with the document at ``path`` (see
    :func:`schema_problems`); a document that cannot be read is one problem. With a
    ``cache_dir``, the findings are kept by the document's content hash (see
    :func:`known_problems`), where they depend on the document alone: not where its references
    name another file, whose content (or absence) they depend on too."""
    alone = True

    def check(raw: Any, source: str) -> list[Problem]:
        nonlocal alone
        problems, alone = _schema_problems(raw, source)
        return problems

    problems = _read_then(path, check)
    if cache_dir is not None and alone:
        try:
            key = digest(path.read_bytes())
        except OSError:
            return problems
        store = Store(cache_dir, "openapi-spec-validator", _validator_versions())
        store.put(key, json.dumps([[p.pointer, p.message] for p in problems]).encode())
    return problems


def worker_problems(path: Path, cache_dir: Path | None = None) -> list[Problem]:
    """:func:`file_problems` in a worker process of its own (``generate`` runs the validator
    beside the rendering), with no HTTP library: the validator fetches nothing (every
    reference is served by :class:`_Confined`, which reads files only), and jsonschema-path,
    which imports requests where it can, falls back to the standard library's urllib where it
    cannot. Importing requests would be a tenth of the validator's start on a small document.
    The worker also answers pathable's question whether a node can be looked into from a cache
    (see :func:`cache_lookup_checks`)."""
    sys.modules.setdefault("requests", None)  # type: ignore[arg-type]  # import raises ImportError
    cache_lookup_checks()
    return file_problems(path, cache_dir)


def cache_lookup_checks() -> None:
    """Make pathable's ``isinstance(node, Subscriptable)`` (asked of every node the validator
    walks) answer from a cache by the node's class, in place of the runtime protocol's check,
    which reads the protocol's members again at every call on Python 3.11 (more than a quarter
    of the validator's time on GitHub's document). The answer is the protocol's: yes where the
    node's class defines ``__contains__``, ``__getitem__`` and ``__len__`` (the first definition
    of each in its MRO not ``None``), else where the node has each as an attribute that is not
    ``None``. Left as it is where pathable is not laid out so."""
    try:
        from pathable import accessors, protocols
    except ImportError:  # pragma: no cover - another validator stack
        return
    if getattr(accessors, "Subscriptable", None) is getattr(protocols, "Subscriptable", False):
        setattr(accessors, "Subscriptable", _Subscriptable)


_LOOKUP = ("__contains__", "__getitem__", "__len__")


class _LookupCheck(type):
    """The metaclass of :class:`_Subscriptable`: its ``isinstance`` (see
    :func:`cache_lookup_checks`)."""

    _classes: dict[type, bool] = {}

    def __instancecheck__(cls, instance: object) -> bool:
        kind = instance.__class__
        known = cls._classes.get(kind)
        if known is None:
            known = cls._classes[kind] = all(_defines(kind, name) for name in _LOOKUP)
        return known or all(getattr(instance, name, None) is not None for name in _LOOKUP)


def _defines(kind: type, name: str) -> bool:
    """Whether the first definition of ``name`` in the MRO of ``kind`` is there and not None."""
    for base in kind.__mro__:
        if name in base.__dict__:
            return base.__dict__[name] is not None
    return False


class _Subscriptable(metaclass=_LookupCheck):
    """pathable's ``Subscriptable`` protocol, checked from a cache (see
    :func:`cache_lookup_checks`)."""


def known_problems(path: Path, cache_dir: Path | None) -> list[Problem] | None:
    """The findings of :func:`file_problems` kept for the document's content, where there are:
    on a large document the validator takes longer than generating, and a document read again
    gets the same findings."""
    if cache_dir is None:
        return None
    try:
        key = digest(path.read_bytes())
    except OSError:
        return None
    known = Store(cache_dir, "openapi-spec-validator", _validator_versions()).get(key)
    try:
        found = json.loads(known) if known is not None else None
        return None if found is None else [Problem(str(path), p, m) for p, m in found]
    except (ValueError, TypeError):
        return None  # an entry that cannot be read is a miss


@functools.cache
def _validator_versions() -> dict[str, str]:
    """What the findings depend on besides the document: the validator's version, those of the
    JSON Schema libraries under it (jsonschema's, and the compiled one's where it is installed),
    this module (which words them), the compiled check's and the loader (whose rule says what a
    reference may read)."""
    from importlib import metadata

    here = Path(__file__).parent
    try:
        compiled = metadata.version("jsonschema-rs")
    except metadata.PackageNotFoundError:
        compiled = "none"
    return {
        "openapi-spec-validator": metadata.version("openapi-spec-validator"),
        "jsonschema": metadata.version("jsonschema"),
        "jsonschema-rs": compiled,
        "validate.py": digest((here / "validate.py").read_bytes()),
        "compiled.py": digest((here / "compiled.py").read_bytes()),
        "loader.py": digest((here / "loader.py").read_bytes()),  # what references may read
    }


def _read_then(path: Path, check: Callable[[Any, str], list[Problem]]) -> list[Problem]:
    """``check`` of the document at ``path``, or the one problem that it cannot be read."""
    try:
        raw = load_yaml(path)
    except SpecError as exc:
        return [Problem(str(path), exc.pointer, exc.message)]
    return check(raw, str(path))


def validate_document(raw: Any, source: str) -> list[Problem]:
    """Every problem of a loaded document: the parser's (it stops at the first), then
    openapi-spec-validator's (see :func:`schema_problems`), each once."""
    problems: list[Problem] = []
    try:
        parse_document(raw, source=source)
    except SpecError as exc:
        problems.append(Problem(source, exc.pointer, exc.message))
    if not isinstance(raw, dict):
        return problems or [Problem(source, "", "the document must be an object")]
    found = schema_problems(raw, source, quiet=bool(problems))
    return problems + [problem for problem in found if problem not in problems]


def schema_problems(raw: Any, source: str, *, quiet: bool = False) -> list[Problem]:
    """What openapi-spec-validator finds wrong with the document ``raw`` of the file ``source``
    (``quiet``: an exception it raises, rather than reports, is left out).

    It reads only what the generator would: first every ``$ref`` of the document, and of the
    files they read, is held to the loader's rule (:func:`~generator.reading.loader.referenced_file`),
    each one refused a problem at its pointer; then the validator runs with a retriever that
    serves only files the rule allows (:class:`_Confined`), so that no reference, whatever base
    URI a schema's ``$id`` gives it, makes it fetch a URL or read a file outside the folder."""
    return _schema_problems(raw, source, quiet=quiet)[0]


def _schema_problems(raw: Any, source: str, *, quiet: bool = False) -> tuple[list[Problem], bool]:
    """:func:`schema_problems`, and whether they depend on the document alone (no reference
    names another file)."""
    if not isinstance(raw, dict):
        return [Problem(source, "", "the document must be an object")], True
    files = {"": raw}
    refused, named = _refused_references(files, source)
    version = str(raw.get("openapi", ""))
    confined = _Confined(files, source)
    validator = type(
        "ConfinedValidator",
        (_validator("3.1" if version.startswith("3.1") else "3.0"),),
        {"resolver_handlers": confined},
    )
    problems: list[Problem] = []
    try:
        for error in validator(raw, base_uri=confined.root_uri).iter_errors():
            problems.append(_problem(error, files, source))
    except Exception as exc:  # the validator raises, rather than reports, what it cannot resolve
        if not (quiet or refused):  # a reference refused is a problem already
            problems.append(_raised(exc, files, source))
    return refused + problems, not named and len(files) == 1


def _refused_references(files: dict[str, Any], source: str) -> tuple[list[Problem], bool]:
    """A problem for each ``$ref`` of the documents in ``files`` that the loader's rule refuses
    (or whose file cannot be read), at its pointer, and whether any names a file; ``files``
    gets each file the others name, and theirs, read once."""
    problems: list[Problem] = []
    named = False
    todo = [""]
    while todo:
        here = todo.pop()
        for ref, at in references(files[here], f"{here}#" if here else ""):
            location = ref.partition("#")[0]
            if not location:
                continue
            named = True
            known = len(files)
            try:
                name = read_referenced(files, source, here, location, ref=ref, at=at)
            except SpecError as exc:
                problems.append(Problem(source, exc.pointer, exc.message))
                continue
            if len(files) > known:
                todo.append(name)
    return problems, named


class _Confined(dict[str, Any]):
    """openapi-spec-validator's resolver handlers (jsonschema-path's URI scheme -> handler),
    with one handler for every scheme (jsonschema-path fetches a URI of a scheme it has no
    handler for with urllib): itself, which serves the ``file:`` URIs of files within the
    folder of the document, by the loader's rule, from the files read (each read once), and
    refuses every other URI before anything is read or fetched."""

    def __init__(self, files: dict[str, Any], source: str) -> None:
        super().__init__(dict.fromkeys(("file", "http", "https"), self.serve))
        self.files = files
        self.source = source
        folder = Path(source).parent.resolve()
        self.root_uri = (folder / Path(source).name).as_uri()
        self.folder = urllib.parse.urlsplit(folder.as_uri()).path.rstrip("/") + "/"

    def __contains__(self, scheme: object) -> bool:
        return True

    def __missing__(self, scheme: str) -> Callable[[str], Any]:
        return self.serve

    def serve(self, uri: str) -> Any:
        """The document at ``uri``: a file within the document's folder, else a refusal."""
        parts = urllib.parse.urlsplit(uri)
        if (
            parts.scheme != "file"
            or parts.netloc not in ("", "localhost")
            or parts.query
            or not parts.path.startswith(self.folder)
        ):
            raise SpecError(
                "",
                f"openapi-spec-validator was refused {_shorten(uri)!r} (a reference read against "
                "another base, such as a schema's $id): only files within the folder of the "
                "document are read",
                source=self.source,
            )
        location = parts.path.removeprefix(self.folder)
        name = read_referenced(self.files, self.source, "", location, ref=uri, at="")
        return self.files[name]


def _raised(exc: BaseException, files: dict[str, Any], source: str) -> Problem:
    """The problem of an exception the validator raised: the refusal or the error of the
    loader where one is its cause, else the exception's type and words at the place the
    validator was checking (see :func:`_checking`)."""
    cause: BaseException | None = exc
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, SpecError):
            return Problem(source, cause.pointer, cause.message)
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    pointer = _placed(files, source, _checking(exc))
    raised = f"{type(exc).__name__}: {_shorten(str(exc))}"
    found = _target(files, source, "", pointer if "#" in pointer else f"#{pointer}")
    keys = (
        [k for k in found[2] if not isinstance(k, str)]
        if found and isinstance(found[2], dict)
        else []
    )
    if keys:  # YAML reads `200:` as a number, which the validator's patterns cannot match
        return Problem(
            source,
            pointer,
            f"the key {keys[0]!r} is not a string (quote it): openapi-spec-validator stopped "
            f"there ({raised})",
        )
    return Problem(source, pointer, raised)


_PLACE = "_generator_place"
"""The attribute of an error (or of an exception raised) that holds where in the document a
keyword validator of openapi-spec-validator found it: the path it was given (through
references, as jsonschema-path walks it), then the error's own path below that."""


def _problem(error: Any, files: dict[str, Any], source: str) -> Problem:
    """The problem of one error of the validator, at its place in the document (a path through
    references, see :func:`_placed`). The OpenAPI schema's own errors have their path from the
    root; the errors of its keyword validators (a schema's ``default``, a schema against its
    dialect, a duplicate ``operationId``...) have a path below the object the keyword validator
    was checking, which :func:`_placing` keeps on them.

    An object that matches none of the schemas it may be (``oneOf``: a schema object or a
    reference) is named where the branch that goes deepest into it fails (``type: 'null'`` in
    an OpenAPI 3.0 schema, ...), rather than as the whole object."""
    deepest = error
    while deepest.context:
        deepest = max(deepest.context, key=lambda e: len(e.absolute_path))
    path = [*(getattr(error, _PLACE, None) or ()), *deepest.absolute_path]
    message = _worded(deepest)
    if deepest is not error:
        message += " (the deepest reason it matches none of the schemas it may be)"
    return Problem(source, _placed(files, source, path), _shorten(message))


def _checking(exc: BaseException) -> list[Any]:
    """Where the validator was when it raised ``exc``: the object a keyword validator was
    checking (see :func:`_placing`), then the instance path of each level of jsonschema's
    descent the traceback passes through (its ``descend`` frames)."""
    path: list[Any] = list(getattr(exc, _PLACE, None) or ())
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "descend" and frame.f_globals.get("__name__", "").startswith(
            "jsonschema."
        ):
            step = frame.f_locals.get("path")
            if isinstance(step, (str, int)):
                path.append(step)
        tb = tb.tb_next
    return path


def _placed(files: dict[str, Any], source: str, path: Sequence[Any]) -> str:
    """The JSON pointer of the place the validator names by ``path``, a path from the root of
    the document that passes through references (jsonschema-path walks a ``$ref`` as if its
    target stood there): each reference on the way is followed to its target, in the document
    or in a file it reads (``name#/pointer``), as far as the documents read hold it. A
    reference that cannot be followed ends the following: the rest of the path is named below
    the place reached."""
    file, pointer, node = "", "", files.get("")
    seen: set[tuple[str, str]] = set()
    for position, token in enumerate(path):
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and token not in node:
            target = _target(files, source, file, node["$ref"])
            if target is None or target[:2] in seen:
                return _name(file, join(pointer, *path[position:]))
            seen.add(target[:2])
            file, pointer, node = target
        pointer = join(pointer, token)
        node = _child(node, token)
    return _name(file, pointer)


def _target(files: dict[str, Any], source: str, here: str, ref: str) -> tuple[str, str, Any] | None:
    """The file, pointer and node a ``$ref`` in the file ``here`` leads to, where the documents
    read hold it; ``None`` where they do not."""
    location, _, fragment = ref.partition("#")
    file = here
    if location:
        try:
            file = referenced_file(source, here, location, ref=ref, at="")[0]
        except SpecError:
            return None
    if file not in files:
        return None
    fragment = urllib.parse.unquote(fragment)
    try:
        tokens = split(fragment)
    except ValueError:
        return None
    node = files[file]
    for token in tokens:
        node = _child(node, token)
        if node is None:
            return None
    return file, fragment, node


def _child(node: Any, token: Any) -> Any:
    """The member ``token`` of an object or an array, else ``None``."""
    if isinstance(node, dict):
        return node.get(token, node.get(str(token)))
    if isinstance(node, list) and str(token).isdigit() and int(token) < len(node):
        return node[int(token)]
    return None


def _name(file: str, pointer: str) -> str:
    """A pointer in the document, or ``name#pointer`` in a file it reads (as :class:`Problem`
    names them)."""
    return f"{file}#{pointer}" if file else pointer


class _SeenIds(list[int]):
    """A list whose membership test is a set's: the validator's schema validator keeps the ids
    of the schemas it has checked in lists and asks each new schema whether it is in them, which
    makes a document of thousands of schemas take minutes; it only appends and asks."""

    def __init__(self) -> None:
        super().__init__()
        self._members: set[int] = set()

    def append(self, value: int) -> None:
        self._members.add(value)
        super().append(value)

    def __contains__(self, value: object) -> bool:
        return value in self._members


def _linear(validator: type[SpecValidator]) -> type[SpecValidator]:
    """``validator`` with its schema validator keeping the ids it has seen in :class:`_SeenIds`,
    and the OpenAPI schema's validator resolving in a registry crawled once (:func:`_crawled`):
    the same checks, in time linear in the document; and every keyword validator keeping on
    its errors where it found them (:func:`_placing`)."""
    schema_validator = validator.keyword_validators["schema"]

    class SchemaValidator(schema_validator):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.visited_schema_ids = _SeenIds()
            self.meta_checked_schema_ids = _SeenIds()

        def _validate_schema_meta(self, schema: Any, schema_value: Any) -> Any:
            try:
                checker = self._get_schema_checker(schema, schema_value)
            except ValueError:  # an unknown dialect: the validator words it
                checker = None
            if checker is not None and meta_check(checker)(schema_value):
                return None
            return super()._validate_schema_meta(schema, schema_value)

    keywords = {**validator.keyword_validators, "schema": SchemaValidator}
    return type(
        validator.__name__,
        (validator,),
        {
            "keyword_validators": {k: _placing(k, v) for k, v in keywords.items()},
            "schema_validator": PreChecked(_crawled(validator)),
        },
    )


def _placing(keyword: str, keyword_validator: type[Any]) -> type[Any]:
    """``keyword_validator`` (one of openapi-spec-validator's, called with the path of the
    object it checks) keeping that path on each error it yields that no validator it calls
    placed already, and on an exception it raises (see :func:`_found_at`, :func:`_checking`):
    openapi-spec-validator reports these errors with no place in the document. The value
    validator checks a schema's ``default``: its errors are placed below that. Each error is an
    ``OpenAPIValidationError``, as the validator's ``iter_errors`` makes every error (a copy
    it makes would not keep the place)."""
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    below = ("default",) if keyword == "default" else ()

    class Placing(keyword_validator):  # type: ignore[misc]
        def __call__(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
            at = next((a.parts for a in args if _is_path(a)), None)
            place = None if at is None else (*at, *below)
            try:
                for error in super().__call__(*args, **kwargs):
                    if place is not None and getattr(error, _PLACE, None) is None:
                        # wrapped as the validator wraps it, which would drop the place
                        if not isinstance(error, OpenAPIValidationError):
                            error = OpenAPIValidationError.create_from(error)
                        setattr(error, _PLACE, place)
                    yield error
            except Exception as exc:
                if place is not None and getattr(exc, _PLACE, None) is None:
                    setattr(exc, _PLACE, place)
                raise

    Placing.__name__ = Placing.__qualname__ = keyword_validator.__name__
    return Placing


def _is_path(value: Any) -> bool:
    """Whether ``value`` is a jsonschema-path path (what keyword validators are called with)."""
    from jsonschema_path.paths import SchemaPath

    return isinstance(value, SchemaPath)


def _crawled(validator: type[SpecValidator]) -> Any:
    """jsonschema's validator of the OpenAPI schema ``validator`` checks documents against,
    whatever backend openapi-spec-validator is set to (its findings are jsonschema's), with its
    references resolved in a registry crawled once. jsonschema crawls the registry it is given on
    each lookup of an anchor it does not hold yet, and keeps the crawled registry for that lookup
    only: the OpenAPI 3.1 schema's ``$dynamicRef`` to its ``meta`` anchor crawls the whole schema
    again for each schema object of the document (half the validation time of a large document).
    The same checks."""
    import referencing.jsonschema
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    schema = dict(validator.schema_validator.schema)
    specification = referencing.jsonschema.specification_with(
        schema.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
    )
    resource = specification.create_resource(schema)
    uri = resource.id() or ""
    registry = REGISTRY.with_resource(uri, resource).crawl()
    checking = checking_references(validator_for(schema), schema)
    return checking(schema, _resolver=registry.resolver(base_uri=uri))


@functools.cache
def _validator(version: str) -> type[SpecValidator]:
    """The validator of OpenAPI ``version`` (imported only when a document is validated, with
    its settings fixed, see :mod:`.validator_settings`: its start is a fifth of a second, which
    a ``generate`` whose findings are cached does not spend)."""
    from .validator_settings import imported

    library = imported()
    return _linear(
        library.OpenAPIV31SpecValidator if version == "3.1" else library.OpenAPIV30SpecValidator
    )


def _worded(error: Any) -> str:
    """The validator's message, where it begins with the whole object or array it is about (a
    schema of hundreds of characters, which the place names already) with ``the object`` or
    ``the array`` instead."""
    message = str(error.message)
    instance = error.instance
    if isinstance(instance, (dict, list)) and message.startswith(shown := repr(instance)):
        return ("the object" if isinstance(instance, dict) else "the array") + message[len(shown) :]
    return message


def _shorten(message: str) -> str:
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"
