"""Log patterns: drain3 templates with masked values, levels, counts, first/last seen, ranking."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest import DigestLimits, build_digest

NOW = datetime(2031, 1, 5, 8, 0, tzinfo=UTC)


def _logs(lines: list[dict[str, Any]], evidence_id: str = "logs-1") -> Evidence:
    return Evidence(
        evidence_id,
        EvidenceSource.LOGS,
        "query_logs",
        "t",
        "s",
        {"lines": lines},
        {},
        EvidenceStatus.OK,
    )


def _line(minutes_before: float, message: str, **labels: str) -> dict[str, Any]:
    ts = (NOW - timedelta(minutes=minutes_before)).isoformat().replace("+00:00", "Z")
    return {"ts": ts, "labels": labels, "message": message}


def test_variable_parts_collapse_into_one_pattern_with_counts_and_times() -> None:
    lines = [
        _line(
            30 - i,
            f"lease {i:04x}deadbeef expired for shard-{100 + i} after {200 + i}ms from 10.1.2.{i}:7000",
            app="router",
            severity="ERROR",
        )
        for i in range(12)
    ]
    [pattern] = build_digest([_logs(lines)], now=NOW).log_patterns
    assert pattern.evidence_id == "logs-1"
    assert pattern.service == "router" and pattern.level == "error"
    assert pattern.count == 12
    assert pattern.first_seen == "2031-01-05T07:30:00Z"
    assert pattern.last_seen == "2031-01-05T07:41:00Z"
    assert "<DURATION>" in pattern.template and "<IP>" in pattern.template
    assert pattern.example.startswith("lease 000bdeadbeef expired for shard-111")


def test_errors_rank_before_more_frequent_info_and_levels_come_from_text_too() -> None:
    lines = [_line(50 - i, f"heartbeat ok seq={i}", service="db") for i in range(40)]
    lines += [_line(10 - i, f"WARN replica lag {i}s on standby", service="db") for i in range(3)]
    lines += [
        _line(
            5,
            "FATAL could not write block 77 of relation base/1/2: No space left on device",
            service="db",
        )
    ]
    patterns = build_digest([_logs(lines)], now=NOW).log_patterns
    assert [p.level for p in patterns] == ["error", "warn", None]
    assert patterns[0].count == 1 and patterns[2].count == 40


def test_same_template_from_two_services_is_two_patterns() -> None:
    lines = [_line(i, f"request {i} timed out", service=s) for s in ("a", "b") for i in range(3)]
    patterns = build_digest([_logs(lines)], now=NOW).log_patterns
    assert sorted((p.service, p.count) for p in patterns) == [("a", 3), ("b", 3)]


def test_patterns_are_bounded_and_future_or_blank_lines_ignored() -> None:
    # Different token counts are different templates for drain.
    lines = [_line(1, " ".join(["event"] * (i + 1)), service="x") for i in range(26)]
    lines += [_line(-5, "from the future", service="x"), _line(1, "   ", service="x")]
    lines += [{"ts": "not a time", "labels": {}, "message": "bad ts"}, "not a mapping"]  # type: ignore[list-item]
    digest = build_digest([_logs(lines)], now=NOW, limits=DigestLimits(max_log_patterns=4))
    assert len(digest.log_patterns) == 4
    assert all("future" not in p.template and "bad ts" not in p.template for p in digest.log_patterns)


def test_overlapping_queries_keep_one_pattern() -> None:
    lines = [_line(i, f"job {i} failed", service="w", level="error") for i in range(5)]
    digest = build_digest([_logs(lines), _logs(lines[:3], "logs-2")], now=NOW)
    assert [(p.evidence_id, p.count) for p in digest.log_patterns] == [("logs-1", 5)]


def test_an_events_reason_beside_its_message_is_kept_with_the_pattern() -> None:
    lines = [
        _line(20 - i, "Memory cgroup out of memory: Killed process 2213 (python3)", service="scorer",
              level="warning", reason="OOMKilling")
        for i in range(3)
    ] + [_line(5, "Started container scorer", service="scorer", level="info", reason="Started")]  # fmt: skip
    patterns = build_digest([_logs(lines)], now=NOW, limits=DigestLimits()).log_patterns
    by_example = {p.example: p.reason for p in patterns}
    assert by_example["Memory cgroup out of memory: Killed process 2213 (python3)"] == "OOMKilling"
    assert by_example["Started container scorer"] is None  # the message already says it


def test_a_pattern_keeps_the_one_host_its_lines_came_from() -> None:
    """A kernel stream is about a machine: the host every line names is kept, and none when the
    lines came from several hosts."""
    one = [
        _line(10 - i, f"nvme nvme1: I/O {i} QID 3 timeout, aborting", app="kernel", host="nc-7")
        for i in range(3)
    ]
    [pattern] = build_digest([_logs(one)], now=NOW).log_patterns
    assert pattern.host == "nc-7"
    mixed = [
        _line(10 - i, f"nvme nvme1: I/O {i} QID 3 timeout", app="kernel", host=f"nc-{i}") for i in range(3)
    ]
    [pattern] = build_digest([_logs(mixed)], now=NOW).log_patterns
    assert pattern.host is None


def _read(
    lines: list[dict[str, Any]], *, truncated: bool = False, end: str = "2031-01-05T08:00:00Z"
) -> Evidence:
    """A read of the last two hours (its query's start), as `query_logs` records it."""
    start = (NOW - timedelta(minutes=120)).isoformat().replace("+00:00", "Z")
    return Evidence(
        "logs-1",
        EvidenceSource.LOGS,
        "query_logs",
        "t",
        "s",
        {"lines": lines},
        {"start": start, "end": end},
        EvidenceStatus.OK,
        truncated=truncated,
    )


_503 = "GET /cart 503 upstream unavailable"


def _every(step: float, since: float, until: float, message: str) -> list[dict[str, Any]]:
    count = int((since - until) / step)
    return [_line(since - i * step, message, app="edge", level="warn") for i in range(count + 1)]


def test_a_pattern_as_steady_through_the_read_as_at_its_start_is_marked_steady() -> None:
    """A proxy's trickle of 503s from the read's first minutes to now: no onset inside the window."""
    steady = _every(2.0, 118, 1, _503)
    [pattern] = build_digest([_read(steady)], now=NOW).log_patterns
    assert pattern.steady
    # The same lines beginning an hour into the read are new trouble.
    [began] = build_digest([_read(_every(1.0, 60, 1, _503))], now=NOW).log_patterns
    assert not began.steady
    # Tripling halfway through is a surge, not a trickle.
    surge = _every(3.0, 118, 60, _503) + _every(0.5, 59, 1, _503)
    assert not any(p.steady for p in build_digest([_read(surge)], now=NOW).log_patterns)
    # Without a read start (a query with no window), nothing is called steady.
    assert not build_digest([_logs(steady)], now=NOW).log_patterns[0].steady


def test_a_read_that_ended_before_now_is_judged_up_to_its_end() -> None:
    """Read until an hour ago (the lines before the trouble): a trickle through it is steady; the same
    read judged up to now would see it stop halfway and call it a change."""
    trickle = _every(2.0, 118, 61, _503)
    [pattern] = build_digest([_read(trickle, end="2031-01-05T07:00:00Z")], now=NOW).log_patterns
    assert pattern.steady
    assert not build_digest([_read(trickle)], now=NOW).log_patterns[0].steady


def test_a_capped_read_is_judged_on_the_stretches_it_kept() -> None:
    """A read whose cap kept its oldest and newest lines only: the rates before and after the gap."""
    kept = _every(1.0, 118, 100, _503) + _every(1.0, 20, 1, _503)
    [pattern] = build_digest([_read(kept, truncated=True)], now=NOW).log_patterns
    assert pattern.steady
    faster = _every(2.0, 118, 100, _503) + _every(0.25, 20, 1, _503)
    assert not build_digest([_read(faster, truncated=True)], now=NOW).log_patterns[0].steady


def test_a_long_line_keeps_its_end_where_what_failed_is_named() -> None:
    preamble = "unseal attempt failed: error decrypting key shares with the configured seal mechanism " * 4
    resource = "projects/ops-core/locations/global/keyRings/vault/cryptoKeys/unseal-key"
    lines = [
        _line(5 - i, f"{preamble}permission denied on {resource}", app="vault", level="error")
        for i in range(3)
    ]
    [pattern] = build_digest([_logs(lines)], now=NOW).log_patterns
    assert pattern.example.startswith("unseal attempt failed") and pattern.example.endswith(resource)
    limits = DigestLimits()
    assert len(pattern.example) <= limits.example_chars + limits.example_tail_chars + 8


def test_below_the_warnings_a_steady_pattern_ranks_after_one_that_came_and_went() -> None:
    """A controller's status line every two minutes through the read, and its one line saying what it
    changed: with room for one pattern, the change is kept."""
    status = [
        {**line, "labels": {"app": "deployer", "level": "info"}}
        for line in _every(2.0, 118, 1, "application status is Synced app=orders")
    ]
    synced = _line(60, "Initiated automated sync to 9f1c2ab app=orders", app="deployer", level="info")
    item = _read([*status, synced])
    limits = DigestLimits(max_patterns_per_evidence=1, max_log_patterns=1)
    [kept] = build_digest([item], now=NOW, limits=limits).log_patterns
    assert kept.example.startswith("Initiated automated sync")
