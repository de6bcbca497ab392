"""A system that changed just before the asked system's trouble, and whose lines name it (or the queue
its series are about), is that trouble's cause: a consumer deployed a minute before its queue's
backlog grew, though the backlog is where the alert fires and what the question names."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.dependencies import mentions
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.vocabulary import CHANGE, CONFIG_CHANGE, ROLLOUT
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

QUEUE = {"job": "broker", "instance": "mq-1:9419", "queue": "book.postings"}


def _line(service: str, level: str, example: str, first: str, last: str, count: int = 1) -> LogPattern:
    return LogPattern(
        evidence_id="logs-2" if level == "info" else "logs-3",
        service=service,
        level=level,
        template=example,
        count=count,
        first_seen=first,
        last_seen=last,
        example=example,
    )


def _digest(*, names_queue: bool) -> Digest:
    consuming = "consuming queue=book.postings" if names_queue else "consuming its inbox"
    return Digest(
        anomalies=[
            MetricAnomaly(
                evidence_id="metrics-4",
                metric="broker_queue_messages_ready",
                labels=QUEUE,
                service="broker",
                baseline=31,
                recent=19_180,
                peak=45_030,
                change_at="2026-01-01T08:47:00Z",
                direction="up",
                ratio=618.7,
                score=50.0,
            )
        ],
        log_patterns=[
            _line(
                "deploy-bot",
                "info",
                "sync poster: image registry.example/poster:3.8.0 -> 3.9.0",
                "2026-01-01T08:45:50Z",
                "2026-01-01T08:45:50Z",
            ),
            _line(
                "poster",
                "info",
                "starting poster version=3.9.0",
                "2026-01-01T08:46:33Z",
                "2026-01-01T08:47:09Z",
                3,
            ),
            _line("poster", "info", consuming, "2026-01-01T07:30:00Z", "2026-01-01T08:47:10Z", 9),
            _line(
                "poster",
                "warn",
                "slow posting entry=p-1 took 1.70s",
                "2026-01-01T08:55:14Z",
                "2026-01-01T09:19:00Z",
                22,
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="QueueMessagesReadyHigh",
                service="broker",
                severity="warning",
                status="firing",
                count=1,
                instances=["mq-1:9419"],
                first_started="2026-01-01T09:04:00Z",
                summary="More than 10000 ready messages in book.postings",
                labels={"alertname": "QueueMessagesReadyHigh", **QUEUE},
            )
        ],
    )


def _ask(digest: Digest) -> DiagnoseRequest:
    return DiagnoseRequest(
        route=Route(route="complex", resolved_query="why is the book.postings queue growing on broker?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T09:20:00Z",
    )


def test_the_consumer_deployed_just_before_its_queue_grew_is_the_cause() -> None:
    draft = diagnose_digest(_ask(_digest(names_queue=True)))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "poster"
    assert draft.root_cause.category == "bad_deploy"  # the tag `deploy` (tools.world.CATEGORY_TAGS)
    assert "3.9.0" in draft.root_cause.statement + " ".join(f.statement for f in draft.findings)


def test_a_change_of_a_system_that_never_names_the_queue_is_no_link() -> None:
    draft = diagnose_digest(_ask(_digest(names_queue=False)))
    assert draft.root_cause is not None and draft.root_cause.service == "broker"


def test_a_version_started_or_an_image_tag_is_a_rollout() -> None:
    assert ROLLOUT.search("starting ledger-poster version=3.9.0 commit=4be1c07")
    assert ROLLOUT.search("argocd sync x: image registry.example/ledger/poster:3.9.0 (by m.o)")
    assert not ROLLOUT.search("image cache hit ratio 0.93")


def _reload_world(reloaded_at: str) -> Digest:
    origin = {"job": "origin", "namespace": "books"}
    return Digest(
        anomalies=[
            MetricAnomaly(
                evidence_id="metrics-2",
                metric="p99(http_request_duration_seconds)",
                labels=origin,
                service="origin",
                baseline=0.36,
                recent=4.5,
                peak=4.9,
                change_at="2026-01-01T14:13:00Z",
                direction="up",
                ratio=12.4,
                score=50.0,
            ),
            MetricAnomaly(
                evidence_id="metrics-3",
                metric="rate(http_requests_total)",
                labels=origin,
                service="origin",
                baseline=166.7,
                recent=1722.0,
                peak=1800.0,
                change_at="2026-01-01T14:13:00Z",
                direction="up",
                ratio=10.3,
                score=50.0,
            ),
        ],
        log_patterns=[
            _line(
                "cache",
                "info",
                "cachereload: Loading VCL r1 from /etc/cache/default.vcl",
                reloaded_at,
                reloaded_at,
            ),
            _line(
                "origin",
                "warn",
                "GET /api/books/1 200 3250ms (slow: db pool wait 2.1s)",
                "2026-01-01T14:12:04Z",
                "2026-01-01T14:39:00Z",
                103,
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="OriginLatencyHigh",
                service="origin",
                severity="critical",
                status="firing",
                count=1,
                instances=[],
                first_started="2026-01-01T14:20:00Z",
                summary="origin p99 latency above 1s",
                labels={"alertname": "OriginLatencyHigh", **origin},
            )
        ],
    )


def test_a_configuration_reload_a_moment_before_the_first_trouble_began_it() -> None:
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="book pages have been slow since 14:10, what happened?"),
        evidence=[],
        digest=_reload_world("2026-01-01T14:12:03Z"),
        now="2026-01-01T14:40:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("cache", "configuration_error")


def test_a_reload_in_any_spelling_is_a_configuration_change() -> None:
    for line in (
        "varnishreload: Loading VCL reload_1 from /etc/varnish/default.vcl",
        "nginx: signal process started, reloading configuration",
        "loaded 12 rules from /etc/prometheus/alert.rules",
    ):
        assert CHANGE.search(line) and CONFIG_CHANGE.search(line), line
    assert not CHANGE.search("reload of cache page 3 took 2s")


def test_a_system_whose_only_sign_is_a_restart_minutes_before_does_not_outrank_the_failing_one() -> None:
    """A cache restarted at the moment the storefront deployed; the storefront failed three minutes
    later with its own alerts, series and errors. The restart alone explains nothing: the storefront
    is the root, whichever began first."""
    front = {"job": "storefront", "handler": "/checkout"}
    digest = Digest(
        anomalies=[
            MetricAnomaly(
                "metrics-1",
                "rate(http_requests_total)",
                front,
                "storefront",
                0.1,
                2.0,
                2.5,
                "2026-01-01T12:26:55Z",
                "up",
                20.0,
                50.0,
            )
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="HighErrorRate",
                service="storefront",
                severity="critical",
                status="firing",
                count=1,
                instances=[],
                first_started="2026-01-01T12:27:30Z",
                summary="checkout error rate above 5%",
                labels={"alertname": "HighErrorRate", **front},
            )
        ],
        log_patterns=[
            _line(
                "storefront", "info", "deployed version v1", "2026-01-01T12:23:38Z", "2026-01-01T12:23:38Z"
            ),
            _line(
                "storefront",
                "error",
                "payment gateway TLS handshake failed: certificate expired",
                "2026-01-01T12:27:19Z",
                "2026-01-01T12:29:00Z",
                46,
            ),
            _line(
                "cache",
                "warn",
                "# Loading RDB produced by version 7.0.15",
                "2026-01-01T12:23:38Z",
                "2026-01-01T12:23:38Z",
            ),
        ],
    )
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why are checkouts failing?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T12:30:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "storefront"
    assert draft.root_cause.category == "tls"


def test_a_gitops_sync_is_a_deploy_and_letting_things_go_is_no_release() -> None:
    for line in (
        "msg=\"Initiated automated sync to '9f1c2ab6e0d4'\" application=argocd/orders-prod",
        'msg="Sync operation to 9f1c2ab6e0d4 succeeded" application=argocd/orders-prod',
        "Released pricing-engine 2.31.0 to prod",
    ):
        assert CHANGE.search(line) and ROLLOUT.search(line), line
    for line in ("HoldReaper : Released 13 expired seat holds", "Released <NUM> expired seat holds"):
        assert not CHANGE.search(line) and not ROLLOUT.search(line), line


def test_a_name_with_its_environment_after_it_is_that_system() -> None:
    assert mentions("application=argocd/order-router-prod dest=x", "order-router")
    assert not mentions("order-router-prod-2 restarted", "order-router")
    assert not mentions("api-gateway up", "api")


def test_a_chronic_warning_from_hours_before_does_not_make_a_release_a_response() -> None:
    """A stray warning every few minutes since 08:42; the release at 10:03, then its slow lookups from
    10:05. The release is not a restart the 08:42 warning caused: it is the change behind the trouble."""
    lag = {"job": "router", "topic": "orders"}
    digest = Digest(
        anomalies=[
            MetricAnomaly(
                "metrics-1",
                "consumergroup_lag",
                lag,
                "router",
                100.0,
                9000.0,
                9500.0,
                "2026-01-01T10:05:00Z",
                "up",
                90.0,
                50.0,
            )
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="ConsumerLagHigh",
                service="router",
                severity="warning",
                status="firing",
                count=1,
                instances=[],
                first_started="2026-01-01T10:12:00Z",
                summary="consumer lag above 5000",
                labels={"alertname": "ConsumerLagHigh", **lag},
            )
        ],
        log_patterns=[
            _line(
                "router",
                "warn",
                "order has no deliverable slot",
                "2026-01-01T08:42:59Z",
                "2026-01-01T10:38:00Z",
                25,
            ),
            _line(
                "router", "info", "starting router v3.14.0", "2026-01-01T10:03:30Z", "2026-01-01T10:03:30Z"
            ),
            _line(
                "router",
                "warn",
                "capacity lookup took 956 ms",
                "2026-01-01T10:05:45Z",
                "2026-01-01T10:38:56Z",
                110,
            ),
        ],
    )
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why is routing slow since 10:05?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T10:40:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.category == "bad_deploy"
