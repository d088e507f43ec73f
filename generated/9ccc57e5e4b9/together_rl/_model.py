"""What the generated models share: the UNSET marker, the base class, and the readers and
writers that check values against the API's schema while converting between models and JSON.

A reader takes a decoded JSON value and the JSON path it was found at (``muon_params.adam.beta1``)
and returns the Python value, or raises :class:`~._exceptions.ValidationError`. A writer does the
reverse.
"""

from __future__ import annotations

import enum
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, TypeVar

from ._exceptions import RevisionMismatchError, ValidationError

T = TypeVar("T")
E = TypeVar("E", bound=enum.StrEnum)
M = TypeVar("M", bound="Model")


class Unset(enum.Enum):
    """The type of :data:`UNSET`."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset.UNSET
"""A field left out: it is not sent, and the server applies its default. Distinct from ``None``."""


def at(path: str, key: str) -> str:
    """The JSON path of ``key`` inside the object at ``path``."""
    return f"{path}.{key}" if path else key


# -- readers and writers of JSON values ----------------------------------------------------------


def check_string(value: object, path: str) -> str:
    if isinstance(value, str):
        return value
    raise ValidationError(path, "expected a string", value)


def check_integer(value: object, path: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValidationError(path, "expected an integer", value)


def check_number(value: object, path: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value):
            return value
        raise ValidationError(path, "expected a finite number", value)
    raise ValidationError(path, "expected a number", value)


def check_boolean(value: object, path: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ValidationError(path, "expected a boolean", value)


def check_any(value: object, path: str) -> Any:
    return value


def nullable(check: Callable[[object, str], T]) -> Callable[[object, str], T | None]:
    """Accept ``None`` as well as what ``check`` accepts."""

    def check_nullable(value: object, path: str) -> T | None:
        return None if value is None else check(value, path)

    return check_nullable


def one_of(*checks: Callable[[object, str], Any]) -> Callable[[object, str], Any]:
    """Accept what the first matching check accepts."""

    def check_one_of(value: object, path: str) -> Any:
        for check in checks:
            try:
                return check(value, path)
            except ValidationError:
                continue
        raise ValidationError(path, "matches none of the allowed types", value)

    return check_one_of


def list_of(check: Callable[[object, str], T]) -> Callable[[object, str], list[T]]:
    def check_list(value: object, path: str) -> list[T]:
        if not isinstance(value, list):
            raise ValidationError(path, "expected a list", value)
        return [check(item, f"{path}[{index}]") for index, item in enumerate(value)]

    return check_list


def dict_of(check: Callable[[object, str], T]) -> Callable[[object, str], dict[str, T]]:
    def check_dict(value: object, path: str) -> dict[str, T]:
        if not isinstance(value, dict):
            raise ValidationError(path, "expected an object", value)
        return {str(key): check(item, at(path, str(key))) for key, item in value.items()}

    return check_dict


def strict_enum(enum_type: type[E]) -> Callable[[object, str], E]:
    """Read or write a value of ``enum_type``; anything else is an error (for requests)."""
    allowed = ", ".join(member.value for member in enum_type)

    def check_strict_enum(value: object, path: str) -> E:
        if isinstance(value, str):
            try:
                return enum_type(value)
            except ValueError:
                pass
        raise ValidationError(path, f"expected one of {allowed}", value)

    return check_strict_enum


def open_enum(enum_type: type[E]) -> Callable[[object, str], E | str]:
    """Read a value of ``enum_type``, keeping an unknown string as it is (for responses: a newer
    server may send values this revision does not know)."""

    def check_open_enum(value: object, path: str) -> E | str:
        text = check_string(value, path)
        try:
            return enum_type(text)
        except ValueError:
            return text

    return check_open_enum


def write_enum(value: enum.StrEnum | str, path: str) -> str:
    return str(value.value) if isinstance(value, enum.StrEnum) else value


def write_model(model_type: type[M]) -> Callable[[object, str], dict[str, Any]]:
    """Write a ``model_type`` instance as a JSON object."""

    def write(value: object, path: str) -> dict[str, Any]:
        if not isinstance(value, model_type):
            raise ValidationError(path, f"expected a {model_type.__name__}", value)
        return value.to_dict(path)

    return write


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

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
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


def put(
    data: dict[str, Any], key: str, value: T | Unset, path: str, write: Callable[[T, str], object]
) -> None:
    """Write ``value`` as the field ``key`` of ``data``, unless it is UNSET."""
    if value is not UNSET:
        data[key] = write(value, at(path, key))
