"""A system of several members whose trouble is one member's is named by that member."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.aliases import proxied_backend
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _ask(digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query="writes fail since 14:00, what is broken?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T14:40:00Z",
    )


def _alert(name: str, member: str, status: str = "firing") -> AlertGroup:
    labels = {"alertname": name, "job": "searchdb", "instance": "10.1.0.3:9114", "name": member}
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service="searchdb",
        severity="critical",
        status=status,
        count=1,
        instances=["10.1.0.3:9114"],
        first_started="2026-01-01T14:02:00Z",
        summary="disk out of space",
        labels=labels,
    )


def _lines(host: str, template: str, count: int) -> LogPattern:
    return LogPattern(
        evidence_id="logs-1",
        service="broker",
        level="ERROR",
        template=template,
        count=count,
        first_seen="2026-01-01T14:01:00Z",
        last_seen="2026-01-01T14:38:00Z",
        example=template,
        host=host,
    )


def test_an_alert_on_one_named_member_beside_others_names_the_member() -> None:
    other = _alert("HeapWarning", "sdb-data-0", status="resolved")
    words = replace(
        _lines("", "flood stage disk watermark exceeded, indices read-only", 30), service="searchdb"
    )
    draft = diagnose_digest(
        _ask(Digest(alert_groups=[_alert("DiskOutOfSpace", "sdb-data-2"), other], log_patterns=[words]))
    )
    assert draft.root_cause is not None and draft.root_cause.service == "sdb-data-2"
    assert draft.root_cause.statement.startswith("sdb-data-2 (member of searchdb")
    assert draft.summary.startswith("Root cause: sdb-data-2")
    # The only member the evidence knows is the system itself.
    alone = diagnose_digest(
        _ask(Digest(alert_groups=[_alert("DiskOutOfSpace", "sdb-data-2")], log_patterns=[words]))
    )
    assert alone.root_cause is not None and alone.root_cause.service == "searchdb"


def test_error_lines_mostly_from_one_host_name_that_host_and_an_even_split_the_system() -> None:
    full = _lines("brk-2", "Shutdown broker because all log dirs have failed", 10)
    peer = _lines("brk-1", "Controller 1 failed to change state for partition", 4)
    draft = diagnose_digest(_ask(Digest(log_patterns=[full, peer])))
    assert draft.root_cause is not None and draft.root_cause.service == "brk-2"
    even = diagnose_digest(_ask(Digest(log_patterns=[full, replace(peer, count=10)])))
    assert even.root_cause is not None and even.root_cause.service == "broker"
    # Lines of several hosts at once count against any one of them.
    spread = replace(full, host=None, count=30)
    shared = diagnose_digest(_ask(Digest(log_patterns=[full, peer, spread])))
    assert shared.root_cause is not None and shared.root_cause.service == "broker"


def test_a_proxys_name_for_a_backend_is_that_backend() -> None:
    """Traefik's `team-auth-8080@kubernetescrd` (namespace, service, port, provider) is `auth`, whose
    own series carry `namespace=team`: the ingress's 5xx alert and the pool's exhaustion are judged
    together, and the backend is named."""
    proxy = AlertGroup(
        evidence_id="alerts-1",
        alertname="ServiceHigh5xxRate",
        service="team-auth-8080@kubernetescrd",
        severity="critical",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T14:10:00Z",
        summary="5xx above 5%",
        labels={"alertname": "ServiceHigh5xxRate", "service": "team-auth-8080@kubernetescrd"},
    )
    pool = MetricAnomaly(
        "metrics-2", "datasource_pool_active_count", {"job": "auth", "namespace": "team", "pod": "auth-0"},
        "auth", 6, 20, 20, "2026-01-01T14:01:00Z", "up", 3.3, 9.0,
    )  # fmt: skip
    digest = Digest(alert_groups=[proxy], anomalies=[pool])
    draft = diagnose_digest(_ask(digest))
    assert draft.root_cause is not None and draft.root_cause.service == "auth"
    ranking = rank_suspects(digest)
    names = [s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]]
    assert names == ["auth"] and ranking.ranked[0].alerts == [proxy]
    assert proxied_backend("team-auth-8080@kubernetescrd", {"auth": {"other"}}) is None  # not its namespace
    assert proxied_backend("team-auth", {"auth": {"team"}}) is None  # no port, no provider: a name of its own
    assert proxied_backend("auth-10", {"auth": set()}) is None  # a member's ordinal, not a port


def _written(member: str, metric: str, base: float, now: float) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-5",
        metric=metric,
        labels={"job": "rowstore", "cluster": "c1", "instance": member},
        service="rowstore",
        baseline=base,
        recent=now,
        peak=now,
        change_at="2026-01-01T13:42:00Z",
        direction="up",
        ratio=now / base if base else 1e6,
        score=50.0,
    )


def _caller_and_store(moves: list[MetricAnomaly]) -> Digest:
    full = "commitlog - segment reservation failed: No space left on device"
    failed = "ERROR WriteFailure: Error from server: code=1500 [Replica(s) failed to execute write]"
    return Digest(
        anomalies=moves,
        log_patterns=[
            replace(
                _lines("", failed, 138), service="writer", level="ERROR", first_seen="2026-01-01T13:42:00Z"
            ),
            replace(
                _lines("", full, 30), service="rowstore", level="ERROR", first_seen="2026-01-01T13:42:30Z"
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="WriterHighErrorRate",
                service="writer",
                severity="critical",
                status="firing",
                count=1,
                instances=[],
                first_started="2026-01-01T13:47:00Z",
                summary="writer 5xx above 5%",
                labels={"alertname": "WriterHighErrorRate", "job": "writer"},
            ),
        ],
    )


def test_the_store_whose_own_lines_say_its_disk_is_full_is_the_cause_named_by_the_member_that_moved() -> None:
    moves = [
        _written("rows-2", "rate(rowstore_writes_failed_total)", 0, 1328),
        _written("rows-1", "rate(rowstore_write_timeouts_total)", 0, 4.6),
        _written("rows-2", "rate(rowstore_write_timeouts_total)", 0, 317.6),
        _written("rows-3", "rate(rowstore_write_timeouts_total)", 0, 4.9),
    ]
    draft = diagnose_digest(_ask(_caller_and_store(moves)))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "rows-2"
    assert "No space left on device" in draft.root_cause.statement


def test_a_move_spread_over_the_members_names_none_of_them() -> None:
    moves = [
        _written(m, "rate(rowstore_write_timeouts_total)", 0, 100) for m in ("rows-1", "rows-2", "rows-3")
    ]
    draft = diagnose_digest(_ask(_caller_and_store(moves)))
    assert draft.root_cause is not None and draft.root_cause.service == "rowstore"


def test_a_member_named_beside_series_of_the_whole_is_the_one_that_left() -> None:
    # A cluster read through one exporter's address: its health is the whole's; one node's series
    # name that node, and the exporter's address names no machine of it.
    exporter = {"job": "searchdb", "instance": "sdb-exporter.obs:9114", "cluster": "logs"}
    whole = [
        replace(_written("x", "searchdb_cluster_unassigned_shards", 0, 42), labels=exporter),
        replace(_written("x", "searchdb_cluster_data_nodes", 5, 4), labels=exporter, direction="down"),
    ]
    node = replace(
        _written("x", "rate(searchdb_breakers_tripped)", 0, 3), labels={**exporter, "name": "sdb-data-4"}
    )
    draft = diagnose_digest(_ask(Digest(anomalies=[*whole, node])))
    assert draft.root_cause is not None and draft.root_cause.service == "sdb-data-4"


def test_a_synthetic_checks_host_is_the_checker_not_a_member() -> None:
    probe = {"service": "rates-api", "host": "probe-01", "url": "https://rates.internal/healthz"}
    failing = replace(
        _written("x", "network_http_cant_connect", 0, 1),
        labels=probe,
        service="rates-api",
        evidence_id="metrics-2",
    )
    hits = replace(
        _written("x", "rate(trace_http_request_hits)", 5.4, 0.03),
        labels={"service": "rates-api"},
        service="rates-api",
        direction="down",
    )
    draft = diagnose_digest(_ask(Digest(anomalies=[failing, hits])))
    assert draft.root_cause is not None and draft.root_cause.service == "rates-api"


def test_a_systems_own_address_beside_its_one_pod_is_no_second_member() -> None:
    # `instance=conn-pooler:9127` (its Service) and its one pod's lines (`conn-pooler-0`): one system.
    full = alert(
        "PoolerMaxConnections",
        "conn-pooler",
        "2026-03-01T10:03:00Z",
        {"job": "conn-pooler", "instance": "conn-pooler:9127"},
        "client connections at max_client_conn",
    )
    waiting = move(
        "pooler_client_waiting_connections",
        "conn-pooler",
        "2026-03-01T10:03:00Z",
        {"job": "conn-pooler", "instance": "conn-pooler:9127"},
    )
    refused = lines(
        "conn-pooler",
        "pooler error: no more connections allowed (max_client_conn)",
        "2026-03-01T10:03:10Z",
        level="warn",
        host="conn-pooler-0",
    )
    draft = diagnose_digest(
        ask(
            "invoices time out, why?",
            Digest(anomalies=[waiting], log_patterns=[refused], alert_groups=[full]),
        )
    )
    assert draft.root_cause is not None and draft.root_cause.service == "conn-pooler"


def test_a_pool_named_in_code_is_a_component_of_the_app_not_a_member() -> None:
    """Micrometer names an executor (`name=planningExecutor`) and the web server's connector
    (`name=http-nio-8080`): the app is the system, whatever its pools are called."""
    saturated = replace(_alert("ExecutorSaturated", "planningExecutor"), service="planner")
    saturated = replace(saturated, labels={**saturated.labels, "job": "planner"})
    connector = replace(_alert("TomcatBusy", "http-nio-8080", status="resolved"), service="planner")
    rejected = replace(
        _lines("", "TaskRejectedException: Executor [planningExecutor] did not accept task", 40),
        service="planner",
    )
    draft = diagnose_digest(_ask(Digest(alert_groups=[saturated, connector], log_patterns=[rejected])))
    assert draft.root_cause is not None and draft.root_cause.service == "planner"
