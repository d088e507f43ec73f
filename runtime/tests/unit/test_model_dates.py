"""Dates and date-times: read from ISO 8601 text, refused at their path otherwise, and written back
as the text they were read from, so that a value read and sent again travels byte for byte."""

from __future__ import annotations

import datetime

import pytest

from together_rl_runtime import (
    ValidationError,
    check_date,
    check_datetime,
    write_date,
    write_datetime,
)

UTC = datetime.timezone.utc


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-02T08:00:00Z", datetime.datetime(2026, 12, 2, 8, tzinfo=UTC)),
        ("2026-12-02T08:00:00.000+00:00", datetime.datetime(2026, 12, 2, 8, tzinfo=UTC)),
        (
            "2026-12-02T10:30:00.250+02:00",
            datetime.datetime(
                2026,
                12,
                2,
                10,
                30,
                0,
                250000,
                tzinfo=datetime.timezone(datetime.timedelta(hours=2)),
            ),
        ),
        ("2026-12-02t08:00:00z", datetime.datetime(2026, 12, 2, 8, tzinfo=UTC)),
        ("2026-12-02T08:00:00", datetime.datetime(2026, 12, 2, 8)),
    ],
)
def test_a_date_time_is_read_as_its_instant_and_written_back_as_its_text(text, expected):
    read = check_datetime(text, "at")
    assert read == expected and read.utcoffset() == expected.utcoffset()
    assert repr(read) == repr(expected)
    assert write_datetime(read, "at") == text


def test_a_date_time_made_in_python_is_written_in_iso_8601_with_utc_as_z():
    assert write_datetime(datetime.datetime(2026, 12, 2, 8, tzinfo=UTC), "at") == (
        "2026-12-02T08:00:00Z"
    )
    read = check_datetime("2026-12-02T08:00:00.000Z", "at")
    assert write_datetime(read.replace(hour=9), "at") == "2026-12-02T09:00:00Z"
    assert write_datetime(read + datetime.timedelta(days=1), "at") == "2026-12-03T08:00:00Z"
    assert write_datetime("2026-12-02T08:00:00+01:00", "at") == "2026-12-02T08:00:00+01:00"


@pytest.mark.parametrize(
    "value",
    ["2026-12-02", "yesterday", "2026-13-02T00:00:00Z", "２０２６-12-02T08:00:00Z", 1, None],
)
def test_anything_else_is_not_a_date_time(value):
    with pytest.raises(ValidationError) as caught:
        check_datetime(value, "items[0].at")
    assert caught.value.path == "items[0].at"
    with pytest.raises(ValidationError):
        write_datetime(value, "at")


def test_a_date_is_a_date_not_a_date_time():
    assert check_date("2026-12-02", "on") == datetime.date(2026, 12, 2)
    assert write_date(datetime.date(2026, 12, 2), "on") == "2026-12-02"
    assert write_date("2026-12-02", "on") == "2026-12-02"
    for wrong in ("2026-12-02T08:00:00Z", "20261202", datetime.datetime(2026, 12, 2), 3):
        with pytest.raises(ValidationError) as caught:
            check_date(wrong, "on")
        assert caught.value.path == "on"
