"""The client's connection pool: the slots that keep the async client's requests to its size,
``limits`` checked when a client is made, and the TLS context its pools share (the pool on the
wire: ``runtime/tests/e2e/test_client_pool_served.py``)."""

from __future__ import annotations

import asyncio
import ssl

import httpx
import pytest

import together_rl_runtime as rt
from support.pooldemo import AsyncClient, Client
from together_rl_runtime._pool import Slots, verified_tls


def test_slots_are_given_in_the_order_they_were_asked_for():
    async def run() -> list[int]:
        slots = Slots(1)
        first = await slots.acquire(None)
        order: list[int] = []

        async def wait_then_leave(number: int) -> None:
            pool = await slots.acquire(None)
            order.append(number)
            slots.release(pool)

        waiting = [asyncio.create_task(wait_then_leave(n)) for n in range(5)]
        await asyncio.sleep(0)  # every task waits now
        slots.release(first)
        await asyncio.gather(*waiting)
        assert slots.held == 0
        return order

    assert asyncio.run(run()) == [0, 1, 2, 3, 4]


def test_a_freed_slot_is_given_before_a_new_one_and_a_huge_limit_costs_nothing_up_front():
    async def run() -> None:
        slots = Slots(10**12)  # as many connections as anyone may allow: nothing made for them
        first, second = await slots.acquire(None), await slots.acquire(None)
        assert (first, second, slots.held) == (0, 1, 2)
        slots.release(first)
        assert await slots.acquire(None) == first  # the connection used last, not a new one
        assert await slots.acquire(None) == 2

    asyncio.run(run())


def test_a_wait_past_the_pool_timeout_raises_pool_timeout_and_loses_no_slot():
    async def run() -> None:
        slots = Slots(1)
        taken = await slots.acquire(None)
        with pytest.raises(httpx.PoolTimeout, match="max_connections 1"):
            await slots.acquire(0)
        slots.release(taken)
        assert slots.held == 0
        assert await slots.acquire(0) == taken

    asyncio.run(run())


def test_a_slot_given_to_a_cancelled_wait_is_passed_on():
    async def run() -> None:
        slots = Slots(1)
        taken = await slots.acquire(None)
        cancelled = asyncio.create_task(slots.acquire(None))
        after = asyncio.create_task(slots.acquire(None))
        await asyncio.sleep(0)
        slots.release(taken)  # to the first waiting, which is cancelled before it runs
        cancelled.cancel()
        assert await after == taken
        assert cancelled.cancelled()
        assert slots.held == 1

    asyncio.run(run())


@pytest.mark.parametrize(
    "other, says",
    [
        ({"transport": httpx.MockTransport(lambda r: httpx.Response(200))}, "transport"),
        ({"http_client": httpx.Client()}, "http_client"),
    ],
)
def test_limits_are_the_client_s_own_pool_s(other, says):
    with pytest.raises(rt.ConfigurationError, match=f"pass limits or {says}, not both"):
        Client(base_url="http://127.0.0.1:9", limits=httpx.Limits(max_connections=5), **other)


@pytest.mark.parametrize(
    "limits, says",
    [
        (10, "limits must be an httpx.Limits"),
        (httpx.Limits(max_connections=0), "limits.max_connections must be an integer of at least"),
        (httpx.Limits(max_keepalive_connections=-1), "limits.max_keepalive_connections must"),
    ],
)
def test_limits_are_checked_when_the_client_is_made(limits, says):
    for kind in (Client, AsyncClient):
        with pytest.raises(rt.ConfigurationError, match=says):
            kind(base_url="http://127.0.0.1:9", limits=limits)


def test_clients_share_one_tls_context_per_setting_of_the_certificate_variables(
    tmp_path, monkeypatch
):
    """Loading the certificate authorities takes tens of milliseconds: every client of the process
    uses one context that checks servers' certificates, a new one only where SSL_CERT_FILE (or
    SSL_CERT_DIR) names other authorities, as httpx reads them."""
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE"):
        monkeypatch.delenv(name, raising=False)
    shared = verified_tls()
    assert verified_tls() is shared
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname
    assert len(shared.get_ca_certs()) > 1  # certifi's authorities

    one = tmp_path / "one.pem"
    one.write_text(ssl.DER_cert_to_PEM_cert(shared.get_ca_certs(binary_form=True)[0]))
    monkeypatch.setenv("SSL_CERT_FILE", str(one))
    named = verified_tls()
    assert named is not shared and verified_tls() is named
    assert len(named.get_ca_certs()) == 1
    monkeypatch.delenv("SSL_CERT_FILE")
    assert verified_tls() is shared
