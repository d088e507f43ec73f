"""The local reference of the optimizer (needs torch: ``pip install together-rl[reference]``).

:class:`LocalSession` applies optimizer steps to local ``torch`` parameters exactly as the API's
reference semantics describe; :class:`LocalTransport` serves the generated client from it, so a
training loop runs with no network; ``python -m together_rl.reference.serve`` serves it over HTTP.
"""

from ._session import ADAM_DEFAULTS, MUON_DEFAULTS, LocalSession, UnknownOperationError
from ._transport import LocalTransport

__all__ = [
    "ADAM_DEFAULTS",
    "MUON_DEFAULTS",
    "LocalSession",
    "LocalTransport",
    "UnknownOperationError",
]
