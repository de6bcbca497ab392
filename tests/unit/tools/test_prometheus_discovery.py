"""Discovery's choice of metrics on plain data: real exporters' names, alerts' rule selectors, the
question's words, and the monitoring stack's own telemetry, which is never chosen unless asked about."""

from __future__ import annotations

import pytest

from tools.base import MetricMetadata
from tools.prometheus.discovery import (
    AlertLink,
    Candidate,
    MonitoringStack,
    choose,
    kind_of,
    narrowed,
    question_words,
    read_name,
    read_promql,
)
from tools.prometheus.expression import selectors_in

# A small real host's names: node, postgres, redis and mysqld exporters, plus every exporter's
# runtime series and Prometheus's and Alertmanager's own internals.
NAMES = sorted(
    [
        "node_cpu_seconds_total",
        "node_load1",
        "node_filesystem_avail_bytes",
        "node_filesystem_size_bytes",
        "node_filesystem_readonly",
        "node_memory_MemAvailable_bytes",
        "pg_up",
        "pg_locks_count",
        "pg_stat_activity_count",
        "pg_settings_max_connections",
        "redis_db_keys",
        "redis_memory_used_bytes",
        "redis_connected_clients",
        "mysql_global_status_threads_connected",
        "mysql_global_variables_max_connections",
        "http_request_duration_seconds_bucket",
        "http_request_duration_seconds_count",
        "go_goroutines",
        "go_memstats_alloc_bytes",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "promhttp_metric_handler_requests_total",
        "alertmanager_alerts",
        "alertmanager_notifications_total",
        "alertmanager_alerts_received_total",
        "prometheus_tsdb_head_series",
        "prometheus_rule_evaluations_total",
        "scrape_duration_seconds",
        "up",
        "ALERTS",
    ]
)
INTERNAL = ("go_", "process_", "promhttp_", "alertmanager_", "prometheus_", "scrape_", "ALERTS")
FS_EXPR = (
    '(node_filesystem_avail_bytes{fstype!="tmpfs"} / node_filesystem_size_bytes) * 100 < 10 '
    "and on (instance, device, mountpoint) node_filesystem_readonly == 0"
)
CPU_EXPR = '100 - (avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[1m])) * 100) > 97'


def _fs_alert() -> AlertLink:
    labels = {"alertname": "HostFilesystemAlmostFull", "instance": "db1:9100", "mountpoint": "/data"}
    return AlertLink("HostFilesystemAlmostFull", labels, tuple(selectors_in(FS_EXPR)))


def test_rule_expressions_yield_their_metrics_and_equality_matchers() -> None:
    cpu = selectors_in(CPU_EXPR)
    locks = selectors_in('sum by (datname) (pg_locks_count{mode="exclusivelock"}) > 5')
    quantile = selectors_in(
        "histogram_quantile(0.99, sum by (le) "
        '(rate(http_request_duration_seconds_bucket{handler="/pay"}[5m])))'
    )

    assert [(s.metric, s.equalities()) for s in cpu] == [("node_cpu_seconds_total", {"mode": "idle"})]
    assert [(s.metric, s.equalities()) for s in locks] == [("pg_locks_count", {"mode": "exclusivelock"})]
    assert [s.metric for s in quantile] == ["http_request_duration_seconds_bucket"]
    assert [s.metric for s in selectors_in(FS_EXPR)] == [
        "node_filesystem_avail_bytes",
        "node_filesystem_size_bytes",
        "node_filesystem_readonly",
    ]
    assert selectors_in("vector(1)") == []
    assert selectors_in('{__name__="redis_db_keys", db="db3"} offset 5m')[0].metric == "redis_db_keys"


def test_firing_alert_metrics_come_first_with_the_alerts_identity() -> None:
    chosen = choose(NAMES, question="why is HostFilesystemAlmostFull firing?", links=[_fs_alert()])

    first = chosen[0]
    assert first.metric == "node_filesystem_avail_bytes"
    assert first.reason == "alert HostFilesystemAlmostFull"
    assert first.matchers == {"instance": "db1:9100", "mountpoint": "/data"}
    assert {c.metric for c in chosen[:3]} == {
        "node_filesystem_avail_bytes",
        "node_filesystem_size_bytes",
        "node_filesystem_readonly",
    }


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("who holds the lock everyone waits on?", "pg_locks_count"),
        ("why is redis running out of memory with so many keys?", "redis_db_keys"),
        ("why are mysql connections exhausted?", "mysql_global_status_threads_connected"),
        ("is the disk full on db1?", "node_filesystem_avail_bytes"),
    ],
)
def test_the_questions_words_pick_exporter_metrics(question: str, expected: str) -> None:
    chosen = [c.metric for c in choose(NAMES, question=question)]

    assert expected in chosen
    assert not [name for name in chosen if name.startswith(INTERNAL)]


def test_a_question_about_hosts_reads_the_node_exporters_key_signals() -> None:
    chosen = [c.metric for c in choose(NAMES, question="anything abnormal on the hosts?")]

    assert chosen[:4] == [
        "node_cpu_seconds_total",
        "node_filesystem_avail_bytes",
        "node_load1",
        "node_memory_MemAvailable_bytes",
    ]


def test_the_monitoring_stack_is_never_chosen_unless_asked_about() -> None:
    # Alertmanager's counters move whenever any alert fires: they match "alerts" but are not suspects.
    everyday = choose(NAMES, question="why are alerts firing on the hosts? anything with memory?")
    about_stack = choose(NAMES, question="is alertmanager dropping notifications?")

    assert everyday, "the question's words still pick the hosts' metrics"
    assert not [c.metric for c in everyday if c.metric.startswith(INTERNAL)]
    assert "alertmanager_notifications_total" in [c.metric for c in about_stack]


def test_stack_jobs_are_configurable_and_matched_by_name_prefix() -> None:
    stack = MonitoringStack(jobs=("prometheus", "thanos"))

    assert stack.owns("thanos_store_series") and stack.owns("go_goroutines")
    assert not stack.owns("alertmanager_alerts")  # no longer a stack job here
    assert stack.job_matcher() == 'job!~"prometheus|thanos"'
    assert stack.asked_about(question_words("why is thanos slow?"))


def test_implicated_names_fill_in_after_the_question() -> None:
    implicated = ["pg_up", "pg_stat_activity_count", "go_goroutines"]

    chosen = choose(NAMES, question="what is wrong there?", implicated=implicated)

    # The implicated system's key signals first; other exporters' key signals would be fleet-wide
    # reads nobody asked for, so only the implicated names are chosen.
    assert [(c.metric, c.reason) for c in chosen] == [
        ("pg_stat_activity_count", "implicated"),
        ("pg_up", "implicated"),
    ]
    assert "go_goroutines" not in [c.metric for c in chosen]


def test_key_signals_fill_in_when_nothing_is_implicated_or_the_question_points_there() -> None:
    idle = choose(NAMES, question="what is wrong there?")
    hosts = choose(NAMES, question="anything wrong on the hosts?", implicated=["pg_up"])

    assert {c.reason for c in idle} == {"key signal"} and len(idle) > 2
    assert "node_load1" in [c.metric for c in hosts]
    assert "redis_db_keys" not in [c.metric for c in hosts]


def test_metadata_decides_the_kind_and_names_settle_the_rest() -> None:
    assert kind_of("node_cpu_seconds_total", None) == "counter"
    assert kind_of("http_request_duration_seconds_bucket", None) == "histogram"
    assert kind_of("http_request_duration_seconds_count", MetricMetadata(type="histogram")) == "counter"
    assert kind_of("pg_stat_activity_count", MetricMetadata(type="gauge")) == "gauge"
    assert kind_of("pg_stat_activity_count", None) == "gauge"  # `_count` alone is no counter
    assert kind_of("rpc_latency", MetricMetadata(type="summary")) == "summary"


def test_reads_are_typed_narrowed_and_grouped_by_identity() -> None:
    counter = Candidate("node_cpu_seconds_total", "alert", {"mode": "idle", "instance": "db1:9100"})
    histogram = Candidate("http_request_duration_seconds_bucket", "question", {"instance": "web1:8080"})
    gauge = Candidate("redis_db_keys", "question", {"db": "db3"})

    rate = read_promql(counter, "counter", rate_window="5m")
    p99 = read_promql(histogram, "histogram", rate_window="5m")
    level = read_promql(gauge, "gauge", rate_window="5m", stack=None)

    by = rate[len("sum by (") : rate.index(")")].split(", ")
    assert {"service", "job", "instance", "mountpoint", "datname"} <= set(by)
    assert 'rate(node_cpu_seconds_total{instance="db1:9100",mode="idle",job!~"prometheus|alertmanager' in rate
    assert rate.endswith("[5m]))")
    assert p99.startswith("histogram_quantile(0.99, sum by (le, service")
    assert 'rate(http_request_duration_seconds_bucket{instance="web1:8080",job!~' in p99
    assert level == 'redis_db_keys{db="db3"}'
    assert read_name("node_cpu_seconds_total", "counter") == "rate(node_cpu_seconds_total)"
    p99_name = read_name("http_request_duration_seconds_bucket", "histogram")
    assert p99_name == "p99(http_request_duration_seconds)"


def test_a_read_narrowed_by_nothing_is_bounded_server_side_and_implicated_names_are_narrowed() -> None:
    systems = {"node_load1": {"job": "node", "instance": "pg-4:9100"}}
    chosen = [Candidate("node_load1", "key signal"), Candidate("pg_locks_count", "key signal")]
    load, locks = narrowed(chosen, systems)

    assert load.matchers == {"job": "node", "instance": "pg-4:9100"}
    assert read_promql(load, "gauge", rate_window="5m") == 'node_load1{instance="pg-4:9100",job="node"}'
    # Not scraped from an implicated system: the fleet's 10 highest series, whatever its size.
    assert locks.matchers == {}
    assert read_promql(locks, "gauge", rate_window="5m").startswith("topk(10, pg_locks_count{job!~")
    rate = read_promql(Candidate("node_cpu_seconds_total", "asked"), "counter", rate_window="5m")
    assert rate.startswith("topk(10, sum by (") and rate.endswith("[5m])))")


def test_an_alerts_metric_is_read_over_its_rules_own_range() -> None:
    """A rule that fires on `rate(x[10s])` sees a move seconds old that a five-minute rate hides:
    the range is kept from the expression to the read (a subquery's range too; none for an instant
    selector)."""
    expr = (
        'histogram_quantile(0.95, sum by (le, handler) (rate(http_request_duration_seconds_bucket{job="shop"}'
        "[10s]))) > 0.3 and on() max_over_time(up[1h30m:1m]) > 0 and queue_depth > 3"
    )
    assert [(s.metric, s.range_s) for s in selectors_in(expr)] == [
        ("http_request_duration_seconds_bucket", 10),
        ("up", 5_400),
        ("queue_depth", None),
    ]
    link = AlertLink("HighRequestLatency", {"handler": "/pay"}, tuple(selectors_in(expr)[:1]))
    names = ["http_request_duration_seconds_bucket"]
    first = choose(names, question="why is pay slow?", links=[link])[0]
    assert first.rate_s == 10
    promql = read_promql(first, "histogram", rate_window="10s")
    assert "[10s]" in promql and "[5m]" not in promql


def test_an_alerts_read_keeps_its_rules_other_matchers_and_filters_are_checked() -> None:
    """`rate(requests_total{status=~"5.."}[10s])`: the read counts the failing requests the rule
    counts, not every status (their total barely moves when half of them fail). A filter given to
    read_metric is parsed and rendered anew: one !=, =~ or !~ matcher, nothing else."""
    from tools.prometheus.selector import SelectorError, parse_filter

    expr = 'sum by (handler) (rate(requests_total{job="shop",status=~"5.."}[10s])) > 0.05'
    selector = selectors_in(expr)[0]
    assert selector.equalities() == {"job": "shop"} and selector.filters() == ('status=~"5.."',)
    link = AlertLink("HighErrorRate", {"handler": "/pay"}, (selector,))
    first = choose(["requests_total"], question="why is pay failing?", links=[link])[0]
    assert first.filters == ('status=~"5.."',)
    promql = read_promql(first, "counter", rate_window="10s")
    assert 'status=~"5.."' in promql and 'handler="/pay"' in promql

    assert parse_filter('code !~ "2.."') == 'code!~"2.."'
    for hostile in ('status="500"', 'a=~"x"} or vector(1', 'a=~"x", b!="y"', '__name__=~".+"', 'a=~"("'):
        with pytest.raises(SelectorError):
            parse_filter(hostile)
