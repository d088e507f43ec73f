"""What the unit tier checks of the newest revision's package, for every other revision: its
async client sends and waits, and its models raise only their own errors whatever they are given
(tests/unit/test_client.py, tests/unit/test_no_foreign_exceptions.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from support.anyvalues import json_values, models_raise_only_validation_errors
from support.clients import async_client_sends_and_waits
from support.facts import OLDER


@pytest.mark.parametrize("revision", OLDER)
@pytest.mark.usefixtures("quick_retries")
def test_async_client_sends_and_waits(revision, server):
    async_client_sends_and_waits(revision, server)


@pytest.mark.parametrize("revision", OLDER)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values)
def test_models_raise_only_validation_errors(revision, value):
    models_raise_only_validation_errors(revision, value)
