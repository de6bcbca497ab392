"""Reads start an hour before the time the question says the trouble began, when that is earlier
than the default window allows (rules/onset.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from graph.analysts.base import Discovery, PlanRequest, Route
from graph.analysts.rules.onset import WINDOW_MINUTES, read_window, stated_onset
from graph.analysts.rules.plan import plan_followup, plan_targeted
from tools.facts import Digest, LogPattern, MetricAnomaly

NOW = datetime(2027, 8, 9, 15, 40, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "onset"),
    [
        ("writes failing since around 2pm, why?", datetime(2027, 8, 9, 14, 0, tzinfo=UTC)),
        ("503s since ~10:15", datetime(2027, 8, 9, 10, 15, tzinfo=UTC)),
        ("it started at 9", datetime(2027, 8, 9, 9, 0, tzinfo=UTC)),
        ("paging since 11pm", datetime(2027, 8, 8, 23, 0, tzinfo=UTC)),  # a time later today: yesterday's
        ("slow for 15 minutes", None),
        ("down since 2 days", None),
        ("errors up 30% since 5%", None),
        (
            "scaled from 4 replicas, failing since ~2pm",
            datetime(2027, 8, 9, 14, 0, tzinfo=UTC),
        ),  # a count skipped
        ("after 5 retries it gives up", None),
        ("started 2 weeks ago", None),
        ("since 3pm yesterday", None),  # another day, another zone: the world's clock cannot place it
        ("since 14:00 CET", None),
        ("dashboards stopped updating around 07:00", datetime(2027, 8, 9, 7, 0, tzinfo=UTC)),
        ("it went down at 9, why?", datetime(2027, 8, 9, 9, 0, tzinfo=UTC)),
        ("at 5 replicas it is fine", None),  # a count
        ("what caused the pages between 02:25 and 03:10?", datetime(2027, 8, 9, 2, 25, tzinfo=UTC)),
        ("errors at 02:25 last night", datetime(2027, 8, 9, 2, 25, tzinfo=UTC)),  # the latest 02:25
        ("between 3 and 4 replicas", None),  # a range of counts
    ],
)
def test_a_stated_start_is_the_latest_such_moment_not_after_now(
    question: str, onset: datetime | None
) -> None:
    assert stated_onset(question, NOW) == onset


def test_the_targeted_reads_cover_an_hour_before_the_stated_start() -> None:
    now = "2027-08-09T15:40:00Z"
    assert read_window("failing since around 2pm", now) == 160  # 100 minutes ago, and an hour before it
    assert read_window("failing since 15:20", now) == WINDOW_MINUTES  # the default already covers it
    assert read_window("why is it slow?", now) == WINDOW_MINUTES
    request = PlanRequest(
        route=Route(route="complex", resolved_query="POST /events failing since around 2pm, why?"),
        round=2,
        tool_names=["query_logs", "read_metric"],
        datasources=[],
        remaining_tool_calls=40,
        discovery=Discovery(reads=[{"metric": "replication_lag", "kind": "gauge", "reason": "question"}]),
        now=now,
    )
    windows = {c.args.get("window_minutes") for c in plan_targeted(request).calls}
    assert windows == {160}
    assert {c.args.get("window_minutes") for c in plan_targeted(replace(request, now="")).calls} == {
        WINDOW_MINUTES
    }


# A slow climb of ingest's flush time from 13:20.
MOVE = MetricAnomaly(
    "metrics-3", "flush_duration_seconds", {"job": "ingest"}, "ingest", 0.05, 4.3, 4.5,
    "2027-08-09T13:20:00Z", "up", 86.0, 50.0,
)  # fmt: skip


def _follow_up(digest: Digest) -> PlanRequest:
    """The third round of "why are the dashboards stale?", asked at 15:40, with `digest`."""
    return PlanRequest(
        route=Route(route="complex", resolved_query="why are the dashboards stale?"),
        round=3,
        tool_names=["query_logs"],
        datasources=[],
        remaining_tool_calls=40,
        discovery=Discovery(log_services=["ingest", "deployer"]),
        digest=digest,
        now="2027-08-09T15:40:00Z",
    )


def test_the_follow_up_reads_events_from_half_an_hour_before_the_first_move() -> None:
    """A release at 13:00 began a slow climb from 13:20; the question, at 15:40, states no start."""
    request = _follow_up(Digest(anomalies=[MOVE]))
    windows = {c.args.get("window_minutes") for c in plan_followup(request).calls if c.tool == "query_logs"}
    assert windows == {170}  # 140 minutes back to the move, and the half hour a change may lead it
    early = replace(request, digest=Digest(anomalies=[replace(MOVE, change_at="2027-08-09T15:00:00Z")]))
    assert {c.args.get("window_minutes") for c in plan_followup(early).calls if c.tool == "query_logs"} == {
        WINDOW_MINUTES
    }


def test_the_mention_read_ends_shortly_after_the_last_move() -> None:
    """The lines naming the erroring system are read up to five minutes after the series moved: a
    deploy tool's one line before it is not crowded out by a proxy's hundreds after it."""
    errors = LogPattern(
        evidence_id="logs-1", service="ingest", level="error", template="flush failed", count=400,
        first_seen="2027-08-09T13:21:00Z", last_seen="2027-08-09T15:39:00Z", example="flush failed",
    )  # fmt: skip
    request = _follow_up(Digest(anomalies=[MOVE], log_patterns=[errors]))
    calls = plan_followup(request).calls
    [mention] = [c for c in calls if c.args.get("contains") == "ingest"]
    assert mention.args["until"] == "2027-08-09T13:25:00Z" and mention.args["window_minutes"] == 170
    assert mention.args["other_than"] == "ingest"  # what others say of it, not its own flood
    others = [c for c in calls if c is not mention and c.tool == "query_logs"]
    assert others and not any("until" in c.args for c in others)
    recent = replace(request, digest=Digest(anomalies=[replace(MOVE, change_at="2027-08-09T15:35:00Z")],
                                            log_patterns=[errors]))  # fmt: skip
    assert not any("until" in c.args for c in plan_followup(recent).calls)
