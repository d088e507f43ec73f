"""A ``date-time`` or ``date`` string of a document is a ``datetime.datetime`` or ``datetime.date`` in
its package: models and parameters take dates, a response's dates are read from ISO 8601, and a
body read and sent again travels byte for byte."""

from __future__ import annotations

import datetime
import json

import httpx
import pytest

from support.recursive import document
from support.rendered import render_package

UTC = datetime.timezone.utc


def dated_document() -> dict:
    """An operation ``send`` whose body, a ``Holder``, and answer, a ``Seen``, hold dates, and a
    query parameter ``since`` that is one."""
    fields = {
        "at": {"type": "string", "format": "date-time"},
        "on": {"type": "string", "format": "date"},
        "history": {"type": "array", "items": {"type": "string", "format": "date-time"}},
        "datetime": {"type": "string"},
    }
    raw = document({"Seen": {"type": "object", "properties": fields}}, fields, "Seen")
    raw["components"]["schemas"]["Holder"]["required"] = ["at"]
    since = {"name": "since", "in": "query", "schema": fields["at"]}
    raw["paths"]["/holders"]["post"]["parameters"] = [since]
    return raw


@pytest.fixture(scope="module")
def dated(tmp_path_factory):
    return render_package(tmp_path_factory.mktemp("dates"), dated_document(), "dated_api")


def test_dates_are_python_dates_that_travel_as_they_were_read(dated):
    package, models, folder = dated
    wire = {
        "at": "2026-12-02T08:00:00.000+00:00",
        "on": "2026-12-02",
        "history": ["2026-12-01t00:00:00z"],
    }
    event = models.Holder.from_dict(wire)
    assert event.at == datetime.datetime(2026, 12, 2, 8, tzinfo=UTC)
    assert event.on == datetime.date(2026, 12, 2)
    assert event.history == [datetime.datetime(2026, 12, 1, tzinfo=UTC)]
    assert event.to_json() == json.dumps(wire, separators=(",", ":"))
    made = models.Holder(at=datetime.datetime(2026, 12, 2, 9, 30, tzinfo=UTC))
    assert made.to_dict() == {"at": "2026-12-02T09:30:00Z"}
    with pytest.raises(package.ValidationError) as caught:
        models.Holder.from_dict({"at": "2026-12-02T08:00:00Z", "history": ["soon"]})
    assert caught.value.path == "history[0]"
    seen = models.Seen.from_dict({"at": "not a date"})  # a response keeps what it cannot read
    assert seen.at == "not a date" and "at" in seen.problems
    text = (folder / "models.py").read_text()
    assert "at: datetime.datetime\n" in text and "datetime_: str | Unset" in text


def test_the_client_sends_dates_in_iso_8601_and_reads_them_back(dated):
    package, models, folder = dated
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"at": "2026-12-02T08:00:00Z", "on": "2026-12-02"})

    since = datetime.datetime(2026, 12, 1, tzinfo=UTC)
    transport = httpx.MockTransport(answer)
    with package.Client(base_url="http://api.test", api_key="k", transport=transport) as client:
        seen = client.send(at=since, on=datetime.date(2026, 12, 2), since=since)
    assert seen.at == datetime.datetime(2026, 12, 2, 8, tzinfo=UTC) and not seen.problems
    assert sent[0].url.params["since"] == "2026-12-01T00:00:00Z"
    assert json.loads(sent[0].content) == {"at": "2026-12-01T00:00:00Z", "on": "2026-12-02"}
    assert "since: datetime.datetime | None = None" in (folder / "_client.py").read_text()
