"""When trouble began and what already ended: a capped log read keeps the window's first lines when
asked, and the alert history (Prometheus' `ALERTS`) folds into the digest as resolved and flapping
alerts, which the verdict then names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tests.support.world_builder import write_world
from tools.base import Evidence, EvidenceSource, EvidenceStatus, Sources
from tools.digest import DigestLimits, build_digest
from tools.limits import ToolLimits
from tools.loki import LokiFixture
from tools.loki.tools import QueryLogsArgs, query_logs
from tools.prometheus import PrometheusFixture
from tools.prometheus.alert_history import AlertHistoryArgs, alert_history
from tools.toolbox.spec import ToolContext
from tools.world import load_world

NOW = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _context(root: Path, **parts: Any) -> ToolContext:
    world = load_world(write_world(root, name="w", now=NOW, **parts))
    sources = Sources(metrics=PrometheusFixture(world), logs=LokiFixture(world))
    return ToolContext(sources=sources, limits=ToolLimits(), now=NOW)


async def test_a_capped_read_with_first_lines_shows_when_the_errors_began(tmp_path: Path) -> None:
    errors = [
        {"ts": _iso(NOW - timedelta(minutes=90) + timedelta(seconds=10 * i)), "service": "api",
         "level": "error", "message": f"upstream refused req={i:05d}"}
        for i in range(400)
    ]  # fmt: skip
    context = _context(tmp_path, logs=errors)

    newest = await query_logs(
        context, QueryLogsArgs(service="api", level="error", limit=100, window_minutes=120)
    )
    both = await query_logs(
        context, QueryLogsArgs(service="api", level="error", limit=100, window_minutes=120, first_lines=True)
    )

    assert "req=00000" not in str(newest.data)
    assert "req=00399" in str(newest.data)
    messages = [line["message"] for line in both.data["lines"]]
    assert len(messages) == 100
    assert "upstream refused req=00000" in messages and "upstream refused req=00399" in messages


async def test_the_history_folds_in_as_resolved_and_flapping_alerts(tmp_path: Path) -> None:
    def alert(name: str, start: int, end: int | None) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "labels": {"alertname": name, "service": "queue", "severity": "warning"},
            "startsAt": _iso(NOW - timedelta(minutes=start)),
            "status": "firing" if end is None else "resolved",
        }
        if end is not None:
            entry["endsAt"] = _iso(NOW - timedelta(minutes=end))
        return entry

    flaps = [alert("QueueDepthHigh", start, start - 4) for start in (150, 110, 70)]
    context = _context(
        tmp_path, alerts=[*flaps, alert("QueueDepthHigh", 20, None), alert("DiskFull", 90, 60)]
    )

    answer = await alert_history(context, AlertHistoryArgs())
    item = _evidence(answer.data)
    digest = build_digest([item], now=NOW, limits=DigestLimits())

    groups = {g.alertname: g for g in digest.alert_groups}
    assert groups["QueueDepthHigh"].episodes == 4 and groups["QueueDepthHigh"].status == "firing"
    assert groups["DiskFull"].status == "resolved"
    assert groups["DiskFull"].first_started == _iso(NOW - timedelta(minutes=90))
    assert groups["DiskFull"].ended_at == _iso(NOW - timedelta(minutes=59))  # the last point + one step


def test_a_healthy_answer_says_which_alert_fired_and_resolved() -> None:
    item = _evidence(
        {"history": [{"labels": {"alertname": "DiskFull", "service": "vault"}, "firing_now": False,
                      "episodes": [{"startsAt": "2031-03-04T10:40:00Z", "endsAt": "2031-03-04T10:52:00Z"}]}]}
    )  # fmt: skip
    digest = build_digest([item], now=NOW, limits=DigestLimits())
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="is the vault disk still full?"),
        evidence=[
            EvidenceRef(
                id="metrics-1", source="metrics", tool="alert_history", title="t", summary="s", status="OK"
            )
        ],
        digest=digest,
        now=_iso(NOW),
    )

    draft = diagnose_digest(request)

    assert draft.verdict == "healthy"
    assert (
        "DiskFull on vault fired at 2031-03-04T10:40:00Z and resolved at 2031-03-04T10:52:00Z"
        in draft.summary
    )
    assert any(f.evidence_ids == ["metrics-1"] and "resolved" in f.statement for f in draft.findings)


def _evidence(data: Any) -> Evidence:
    return Evidence(
        "metrics-1", EvidenceSource.METRICS, "alert_history", "t", "s", data, {}, EvidenceStatus.OK
    )
