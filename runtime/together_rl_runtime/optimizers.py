"""The registry of the local reference's optimizers: one entry each, which declares its name, its
settings (their kinds, ranges and session defaults), the options a session of it takes, the
optimizer that tunes the parameters it leaves, and the module of the reference that holds its
algorithm.

Everything else reads it: the tables of ``together_rl_runtime.settings``, the reference's
sessions, its server's command line and its checkpoints, and the generator (the field roles,
the compatibility checks, the packages' texts), which needs no torch, and neither does this
module. Adding an optimizer is adding its entry to :data:`REGISTRY` and the module of its
algorithm (see ``together_rl_runtime.reference._algorithm`` for what that module defines).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = [
    "ADAM_DEFAULTS",
    "CLIP",
    "DEFAULT",
    "MUON_DEFAULTS",
    "REGISTRY",
    "Choice",
    "Optimizer",
    "Range",
    "Setting",
    "choices",
    "runs",
]


@dataclass(frozen=True)
class Range:
    """The values a setting takes: from ``low`` (``None``: unbounded) to ``high``, each end
    included unless it is open."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def problem(self, value: float) -> str | None:
        """Why ``value`` is outside the range (``"must be >= 0"``), or ``None``."""
        low_ok = self.low is None or (value > self.low if self.low_open else value >= self.low)
        high_ok = self.high is None or (value < self.high if self.high_open else value <= self.high)
        if low_ok and high_ok:
            return None
        if self.high is None:
            return f"must be {'>' if self.low_open else '>='} {self.low:g}"
        if not self.low_open and not self.high_open:
            return f"must be between {self.low:g} and {self.high:g}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"must be in {left}{self.low:g}, {self.high:g}{right}"


@dataclass(frozen=True)
class Setting:
    """A setting of a step: what a request's field overrides, or a session's defaults set.

    Settings of one name share their kind and range, whichever optimizer declares them (the
    tables of ``together_rl_runtime.settings`` key kinds and ranges by name)."""

    name: str
    default: float
    """The session default: what a step uses where neither its request nor its revision's
    document says (a boolean setting's is ``True`` or ``False``)."""
    range: Range | None = None
    """The values a number takes; a request or a default outside them is refused."""
    kind: Literal["number", "integer", "boolean"] = "number"
    """A boolean (a field that sets one must be a boolean), an integer (a number with an
    integral value: ``5`` or ``5.0``, never ``5.5``, which is refused rather than truncated), or
    any number."""
    since: str | None = None
    """The runtime release (``major.minor``) from which the reference applies the setting, for
    one added after the major version's first release: a package whose fields set it requires
    that release."""


@dataclass(frozen=True)
class Choice:
    """An option of a session among fixed values: a keyword argument of ``LocalSession`` and a
    flag of the reference server (``--muon-scaling``). A session of any kind takes it, checks
    it, and uses it where its optimizer runs."""

    keyword: str
    values: tuple[str, ...]
    default: str

    @property
    def flag(self) -> str:
        """The server's command-line flag."""
        return "--" + self.keyword.replace("_", "-")


@dataclass(frozen=True)
class Optimizer:
    """An optimizer of the local reference, and a kind of session: a session of it runs it on
    its parameters, or on those its filter chooses, with :attr:`rest` on the others."""

    name: str
    """The session kind (``LocalSession(model, name)``), the group of overrides that sets its
    settings (settings ``<name>.<setting>``), and its part of a session's state."""
    title: str
    """How texts name it."""
    article: str
    """The indefinite article before :attr:`title`."""
    settings: tuple[Setting, ...]
    algorithm: str
    """The module of the reference that holds its algorithm (imported by the reference alone,
    so that the registry needs no torch)."""
    reproduces: str
    """What of PyTorch the reference reproduces of it, as a package's README says it."""
    rest: str | None = None
    """The optimizer of the parameters that this one's filter does not choose, in a session of
    this one; ``None``: this one handles every parameter."""
    filter: str | None = None
    """The keyword argument of a session of this one that chooses its parameters (a function of
    a parameter's name and tensor; an optimizer with a :attr:`rest` has one). Only a session of
    this one takes it."""
    choices: tuple[Choice, ...] = ()

    @property
    def a_title(self) -> str:
        """Its title with its article: ``an Adam``."""
        return f"{self.article} {self.title}"

    @property
    def a_session(self) -> str:
        """``an Adam session``."""
        return f"{self.a_title} session"

    @property
    def defaults(self) -> Mapping[str, float]:
        """The session defaults of its settings, by name."""
        return MappingProxyType({s.name: s.default for s in self.settings})

    @property
    def defaults_name(self) -> str:
        """The name under which ``together_rl_runtime.reference`` (and a revision's package)
        exports :attr:`defaults`: ``ADAM_DEFAULTS``."""
        return f"{self.name.upper()}_DEFAULTS"


CLIP = Setting("clip", 1.0, Range(0))
"""The step's gradient clip value (0: no clip): not an optimizer's own, a group of either sets
it, and a session takes its default as ``grad_clip_norm``."""

_ADAM = Optimizer(
    name="adam",
    title="Adam",
    article="an",
    settings=(
        Setting("learning_rate", 1e-4, Range(0)),
        Setting("beta1", 0.9, Range(0, 1, high_open=True)),
        Setting("beta2", 0.95, Range(0, 1, high_open=True)),
        Setting("eps", 1e-8, Range(0, low_open=True)),
        Setting("weight_decay", 0.0, Range(0)),
        # whether Adam keeps the maximum of its second moments, as
        # torch.optim.AdamW(amsgrad=True)
        Setting("amsgrad", False, kind="boolean", since="1.1"),
    ),
    algorithm="together_rl_runtime.reference._adam",
    reproduces=(
        "Adam as `torch.optim.AdamW(fused=True)` after `clip_grad_norm_`, bit for bit where the "
        "clip scales no gradient and to a few ULPs per element where it does, the clip being "
        "folded into the fused kernel"
    ),
)

_MUON = Optimizer(
    name="muon",
    title="Muon",
    article="a",
    settings=(
        Setting("learning_rate", 0.02, Range(0)),
        Setting("momentum", 0.95, Range(0, 1, high_open=True)),
        Setting("newton_schulz_steps", 5, Range(1, 100), kind="integer"),
        Setting("weight_decay", 0.0, Range(0)),
    ),
    algorithm="together_rl_runtime.reference._muon",
    reproduces="Muon as `torch.optim.Muon` with Nesterov, bit for bit",
    rest="adam",
    filter="muon_filter",
    # how the learning rate of an A x B matrix is scaled: "original" lr * sqrt(max(1, A/B)),
    # "match_adam" lr * 0.2 * sqrt(max(A, B))
    choices=(Choice("muon_scaling", ("original", "match_adam"), "original"),),
)

REGISTRY: Mapping[str, Optimizer] = MappingProxyType({o.name: o for o in (_ADAM, _MUON)})
"""Every optimizer, by name, in the order texts list them."""

DEFAULT = next(iter(REGISTRY.values()))
"""The optimizer of a session made without naming one."""

ADAM_DEFAULTS: Mapping[str, float] = dict(_ADAM.defaults)
"""Session defaults of Adam (also of the Adam-handled parameters of a Muon session)."""
MUON_DEFAULTS: Mapping[str, float] = dict(_MUON.defaults)
"""Session defaults of Muon."""


def runs(optimizer: Optimizer) -> tuple[Optimizer, ...]:
    """The optimizers a session of ``optimizer`` runs: it, then its :attr:`~Optimizer.rest`."""
    return (optimizer,) if optimizer.rest is None else (optimizer, REGISTRY[optimizer.rest])


def choices() -> tuple[Choice, ...]:
    """Every optimizer's choices, in the registry's order: what every session takes."""
    return tuple(choice for o in REGISTRY.values() for choice in o.choices)
