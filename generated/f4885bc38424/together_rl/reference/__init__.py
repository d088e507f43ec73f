"""The local reference of the optimizer for revision f4885bc38424 (needs torch: ``pip install
together-rl[reference]``).

:class:`LocalSession` applies optimizer steps to local ``torch`` parameters exactly as the
API's reference semantics describe, taking and answering this revision's requests;
:class:`LocalTransport` serves the generated client from local sessions, so a training loop
runs with no network; ``python -m together_rl.reference.serve`` serves them over HTTP. Both
are the runtime's (``together_rl_runtime.reference``), given this revision's definitions.
"""

from together_rl_runtime import ConfigurationError, IdempotencyKeyReusedError, UnknownOperationError
from together_rl_runtime.reference import ADAM_DEFAULTS, MUON_DEFAULTS
from together_rl_runtime.reference import LocalSession as _LocalSession
from together_rl_runtime.reference import LocalTransport as _LocalTransport

from ._fields import REVISION

__all__ = [
    "ADAM_DEFAULTS",
    "MUON_DEFAULTS",
    "ConfigurationError",
    "IdempotencyKeyReusedError",
    "LocalSession",
    "LocalTransport",
    "UnknownOperationError",
]


class LocalSession(_LocalSession):
    """A training session's optimizer, applied to local ``torch`` parameters, as revision
    f4885bc38424 of the API defines its requests (see
    ``together_rl_runtime.reference.LocalSession`` for the arguments).
    """

    revision = REVISION


class LocalTransport(_LocalTransport):
    """An httpx transport that serves the client from local sessions, answering as revision
    f4885bc38424 of the API (see ``together_rl_runtime.reference.LocalTransport``).
    """

    revision = REVISION
