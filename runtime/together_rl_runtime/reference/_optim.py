"""Numeric core of the local reference optimizer: gradient norm, clipping, AdamW and Muon.

Every function here reproduces a PyTorch optimizer so that results can be checked against it:

* :func:`total_grad_norm` / :func:`clip_coefficient` / :func:`clip_gradients` follow
  ``torch.nn.utils.clip_grad_norm_`` (``get_total_norm`` + ``clip_grads_with_norm_``) operation
  for operation.
* :func:`adam_update` is the dispatch, as ``torch.optim.adamw.adamw`` is: it groups the
  parameters by device and dtype and runs each group through :func:`_fused_adamw`, PyTorch's
  fused AdamW kernel (``torch._fused_adamw_``, the kernel of ``AdamW(fused=True)``) where it
  exists for the group's device and dtype, else through :func:`_foreach_adamw`. The fused path
  folds the clip into the kernel: the kernel divides each gradient by ``grad_scale =
  1 / clip_coef`` as it reads it, so no separate pass scales the gradients. Against
  ``clip_grad_norm_`` + ``AdamW(fused=True)`` the only difference is that division in place of
  the multiplication by ``clip_coef``: a few ULPs per element, and none when the gradients are
  not clipped. Against the default ``AdamW`` (the for-loop and foreach paths, which round
  ``sqrt(v) / sqrt(1 - beta2^t) + eps`` in another order than the fused kernel) elements agree to
  a few ULPs of the parameter's magnitude, and whole parameters to about 1e-7 of their norm.
  :func:`_foreach_adamw` scales the gradients as :func:`clip_gradients` does and runs
  :func:`adam_step`, the *foreach* path of ``torch.optim.AdamW``
  (``torch/optim/adam.py::_multi_tensor_adam``, ``capturable=False``) operation for operation:
  bit-identical to ``clip_grad_norm_`` + ``AdamW(foreach=True)``.
* :func:`muon_step` / :func:`zeropower_via_newton_schulz` follow ``torch.optim.Muon`` with
  ``nesterov=True`` (``torch/optim/_muon.py``) bit for bit: each matrix is orthogonalised by the
  same bfloat16 operations as torch's ``_zeropower_via_newtonschulz`` (the same matrix products
  on operands of the same shapes and layouts), one matrix at a time. A batched product
  (``torch.bmm`` over a stack of matrices) would not round as torch does: PyTorch picks a matmul
  kernel, and with it the order in which each dot product is summed, from the sizes of the whole
  call (on CPU a batch can go to oneDNN where one small matrix takes ATen's own kernel), so a
  bfloat16 element now and then lands on the other side of a rounding boundary, and the
  Newton-Schulz iteration carries that on. What the reference saves over torch is allocation:
  the momentum and Nesterov updates are multi-tensor operations, the Nesterov update and the
  widened orthogonalised update are formed in the gradient's own storage, and the bfloat16
  scratch tensors of the iteration are allocated once per matrix shape and reused.

The functions only do arithmetic.  They take plain lists of tensors; request validation,
non-finite refusal, sessions and threading belong to the caller.  All functions run under
``torch.no_grad()``.

References:
    Loshchilov & Hutter, "Decoupled Weight Decay Regularization", https://arxiv.org/abs/1711.05101
    Kingma & Ba, "Adam: A Method for Stochastic Optimization", https://arxiv.org/abs/1412.6980
    Jordan et al., "Muon: An optimizer for hidden layers in neural networks",
        https://kellerjordan.github.io/posts/muon/
    Liu et al., "Muon is Scalable for LLM Training", https://arxiv.org/abs/2502.16982
"""

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar, cast

import torch
from torch import Tensor

__all__ = [
    "AdamParamState",
    "MatrixExchange",
    "MuonParamState",
    "MuonScaling",
    "NonFiniteUpdate",
    "NS_COEFFICIENTS",
    "NS_EPS",
    "CLIP_EPS",
    "adam_state",
    "adam_step",
    "adam_update",
    "adjusted_lr",
    "clip_coefficient",
    "clip_gradients",
    "fused_adam_supported",
    "ensure_states",
    "FINITE_PIECE",
    "finite_flags",
    "grad_norms",
    "muon_state",
    "muon_step",
    "total_grad_norm",
    "zeropower_via_newton_schulz",
]

#: Quintic Newton-Schulz coefficients (a, b, c) from Keller Jordan's Muon, as in torch.optim.Muon.
NS_COEFFICIENTS: tuple[float, float, float] = (3.4445, -4.7750, 2.0315)
#: Lower clamp of the Frobenius norm before Newton-Schulz (torch.optim.Muon's default ``eps``).
NS_EPS: float = 1e-7
#: Added to the total norm in the clip coefficient, as in torch.nn.utils.clip_grad_norm_.
CLIP_EPS: float = 1e-6

MuonScaling = Literal["original", "match_adam"]


def _by_device_and_dtype(
    lists: list[list[Tensor]],
) -> list[tuple[tuple[torch.device, torch.dtype], list[list[Tensor]], list[int]]]:
    """Parallel ``lists`` split by the device and dtype of the first list's tensors: each group's
    (device, dtype), its lists and the indices of its tensors.  One C++ call, the grouping of
    torch's optimizers and of ``clip_grad_norm_``, in its order of the groups."""
    from torch.utils._foreach_utils import _group_tensors_by_device_and_dtype

    grouped = _group_tensors_by_device_and_dtype(
        cast(list[list[Tensor | None]], lists), with_indices=True
    )
    return [
        (key, cast(list[list[Tensor]], group), indices) for key, (group, indices) in grouped.items()
    ]


# --------------------------------------------------------------------------------------------
# Measure and clip
# --------------------------------------------------------------------------------------------


@torch.no_grad()
def total_grad_norm(grads: list[Tensor]) -> Tensor:
    r"""Return the 2-norm of all gradients seen as one vector, as a float32 0-dim tensor.

    .. math::
        \lVert g \rVert = \Big(\sum_i \lVert g_i \rVert_2^2\Big)^{1/2}
                        = \big\lVert (\lVert g_1 \rVert_2, \dots, \lVert g_n \rVert_2) \big\rVert_2

    Computed like ``torch.nn.utils.get_total_norm``: the gradients grouped by device and dtype,
    one ``torch._foreach_norm`` per group, then the norm of the stacked per-tensor norms (in
    the groups' order).  Where torch computes each norm in the gradient's dtype, the reference
    accumulates a narrower dtype's (bfloat16, float16) in float32 and rounds a wider one's
    (float64) to float32; for float32 gradients it is torch's own call, and the result is
    bit-identical to ``clip_grad_norm_``'s.

    The result is *not* checked: a NaN or infinite gradient entry yields a NaN or infinite norm,
    which the caller must test for (``torch.isfinite``) before clipping or stepping.  An empty
    list gives ``0.0``.
    """
    if not grads:
        return torch.tensor(0.0, dtype=torch.float32)
    total: Tensor = torch.linalg.vector_norm(torch.stack(grad_norms(grads)), 2.0)
    return total


#: On CPU, :func:`finite_flags` sums a tensor of more than this many elements on its own, and
#: smaller ones together, copied side by side into pieces of at most this many: a call per
#: small tensor would cost more than its sum (torch's CPU multi-tensor ops are one call each),
#: and up to this size (ATen's grain) a copy or a sum runs on the calling thread, with no
#: parallel region to wait on.
FINITE_PIECE = 1 << 15


@torch.no_grad()
def finite_flags(tensors: list[Tensor]) -> Tensor:
    """Whether each of ``tensors`` holds finite values only, as a boolean tensor in their order
    (on the first tensor's device). A sum of finite values is finite unless it overflows, and a
    sum with an infinite or NaN term is not: so each tensor is first summed (on CPU, the
    cheapest read of it: a vectorised sum, a tensor of more than :data:`FINITE_PIECE` elements
    on its own, smaller ones together in pieces of at most that size; on other devices, one
    ``torch._foreach_norm`` per device and dtype, a single kernel there), and only where a sum
    is not finite, an infinite or NaN entry or a sum beyond the dtype of huge finite entries,
    are its tensors checked entry by entry. The flags are those of an entry-by-entry check; one
    host synchronisation where every sum is finite. An empty tensor (a process's share of a
    small sharded parameter) is finite."""
    first = tensors[0].device
    finite = torch.ones(len(tensors), dtype=torch.bool, device=first)
    screens: list[Tensor] = []  # per group, whether each of its sums is finite
    members: list[tuple[list[int], list[list[int]]]] = []  # per group: indices, each sum's
    for (device, _), [group], indices in _by_device_and_dtype([tensors]):
        found, covered = _screens(group, device)
        screens.append(torch.isfinite(torch.stack(found)).to(first))
        members.append((indices, covered))
    screened = torch.cat(screens)
    if bool(screened.all()):  # a host synchronisation
        return finite
    pieces = [[indices[j] for j in piece] for indices, covered in members for piece in covered]
    for piece in (~screened).nonzero().flatten().tolist():
        for i in pieces[piece]:
            finite[i] = bool(torch.isfinite(tensors[i]).all())
    return finite


def _screens(group: list[Tensor], device: torch.device) -> tuple[list[Tensor], list[list[int]]]:
    """The sums of :func:`finite_flags` over ``group`` (tensors of one device and dtype), and
    the indices into ``group`` of the tensors each one covers (an empty tensor's sum is 0)."""
    if device.type != "cpu":  # one kernel for the group; an empty tensor is left out
        held = [j for j, t in enumerate(group) if t.numel()]
        if not held:
            return [torch.zeros((), device=device)], [[]]
        return list(torch._foreach_norm([group[j] for j in held], 2.0)), [[j] for j in held]

    found: list[Tensor] = []
    covered: list[list[int]] = []
    small: list[int] = []
    size = 0
    for j, n in enumerate([t.numel() for t in group]):
        if n > FINITE_PIECE:
            found.append(group[j].sum())
            covered.append([j])
            continue
        if size + n > FINITE_PIECE:
            found.append(torch.cat([group[k].reshape(-1) for k in small]).sum())
            covered.append(small)
            small, size = [], 0
        small.append(j)
        size += n
    if small:
        found.append(torch.cat([group[k].reshape(-1) for k in small]).sum())
        covered.append(small)
    return found, covered


@torch.no_grad()
def grad_norms(grads: list[Tensor]) -> list[Tensor]:
    """The float32 2-norm of each gradient, as :func:`total_grad_norm` takes them: grouped by
    device and dtype, one ``torch._foreach_norm`` per group, in the groups' order (not
    ``grads``' order), each on the first gradient's device."""
    first = grads[0].device
    norms: list[Tensor] = []
    for (device, dtype), [group], _ in _by_device_and_dtype([grads]):
        group_norms: Sequence[Tensor]
        if dtype is torch.float32:
            group_norms = torch._foreach_norm(group, 2.0)
        elif torch.promote_types(dtype, torch.float32) is torch.float32:
            group_norms = torch._foreach_norm(group, 2.0, dtype=torch.float32)
        else:  # a float32 norm would narrow the gradient: computed in its dtype, then rounded
            group_norms = [n.to(torch.float32) for n in torch._foreach_norm(group, 2.0)]
        norms.extend(group_norms if device == first else [n.to(first) for n in group_norms])
    return norms


@torch.no_grad()
def clip_coefficient(max_norm: float, total_norm: Tensor) -> Tensor | None:
    r"""The factor that scales the gradients to a total 2-norm of at most ``max_norm``, or
    ``None`` when ``max_norm == 0`` (clipping disabled).

    .. math::
        \min\!\Big(1, \frac{c}{\lVert g \rVert + 10^{-6}}\Big)

    As ``torch.nn.utils.clip_grads_with_norm_`` computes it: a 0-dim tensor
    ``clamp(max_norm / (total_norm + 1e-6), max=1)``, so no host synchronisation is needed.
    (``clip_grad_norm_`` itself would zero every gradient for ``max_norm=0``; the reference
    semantics define 0 as "off".) Negative or non-finite ``max_norm`` is rejected;
    ``total_norm`` must come from :func:`total_grad_norm` and be finite, which the caller checks
    beforehand.
    """
    if not math.isfinite(max_norm) or max_norm < 0:
        raise ValueError(f"max_norm must be finite and >= 0, got {max_norm}")
    if max_norm == 0:
        return None
    clip_coef = float(max_norm) / (total_norm + CLIP_EPS)
    return torch.clamp(clip_coef, max=1.0)


@torch.no_grad()
def clip_gradients(grads: list[Tensor], max_norm: float, total_norm: Tensor) -> None:
    r"""Scale ``grads`` in place so that their total 2-norm is at most ``max_norm``.

    Same operations as ``torch.nn.utils.clip_grads_with_norm_``: the coefficient of
    :func:`clip_coefficient` applied with one ``torch._foreach_mul_`` (also when it is exactly
    1, which leaves the gradients unchanged). ``max_norm == 0`` returns without touching the
    gradients.
    """
    clip_coef = clip_coefficient(max_norm, total_norm)
    if clip_coef is None or not grads:
        return
    torch._foreach_mul_(grads, clip_coef.to(grads[0].device))


class NonFiniteUpdate(ArithmeticError):
    """An update that leaves (or would leave) parameters with infinite or NaN entries: a step
    refuses it as it refuses non-finite gradients."""


# --------------------------------------------------------------------------------------------
# AdamW
# --------------------------------------------------------------------------------------------


@dataclass
class AdamParamState:
    """Per-parameter AdamW state: first and second moment (same shape as the parameter).

    ``step`` is the number of AdamW updates this parameter has received (``torch.optim.AdamW``
    keeps it per parameter too, as a tensor).  It equals the session counter as long as every
    parameter has a gradient at every step.
    """

    exp_avg: Tensor
    exp_avg_sq: Tensor
    step: int = 0
    max_exp_avg_sq: Tensor | None = None
    """The maximum of the second moments over the steps with AMSGrad on (made at the first)."""


@dataclass
class MuonParamState:
    """Per-parameter Muon state: the momentum buffer (same shape as the parameter)."""

    momentum_buffer: Tensor


def adam_state(param: Tensor) -> AdamParamState:
    """Fresh AdamW state for ``param``: zero moments, as ``AdamW._init_group`` creates lazily."""
    return AdamParamState(
        exp_avg=torch.zeros_like(param, memory_format=torch.preserve_format),
        exp_avg_sq=torch.zeros_like(param, memory_format=torch.preserve_format),
    )


def muon_state(param: Tensor) -> MuonParamState:
    """Fresh Muon state for ``param``: a zero momentum buffer, as ``Muon._init_group`` creates."""
    return MuonParamState(
        momentum_buffer=torch.zeros_like(param, memory_format=torch.preserve_format)
    )


_State = TypeVar("_State", AdamParamState, MuonParamState)


def ensure_states(
    store: dict[str, _State],
    named_params: Sequence[tuple[str, Tensor]],
    init: Callable[[Tensor], _State],
) -> list[_State]:
    """The states of ``named_params`` in order, creating missing ones with ``init``.

    Call it with the parameters that have a gradient in this step: like torch's
    ``_init_group``, state then appears lazily at a parameter's first update, and parameters
    without a gradient keep their state (or lack of one) untouched.  ``init`` is
    :func:`adam_state` or :func:`muon_state`.
    """
    out: list[_State] = []
    for name, p in named_params:
        st = store.get(name)
        if st is None:
            st = store[name] = init(p)
        out.append(st)
    return out


@torch.no_grad()
def adam_update(
    params: list[Tensor],
    grads: list[Tensor],
    states: list[AdamParamState],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    clip_coef: Tensor | None = None,
    amsgrad: bool = False,
) -> None:
    """Advance each parameter's own step count by one and apply one AdamW step to ``params``,
    with the gradients first multiplied by ``clip_coef`` (:func:`clip_coefficient`) if given.
    With ``amsgrad``, the step divides by the maximum of the second moments so far (AMSGrad, as
    ``torch.optim.AdamW(amsgrad=True)``); a parameter's maximum starts at its first step with
    AMSGrad on.

    The dispatch of the two implementations, apart from their maths: the parameters are grouped
    by device and dtype (one C++ call, as torch's optimizers do), and each group goes to
    :func:`_fused_adamw` where :func:`fused_adam_supported`, else to :func:`_foreach_adamw`.
    Step counts are per parameter, as in ``torch.optim.AdamW`` (a parameter skipped in an
    earlier step because it had no gradient lags behind). ``grads`` are consumed: they hold the
    clipped gradients afterwards.
    """
    for st in states:
        st.step += 1
    if not params:
        return
    exp_avgs = [st.exp_avg for st in states]
    exp_avg_sqs = [st.exp_avg_sq for st in states]
    steps = [st.step for st in states]
    maxima: list[Tensor] = []
    if amsgrad:
        for st in states:
            if st.max_exp_avg_sq is None:
                st.max_exp_avg_sq = torch.zeros_like(st.exp_avg_sq)
            maxima.append(st.max_exp_avg_sq)
    tensors = [params, grads, exp_avgs, exp_avg_sqs, *([maxima] if amsgrad else [])]
    for (
        _,
        (group_params, group_grads, group_avgs, group_avg_sqs, *group_maxima),
        indices,
    ) in _by_device_and_dtype(tensors):
        implementation = _fused_adamw if fused_adam_supported(group_params) else _foreach_adamw
        implementation(
            group_params,
            group_grads,
            group_avgs,
            group_avg_sqs,
            group_maxima[0] if group_maxima else [],
            [steps[i] for i in indices],
            lr=lr,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            weight_decay=weight_decay,
            clip_coef=clip_coef,
        )


def fused_adam_supported(tensors: Sequence[Tensor]) -> bool:
    """Whether PyTorch's fused AdamW kernel can update ``tensors``, a group of one device and
    dtype (as :func:`adam_update` forms them; the first tensor speaks for the group): the kernel
    exists in this torch, for their device, and they are real floating-point dense tensors
    (what ``AdamW(fused=True)`` accepts)."""
    if not tensors or not hasattr(torch, "_fused_adamw_"):
        return False
    from torch.utils._foreach_utils import _get_fused_kernels_supported_devices

    first = tensors[0]
    return (
        first.device.type in _get_fused_kernels_supported_devices()
        and first.is_floating_point()
        and not first.is_complex()
        and first.layout is torch.strided
    )


def _fused_adamw(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    steps: list[int],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    clip_coef: Tensor | None,
) -> None:
    """AdamW by one call of PyTorch's fused kernel over tensors of one device and dtype, the
    clip folded in as the kernel's ``grad_scale`` (``1 / clip_coef``): the kernel reads each
    gradient once, divides it by ``grad_scale`` and writes it back so scaled.  ``steps`` are the
    parameters' new step counts; AMSGrad where ``max_exp_avg_sqs`` are given. As
    ``torch/optim/adam.py::_fused_adam``, which increments step tensors where the reference
    keeps integers."""
    device = params[0].device
    # the kernel reads each parameter's step from a float32 scalar tensor (never writes it);
    # parameters with the same count share one
    counts = {t: torch.tensor(float(t), dtype=torch.float32, device=device) for t in set(steps)}
    grad_scale = None
    if clip_coef is not None:
        grad_scale = torch.reciprocal(clip_coef.to(device=device, dtype=torch.float32))
    torch._fused_adamw_(
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        [counts[t] for t in steps],
        lr=lr,
        beta1=beta1,
        beta2=beta2,
        weight_decay=weight_decay,
        eps=eps,
        amsgrad=bool(max_exp_avg_sqs),
        maximize=False,
        grad_scale=grad_scale,
        found_inf=None,
    )


def _foreach_adamw(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    steps: list[int],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    clip_coef: Tensor | None,
) -> None:
    """AdamW where the fused kernel does not exist: the gradients scaled as
    ``clip_grads_with_norm_`` does, then one multi-tensor :func:`adam_step` per group of
    parameters with the same new step count.  Bit-identical to ``clip_grad_norm_`` +
    ``AdamW(foreach=True)``."""
    if clip_coef is not None:
        torch._foreach_mul_(grads, clip_coef.to(grads[0].device))
    by_step: dict[int, list[int]] = defaultdict(list)
    for i, t in enumerate(steps):
        by_step[t].append(i)
    for t, idx in by_step.items():
        adam_step(
            [params[i] for i in idx],
            [grads[i] for i in idx],
            [exp_avgs[i] for i in idx],
            [exp_avg_sqs[i] for i in idx],
            t,
            lr=lr,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            weight_decay=weight_decay,
            max_exp_avg_sqs=[max_exp_avg_sqs[i] for i in idx] if max_exp_avg_sqs else None,
        )


@torch.no_grad()
def adam_step(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    step: int,
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    max_exp_avg_sqs: list[Tensor] | None = None,
) -> None:
    r"""One AdamW step (Adam with decoupled weight decay) on ``params``, in place.

    ``step`` is the new step count :math:`t \ge 1` (already incremented) of every parameter in
    the call.  With :math:`\gamma` = ``lr`` and :math:`\lambda` = ``weight_decay``:

    .. math::
        \begin{aligned}
            \theta &\leftarrow \theta\,(1 - \gamma\lambda) \\
            m &\leftarrow \beta_1 m + (1-\beta_1)\,g \qquad (\text{as } \mathrm{lerp}(m, g, 1-\beta_1)) \\
            v &\leftarrow \beta_2 v + (1-\beta_2)\,g^2 \\
            \theta &\leftarrow \theta - \frac{\gamma}{1-\beta_1^t}\cdot
                \frac{m}{\sqrt{v}\,/\sqrt{1-\beta_2^t} + \epsilon}
        \end{aligned}

    With ``max_exp_avg_sqs`` (AMSGrad, Reddi et al., https://arxiv.org/abs/1904.09237), the
    maxima are raised to :math:`v` and divide in its place: :math:`\hat v \leftarrow
    \max(\hat v, v)`, then :math:`\sqrt{\hat v}` in the denominator.

    This is the operation sequence of ``torch.optim.AdamW``'s foreach path
    (``_multi_tensor_adam``, ``capturable=False``, ``maximize=False``), as
    multi-tensor ``torch._foreach_*`` ops; float32 results are bit-identical to
    ``AdamW(foreach=True)`` and to the default single-tensor CPU path. :func:`adam_update` uses
    it where the fused kernel does not exist.

    ``params``, ``grads``, ``exp_avgs`` and ``exp_avg_sqs`` are parallel lists on one device;
    ``grads`` are read only (already clipped by the caller).
    """
    if not params:
        return
    if step < 1:
        raise ValueError(f"step must be >= 1 (the incremented count), got {step}")

    # Bias corrections, as Python floats (torch reads the float step tensor with .item()).
    t = float(step)
    bias_correction1 = 1 - beta1**t
    bias_correction2 = 1 - beta2**t
    step_size = (lr / bias_correction1) * -1
    bias_correction2_sqrt = bias_correction2**0.5

    # Decoupled weight decay, before the moment updates (they do not read the parameter).
    if weight_decay != 0:
        torch._foreach_mul_(params, 1 - lr * weight_decay)

    # First and second moment running averages.
    torch._foreach_lerp_(exp_avgs, grads, 1 - beta1)
    torch._foreach_mul_(exp_avg_sqs, beta2)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)

    # denom = sqrt(v) / sqrt(1 - beta2^t) + eps   (a temporary, as in torch); with AMSGrad
    # the running maximum of v in its place
    if max_exp_avg_sqs is not None:
        torch._foreach_maximum_(max_exp_avg_sqs, exp_avg_sqs)
        denom = torch._foreach_sqrt(max_exp_avg_sqs)
    else:
        denom = torch._foreach_sqrt(exp_avg_sqs)
    torch._foreach_div_(denom, bias_correction2_sqrt)
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, exp_avgs, denom, step_size)


# --------------------------------------------------------------------------------------------
# Muon
# --------------------------------------------------------------------------------------------


@dataclass
class _NewtonSchulzScratch:
    """The bfloat16 tensors Newton-Schulz uses for matrices of one ``rows x cols`` shape, made
    once and reused matrix after matrix (torch allocates them anew for every product).

    With ``m x k`` the wide orientation (``m <= k``): ``start`` receives the matrix rounded to
    bfloat16 in its own orientation (torch's ``grad.bfloat16()``), and serves as the second
    iterate once the first product has read it; ``other`` is the first iterate; ``gram`` and
    ``poly`` hold the ``m x m`` Gram matrix ``X X^T`` and the polynomial of it.  As many
    elements as torch's temporaries of one matrix.
    """

    start: Tensor
    other: Tensor
    gram: Tensor
    poly: Tensor

    @classmethod
    def of(cls, shape: tuple[int, ...], device: torch.device) -> "_NewtonSchulzScratch":
        if len(shape) != 2:
            raise ValueError(f"expected a matrix, got shape {shape}")
        m, k = sorted(shape)
        bf16 = torch.bfloat16
        return cls(
            start=torch.empty(shape, dtype=bf16, device=device),
            other=torch.empty((m, k), dtype=bf16, device=device),
            gram=torch.empty((m, m), dtype=bf16, device=device),
            poly=torch.empty((m, m), dtype=bf16, device=device),
        )


def _newton_schulz(G: Tensor, steps: int, scratch: _NewtonSchulzScratch) -> Tensor:
    """Orthogonalise the matrix ``G`` as ``torch.optim._muon._zeropower_via_newtonschulz`` does,
    operation for operation and so bit for bit, in ``scratch``'s tensors; returns a bfloat16
    view of ``G``'s shape into them (valid until ``scratch`` is used again)."""
    a, b, c = NS_COEFFICIENTS
    rows, cols = G.shape
    m, k = min(rows, cols), max(rows, cols)
    scratch.start.copy_(G)  # G.bfloat16()
    # A matrix with more rows than columns is orthogonalised through its transpose (a view, as
    # torch's .T): the Gram matrix X X^T is then the small one.
    X = scratch.start.T if rows > cols else scratch.start
    # Spectral norm <= Frobenius norm: scale so that all singular values are <= 1 (the norm
    # taken and clamped in bfloat16, like torch's).
    X.div_(X.norm().clamp(min=NS_EPS))
    # Each product writes into a scratch tensor that the next one reads; the iterate alternates
    # between `other` and the storage of `start`, which the first product has consumed.
    iterates = (scratch.other, scratch.start.view(m, k))
    for i in range(steps):
        out = iterates[i % 2]  # never the current X, which the products below still read
        torch.mm(X, X.T, out=scratch.gram)  # A = X X^T
        torch.addmm(scratch.gram, scratch.gram, scratch.gram, beta=b, alpha=c, out=scratch.poly)
        torch.addmm(X, scratch.poly, X, beta=a, out=out)  # X = a X + (b A + c A^2) X
        X = out
    return X.T if rows > cols else X


@torch.no_grad()
def zeropower_via_newton_schulz(G: Tensor, steps: int) -> Tensor:
    r"""Approximately orthogonalise a matrix ``G`` (or every matrix of a batch (..., A, B)).

    For :math:`G = U S V^\top` this returns roughly :math:`U S' V^\top` with
    :math:`S'_{ii} \in (0.5, 1.5)`, by ``steps`` iterations of the quintic map

    .. math::
        X \leftarrow aX + (bXX^\top + c(XX^\top)^2)X,\qquad (a,b,c) = (3.4445, -4.7750, 2.0315)

    started from :math:`X_0 = G / \max(\lVert G\rVert_F, 10^{-7})`.  Exactly
    ``torch.optim.Muon``'s ``_zeropower_via_newtonschulz`` on each matrix: the iteration runs in
    bfloat16, a matrix with more rows than columns is transposed first (and back at the end),
    and the Frobenius norm is computed *in bfloat16* and clamped below at ``eps = 1e-7`` before
    dividing.  Returns a new tensor in ``G``'s dtype (the bfloat16 result, widened exactly);
    ``G`` is not modified.
    """
    if G.ndim < 2:
        raise ValueError(f"expected a (..., A, B) tensor, got shape {tuple(G.shape)}")
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    rows, cols = G.shape[-2], G.shape[-1]
    scratch = _NewtonSchulzScratch.of((rows, cols), G.device)
    result = torch.empty_like(G, memory_format=torch.contiguous_format)
    for source, target in zip(G.reshape(-1, rows, cols), result.view(-1, rows, cols)):
        target.copy_(_newton_schulz(source, steps, scratch))
    return result


class MatrixExchange(Protocol):
    """How :func:`muon_step` reaches whole matrices when this process holds only a part of each
    (sharded parameters): the element-wise work of the step stays on the parts, and each matrix
    is orthogonalised whole, so that the result is the unsharded one."""

    def shape(self, index: int) -> tuple[int, int]:
        """The whole shape of the step's ``index``-th matrix."""
        ...

    def orthogonalise(self, parts: list[Tensor], whole: Callable[[Tensor], Tensor]) -> None:
        """Replace each of ``parts`` (this process's parts of the step's matrices, in order) by
        its part of ``whole(matrix)``, where ``matrix`` is the whole matrix, in bfloat16, and
        ``whole`` returns its orthogonalisation (bfloat16; valid until ``whole`` is called with
        a matrix of that shape again)."""
        ...


def adjusted_lr(lr: float, scaling: MuonScaling, shape: tuple[int, ...]) -> float:
    r"""Muon learning rate for an ``A x B`` matrix (``torch.optim._muon._adjust_lr``).

    ``"original"`` (Keller Jordan): :math:`\gamma\sqrt{\max(1, A/B)}`.
    ``"match_adam"`` (Moonshot, torch's ``"match_rms_adamw"``): :math:`\gamma\cdot 0.2\sqrt{\max(A, B)}`,
    evaluated as ``lr * (0.2 * sqrt(max(A, B)))`` like torch.
    """
    A, B = shape[0], shape[1]
    if scaling == "original":
        ratio = math.sqrt(max(1, A / B))
    elif scaling == "match_adam":
        ratio = 0.2 * math.sqrt(max(A, B))
    else:
        raise ValueError(f"unknown Muon scaling {scaling!r}")
    return lr * ratio


@torch.no_grad()
def muon_step(
    params: list[Tensor],
    grads: list[Tensor],
    momentum_buffers: list[Tensor],
    *,
    lr: float,
    momentum: float,
    weight_decay: float,
    ns_steps: int,
    scaling: MuonScaling = "original",
    exchange: MatrixExchange | None = None,
) -> None:
    r"""One Nesterov Muon step on 2-D ``params``, in place (``torch.optim.Muon(nesterov=True)``).

    With :math:`\mu` = ``momentum``, :math:`\gamma` = ``lr``, :math:`\lambda` = ``weight_decay``:

    .. math::
        \begin{aligned}
            B &\leftarrow \mu B + (1-\mu)\,g           &&(\mathrm{lerp}(B, g, 1-\mu)) \\
            U &\leftarrow (1-\mu)\,g + \mu B           &&(\mathrm{lerp}(g, B, \mu)) \\
            O &\leftarrow \mathrm{NS}_k(U)             &&(\text{bfloat16, see } \texttt{zeropower\_via\_newton\_schulz}) \\
            \theta &\leftarrow \theta\,(1 - \gamma\lambda) \\
            \theta &\leftarrow \theta - \mathrm{adjusted\_lr}(\gamma, A, B)\; O
        \end{aligned}

    Weight decay uses the plain ``lr``; the update uses :func:`adjusted_lr`.  The element-wise
    work is multi-tensor (``torch._foreach_*``); each matrix is orthogonalised on its own, by
    the same operations as torch's (see the module's docstring), in scratch tensors shared by
    the matrices of one shape, so the results are bit-identical to torch's.  The bfloat16
    orthogonalised update is widened exactly into the update's storage and added to the
    parameter, as torch's ``p.add_(update)`` computes it.  ``grads`` are overwritten (with the
    Nesterov update :math:`U`, then the widened orthogonalised update; the caller clears them
    after the step), so that no full-size copy of the gradients is made.

    With an ``exchange``, the tensors are this process's parts of sharded matrices: the
    element-wise work is done on the parts, and the exchange has each matrix orthogonalised
    whole (gathered in bfloat16, which is what Newton-Schulz rounds it to first) and hands back
    the parts, so that they are updated exactly as the whole matrices would be; the learning
    rate is adjusted to the whole shape.
    """
    if not params:
        return
    for p in params:
        if p.ndim != 2:
            raise ValueError(f"Muon only handles 2-D parameters, got shape {tuple(p.shape)}")
    if ns_steps < 1:
        raise ValueError(f"ns_steps must be >= 1, got {ns_steps}")
    for i, p in enumerate(params):
        shape = exchange.shape(i) if exchange is not None else tuple(p.shape)
        alpha = adjusted_lr(lr, scaling, shape)
        if not abs(alpha) <= torch.finfo(p.dtype).max:  # torch's add_ would refuse the alpha
            raise NonFiniteUpdate(
                f"the update would leave parameters non-finite: its learning rate {alpha:g} "
                f"is beyond the range of {p.dtype}"
            )

    torch._foreach_lerp_(momentum_buffers, grads, 1 - momentum)
    # The Nesterov update, in the gradients' own storage (no copy of every gradient at once).
    torch._foreach_lerp_(grads, momentum_buffers, momentum)
    updates = grads

    if weight_decay != 0:
        torch._foreach_mul_(params, 1 - lr * weight_decay)

    if exchange is not None:
        scratches: dict[tuple[int, ...], _NewtonSchulzScratch] = {}

        def whole(G: Tensor) -> Tensor:
            shape = tuple(G.shape)
            if shape not in scratches:
                scratches[shape] = _NewtonSchulzScratch.of(shape, G.device)
            return _newton_schulz(G, ns_steps, scratches[shape])

        exchange.orthogonalise(updates, whole)  # each part widened (exactly) in place
        del scratches
        for i, update in enumerate(updates):
            params[i].add_(update, alpha=-adjusted_lr(lr, scaling, exchange.shape(i)))
        return
    by_shape: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for i, u in enumerate(updates):
        by_shape[tuple(u.shape)].append(i)
    for shape, idx in by_shape.items():
        # One shape's scratch tensors at a time: the peak is that of the largest matrix alone.
        scratch = _NewtonSchulzScratch.of(shape, updates[idx[0]].device)
        alpha = -adjusted_lr(lr, scaling, shape)
        for i in idx:
            # Widened (exactly) into the storage the update came from, which is free again:
            # adding it to the parameter then needs no temporary copy in the parameter's dtype.
            updates[i].copy_(_newton_schulz(updates[i], ns_steps, scratch))
            params[i].add_(updates[i], alpha=alpha)
        del scratch
