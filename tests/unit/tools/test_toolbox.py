"""The tool boundary: bounds, safe failures, validation, cache single-flight and the run budget."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from tools.base import (
    Alert,
    EvidenceSource,
    EvidenceStatus,
    LogLine,
    LogQuery,
    Series,
    SeriesRef,
    SourceError,
    SourceHealth,
    Sources,
    SqlResult,
    TimeWindow,
)
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.loki.client import to_logql
from tools.toolbox import Toolbox

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SECRET = "password=hunter2 host=db.internal"


class FakeMetrics:
    def __init__(self, series: list[Series] | None = None, delay_s: float = 0.0) -> None:
        self.series = series or []
        self.delay_s = delay_s
        self.calls: list[dict[str, Any]] = []
        self.error: Exception | None = None

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return NOW

    async def list_series(self, *, match: str | None, window: TimeWindow, limit: int) -> list[SeriesRef]:
        self.calls.append({"match": match})
        return [SeriesRef(s.metric, s.labels) for s in self.series][:limit]

    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        self.calls.append({"promql": promql, "window": window, "step_s": step_s})
        await asyncio.sleep(self.delay_s)
        if self.error is not None:
            raise self.error
        return self.series

    async def query_instant(self, *, promql: str, at: datetime, max_series: int) -> list[Series]:
        self.calls.append({"promql": promql, "at": at})
        return [Series(s.metric, s.labels, list(s.samples)[-1:]) for s in self.series][:max_series]


class FakeAlerts:
    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return NOW

    async def active_alerts(self, *, limit: int) -> list[Alert]:
        def alert(service: str, instance: str) -> Alert:
            labels = {"alertname": "HighErrors", "service": service, "instance": instance}
            return Alert(labels, {"summary": "errors"}, NOW, None, "firing")

        return [alert("pay", "a"), alert("pay", "b"), alert("cart", "c")]


class FakeLogs:
    def __init__(self) -> None:
        self.queries: list[LogQuery] = []

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return NOW

    async def label_values(self, *, label: str, window: TimeWindow, limit: int) -> list[str]:
        return ["pay", "cart"]

    async def query_range(self, query: LogQuery) -> list[LogLine]:
        self.queries.append(query)
        return [LogLine(NOW, {"service": "pay", "level": "error"}, "boom")] * 3


class FakeSql:
    def __init__(self, rows: int) -> None:
        self.rows = rows

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    def datasources(self) -> list[str]:
        return ["shop"]

    def dialect(self, datasource: str) -> str:
        return "sqlite"

    async def list_tables(self, *, datasource: str, limit: int) -> list[str]:
        return ["orders"]

    async def query(self, *, datasource: str, statement: str, max_rows: int, timeout_ms: int) -> SqlResult:
        rows = [[i, "paid"] for i in range(min(self.rows, max_rows))]
        return SqlResult(["id", "status"], rows, truncated=self.rows > max_rows)


def _toolbox(sources: Sources, **limits: Any) -> Toolbox:
    return Toolbox(sources, ToolLimits(**limits), EvidenceCache(ttl_s=30, capacity=16))


def _run() -> RunEvidence:
    return RunEvidence(budget_bytes=1_000_000)


def _series(points: int, count: int = 1) -> list[Series]:
    return [
        Series("latency", {"service": "pay", "pod": str(n)}, [(float(t), 0.5) for t in range(points)])
        for n in range(count)
    ]


async def test_slow_source_times_out_bounded() -> None:
    toolbox = _toolbox(Sources(metrics=FakeMetrics(_series(3), delay_s=5)), tool_timeout_s=0.1)
    started = asyncio.get_running_loop().time()
    evidence = await toolbox.call("query_promql", {"promql": "up"}, _run())
    assert evidence.status is EvidenceStatus.TIMEOUT
    assert asyncio.get_running_loop().time() - started < 2
    assert evidence.data == {}


async def test_byte_cap_truncates_data_and_says_so() -> None:
    toolbox = _toolbox(Sources(metrics=FakeMetrics(_series(200, count=20))), max_result_bytes=4_000)
    evidence = await toolbox.call("query_promql", {"promql": "latency"}, _run())
    assert evidence.status is EvidenceStatus.OK
    assert evidence.truncated is True
    assert evidence.bytes <= 4_000
    assert len(json.dumps(evidence.data, separators=(",", ":")).encode()) == evidence.bytes
    assert 0 < len(evidence.data["series"]) < 20


async def test_row_cap_truncates_sql() -> None:
    toolbox = _toolbox(Sources(sql=FakeSql(rows=50)), max_rows=10)
    evidence = await toolbox.call(
        "query_mysql", {"datasource": "shop", "statement": "SELECT id FROM orders"}, _run()
    )
    assert evidence.status is EvidenceStatus.OK
    assert len(evidence.data["rows"]) == 10
    assert evidence.truncated is True
    assert "capped at 10 rows" in evidence.summary


async def test_backend_exception_text_never_reaches_evidence(
    caplog: pytest.LogCaptureFixture,
) -> None:
    metrics = FakeMetrics(_series(3))
    metrics.error = RuntimeError(SECRET)
    evidence = await _toolbox(Sources(metrics=metrics)).call("query_promql", {"promql": "up"}, _run())
    assert evidence.status is EvidenceStatus.ERROR
    assert "hunter2" not in json.dumps([evidence.summary, evidence.title, evidence.data])
    assert "hunter2" in caplog.text  # the operator still gets the real error in the log


async def test_source_error_keeps_status_and_public_message() -> None:
    metrics = FakeMetrics()
    metrics.error = SourceError("Prometheus rejected the query.", status=EvidenceStatus.REJECTED)
    evidence = await _toolbox(Sources(metrics=metrics)).call("query_promql", {"promql": "up"}, _run())
    assert evidence.status is EvidenceStatus.REJECTED
    assert evidence.summary == "Prometheus rejected the query."


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("drop_everything", {}),
        ("query_metric", {"service": "pay", "signal": "vibes"}),
        ("query_metric", {"service": "pay", "signal": "cpu", "extra": 1}),
        ("query_metric", {"service": 'pay"} or vector(1)', "signal": "cpu"}),
        ("query_promql", {"promql": "x" * 2_001}),
        ("query_promql", {"promql": "up", "step_seconds": 1}),
        ("query_promql", {"promql": "up", "window_minutes": 100_000}),
        ("query_mysql", {"datasource": "shop", "statement": "x" * 4_001}),
        ("query_mysql", {"datasource": "app", "statement": "SELECT 1"}),
        ("search_runbooks", {}),
    ],
)
async def test_unknown_tool_or_bad_args_are_rejected(tool: str, args: dict[str, Any]) -> None:
    sources = Sources(metrics=FakeMetrics(_series(3)), sql=FakeSql(3), knowledge=None)
    evidence = await _toolbox(sources).call(tool, args, _run())
    assert evidence.status in (EvidenceStatus.REJECTED, EvidenceStatus.UNAVAILABLE)
    assert evidence.data == {}


async def test_unconfigured_source_is_unavailable() -> None:
    evidence = await _toolbox(Sources()).call("list_alerts", {}, _run())
    assert evidence.status is EvidenceStatus.UNAVAILABLE
    assert evidence.id == "alerts-1"


async def test_concurrent_identical_calls_share_one_backend_call() -> None:
    metrics = FakeMetrics(_series(5), delay_s=0.05)
    toolbox = _toolbox(Sources(metrics=metrics))
    first, second = _run(), _run()
    a, b = await asyncio.gather(
        toolbox.call("query_promql", {"promql": "up"}, first),
        toolbox.call("query_promql", {"promql": "up"}, second),
    )
    assert len(metrics.calls) == 1
    assert a.data == b.data
    assert a.id == b.id == "metrics-1"  # ids are per run
    await toolbox.call("query_promql", {"promql": "up"}, first)
    assert len(metrics.calls) == 1  # cached
    assert [e.id for e in first.all()] == ["metrics-1", "metrics-2"]


async def test_cache_expires_and_failures_are_not_cached() -> None:
    clock = [0.0]
    metrics = FakeMetrics(_series(5))
    toolbox = Toolbox(
        Sources(metrics=metrics),
        ToolLimits(),
        EvidenceCache(ttl_s=10, capacity=4, clock=lambda: clock[0]),
    )
    await toolbox.call("query_promql", {"promql": "up"}, _run())
    clock[0] = 11
    await toolbox.call("query_promql", {"promql": "up"}, _run())
    assert len(metrics.calls) == 2
    metrics.error = RuntimeError("down")
    await toolbox.call("query_promql", {"promql": "other"}, _run())
    metrics.error = None
    evidence = await toolbox.call("query_promql", {"promql": "other"}, _run())
    assert evidence.status is EvidenceStatus.OK
    assert len(metrics.calls) == 4


async def test_run_budget_exhaustion_rejects_further_items() -> None:
    toolbox = _toolbox(Sources(metrics=FakeMetrics(_series(100))))
    run = RunEvidence(budget_bytes=1_500)
    first = await toolbox.call("query_promql", {"promql": "a"}, run)
    second = await toolbox.call("query_promql", {"promql": "b"}, run)
    assert first.status is EvidenceStatus.OK
    assert second.status is EvidenceStatus.REJECTED
    assert "budget" in second.summary
    assert second.data == {}
    assert run.total_bytes == first.bytes
    assert run.get(second.id) is second


async def test_alerts_keep_every_instance_and_filter_by_service() -> None:
    toolbox = _toolbox(Sources(alerts=FakeAlerts()))
    everything = await toolbox.call("list_alerts", {}, _run())
    pay = await toolbox.call("list_alerts", {"service": "pay"}, _run())
    assert everything.data["total"] == 3
    assert [a["labels"]["instance"] for a in pay.data["alerts"]] == ["a", "b"]
    assert pay.data["alerts"][0]["startsAt"] == "2026-03-01T12:00:00Z"


async def test_query_metric_uses_template_window_and_bounded_step() -> None:
    metrics = FakeMetrics(_series(5))
    toolbox = _toolbox(
        Sources(metrics=metrics),
        metric_templates={"cpu": 'cpu{{service="{service}"}}[{window}]'},
        max_points_per_series=10,
    )
    evidence = await toolbox.call("query_metric", {"service": "pay", "signal": "cpu"}, _run())
    call = metrics.calls[0]
    assert call["promql"] == 'cpu{service="pay"}[24m]'
    assert call["step_s"] == 360  # 60 minutes in at most 10 points
    assert call["window"] == TimeWindow(NOW.replace(hour=11), NOW)
    assert evidence.source is EvidenceSource.METRICS


async def test_query_logs_asks_the_source_a_neutral_query() -> None:
    logs = FakeLogs()
    toolbox = _toolbox(Sources(logs=logs))
    evidence = await toolbox.call(
        "query_logs",
        {"service": "pay", "contains": 'say "hi"', "level": "error", "limit": 2},
        _run(),
    )
    [query] = logs.queries
    assert (query.service, query.level, query.contains, query.native, query.limit) == (
        "pay",
        "error",
        'say "hi"',
        None,
        2,
    )
    severe = "(?i)err(or)?|fatal|crit(ical)?|panic|emerg(ency)?|alert|severe"  # error or worse
    assert to_logql(query) == f'{{service="pay", level=~"{severe}"}} |= "say \\"hi\\""'
    # In any case: a case-blind regular expression of the text, its own special characters escaped.
    blind = to_logql(replace(query, contains="a.b", any_case=True))
    assert blind.endswith(r' |~ "(?i)a\\.b"')
    assert len(evidence.data["lines"]) == 2
    assert evidence.data["lines"][0]["message"] == "boom"


async def test_a_read_leaving_out_a_service_and_asking_one_status_is_said_in_logql() -> None:
    """`other_than` is Loki's `service!=` matcher beside the any-service one; one status is its code."""
    logs = FakeLogs()
    await _toolbox(Sources(logs=logs)).call(
        "query_logs", {"contains": "orders", "other_than": "orders", "status_class": "504"}, _run()
    )
    [query] = logs.queries
    assert query.other_than == "orders" and query.status_class == "504"
    logql = to_logql(query)
    assert logql.startswith('{service=~".+", service!="orders"} |= "orders" |~ ')
    assert r"504\\b" in logql and r" 504 [0-9]+ [0-9]+ [0-9]+\\s*$" in logql
    assert r"504 (?i:too many requests|service unavailable" in logql  # a client's record of it too


class ManyLogs(FakeLogs):
    async def query_range(self, query: LogQuery) -> list[LogLine]:
        limit = query.limit
        return [
            LogLine(NOW, {"service": "pay", "level": "error"}, f"line {n} " + "x" * 200) for n in range(limit)
        ]


async def test_logs_over_the_byte_cap_keep_the_first_lines_that_fit_and_say_how_many_came() -> None:
    toolbox = _toolbox(Sources(logs=ManyLogs()), max_result_bytes=4_096, max_log_lines=100)
    evidence = await toolbox.call("query_logs", {"service": "pay"}, _run())
    lines = evidence.data["lines"]
    assert evidence.truncated and evidence.bytes <= 4_096
    assert [line["message"].split()[1] for line in lines] == [str(n) for n in range(len(lines))]
    one_more = {"lines": [*lines, lines[-1]]}
    assert len(json.dumps(one_more, separators=(",", ":"))) > 4_096  # the longest prefix that fits
    assert evidence.summary.startswith("100 log lines") and evidence.summary.endswith("[truncated]")


class SecretLogs(FakeLogs):
    async def query_range(self, query: LogQuery) -> list[LogLine]:
        limit = query.limit
        # Masking makes each line longer than it was measured: the boundary has to cut again.
        return [LogLine(NOW, {"service": "pay"}, f"retry {n} password=x token=y") for n in range(limit)]


async def test_a_result_cut_by_the_handler_and_again_by_the_boundary_is_marked_once() -> None:
    toolbox = _toolbox(Sources(logs=SecretLogs()), max_result_bytes=2_048, max_log_lines=100)
    evidence = await toolbox.call("query_logs", {"service": "pay"}, _run())
    assert evidence.truncated and evidence.bytes <= 2_048
    assert "password=[REDACTED]" in evidence.data["lines"][0]["message"]
    assert evidence.summary.count("[truncated]") == 1


class LongLogs(FakeLogs):
    async def query_range(self, query: LogQuery) -> list[LogLine]:
        limit = query.limit
        return [LogLine(NOW, {"service": "pay"}, f"{n} " + "y" * 1_500) for n in range(limit)]


async def test_a_small_cap_clips_long_messages_before_it_drops_lines() -> None:
    toolbox = _toolbox(Sources(logs=LongLogs()), max_result_bytes=4_096, max_log_lines=100)
    evidence = await toolbox.call("query_logs", {"service": "pay"}, _run())
    lines = evidence.data["lines"]
    assert all(len(line["message"]) == 4_096 // 8 for line in lines)  # clipped, with its ellipsis
    assert len(lines) >= 5  # unclipped, two 1.5 KB lines would have filled the cap


class SlowFirstMetrics(FakeMetrics):
    async def query_range(
        self, *, promql: str, window: TimeWindow, step_s: int, max_series: int
    ) -> list[Series]:
        await asyncio.sleep(0.05 if promql == "slow" else 0.0)
        return self.series


async def test_concurrent_calls_take_their_ids_in_plan_order_not_in_finishing_order() -> None:
    toolbox = _toolbox(Sources(metrics=SlowFirstMetrics(_series(3))))
    run = _run()
    slow, fast = await asyncio.gather(
        toolbox.call("query_promql", {"promql": "slow"}, run),
        toolbox.call("query_promql", {"promql": "fast"}, run),
    )
    assert (slow.id, fast.id) == ("metrics-1", "metrics-2")
    assert [item.id for item in run.all()] == ["metrics-1", "metrics-2"]


async def test_a_call_in_flight_holds_its_id_but_is_not_evidence_yet() -> None:
    toolbox = _toolbox(Sources(metrics=SlowFirstMetrics(_series(3))))
    run = _run()
    pending = asyncio.create_task(toolbox.call("query_promql", {"promql": "slow"}, run))
    await asyncio.sleep(0)  # the slow call starts (and takes its id) first
    done = await toolbox.call("query_promql", {"promql": "fast"}, run)
    assert done.id == "metrics-2" and run.get("metrics-1") is None
    assert [item.id for item in run.all()] == ["metrics-2"]
    assert (await pending).id == "metrics-1"


async def test_now_and_health_come_from_the_sources() -> None:
    toolbox = _toolbox(Sources(metrics=FakeMetrics()))
    assert await toolbox.now() == NOW
    health = await toolbox.health()
    assert health["metrics"].ok
    assert not health["sql"].ok
    assert (await _toolbox(Sources()).now()).tzinfo is not None


async def test_alerts_about_a_system_include_its_numbered_members() -> None:
    """ "the ledger-pg boxes": alerts on `ledger-pg-1:9100` and `ledger-pg-2.db.internal`, never
    `ledger-pgx` or `ledger-pg-api`."""

    class MemberAlerts(FakeAlerts):
        async def active_alerts(self, *, limit: int) -> list[Alert]:
            def alert(instance: str) -> Alert:
                return Alert(
                    {"alertname": "DiskLow", "job": "node", "instance": instance}, {}, NOW, None, "firing"
                )

            hosts = [
                "ledger-pg-1:9100",
                "ledger-pg-2.db.internal:9100",
                "ledger-pgx:9100",
                "ledger-pg-api:9100",
            ]
            return [alert(host) for host in hosts]

    toolbox = _toolbox(Sources(alerts=MemberAlerts()))
    boxes = await toolbox.call("list_alerts", {"service": "ledger-pg"}, _run())
    assert [a["labels"]["instance"] for a in boxes.data["alerts"]] == [
        "ledger-pg-1:9100",
        "ledger-pg-2.db.internal:9100",
    ]
