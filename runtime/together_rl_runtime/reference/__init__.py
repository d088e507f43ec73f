"""The local reference of the optimizer (needs torch: ``pip install together-rl-runtime[reference]``,
which ``together-rl[reference]`` asks for).

:class:`LocalSession` applies optimizer steps to local ``torch`` parameters exactly as the API's
reference semantics describe; :class:`LocalTransport` serves a generated client from local
sessions, so a training loop runs with no network; :func:`serve.main` serves them over HTTP. A
revision's package (``together_rl.reference``) subclasses both with its revision's definitions
(:class:`ReferenceRevision`), so that they take and answer that revision's requests.
"""

import warnings

with warnings.catch_warnings():
    # torch warns at import when NumPy is missing; the reference does not use NumPy
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch  # noqa: F401  (imported here so that the warning is filtered)

from ..optimizers import ADAM_DEFAULTS, MUON_DEFAULTS
from ._definition import ReferenceRevision
from ._session import LocalSession
from ._transport import LocalTransport

__all__ = [
    "ADAM_DEFAULTS",
    "MUON_DEFAULTS",
    "LocalSession",
    "LocalTransport",
    "ReferenceRevision",
]
