"""The settings of openapi-spec-validator and openapi-schema-validator, fixed, as modules that
need neither pydantic nor pydantic-settings.

Each library reads its settings from the environment (``OPENAPI_SPEC_VALIDATOR_*``,
``OPENAPI_SCHEMA_VALIDATOR_*``) with pydantic-settings, and importing pydantic and
pydantic-settings is two fifths of the validator's start: a tenth of a second of CPU on every
cold ``generate``, more than checking a small document takes. What they set are the sizes of two
caches and which backend checks a document against the OpenAPI schema; the generator's
findings depend on none of them (it checks against the OpenAPI schema with jsonschema, whatever
the backend, see :func:`generator.reading.validate._crawled`), and they are cached by the
libraries' versions alone, so the environment must not change them either.

:func:`imported` imports openapi-spec-validator with these modules in place of the two
libraries' own, where neither is imported yet; where the libraries are laid out otherwise (a
release that reads another setting), it imports them as they are.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

CACHE_SIZE = 128
"""Both libraries' default size of their caches of resolved references and of compiled
validators."""
BACKEND = "jsonschema"
"""The backend of openapi-spec-validator's schema validator: jsonschema, whose words and places
the generator's findings keep (``auto``, its default, builds a jsonschema-rs validator of the
OpenAPI schema that the generator never asks)."""

_MODULES = ("openapi_spec_validator.settings", "openapi_schema_validator.settings")
_PACKAGES = ("openapi_spec_validator", "openapi_schema_validator")


class SpecValidatorSettings:
    """``openapi_spec_validator.settings.OpenAPISpecValidatorSettings``, fixed."""

    resolved_cache_maxsize = CACHE_SIZE
    schema_validator_backend = BACKEND


class SchemaValidatorSettings:
    """``openapi_schema_validator.settings.OpenAPISchemaValidatorSettings``, fixed."""

    compiled_validator_cache_max_size = CACHE_SIZE


_SETTINGS = SchemaValidatorSettings()


def _module(name: str, **attributes: object) -> ModuleType:
    """A settings module of one of the two libraries, fixed (see above)."""
    module = ModuleType(
        name, f"{name.partition('.')[0]}'s settings, fixed (see the generator's {__name__})."
    )
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


def imported() -> ModuleType:
    """openapi-spec-validator, imported with the fixed settings where neither library is
    imported yet (as it is where one is: a process that imported it itself keeps its own)."""
    if any(name in sys.modules for name in _PACKAGES):
        return importlib.import_module(_PACKAGES[0])
    sys.modules[_MODULES[0]] = _module(
        _MODULES[0],
        OpenAPISpecValidatorSettings=SpecValidatorSettings,
        get_resolved_cache_maxsize=lambda: CACHE_SIZE,
        get_schema_validator_backend=lambda: BACKEND,
    )
    sys.modules[_MODULES[1]] = _module(
        _MODULES[1],
        OpenAPISchemaValidatorSettings=SchemaValidatorSettings,
        get_settings=lambda: _SETTINGS,
        reset_settings_cache=lambda: None,
    )
    try:
        return importlib.import_module(_PACKAGES[0])
    except (ImportError, AttributeError):  # laid out otherwise: imported as it is
        for name in [n for n in sys.modules if n.partition(".")[0] in _PACKAGES]:
            del sys.modules[name]
        return importlib.import_module(_PACKAGES[0])
