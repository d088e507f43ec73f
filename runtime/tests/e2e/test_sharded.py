"""The parity certificate of the reference on sharded parameters (torch.distributed, FSDP2 and
DTensor), on two gloo ranks on the CPU.

Two processes forked from the test process (so that neither imports torch again) run every check
in one go, and each test below reads what they found:

* **Parity.** A session over the sharded copy of a model and a session over the whole model take
  the same gradients and the same requests, clipping on, for ``STEPS`` steps, with Adam (AMSGrad
  on one sharding) and with Muon (Adam for the rest), over three shardings: FSDP2's rows
  (``Shard(0)``, uneven where a dimension is odd), FSDP2 with matrices sharded by columns
  (``Shard(1)``) and HSDP on a 2 x 1 mesh (replicated over the two ranks). After every step the
  gathered sharded parameters are compared with the whole ones.
* **Refused steps** (a NaN in one rank's shard only, an invalid request, an update that raises on
  one rank only) leave every rank's shards, gradients, optimizer state and counter unchanged.
* **Checkpoints.** A state saved by one process loads into two ranks, and one saved by two ranks
  loads into one process, and each continues as the original.
* **The server under torchrun**, started in the two ranks as torchrun starts it (its
  environment): rank 0 serves HTTP, every step runs on both, and the state it saves is the
  single-process server's.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import signal
import socket
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.distributed as dist
from torch import Tensor, nn

from support import facts
from support.facts import NEWEST
from support.optimizers import (
    ADAM,
    MUON,
    TinyLM,
    adam_body,
    backward,
    muon_body,
    twin_models,
    ulp_of_magnitude,
)
from support.packages import load, reference
from together_rl_runtime import UNSET
from together_rl_runtime.reference._sharded import is_sharded

pytestmark = pytest.mark.skipif(
    not (dist.is_available() and hasattr(os, "fork")), reason="needs torch.distributed and fork"
)

torch.set_num_threads(1)

WORLD = 2
STEPS = 4
CLIP = 0.5
SCALE = 8.0
"""The gradients' scale: their norm is well above CLIP, so that every step clips."""
SHARDINGS = ("fsdp2 rows", "fsdp2 columns", "hsdp 2x1")
KINDS = ("adam", "muon")

# What the parity certificate holds, per element after every step (the figures measured are in
# the assertion messages; README.md gives them):
ADAM_ULPS = 4
"""Adam: ULPs of the parameter's magnitude, as the unsharded reference holds to AdamW
(test_reference.ADAM_ULPS). Each rank runs the same fused kernel on its shard as the whole
session runs on the whole tensor, so an element can only differ through the clip coefficient,
whose total norm is added up in another order (1 ULP of the norm measured): the clipped gradient
then differs by an ULP, and the update ``lr * m / (sqrt(v) + eps)`` by a few ULPs of ``lr``,
which is a few ULPs of a parameter as small as ``lr`` (a bias after its first step). Without
clipping every element is bit for bit."""
MUON_ROUNDINGS = 4
"""Muon: bfloat16 roundings (2^-8) of the largest update, that is ``lr * sqrt(max(1, A/B))``
times the largest element of the orthogonalised update. The whole matrix is orthogonalised by
the same operations as unsharded, so only a clip coefficient an ULP off can move an element of
its bfloat16 input across a rounding boundary; the five Newton-Schulz iterations carry that
rounding on, each scaling a small perturbation by up to its linear coefficient (3.4445), and
where the bfloat16 products round depends on the CPU's kernels. Measured on the first step of
``fsdp2 rows``: at most 1 on an Intel Xeon, 2.75 on an AMD EPYC (the norm 1 ULP off); an update
wrong by its own size is 256."""

_MESHES: dict[str, Any] = {}


def _mesh(sharding: str) -> Any:
    from torch.distributed.device_mesh import init_device_mesh

    if sharding not in _MESHES:
        shape, names = ((2, 1), ("replicate", "shard")) if sharding == "hsdp 2x1" else ((2,), None)
        _MESHES[sharding] = init_device_mesh("cpu", shape, mesh_dim_names=names)
    return _MESHES[sharding]


def shard(model: nn.Module, sharding: str) -> nn.Module:
    """Shard ``model`` over the two ranks as ``sharding`` says."""
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor import Shard

    mesh = _mesh(sharding)
    if sharding == "fsdp2 columns":
        fully_shard(
            model, mesh=mesh, shard_placement_fn=lambda p: Shard(1) if p.ndim == 2 else Shard(0)
        )
    else:
        fully_shard(model, mesh=mesh)
    return model


def same_gradients(sharded: nn.Module, whole: nn.Module) -> None:
    """The whole model's gradients, placed as the sharded model's parameters."""
    from torch.distributed.tensor import distribute_tensor

    for p, q in zip(sharded.parameters(), whole.parameters()):
        p.grad = distribute_tensor(q.grad, p.device_mesh, p.placements, src_data_rank=None)


def defaults(kind: str, amsgrad: bool = False) -> dict[str, Any]:
    if kind == "adam":
        return {**ADAM, "amsgrad": amsgrad}
    return {**MUON, **{f"adam_{k}": v for k, v in ADAM.items()}, "adam_amsgrad": amsgrad}


def body(kind: str, clip: float = CLIP) -> dict[str, Any]:
    return adam_body(NEWEST, clip) if kind == "adam" else muon_body(NEWEST, clip, {})


def muon_handled(name: str, param: Tensor) -> bool:
    return param.ndim == 2 and "embed" not in name and "lm_head" not in name


def ulp(t: Tensor) -> float:
    """The float32 spacing at the tensor's largest magnitude."""
    return 2.0 ** (math.floor(math.log2(t.abs().max().item())) - 23)


def code(operation: Any) -> str:
    """The error code's last words (``INVALID_INPUT``), or "" for a completed step."""
    if operation.output is not UNSET:
        return ""
    return str(operation.error.code).rpartition("_CODE_")[2]


# -- what each rank does ----------------------------------------------------------------------------


def parity(rank: int) -> dict[str, Any]:
    """Per sharding and kind, per step: how far the sharded parameters are from the whole ones
    (Adam: in ULPs; Muon: in bfloat16 roundings of the largest update) and the total norm's
    difference in ULPs."""
    from together_rl_runtime.reference import _optim

    module = reference(NEWEST)
    found: dict[str, Any] = {}
    for sharding in SHARDINGS:
        for kind in KINDS:
            amsgrad = kind == "adam" and sharding == "fsdp2 columns"
            whole, copy = twin_models()
            sharded = shard(copy, sharding)
            ours = module.LocalSession(sharded, kind, **defaults(kind, amsgrad))
            theirs = module.LocalSession(whole, kind, **defaults(kind, amsgrad))
            placements = sorted({str(p.placements) for p in sharded.parameters()})
            steps = []
            for step in range(STEPS):
                backward(whole, step, SCALE)
                same_gradients(sharded, whole)
                named = [(n, p) for n, p in sharded.named_parameters() if p.grad is not None]
                norm = ours._sharding.total_grad_norm(
                    [n for n, _ in named], [p.grad for _, p in named]
                )
                expected = _optim.total_grad_norm([p.grad for p in whole.parameters()])
                a, b = ours.optim_step(body(kind)), theirs.optim_step(body(kind))
                assert (code(a), code(b)) == ("", ""), (a, b)
                adam_ulps = muon_roundings = 0.0
                for (name, p), q in zip(sharded.named_parameters(), whole.parameters()):
                    error = (p.full_tensor() - q).abs().max().item()
                    if kind == "muon" and muon_handled(name, q):
                        rows, cols = q.shape
                        largest = MUON["learning_rate"] * math.sqrt(max(1, rows / cols))
                        muon_roundings = max(muon_roundings, error / (largest * 2.0**-8))
                    else:
                        adam_ulps = max(adam_ulps, error / ulp(q))
                steps.append(
                    {
                        "norm_ulps": abs(norm.item() - expected.item()) / ulp(expected),
                        "clipped": expected.item() > CLIP,
                        "adam_ulps": adam_ulps,
                        "muon_roundings": muon_roundings,
                    }
                )
            found[f"{sharding} {kind}"] = {
                "steps": steps,
                "placements": placements,
                "amsgrad": amsgrad,
                "step": ours.step,
            }
    return found


ODD_SHAPES = [((1, 16), 0), ((3, 5), 1), ((5, 3), 1), ((7, 2), 0), ((2, 9), 1), ((16, 1), 0)]
"""Matrices and the dimension each is sharded along: a shard of none of a matrix's rows, shards
of unequal sizes along either dimension, wide and tall."""


Pairs = list[tuple[str, nn.Parameter]]


def stepped_unclipped(
    kind: str, shapes: list[Any], steps: int, seed: int, **settings: Any
) -> tuple[Pairs, Pairs]:
    """A session of ``kind`` over a tensor of each of ``shapes`` sharded by rows or columns as
    each says, and the whole session beside it, after ``steps`` steps without clipping on the
    same gradients: the sharded parameters and the whole ones."""
    from torch.distributed.tensor import Shard, distribute_tensor

    module = reference(NEWEST)
    mesh = _mesh("fsdp2 rows")
    torch.manual_seed(seed)
    whole = [(f"t{i}", nn.Parameter(torch.randn(shape))) for i, (shape, _) in enumerate(shapes)]
    sharded = [
        (name, nn.Parameter(distribute_tensor(p.detach(), mesh, [Shard(d)], src_data_rank=None)))
        for (name, p), (_, d) in zip(whole, shapes)
    ]
    ours = module.LocalSession(sharded, kind, **settings)
    theirs = module.LocalSession(whole, kind, **settings)
    for _ in range(steps):
        grads = [torch.randn(shape) for shape, _ in shapes]
        for (_, p), (_, q), g in zip(sharded, whole, grads):
            q.grad = g.clone()
            p.grad = distribute_tensor(g, mesh, p.placements, src_data_rank=None)
        assert code(ours.optim_step(body(kind, 0.0))) == ""
        assert code(theirs.optim_step(body(kind, 0.0))) == ""
    return sharded, whole


def odd_shapes(rank: int) -> dict[str, Any]:
    """Muon on every matrix of ODD_SHAPES, each matrix orthogonalised by its owner: after two
    steps without clipping, bit for bit the whole session's; the shards' shapes."""
    every = {"muon_filter": lambda name, param: True, **defaults("muon")}
    sharded, whole = stepped_unclipped("muon", ODD_SHAPES, 2, 3, **every)
    return {
        "equal": [torch.equal(p.full_tensor(), q) for (_, p), (_, q) in zip(sharded, whole)],
        "shards": [list(p.to_local().shape) for _, p in sharded],
    }


ADAM_SHAPES = [*ODD_SHAPES, ((13, 51), 0), ((51,), 0)]
"""ODD_SHAPES and a weight and a bias whose shards are not a multiple of a vector's width."""


def adam_unclipped(rank: int) -> dict[str, Any]:
    """Adam on every tensor of ADAM_SHAPES, four steps without clipping: each tensor's largest
    difference from the whole session's, in float32 ULPs of the tensor's magnitude."""
    sharded, whole = stepped_unclipped("adam", ADAM_SHAPES, 4, 4, **defaults("adam"))
    return {
        "ulps": [
            (p.full_tensor() - q).abs().max().item() / ulp_of_magnitude(q)
            for (_, p), (_, q) in zip(sharded, whole)
        ]
    }


def refusals(rank: int) -> dict[str, Any]:
    """Four refused steps on a Muon session over rows: their codes on this rank, and whether
    this rank's shards, gradients, state and counter are as they were."""
    from together_rl_runtime.reference import _optim

    module = reference(NEWEST)
    whole, copy = twin_models()
    sharded = shard(copy, "fsdp2 rows")
    session = module.LocalSession(sharded, "muon", rollback=True, **defaults("muon"))
    backward(whole, 0, SCALE)
    same_gradients(sharded, whole)
    assert code(session.optim_step(body("muon"))) == ""
    backward(whole, 1, SCALE)

    def snapshot() -> list[Tensor]:
        tensors = [p.to_local().clone() for p in sharded.parameters()]
        tensors += [p.grad.to_local().clone() for p in sharded.parameters()]
        states = session._optimizers.states
        for state in states["adam"].values():
            tensors += [state.exp_avg.clone(), state.exp_avg_sq.clone()]
        tensors += [s.momentum_buffer.clone() for s in states["muon"].values()]
        return tensors

    def unchanged(before: list[Tensor]) -> bool:
        after = snapshot()
        return len(before) == len(after) and all(
            torch.equal(a.view(torch.int32), b.view(torch.int32)) for a, b in zip(before, after)
        )

    found: dict[str, Any] = {}
    same_gradients(sharded, whole)
    if rank == 1:  # in one rank's shard only
        sharded.blocks[0].q.weight.grad.to_local()[0, 0] = float("nan")
    before = snapshot()
    operation = session.optim_step(body("muon"))
    found["nan on rank 1"] = (code(operation), unchanged(before), session.step)

    same_gradients(sharded, whole)
    before = snapshot()
    invalid = facts.body(NEWEST, "muon", {"adam.beta1": 1.5})
    operation = session.optim_step(invalid)
    found["invalid"] = (code(operation), unchanged(before), session.step)

    real = _optim.adam_update

    def with_update_on_rank_1(update: Callable[..., None]) -> tuple[str, bool, int]:
        """A step whose Adam update is ``update`` on rank 1: its code, whether this rank is as
        it was, and the step counter."""
        _optim.adam_update = update if rank == 1 else real
        try:
            operation = session.optim_step(body("muon"))
        finally:
            _optim.adam_update = real
        return code(operation), unchanged(before), session.step

    def fails(*args: Any, **kwargs: Any) -> None:
        raise MemoryError("no memory left on rank 1")

    def overflows(params: list[Tensor], *args: Any, **kwargs: Any) -> None:
        real(params, *args, **kwargs)
        next(p for p in params if p.numel()).view(-1)[0] = float("inf")

    found["update raises on rank 1"] = with_update_on_rank_1(fails)
    found["update non-finite on rank 1"] = with_update_on_rank_1(overflows)
    found["then a step"] = (code(session.optim_step(body("muon"))), session.step)
    return found


def checkpoints(rank: int, folder: Path, saved_whole: dict[str, Any]) -> dict[str, Any]:
    """Load the checkpoint the test process saved into two ranks, compare, continue one step and
    save it from both."""
    from together_rl_runtime.reference.distributed import load_checkpoint, save_checkpoint

    module = reference(NEWEST)
    torch.manual_seed(2)  # other values than the saved ones
    sharded = shard(TinyLM(), "fsdp2 rows")
    session = module.LocalSession(sharded, "muon", **defaults("muon"))
    load_checkpoint(session, folder / "one")
    state = session.state_dict()
    found = {
        "step": state["step"],
        "operations": state["operations"] == saved_whole["operations"],
        "parameters": all(
            torch.equal(state["parameters"][n].full_tensor(), t)
            for n, t in saved_whole["parameters"].items()
        ),
        "optimizer state": all(
            torch.equal(state[kind][n][key].full_tensor(), t)
            for kind in ("adam", "muon")
            for n, tensors in saved_whole[kind].items()
            for key, t in tensors.items()
            if isinstance(t, Tensor)
        )
        and set(state["adam"]) == set(saved_whole["adam"])
        and set(state["muon"]) == set(saved_whole["muon"]),
    }
    whole = continue_whole(saved_whole)
    same_gradients(sharded, whole)
    assert code(session.optim_step(body("muon", clip=0.0))) == ""
    found["continues"] = all(
        torch.equal(p.full_tensor(), q) for p, q in zip(sharded.parameters(), whole.parameters())
    )
    save_checkpoint(session, folder / "two")
    return found


def continue_whole(saved: dict[str, Any]) -> nn.Module:
    """A whole session restored from ``saved``, after one more step without clipping; its model
    keeps that step's gradients."""
    session, whole = whole_session()
    session.load_state_dict(saved)
    backward(whole, 3, SCALE)
    grads = [p.grad.clone() for p in whole.parameters()]
    assert code(session.optim_step(body("muon", clip=0.0))) == ""
    for p, grad in zip(whole.parameters(), grads):
        p.grad = grad
    return whole


def saved_after_one_more_step(saved: dict[str, Any]) -> dict[str, Any]:
    session, whole = whole_session()
    session.load_state_dict(saved)
    backward(whole, 3, SCALE)
    assert code(session.optim_step(body("muon", clip=0.0))) == ""
    return session.state_dict()


def served(rank: int, port: int, http_port: int, folder: Path) -> dict[str, Any]:
    """The reference server as torchrun starts it: rank 0 serves until SIGINT (the process
    group on ``port``)."""
    os.environ.update(
        RANK=str(rank),
        LOCAL_RANK=str(rank),
        WORLD_SIZE=str(WORLD),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        TORCHELASTIC_RUN_ID="test",
    )
    load(NEWEST)
    from importlib import import_module

    serve = import_module(f"together_rl_{NEWEST}.reference.serve")
    arguments = ["--port", str(http_port), "--optimizer", "muon", "--state-dir", str(folder)]
    return {"exit": serve.main(arguments)}


def taken_back(rank: int, port: int) -> dict[str, Any]:
    """Rank 0's sessions under torchrun (the class the server runs them with), without HTTP: a
    step whose record cannot be written is taken back on both ranks, and the session steps on
    as one process would."""
    from together_rl_runtime.reference import distributed

    os.environ.update(MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(WORLD))
    found: dict[str, Any] = {}

    def scenario(argv: list[str], *, session_class: Any, prog: str) -> int:
        model, loss = distributed.demo_model(0)
        session = session_class(model, "muon", rollback=True)

        def gradients() -> None:
            torch.autograd.backward(loss())

        def written(record: Any) -> None:
            pass

        def full(record: Any) -> None:
            raise OSError("no space left on the device")

        session.optim_step(facts.required_body(NEWEST), gradients=gradients, commit=written)
        before = session.state_dict()  # gathered whole from both ranks
        try:
            session.optim_step(facts.required_body(NEWEST), gradients=gradients, commit=full)
        except OSError:
            found["raised"] = True
        after = session.state_dict()
        found["unchanged"] = after["step"] == before["step"] == 1 and all(
            torch.equal(after["parameters"][n], t) for n, t in before["parameters"].items()
        )
        session.optim_step(facts.required_body(NEWEST), gradients=gradients, commit=written)
        whole_model, whole_loss = distributed.demo_model(0)
        whole = reference(NEWEST).LocalSession(whole_model, "muon", rollback=True)
        for _ in range(2):
            whole.optim_step(
                facts.required_body(NEWEST), gradients=lambda: torch.autograd.backward(whole_loss())
            )
        ours, theirs = session.state_dict(), whole.state_dict()
        found["continues"] = ours["step"] == theirs["step"] == 2 and all(
            torch.allclose(ours["parameters"][n], t, atol=1e-7)
            for n, t in theirs["parameters"].items()
        )
        return 0

    code = distributed.serve_ranks(
        ["--device", "cpu"],
        session_class=reference(NEWEST).LocalSession,
        prog="test",
        serve=scenario,
    )
    return {"exit": code, **found}


def ranks_main(rank: int, ports: list[int], folder: Path, saved: dict[str, Any], out: Any) -> None:
    """One rank: every check, its findings (or its traceback) put on ``out``."""
    found: dict[str, Any] = {}
    try:
        torch.set_num_threads(1)
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(ports[0]))
        dist.init_process_group("gloo", rank=rank, world_size=WORLD)
        for check, run in [
            ("parity", lambda: parity(rank)),
            ("odd shapes", lambda: odd_shapes(rank)),
            ("adam unclipped", lambda: adam_unclipped(rank)),
            ("refusals", lambda: refusals(rank)),
            ("checkpoints", lambda: checkpoints(rank, folder, saved)),
        ]:
            found[check] = run()
        dist.destroy_process_group()
        _MESHES.clear()
        out.put((rank, "ready", None))
        found["server"] = served(rank, ports[1], ports[2], folder / "served")
        out.put((rank, "served", None))
        found["restarted"] = served(rank, ports[3], ports[2], folder / "served")
        found["taken back"] = taken_back(rank, ports[4])
        out.put((rank, "found", json.dumps(found)))
    except BaseException:
        out.put((rank, "failed", traceback.format_exc()))
    finally:
        os._exit(0)


# -- the test process -------------------------------------------------------------------------------


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def whole_session(seed: int = 1) -> tuple[Any, nn.Module]:
    torch.manual_seed(seed)
    model = TinyLM()
    return reference(NEWEST).LocalSession(model, "muon", **defaults("muon")), model


def post(port: int, session: str, data: dict[str, Any], key: str | None = None) -> Any:
    import http.client

    headers = {"Content-Type": "application/json", **facts.required_headers(NEWEST)}
    if key is not None:
        headers["Idempotency-Key"] = key
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("POST", facts.path(NEWEST, session), json.dumps(data), headers)
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


SERVED_REQUESTS: list[tuple[str, str, str | None]] = [
    ("a", "plain", "first"),
    ("a", "plain", "first"),  # the same key: no second step
    ("b", "plain", None),
    ("a", "invalid", None),
    ("a", "plain", None),
]


def served_requests() -> list[tuple[str, dict[str, Any], str | None]]:
    """The requests of SERVED_REQUESTS: a plain step sets nothing but what the revision
    requires; an invalid one a momentum out of its range."""
    bodies = {
        "plain": facts.required_body(NEWEST),
        "invalid": facts.body(NEWEST, "muon", {"muon.momentum": 1.5}),
    }
    return [(session, bodies[data], key) for session, data, key in SERVED_REQUESTS]


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    """Fork two ranks that run every check; their findings, and the test process's own."""
    import torch._dynamo  # noqa: F401  (fully_shard imports it: seconds, once, before forking)
    from torch.distributed.checkpoint import state_dict_loader, state_dict_saver  # noqa: F401
    from torch.distributed.device_mesh import init_device_mesh  # noqa: F401
    from torch.distributed.fsdp import fully_shard  # noqa: F401

    import together_rl_runtime.reference.distributed  # noqa: F401
    from together_rl_runtime.reference.distributed import save_checkpoint

    load(NEWEST)
    for kind in KINDS:  # built before forking: the ranks inherit them
        body(kind), body(kind, 0.0)
    served_requests()
    folder = tmp_path_factory.mktemp("sharded")
    session, model = whole_session()
    for step in range(3):
        backward(model, step, SCALE)
        assert code(session.optim_step(body("muon"))) == ""
    save_checkpoint(session, folder / "one")
    saved = session.state_dict()

    context = multiprocessing.get_context("fork")
    out = context.SimpleQueue()
    ports = free_ports(5)
    processes = [
        context.Process(target=ranks_main, args=(rank, ports, folder, saved, out), daemon=True)
        for rank in range(WORLD)
    ]
    for process in processes:
        process.start()
    found: dict[int, Any] = {}
    answers: list[Any] = []
    try:
        _every_rank_says("ready", out, processes)  # the checks, then the server is up
        answers = _talk_to(ports[2], served_requests())
        os.kill(processes[0].pid, signal.SIGINT)  # rank 0 stops serving, the others follow
        _every_rank_says("served", out, processes)
        # started again over the same state folder: the sessions continue where they stopped
        plain = facts.required_body(NEWEST)
        answers += _talk_to(ports[2], [("a", plain, None), ("a", plain, "first")])
        os.kill(processes[0].pid, signal.SIGINT)
        found = {
            rank: json.loads(payload)
            for rank, payload in _every_rank_says("found", out, processes).items()
        }
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    return {"ranks": found, "answers": answers, "folder": folder}


def _every_rank_says(word: str, out: Any, processes: list[Any]) -> dict[int, Any]:
    """Each rank's next word, which must be ``word``: the payloads by rank. Where one rank says
    otherwise, or says nothing, the others' words are awaited too (a rank that a failed one
    leaves in a collective fails in turn, or ends), and the error gives every rank's word or how
    its process ended: the first rank to fail is not always the one whose fault it is."""
    said: dict[int, tuple[str, Any]] = {}
    failed = False
    silence = None  # why the words stopped coming, where they did
    while len(said) < WORLD:
        try:
            rank, kind, payload = _get(out, processes, 30 if failed else 120)
        except AssertionError as exc:
            silence = str(exc)
            break
        said[rank] = (kind, payload)
        failed = failed or kind != word
    if not failed and silence is None:
        return {rank: payload for rank, (_, payload) in said.items()}
    lines = [f"the ranks did not all say {word!r}:"]
    for rank, process in enumerate(processes):
        if rank in said:
            lines.append(f"rank {rank} said {said[rank][0]!r}:\n{said[rank][1]}")
        else:
            code = process.exitcode
            ended = (
                "is still running"
                if code is None
                else (
                    f"ended by signal {-code} ({signal.strsignal(-code)}) without a word"
                    if code < 0
                    else f"ended with exit code {code} without a word"
                )
            )
            lines.append(f"rank {rank} (pid {process.pid}) {ended}")
    if silence is not None and any(p.is_alive() for p in processes):
        lines.append(silence)  # the time the words are awaited ran out
    raise AssertionError("\n".join(lines))


def _get(out: Any, processes: list[Any], timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not out.empty():
            return out.get()
        if not any(p.is_alive() for p in processes):
            time.sleep(0.2)
            if out.empty():
                raise AssertionError("the ranks ended without a word")
        time.sleep(0.02)
    raise AssertionError("the ranks did not answer in time")


def _talk_to(port: int, requests: list[tuple[str, dict[str, Any], str | None]]) -> list[Any]:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    return [post(port, session, data, key) for session, data, key in requests]


# -- the certificate --------------------------------------------------------------------------------


@pytest.mark.parametrize("sharding", SHARDINGS)
@pytest.mark.parametrize("kind", KINDS)
def test_sharded_steps_equal_the_whole_ones(ranks, sharding, kind):
    """After every step, clipping on, the gathered shards equal the whole session's parameters
    within ADAM_ULPS (Adam, and the parameters Adam handles in a Muon session) and
    MUON_ROUNDINGS (the matrices Muon handles), on both ranks."""
    for rank, found in ranks["ranks"].items():
        run = found["parity"][f"{sharding} {kind}"]
        assert run["step"] == STEPS
        for step, figures in enumerate(run["steps"], 1):
            where = f"rank {rank}, {sharding} {kind}, step {step}: {figures}"
            assert figures["clipped"], where
            assert figures["adam_ulps"] <= ADAM_ULPS, where
            assert figures["muon_roundings"] <= MUON_ROUNDINGS, where


def test_muon_shards_of_any_size_along_either_dimension_are_stepped_bit_for_bit(ranks):
    """Among them a shard with none of a matrix's rows, on rank 1."""
    shards = {0: [[1, 16], [3, 3], [5, 2], [4, 2], [2, 5], [8, 1]]}
    shards[1] = [[0, 16], [3, 2], [5, 1], [3, 2], [2, 4], [8, 1]]
    for rank, found in ranks["ranks"].items():
        assert found["odd shapes"] == {"equal": [True] * len(ODD_SHAPES), "shards": shards[rank]}


def test_adam_shards_of_any_size_without_clipping_are_within_an_ulp(ranks):
    """docs/reference.md: without clipping a sharded Adam step is the whole one's within 1 ULP
    of the parameter's magnitude (the fused kernel's vector body and its scalar tail round
    ``lr * m / (sqrt(v) + eps)`` differently, and a shard's start moves which elements fall in
    the tail), not bit for bit."""
    for rank, found in ranks["ranks"].items():
        ulps = found["adam unclipped"]["ulps"]
        assert len(ulps) == len(ADAM_SHAPES) and max(ulps) <= 1, (rank, ulps)


def test_the_shardings_are_the_ones_named(ranks):
    run = ranks["ranks"][0]["parity"]
    assert "(Shard(dim=0),)" in run["fsdp2 rows adam"]["placements"]
    assert "(Shard(dim=1),)" in run["fsdp2 columns muon"]["placements"]
    assert run["hsdp 2x1 muon"]["placements"] == ["(Replicate(), Shard(dim=0))"]
    assert run["fsdp2 columns adam"]["amsgrad"]


def test_a_refused_step_leaves_every_rank_as_it_was(ranks):
    """A NaN in one rank's shard is seen by both (the norm is global); an invalid request is
    refused by both; an update that raises on one rank, or leaves a parameter's shard
    non-finite there, is rolled back on both. Each leaves
    every rank's shards, gradients, optimizer state and counter as they were, and the session
    steps on afterwards."""
    for rank, found in ranks["ranks"].items():
        checks = found["refusals"]
        assert checks["nan on rank 1"] == ["NON_FINITE_LOSS", True, 1], rank
        assert checks["invalid"] == ["INVALID_INPUT", True, 1], rank
        assert checks["update raises on rank 1"] == ["INTERNAL_ERROR", True, 1], rank
        assert checks["update non-finite on rank 1"] == ["NON_FINITE_LOSS", True, 1], rank
        assert checks["then a step"] == ["", 2], rank


def test_a_checkpoint_of_one_process_loads_into_two_ranks_and_back(ranks):
    from together_rl_runtime.reference.distributed import load_checkpoint

    for rank, found in ranks["ranks"].items():
        assert found["checkpoints"] == {
            "step": 3,
            "operations": True,
            "parameters": True,
            "optimizer state": True,
            "continues": True,
        }, rank
    # the state the two ranks saved after their step, loaded into one process, is the state of
    # the whole session after the same step
    session, model = whole_session()
    for step in range(3):
        backward(model, step, SCALE)
        session.optim_step(body("muon"))
    session.load_state_dict(saved_after_one_more_step(session.state_dict()))
    expected = session.state_dict()
    loaded, _model = whole_session(seed=5)
    load_checkpoint(loaded, ranks["folder"] / "two")
    state = loaded.state_dict()
    assert state["step"] == expected["step"] == 4
    for kind in ("parameters", "adam", "muon"):
        assert set(state[kind]) == set(expected[kind])
    assert all(torch.equal(state["parameters"][n], t) for n, t in expected["parameters"].items())
    for name, tensors in expected["muon"].items():
        assert torch.equal(state["muon"][name]["momentum_buffer"], tensors["momentum_buffer"])
    for name, tensors in expected["adam"].items():
        assert state["adam"][name]["step"] == tensors["step"]
        assert torch.equal(state["adam"][name]["exp_avg_sq"], tensors["exp_avg_sq"])


def test_the_server_under_torchrun_serves_from_rank_0_and_steps_on_both(ranks):
    """Rank 0 answers; an idempotent repeat applies no second step; each session steps on its
    own; started again over its state folder, the server continues (steps and idempotency keys,
    from rank 0's journal, the steps run again on both ranks); the snapshot rank 0 writes holds
    whole tensors, equal to what one process computes."""
    answers = ranks["answers"]
    steps = [a.get("output", {}).get("step") for a in answers]
    assert steps == [facts.step(NEWEST, n) if n else None for n in (1, 1, 1, 0, 2, 3, 1)], answers
    assert answers[0]["id"] == answers[1]["id"] == answers[6]["id"]  # the key, after a restart
    assert answers[3]["error"]["code"].endswith("INVALID_INPUT")
    for found in ranks["ranks"].values():
        assert found["server"]["exit"] == found["restarted"]["exit"] == 0

    # the same requests to one process over the same model
    from together_rl_runtime.reference.distributed import demo_model

    module = reference(NEWEST)
    model, loss = demo_model(0)
    session = module.LocalSession(model, "muon", rollback=True)
    for data in [facts.required_body(NEWEST)] * 2:
        session.optim_step(data, gradients=lambda: torch.autograd.backward(loss()))
    session.optim_step(
        facts.required_body(NEWEST), gradients=lambda: torch.autograd.backward(loss())
    )  # after restart
    from together_rl_runtime.reference._store import _snapshots, session_folder

    (newest, path), *_ = _snapshots(session_folder(ranks["folder"] / "served", "a"))
    state = torch.load(path, weights_only=True)["state"]  # written whole, at the shutdown
    assert state["step"] == 3
    for name, value in session.state_dict()["parameters"].items():
        assert not is_sharded(state["parameters"][name])
        assert torch.allclose(state["parameters"][name], value, atol=1e-7)


def test_a_step_rank_0_cannot_record_is_taken_back_on_every_rank(ranks):
    assert ranks["ranks"][0]["taken back"] == {
        "exit": 0,
        "raised": True,
        "unchanged": True,
        "continues": True,
    }
    assert ranks["ranks"][1]["taken back"] == {"exit": 0}


def test_the_readme_torchrun_command_serves_from_two_processes_on_the_cpu(tmp_path):
    """The README's torchrun command on the CPU, as it is written (but for a free port and a
    state folder), in the newest revision's package folder: rank 0 answers, steps count up on
    both ranks, and Ctrl-C (SIGINT to the process group) stops every process; started again,
    the server applies its journal's steps again on both ranks and continues. Rank 0 alone holds
    the state folder: another server on it refuses to start, naming rank 0's pid."""
    import re
    import shlex
    import subprocess
    import sys

    from support.packages import GENERATED
    from support.paths import ROOT

    (line,) = [
        line
        for line in (ROOT / "README.md").read_text().splitlines()
        if line.startswith("torchrun ") and "--device cpu" in line
    ]
    arguments = shlex.split(line)
    arguments[arguments.index("--port") + 1] = "0"
    arguments += ["--state-dir", str(tmp_path / "state")]
    environment = {k: v for k, v in os.environ.items() if k != "TOGETHER_API_KEY"}
    steps = []
    for requests in (3, 1):
        process = subprocess.Popen(
            [sys.executable, "-m", "torch.distributed.run", *arguments[1:]],
            cwd=GENERATED / NEWEST,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=environment,
            start_new_session=True,
        )
        try:
            banner = process.stdout.readline()
            match = re.search(r"http://[\d.]+:(\d+)", banner)
            assert match is not None, banner
            port = int(match.group(1))
            plain = facts.required_body(NEWEST)
            steps += [post(port, "s", plain)["output"]["step"] for _ in range(requests)]
            refused = post(port, "s", facts.body(NEWEST, "muon", {"muon.momentum": 1.5}))
            assert refused["error"]["code"].endswith("INVALID_INPUT")
            if requests == 1:
                holder = int((tmp_path / "state" / "server.lock").read_text())
                assert b"RANK=0" in Path(f"/proc/{holder}/environ").read_bytes().split(b"\0")
                second = subprocess.run(
                    [sys.executable, "-m", "together_rl.reference.serve", "--port", "0"]
                    + ["--state-dir", str(tmp_path / "state")],
                    cwd=GENERATED / NEWEST,
                    capture_output=True,
                    text=True,
                    env=environment,
                    timeout=120,
                )
                assert second.returncode == 1 and f"(pid {holder})" in second.stderr
        finally:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                raise
    assert steps == [facts.step(NEWEST, n) for n in (1, 2, 3, 4)]
