"""The view the local reference's templates render: the field and parameter rules of one
revision, the models and values of its answers (statuses, error codes), the request fields the
server knows, and the paths it serves; and what of its answers the reference cannot give as the
revision's schemas say (a warning of ``generate``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from together_rl_runtime.optimizers import DEFAULT, REGISTRY
from together_rl_runtime.settings import PARAMETERS_SINCE, SESSION_DEFAULTS, SINCE, Sets

from ..errors import SpecError
from ..reading import ir
from ..reading.fieldroles import Default, FieldRoles, ReferenceRules, resolve
from .pyclient import PyWaiter
from .pymodel import PyModule, class_name, member_name


@dataclass(frozen=True)
class Routes:
    """Regular expressions of the submit and retrieve paths, matched against raw request paths."""

    submit: str
    retrieve: str
    id_parameter: str
    """The retrieve path's parameter that holds the operation id."""
    session_parameter: str
    """The submit path's parameter that names the training session."""


@dataclass(frozen=True)
class Answers:
    """The models of the served operation's answers, and the values the reference answers with,
    each as the expression the rendered module writes."""

    operation: str
    """The operation model (``id``, ``status``, ``output``, ``error``)."""
    result: str
    """The model of its ``output``."""
    error: str
    """The model of its ``error``."""
    succeeded: str
    failed: str
    """Status members (``RLTrainingOperationStatus.X``), from the status data."""
    invalid_input: str
    internal_error: str
    non_finite: str
    """Error-code members: a refused request, a failure inside the reference, non-finite
    gradients (NON_FINITE_LOSS where the revision has it, else INTERNAL_ERROR)."""
    step_as_text: bool = True
    """Whether the result's ``step`` takes the decimal string every runtime answers with (else
    the integer, which the runtime gives from release ``PARAMETERS_SINCE`` on)."""
    unsatisfied: tuple[tuple[str, str], ...] = ()
    """What the reference cannot answer as the revision's schemas say: each problem's JSON
    pointer and what it is."""

    @property
    def classes(self) -> list[str]:
        """The classes the expressions name, sorted."""
        names = {self.operation, self.result, self.error}
        for value in (self.succeeded, self.failed, self.invalid_input, self.non_finite):
            names.add(value.partition(".")[0])
        return sorted(names)


@dataclass(frozen=True)
class ReferenceView:
    rules: ReferenceRules
    body_model: str
    answers: Answers
    known_fields: dict[str, Any]
    """The body's field names as a tree (``None`` leaves), for ignoring unknown fields."""
    routes: Routes

    @property
    def declared_defaults(self) -> list[Default]:
        """The defaults the document declares for settings, each field once, in body order."""
        seen: dict[str, Default] = {}
        for _, defaults in self.rules.defaults:
            for d in defaults:
                seen.setdefault(d.path, d)
        return sorted(seen.values(), key=lambda d: self._order.index(d.path))

    @property
    def _order(self) -> list[str]:
        return [path for _, rules in self.rules.sessions for path, _ in rules]

    @property
    def session_defaults_text(self) -> str:
        """The session defaults in words, each optimizer's by its title (``<Title>:
        learning_rate 0.0001, ...; clip 1.0``); a setting the runtime learned after its major
        version's first release only where this revision's fields set it (the text of a package
        never depends on the runtime's newest release)."""
        used = {
            s
            for _, rules in self.rules.sessions
            for _, r in rules
            if isinstance(r, Sets)
            for s in r.settings
        }
        parts = []
        for optimizer in REGISTRY.values():
            values = [
                f"{setting.partition('.')[2]} {value!r}"
                for setting, value in SESSION_DEFAULTS.items()
                if setting.startswith(optimizer.name + ".")
                and (setting not in SINCE or setting in used)
            ]
            parts.append(f"{optimizer.title}: {', '.join(values)}")
        parts.append(f"clip {SESSION_DEFAULTS['clip']!r}")
        return "; ".join(parts)

    @property
    def default_optimizer(self) -> str:
        """The optimizer of a session made without naming one."""
        return DEFAULT.name

    @property
    def defaults_names(self) -> list[str]:
        """The names under which the runtime's reference exports each optimizer's session
        defaults, which the package's reference exports too."""
        return [optimizer.defaults_name for optimizer in REGISTRY.values()]

    @property
    def reproduced_text(self) -> str:
        """What of PyTorch the reference reproduces, optimizer by optimizer, in words."""
        parts = []
        for optimizer in REGISTRY.values():
            text = optimizer.reproduces
            if optimizer.rest is not None:
                rest = REGISTRY[optimizer.rest].title
                text += f", {rest} tuning the parameters {optimizer.title} does not handle"
            parts.append(text)
        return "; ".join(parts)

    @property
    def options_calls(self) -> list[tuple[str, str]]:
        """For each optimizer with options, a session of it made with them
        (``LocalSession(model, "<name>", <keyword>="a" | "b", <filter>=...)``, in Markdown) and
        its title."""
        calls = []
        for optimizer in REGISTRY.values():
            options = [f"{c.keyword}={_either(c.values)}" for c in optimizer.choices]
            if optimizer.filter is not None:
                options.append(f"{optimizer.filter}=...")
            if options:
                call = f'`LocalSession(model, "{optimizer.name}", {", ".join(options)})`'
                calls.append((call, optimizer.title))
        return calls

    @property
    def runtime_since(self) -> tuple[str, ...]:
        """The runtime releases (``major.minor``) beyond the settings' that the reference of this
        revision needs: the rules of its query parameters and headers, and an integer step
        number, are the runtime's from ``PARAMETERS_SINCE`` on."""
        needed = self.rules.parameters or not self.answers.step_as_text
        return (PARAMETERS_SINCE,) if needed else ()

    @property
    def required_headers(self) -> tuple[str, ...]:
        """The served operation's required header parameters."""
        return tuple(
            p.name for p in self.rules.operation.parameters if p.location == "header" and p.required
        )


def _either(values: tuple[str, ...]) -> str:
    """``"a" | "b"``: the values an option takes, as a Python call writes one."""
    return " | ".join(f'"{value}"' for value in values)


def reference_view(
    doc: ir.Document, roles: FieldRoles, module: PyModule, waiter: PyWaiter
) -> ReferenceView:
    """The reference of ``doc``: it serves ``roles.operation``, and reads operations back as
    ``waiter`` polls them."""
    rules = resolve(doc, roles)
    return ReferenceView(
        rules=rules,
        body_model=class_name(rules.body.name),
        answers=_answers(doc, module, waiter, rules.operation),
        known_fields=_tree(doc, rules.body),
        routes=Routes(
            _path_pattern(rules.operation.path),
            _path_pattern(waiter.retrieve.path),
            waiter.id_parameter,
            _session_parameter(rules.operation),
        ),
    )


def _answers(
    doc: ir.Document, module: PyModule, waiter: PyWaiter, operation: ir.Operation
) -> Answers:
    """The answer models of the operation the waiter polls, and the values of its answers."""

    def fail(problem: str) -> SpecError:
        return SpecError(operation.pointer, f"the local reference needs {problem}")

    model = module.model(waiter.model)
    fields = {f.key: f for f in model.fields}
    result, error = fields.get("output"), fields.get("error")
    if result is None or result.model is None or error is None or error.model is None:
        raise fail("an operation model with an `output` and an `error` object")
    code = next((f for f in module.model(error.model).fields if f.key == "code"), None)
    if code is None or code.type.kind != "enum" or code.type.name is None:
        raise fail("an error model with an enum `code`")
    values = [str(v) for _, v in module.enum(code.type.name).members]

    def code_of(*suffixes: str) -> str:
        for suffix in suffixes:
            found = next((v for v in values if v.endswith(suffix)), None)
            if found is not None:
                return f"{code.type.name}.{member_name(found)}"
        raise fail(f"an error code ending in {suffixes[0]}")

    def status_of(kind: str) -> str:
        members = waiter.members(kind)  # type: ignore[arg-type]
        if not members:
            raise fail(f"a status that means `{kind}` in the status data")
        return f"{waiter.status_enum}.{members[0]}"

    checked = _Answered(doc, module)
    checked.model(waiter.model, "", _GIVEN_OPERATION)
    checked.model(result.model, "output", _GIVEN_RESULT)
    checked.model(error.model, "error", _GIVEN_ERROR)
    return Answers(
        operation=waiter.model,
        result=result.model,
        error=error.model,
        succeeded=status_of("succeeded"),
        failed=status_of("failed"),
        invalid_input=code_of("_INVALID_INPUT"),
        internal_error=code_of("_INTERNAL_ERROR"),
        non_finite=code_of("_NON_FINITE_LOSS", "_INTERNAL_ERROR"),
        step_as_text=checked.takes_text,
        unsatisfied=tuple(checked.problems),
    )


_GIVEN_OPERATION = {"id": ("string",), "status": (), "output": (), "error": ()}
"""The fields of an operation the reference answers with, and the JSON types it can give each
(``()``: a value of the revision's own models, always as they type it)."""
_GIVEN_RESULT = {"step": ("string", "integer")}
"""An operation's ``output``: the step number, as a decimal string or an integer."""
_GIVEN_ERROR = {"code": (), "message": ("string",)}


class _Answered:
    """The check of the models the reference answers with against what it can give: a required
    field it has no value for, or a field whose schema takes none of the types it can give."""

    def __init__(self, doc: ir.Document, module: PyModule) -> None:
        self.doc = doc
        self.schemas = {cls: name for name, cls in module.classes.items()}
        self.problems: list[tuple[str, str]] = []
        self.takes_text = True

    def model(self, cls: str, path: str, given: Mapping[str, tuple[str, ...]]) -> None:
        name = self.schemas.get(cls)
        schema = None if name is None else self.doc.resolve(self.doc.schemas[name])
        if not isinstance(schema, ir.Object):
            return
        for prop in schema.properties:
            where = f"{path}.{prop.name}" if path else prop.name
            types = given.get(prop.name)
            if types is None:
                if prop.required:
                    self.problems.append(
                        (
                            prop.schema.pointer,
                            f"the response field `{where}` is required, and the local "
                            "reference has no value for it: its answers leave it out",
                        )
                    )
                continue
            taken = [t for t in types if _takes(self.doc, prop.schema, t)]
            if types and not taken:
                self.problems.append(
                    (
                        prop.schema.pointer,
                        f"the response field `{where}` takes no {' or '.join(types)}, which is "
                        "what the local reference answers with",
                    )
                )
            if prop.name == "step" and "string" not in taken:
                self.takes_text = False


def _takes(doc: ir.Document, schema: ir.Schema, kind: str) -> bool:
    """Whether ``schema`` takes a value of the JSON type ``kind`` (``string`` or ``integer``)."""
    resolved = doc.resolve(schema)
    if isinstance(resolved, ir.AnyValue):
        return True
    if isinstance(resolved, ir.Primitive):
        return resolved.type == kind or (kind == "integer" and resolved.type == "number")
    if isinstance(resolved, ir.Union):
        return any(_takes(doc, variant, kind) for variant in resolved.variants)
    return False


def _session_parameter(operation: ir.Operation) -> str:
    """The path parameter of the served operation that names the training session."""
    names = [p.name for p in operation.parameters if p.location == "path"]
    if len(names) != 1:
        raise SpecError(
            operation.pointer,
            "the local reference serves an operation with one path parameter (the session)",
        )
    return names[0]


def _tree(doc: ir.Document, schema: ir.Schema, seen: frozenset[str] = frozenset()) -> Any:
    """The field names of an object schema as a tree; a recursive schema is followed once."""
    resolved = doc.resolve(schema)
    if not isinstance(resolved, ir.Object):
        return None
    if isinstance(schema, ir.Ref):
        if schema.name in seen:
            return None
        seen = seen | {schema.name}
    return {p.name: _tree(doc, p.schema, seen) for p in resolved.properties}


def _path_pattern(path: str) -> str:
    """``/a/{b}/c`` as ``(?:.*)/a/(?P<b>[^/]+)/c``: any prefix (``/v1``), one segment per parameter."""
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(path))
    return "(?:.*)" + pattern
