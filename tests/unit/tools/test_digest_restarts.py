"""A process restart read from the shape of its age or start-time series, whatever the series is named."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest import build_digest
from tools.digest.labels import iso_from_unix
from tools.digest.restarts import restart_of
from tools.facts import MetricAnomaly

NOW = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
END = NOW.timestamp()
RESTART = END - 40 * 60 - 25  # 11:19:35


def _grid(step_s: float, hours: float = 2.0) -> np.ndarray:
    return np.arange(END - hours * 3600, END + 1, step_s)


def _scraped(times: np.ndarray, scrape_s: float, value_at: Any) -> np.ndarray:
    """What a range query with a shorter step returns: each point holds the last scrape's value."""
    return np.array([value_at(t - (t % scrape_s)) for t in times], dtype=float)


def _age(t: float, *, unit: float = 1.0) -> float:
    started = RESTART if t >= RESTART else END - 30 * 86400
    return (t - started) * unit


def _digest(metric: str, times: np.ndarray, values: np.ndarray) -> list[MetricAnomaly]:
    series = {
        "metric": metric,
        "labels": {"job": "kv", "instance": "kv-1"},
        "samples": [[float(t), float(v)] for t, v in zip(times, values, strict=True)],
    }
    item = Evidence(
        id="metrics-1",
        source=EvidenceSource.METRICS,
        tool="read_metric",
        title="t",
        summary="s",
        data={"series": [series]},
        query={},
        status=EvidenceStatus.OK,
    )
    return build_digest([item], now=NOW).anomalies


def test_an_age_sampled_between_scrapes_says_when_the_process_started_again() -> None:
    times = _grid(15)
    values = _scraped(times, 60, _age)
    restart = restart_of(times, values)
    assert restart is not None and not restart.rising
    assert abs(restart.at - RESTART) <= 60
    (anomaly,) = _digest("kv_uptime_in_seconds", times, values)
    assert anomaly.event == "restart" and anomaly.direction == "down"
    assert anomaly.change_at is not None and anomaly.change_at[:16] == iso_from_unix(RESTART)[:16]
    assert anomaly.baseline > 2_000_000 and anomaly.recent < 2_500


def test_an_age_in_milliseconds_is_one_too() -> None:
    times = _grid(60)
    values = np.array([_age(t, unit=1000.0) for t in times])
    restart = restart_of(times, values)
    assert restart is not None and abs(restart.at - RESTART) <= 60


def test_a_start_time_that_jumps_to_its_moment_is_a_restart() -> None:
    times = _grid(30)
    values = _scraped(times, 15, lambda t: RESTART if t >= RESTART else END - 9 * 86400)
    (anomaly,) = _digest("process_start_time_seconds", times, values)
    assert anomaly.event == "restart" and anomaly.direction == "up"
    assert anomaly.change_at == iso_from_unix(RESTART)


def test_an_age_that_never_restarted_is_no_fact_at_all() -> None:
    times = _grid(60)
    assert _digest("kv_uptime_in_seconds", times, times - (END - 86400)) == []


def test_a_counter_that_resets_is_read_as_a_rate_not_as_a_restart() -> None:
    # Requests counted at a noisy rate, counting from zero again at the restart: its rate is its fact.
    rng = np.random.default_rng(7)
    times = _grid(60)
    rates = np.where(times >= RESTART, 40.0, 4.0) * rng.uniform(0.8, 1.2, times.size)
    values = np.cumsum(rates * 60)
    values[times >= RESTART] -= values[times < RESTART][-1]
    assert restart_of(times, values) is None
    assert all(a.event is None for a in _digest("kv_requests_total", times, values))


def test_a_level_that_falls_to_nothing_is_no_restart() -> None:
    times = _grid(60)
    values = np.where(times >= RESTART, 0.02, 1.0) * 8e9  # free memory falling to almost nothing
    assert restart_of(times, values) is None
    (anomaly,) = _digest("kv_memory_free_bytes", times, values)
    assert anomaly.event is None


def test_a_count_sampled_in_stairs_that_falls_to_zero_is_no_level_drop() -> None:
    # Scraped every 60 s, read every 15 s: read at the scrape's spacing it is a counter whose rate held
    # through its process's restart; its fall to zero is the restart, not a level that moved.
    times = _grid(15)
    values = _scraped(times, 60, lambda t: (t - RESTART) * 40 if t >= RESTART else 3.3e9 + (t - END) * 40)
    assert all(a.event == "restart" for a in _digest("msgs_in", times, values))


def test_a_move_the_series_came_back_from_is_over_and_says_when() -> None:
    times = _grid(60)
    hump = (times >= END - 80 * 60) & (times < END - 30 * 60)
    rng = np.random.default_rng(3)
    values = np.where(hump, 20_000.0, 200.0) * rng.uniform(0.9, 1.1, times.size)
    (anomaly,) = _digest("backlog_pending", times, values)
    assert anomaly.event == "ended" and anomaly.direction == "up"
    assert anomaly.peak > 20_000 and 150 < anomaly.recent < 250  # the level it came back to
    assert anomaly.ended_at is not None and anomaly.ended_at[:16] == iso_from_unix(END - 30 * 60)[:16]
    # Still high at the end: a current move.
    still = np.where(times >= END - 80 * 60, 20_000.0, 200.0) * rng.uniform(0.9, 1.1, times.size)
    (current,) = _digest("backlog_pending", times, still)
    assert current.event is None and current.recent > 15_000


def test_a_state_flag_that_drops_to_zero_is_no_restart() -> None:
    # kube-state-metrics' "waiting" flag: 1 while a container waits, 0 when it runs again.
    times = _grid(60)
    values = np.where((times > END - 90 * 60) & (times < END - 20 * 60), 1.0, 0.0)
    values[(times > END - 50 * 60) & (times < END - 48 * 60)] = 0.0
    assert all(
        a.event != "restart" for a in _digest("kube_pod_container_status_waiting_reason", times, values)
    )


def _item(*series: dict[str, Any]) -> list[MetricAnomaly]:
    item = Evidence(id="metrics-1", source=EvidenceSource.METRICS, tool="read_metric", title="t", summary="s",
                    data={"series": list(series)}, query={}, status=EvidenceStatus.OK)  # fmt: skip
    return build_digest([item], now=NOW).anomalies


def _read(evidence_id: str, series: dict[str, Any]) -> Evidence:
    return Evidence(id=evidence_id, source=EvidenceSource.METRICS, tool="read_metric", title="t", summary="s",
                    data={"series": [series]}, query={}, status=EvidenceStatus.OK)  # fmt: skip


def _steady(labels: dict[str, str], *, until: float, metric: str = "kv_goroutines") -> dict[str, Any]:
    times = _grid(60)
    return {"metric": metric, "labels": labels, "samples": [[float(t), 430.0] for t in times if t <= until]}


def test_a_system_whose_every_series_stopped_went_silent() -> None:
    (anomaly,) = _item(_steady({"job": "kv", "instance": "10.1.3.40:8200"}, until=END - 28 * 60))
    assert anomaly.event == "silent" and anomaly.recent == 430.0
    assert anomaly.change_at == iso_from_unix(END - 27 * 60)


def test_one_pod_ending_while_its_workload_goes_on_is_no_silence() -> None:
    old = _steady({"job": "web", "pod": "web-7d9f8b6c5d-aaaaa"}, until=END - 40 * 60)
    new = _steady({"job": "web", "pod": "web-7d9f8b6c5d-bbbbb"}, until=END)
    assert _item(old, new) == []


def test_series_only_replaced_pods_had_stop_with_them_while_their_job_reports_elsewhere() -> None:
    """kube-state-metrics emits a last-termination reason only for containers that terminated: after a
    rollback the read of it holds the old pods alone, all ended; the same job's other series go on."""
    reason = {"job": "kube-state-metrics", "pod": "web-5b7f9c8d6-aaaaa", "reason": "OOMKilled"}
    ended = _steady(reason, until=END - 40 * 60, metric="kube_pod_container_status_last_terminated_reason")
    restarts = _steady(
        {"job": "kube-state-metrics", "pod": "web-6c4d7f8b9-bbbbb"},
        until=END,
        metric="kube_pod_container_status_restarts_total",
    )
    terminated, other = _read("metrics-1", ended), _read("metrics-2", restarts)
    assert [a.event for a in build_digest([terminated], now=NOW).anomalies] == ["silent"]
    assert build_digest([terminated, other], now=NOW).anomalies == []
    # Another job still reporting about the system says nothing of this job's series: it went silent.
    kubelet = {**restarts, "labels": {"job": "kubelet", "pod": "web-6c4d7f8b9-bbbbb"}}
    elsewhere = _read("metrics-2", kubelet)
    assert [a.event for a in build_digest([terminated, elsewhere], now=NOW).anomalies] == ["silent"]


def test_a_resolved_alerts_series_ending_is_no_silence() -> None:
    assert _item(_steady({"alertname": "X", "job": "kv"}, until=END - 40 * 60, metric="ALERTS")) == []


def _member_series(instance: str, before: float, after: float, *, at: float) -> dict[str, Any]:
    times = _grid(60)
    rng = np.random.default_rng(len(instance) + int(before))
    values = np.where(times >= at, after, before) * rng.uniform(0.97, 1.03, times.size)
    return {"metric": "kv_connected_clients", "labels": {"job": "kv", "instance": instance},
            "samples": [[float(t), float(v)] for t, v in zip(times, values, strict=True)]}  # fmt: skip


def test_a_load_that_moved_from_one_member_to_another_is_a_move_not_a_shift() -> None:
    # A failover: the clients left the old master for the new one at the same minute.
    moved = _item(
        _member_series("kv-a", 189.0, 13.0, at=END - 32 * 60),
        _member_series("kv-b", 12.5, 173.0, at=END - 33 * 60),
    )
    assert sorted(a.event or "" for a in moved) == ["moved", "moved"]
    # One member losing its clients while no other gains them is a shift.
    (lost,) = _item(_member_series("kv-a", 189.0, 13.0, at=END - 32 * 60))
    assert lost.event is None
