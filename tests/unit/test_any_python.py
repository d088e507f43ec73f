"""Every generated package imports and talks through its client on the Python running the tests:
``nox -s pythons`` runs this (with the runtime's own tests) on every Python the packages
support, 3.10 to 3.13. It needs neither the generator nor torch."""

from __future__ import annotations

import importlib
import inspect

import httpx
import pytest

from support.packages import REVISIONS, load


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_package_imports_and_its_waiters_return_a_finished_operation(revision):
    package = load(revision)
    client_module = importlib.import_module(f"{package.__name__}._client")
    importlib.import_module(f"{package.__name__}.models")
    tables = {
        name: table
        for name, table in vars(client_module).items()
        if name.endswith("_STATUSES") and isinstance(table, dict)
    }
    assert tables, "the package has a waiter"
    for name, table in tables.items():
        done = next(status for status, kind in table.items() if kind == "succeeded")
        answer = httpx.Response(200, json={"id": "op-1", "status": str(done)})
        waiter_name = "wait_for_" + name.strip("_").removesuffix("_STATUSES").lower()
        with package.Client(api_key="k", transport=httpx.MockTransport(lambda r: answer)) as c:
            waiter = getattr(c, waiter_name)
            before = [
                p
                for p in inspect.signature(waiter).parameters.values()
                if p.kind is p.POSITIONAL_OR_KEYWORD and p.name != "operation_or_id"
            ]
            finished = waiter(*["s-1"] * len(before), "op-1", timeout=5)
        assert finished.status == done and finished.id == "op-1"
