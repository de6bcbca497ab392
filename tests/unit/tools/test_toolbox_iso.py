"""`iso`: the RFC 3339 text every tool result uses for times (UTC as "Z")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from tools.toolbox.spec import iso


@given(moment=st.datetimes(timezones=st.just(UTC)))
def test_utc_times_read_as_isoformat_with_z(moment: datetime) -> None:
    assert iso(moment) == moment.isoformat().replace("+00:00", "Z")


def test_other_offsets_and_naive_times_keep_isoformat() -> None:
    odd = timezone(timedelta(hours=2, seconds=30))  # a historic local mean time
    assert iso(datetime(1890, 1, 1, tzinfo=odd)) == "1890-01-01T00:00:00+02:00:30"
    assert iso(datetime(2026, 1, 1, 1, 2, 3, 4)) == "2026-01-01T01:02:03.000004"
    assert iso(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00Z"
    assert iso(None) is None


def test_a_datetime_subclass_is_written_too() -> None:
    class Moment(datetime):
        pass

    assert iso(Moment(2026, 1, 1, 12, tzinfo=UTC)) == "2026-01-01T12:00:00Z"
