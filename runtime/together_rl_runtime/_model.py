"""What the generated models share: the UNSET marker, the base class, and the readers and
writers that check values against the API's schema while converting between models and JSON.

A reader takes a decoded JSON value and the JSON path it was found at (``params.inner.beta1``)
and returns the Python value, or raises :class:`~._exceptions.ValidationError`. A writer does the
reverse.
"""

from __future__ import annotations

import datetime
import enum
import json
import math
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import IO, Any, ClassVar, Final, TypeVar

from ._exceptions import RevisionMismatchError, ValidationError

if sys.version_info >= (3, 11):
    from enum import StrEnum as StrEnum
else:  # pragma: no cover - Python 3.10

    class StrEnum(str, enum.Enum):
        """The members of a string enum are the strings they stand for (``enum.StrEnum`` from
        Python 3.11 on)."""

        def __str__(self) -> str:
            return str(self.value)


T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)
M = TypeVar("M", bound="Model")


class Unset(enum.Enum):
    """The type of :data:`UNSET`."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __str__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset.UNSET
"""A field left out: it is not sent, and the server applies its default. Distinct from ``None``."""

MAX_DEPTH = 100
"""How deep a free-form JSON value a request sends may nest."""


def at(path: str, key: str) -> str:
    """The JSON path of ``key`` inside the object at ``path``."""
    return f"{path}.{key}" if path else key


# -- readers and writers of JSON values ----------------------------------------------------------


def check_string(value: object, path: str) -> str:
    if isinstance(value, str):
        return value
    raise ValidationError(path, "expected a string", value)


def check_integer(value: object, path: str) -> int:
    """An integer; a float with an integral value (``5.0``) is that integer, as in JSON Schema."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValidationError(path, "expected an integer", value)


def check_number(value: object, path: str) -> float:
    """A finite number that a double holds (the API's numbers are doubles)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError(path, "expected a number", value)
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int beyond the range of a double
        raise ValidationError(path, "expected a number a double can hold", value) from None
    if not finite:
        raise ValidationError(path, "expected a finite number", value)
    return value


def check_boolean(value: object, path: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ValidationError(path, "expected a boolean", value)


def check_any(value: object, path: str) -> Any:
    """Any JSON value: null, a boolean, a finite number, a string, or lists and objects (with
    string keys) of those, nested at most ``MAX_DEPTH`` deep."""
    todo: list[tuple[object, str, int]] = [(value, path, 0)]
    while todo:
        item, where, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise ValidationError(where, f"is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, (list, tuple)):
            todo.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, Mapping):
            for key, v in item.items():
                if not isinstance(key, str):
                    raise ValidationError(where, "an object's keys must be strings", key)
                todo.append((v, at(where, key), depth + 1))
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            check_number(item, where)
        elif item is not None and not isinstance(item, (str, bool)):
            raise ValidationError(where, "is not a JSON value", item)
    return value


class _ReadDateTime(datetime.datetime):
    """A date-time read from JSON, which keeps the text it was read from: written back, it is
    that text, byte for byte. A value made from it (``replace``, arithmetic) has no text and
    is written in ISO 8601."""

    _text: str

    def __repr__(self) -> str:
        return repr(datetime.datetime.combine(self.date(), self.timetz()))


def check_datetime(value: object, path: str) -> datetime.datetime:
    """A ``date-time``: an ISO 8601 (RFC 3339) string read as a ``datetime``
    (``2026-12-02T08:00:00Z`` is 08:00 UTC), or a ``datetime`` as it is."""
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ].+", value):
        try:  # Python 3.10's fromisoformat reads no "Z"
            parsed = datetime.datetime.fromisoformat(re.sub(r"[Zz]$", "+00:00", value))
        except ValueError:
            pass
        else:
            read = _ReadDateTime.combine(parsed.date(), parsed.timetz())
            read._text = value
            return read
    raise ValidationError(path, "expected a date-time (ISO 8601, 2026-12-02T08:00:00Z)", value)


def write_datetime(value: object, path: str) -> str:
    """A ``date-time`` as JSON: a ``datetime`` in ISO 8601 (UTC written ``Z``; one read from
    JSON as it was read), or a string that is one, sent as it is."""
    if isinstance(value, str):
        check_datetime(value, path)
        return value
    if isinstance(value, _ReadDateTime) and hasattr(value, "_text"):
        return value._text  # a value made from one (replace) is one without its text
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text
    raise ValidationError(path, "expected a datetime", value)


def check_date(value: object, path: str) -> datetime.date:
    """A ``date``: an ISO 8601 string (``2026-12-02``) read as a ``date``, or a ``date`` as it is
    (not a ``datetime``, which is a date with a time)."""
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValidationError(path, "expected a date (ISO 8601, 2026-12-02)", value)


def write_date(value: object, path: str) -> str:
    """A ``date`` as JSON: ``2026-12-02``; a string that is one is sent as it is."""
    if isinstance(value, str):
        check_date(value, path)
        return value
    return check_date(value, path).isoformat()


def check_null(value: object, path: str) -> None:
    if value is None:
        return None
    raise ValidationError(path, "expected null", value)


def check_file(value: object, path: str) -> bytes | IO[bytes]:
    """A file to upload: its bytes, or a binary file object (read when the request is sent)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if callable(getattr(value, "read", None)):
        return value  # type: ignore[return-value]
    raise ValidationError(path, "expected bytes or a binary file", value)


def constrained(
    check: Callable[[object, str], T],
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: float | None = None,
    exclusive_maximum: float | None = None,
    multiple_of: float | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
    min_items: int | None = None,
    max_items: int | None = None,
    unique_items: bool = False,
    min_properties: int | None = None,
    max_properties: int | None = None,
    values: tuple[object, ...] | None = None,
) -> Callable[[object, str], T]:
    """What ``check`` accepts, within the schema's bounds, lengths and pattern (each applies to
    the values it is about: bounds to numbers, lengths and the pattern to strings, ...)."""
    regex = re.compile(pattern) if pattern is not None else None

    def problem(value: object) -> str | None:
        if values is not None and value not in values:
            return f"must be one of {', '.join(map(str, values))}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if minimum is not None and value < minimum:
                return f"must be >= {minimum}"
            if maximum is not None and value > maximum:
                return f"must be <= {maximum}"
            if exclusive_minimum is not None and value <= exclusive_minimum:
                return f"must be > {exclusive_minimum}"
            if exclusive_maximum is not None and value >= exclusive_maximum:
                return f"must be < {exclusive_maximum}"
            if multiple_of is not None and not _is_multiple(value, multiple_of):
                return f"must be a multiple of {multiple_of}"
        elif isinstance(value, str):
            if min_length is not None and len(value) < min_length:
                return f"must be at least {min_length} characters long"
            if max_length is not None and len(value) > max_length:
                return f"must be at most {max_length} characters long"
            if regex is not None and regex.search(value) is None:
                return f"must match the pattern {pattern!r}"
        elif isinstance(value, (list, tuple)):
            if min_items is not None and len(value) < min_items:
                return f"must have at least {min_items} items"
            if max_items is not None and len(value) > max_items:
                return f"must have at most {max_items} items"
            if unique_items and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
                return "must not repeat an item"
        elif isinstance(value, Mapping):
            if min_properties is not None and len(value) < min_properties:
                return f"must have at least {min_properties} properties"
            if max_properties is not None and len(value) > max_properties:
                return f"must have at most {max_properties} properties"
        return None

    def check_constrained(value: object, path: str) -> T:
        result = check(value, path)
        found = problem(result)
        if found is not None:
            raise ValidationError(path, found, value)
        return result

    return check_constrained


def _is_multiple(value: float, step: float) -> bool:
    quotient = value / step
    return abs(quotient - round(quotient)) <= 1e-9 * max(1.0, abs(quotient))


def nullable(check: Callable[[object, str], T]) -> Callable[[object, str], T | None]:
    """Accept ``None`` as well as what ``check`` accepts."""

    def check_nullable(value: object, path: str) -> T | None:
        return None if value is None else check(value, path)

    return check_nullable


def one_of(*checks: Callable[[object, str], Any]) -> Callable[[object, str], Any]:
    """Accept what one of the checks accepts. A check that reads a response model tolerantly
    accepts most objects; the model read with no problems and no unknown fields is taken, else
    the one with the fewest."""

    def check_one_of(value: object, path: str) -> Any:
        best: tuple[int, Any] | None = None
        for check in checks:
            try:
                result = check(value, path)
            except ValidationError:
                continue
            if not isinstance(result, Model):
                return result
            misses = len(getattr(result, "problems", ())) + len(getattr(result, "extra", ()))
            if misses == 0:
                return result
            if best is None or misses < best[0]:
                best = (misses, result)
        if best is not None:
            return best[1]
        raise ValidationError(path, "matches none of the allowed types", value)

    return check_one_of


def discriminated(
    name: str,
    variants: Mapping[str, Callable[[object, str], Any]],
    other: Callable[[object, str], Any],
) -> Callable[[object, str], Any]:
    """Read the variant the value's ``name`` property names; a value without one, or with a
    value the schema does not map, is read as ``other`` reads it."""

    def check_discriminated(value: object, path: str) -> Any:
        tag = value.get(name) if isinstance(value, Mapping) else None
        if isinstance(value, Model):
            tag = value.to_dict().get(name)
        check = variants.get(tag) if isinstance(tag, str) else None
        return (check or other)(value, path)

    return check_discriminated


def list_of(check: Callable[[object, str], T]) -> Callable[[object, str], list[T]]:
    def check_list(value: object, path: str) -> list[T]:
        if not isinstance(value, list):
            raise ValidationError(path, "expected a list", value)
        return [check(item, f"{path}[{index}]") for index, item in enumerate(value)]

    return check_list


def tuple_of(*checks: Callable[[object, str], Any]) -> Callable[[object, str], tuple[Any, ...]]:
    """A fixed-length array (JSON Schema's ``prefixItems``): a list or a tuple of exactly one
    item per check, each checked by its own, read as a tuple (which JSON writes as an array)."""

    def check_tuple(value: object, path: str) -> tuple[Any, ...]:
        if not isinstance(value, (list, tuple)):
            raise ValidationError(path, "expected a list", value)
        if len(value) != len(checks):
            raise ValidationError(path, f"expected exactly {len(checks)} items", value)
        return tuple(
            check(item, f"{path}[{i}]") for i, (check, item) in enumerate(zip(checks, value))
        )

    return check_tuple


def dict_of(check: Callable[[object, str], T]) -> Callable[[object, str], dict[str, T]]:
    def check_dict(value: object, path: str) -> dict[str, T]:
        if not isinstance(value, dict):
            raise ValidationError(path, "expected an object", value)
        return {str(key): check(item, at(path, str(key))) for key, item in value.items()}

    return check_dict


def _enum_value(enum_type: type[E], value: object) -> E | None:
    """``value`` as a member of ``enum_type`` (a StrEnum of strings, an IntEnum of integers)."""
    wanted = int if issubclass(enum_type, enum.IntEnum) else str
    if isinstance(value, wanted) and not isinstance(value, bool):
        try:
            return enum_type(value)
        except ValueError:
            return None
    return None


def strict_enum(enum_type: type[E]) -> Callable[[object, str], E]:
    """Read or write a value of ``enum_type``; anything else is an error (for requests)."""
    allowed = ", ".join(str(member.value) for member in enum_type)

    def check_strict_enum(value: object, path: str) -> E:
        member = _enum_value(enum_type, value)
        if member is None:
            raise ValidationError(path, f"expected one of {allowed}", value)
        return member

    return check_strict_enum


def open_enum(enum_type: type[E]) -> Callable[[object, str], E | str | int]:
    """Read a value of ``enum_type``, keeping an unknown value of its kind as it is (for
    responses: a newer server may send values this revision does not know)."""
    integer = issubclass(enum_type, enum.IntEnum)

    def check_open_enum(value: object, path: str) -> E | str | int:
        raw = check_integer(value, path) if integer else check_string(value, path)
        member = _enum_value(enum_type, raw)
        return raw if member is None else member

    return check_open_enum


def write_enum(value: object, path: str) -> str | int:
    member: object = value.value if isinstance(value, enum.Enum) else value
    if isinstance(member, (str, int)):
        return member
    raise ValidationError(path, "expected an enum value", value)


def write_model(model_type: type[M]) -> Callable[[object, str], dict[str, Any]]:
    """Write a ``model_type`` instance as a JSON object; a mapping is read as the model first
    (and so checked as it is), with the models it holds written as their JSON, UNSET fields
    left out."""

    def write(value: object, path: str) -> dict[str, Any]:
        if isinstance(value, Mapping):
            value = model_type.from_dict(as_json(value), path)
        if not isinstance(value, model_type):
            raise ValidationError(path, f"expected a {model_type.__name__}", value)
        return value.to_dict(path)

    return write


def as_json(value: Any) -> Any:
    """``value`` as the JSON it stands for: models as the dicts they write, UNSET fields left
    out, tuples as lists."""
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {key: as_json(item) for key, item in value.items() if item is not UNSET}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


# -- models --------------------------------------------------------------------------------------


class Model(ABC):
    """The base of every generated model.

    ``_FIELDS`` holds the JSON names of the model's fields; ``_STRICT`` says whether unknown fields
    are an error (request models) or kept in ``extra`` (response models); ``_OTHER_REVISIONS``
    names the fields that earlier revisions of the API had, with the revision that removed them.
    """

    _FIELDS: ClassVar[frozenset[str]] = frozenset()
    _STRICT: ClassVar[bool] = True
    _OTHER_REVISIONS: ClassVar[Mapping[str, str]] = {}

    def __new__(cls: type[M], *args: Any, **kwargs: Any) -> M:
        for name in kwargs:
            if name in cls._OTHER_REVISIONS:
                raise RevisionMismatchError(cls.__name__, name, cls._OTHER_REVISIONS[name])
        return super().__new__(cls)

    @classmethod
    @abstractmethod
    def from_dict(cls: type[M], data: object, path: str = "") -> M:
        """Read the model from decoded JSON, checking it against the schema."""

    @abstractmethod
    def to_dict(self, path: str = "") -> dict[str, Any]:
        """The model as a JSON object, checked against the schema; UNSET fields are left out."""

    @classmethod
    def from_json(cls: type[M], text: str | bytes) -> M:
        """Read the model from a JSON document."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValidationError("", f"not valid JSON ({exc})") from None
        except RecursionError:
            raise ValidationError("", "not readable JSON: nested too deeply") from None
        return cls.from_dict(data)

    def to_json(self) -> str:
        """The model as a compact JSON document."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def _fields_of(cls, data: object, path: str) -> tuple[Mapping[str, object], dict[str, Any]]:
        """Check that ``data`` is an object and split it into known fields and the rest."""
        if not isinstance(data, Mapping):
            raise ValidationError(path, "expected an object", data)
        extra = {key: value for key, value in data.items() if key not in cls._FIELDS}
        if extra and cls._STRICT:
            name = next(iter(extra))
            if name in cls._OTHER_REVISIONS:
                history = cls._OTHER_REVISIONS[name]
                raise RevisionMismatchError(at(path, name), name, history, extra[name])
            known = ", ".join(sorted(cls._FIELDS))
            raise ValidationError(at(path, name), f"unknown field (known: {known})", extra[name])
        return data, extra


def required(
    fields: Mapping[str, object], key: str, path: str, check: Callable[[object, str], T]
) -> T:
    """Read the required field ``key``."""
    if key not in fields:
        raise ValidationError(at(path, key), "is required")
    return check(fields[key], at(path, key))


def optional(
    fields: Mapping[str, object], key: str, path: str, check: Callable[[object, str], T]
) -> T | Unset:
    """Read the optional field ``key``; UNSET where it is left out."""
    if key not in fields:
        return UNSET
    return check(fields[key], at(path, key))


def received(
    fields: Mapping[str, object],
    key: str,
    path: str,
    check: Callable[[object, str], T],
    problems: dict[str, str],
    *,
    required: bool = False,
) -> Any:
    """Read the field ``key`` of a response, tolerantly: a field left out is UNSET, and a value
    that does not match the schema (null included) is kept as received; either is noted in
    ``problems``, by the field's JSON name, when the schema says otherwise."""
    if key not in fields:
        if required:
            problems[key] = "is required"
        return UNSET
    try:
        return check(fields[key], at(path, key))
    except ValidationError as exc:
        problems[key] = exc.problem
        return fields[key]


def put(
    data: dict[str, Any],
    key: str,
    value: T | Unset,
    path: str,
    write: Callable[[T, str], object],
    as_received: Mapping[str, str] | None = None,
) -> None:
    """Write ``value`` as the field ``key`` of ``data``, unless it is UNSET; a field listed in
    ``as_received`` (a response's problems) is written as it was received."""
    if value is UNSET:
        return
    data[key] = value if as_received and key in as_received else write(value, at(path, key))
