"""A third party known only by the host its callers' failing calls name."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.external import external_hosts
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

TIMED_OUT = LogPattern(
    evidence_id="logs-1",
    service="rates-svc",
    level="ERROR",
    template="quote failed request_id=<ID>: ReadTimeout: HTTPSConnectionPool(host=<*>, port=<NUM>)",
    count=108,
    first_seen="2026-01-01T15:47:29Z",
    last_seen="2026-01-01T16:20:00Z",
    example="quote failed request_id=dd50f464: ReadTimeout: "
    "HTTPSConnectionPool(host='api.carrier-one.example', port=443): Read timed out. (read timeout=4.0)",
)
ERROR_RATIO = AlertGroup(
    evidence_id="alerts-1",
    alertname="RatesHighErrorRatio",
    service="rates-svc",
    severity="critical",
    status="firing",
    count=1,
    instances=[],
    first_started="2026-01-01T15:53:00Z",
    summary="rates-svc 5xx ratio above 5%",
    labels={"alertname": "RatesHighErrorRatio", "service": "rates-svc"},
)
SLOWER = MetricAnomaly(
    evidence_id="metrics-1",
    metric="p99(http_request_duration_seconds)",
    labels={"job": "rates-svc", "instance": "rates-svc-0:8000"},
    service="rates-svc",
    baseline=0.4,
    recent=4.0,
    peak=4.1,
    change_at="2026-01-01T15:46:00Z",
    direction="up",
    ratio=10.0,
    score=8.0,
)


def _diagnose(*patterns: LogPattern) -> tuple[str | None, str]:
    digest = Digest(anomalies=[SLOWER], log_patterns=list(patterns), alert_groups=[ERROR_RATIO])
    draft = diagnose_digest(
        DiagnoseRequest(
            route=Route(route="complex", resolved_query="customers see 'shipping unavailable', what broke?"),
            evidence=[],
            digest=digest,
            now="2026-01-01T16:20:00Z",
        )
    )
    assert draft.root_cause is not None
    return draft.root_cause.service, draft.summary


def test_a_third_party_its_caller_times_out_on_is_the_root_cause() -> None:
    service, summary = _diagnose(TIMED_OUT)
    assert service == "api.carrier-one.example"
    assert "rates-svc" in summary  # the caller is named as affected


def test_a_caller_whose_own_key_was_refused_keeps_the_blame() -> None:
    refused = replace(
        TIMED_OUT,
        template="payment failed: 401 Unauthorized from https://api.pay.example/v1/charges",
        example="charge failed: 401 Unauthorized from https://api.pay.example/v1/charges (connection closed)",
    )
    assert external_hosts([refused], known=[]) == set()
    assert _diagnose(refused)[0] == "rates-svc"


def test_hosts_of_known_systems_and_files_are_no_third_party() -> None:
    lines = [
        replace(TIMED_OUT, example="connect to redis-main.cache.svc:6379 timed out"),  # a known system
        replace(TIMED_OUT, example="timed out in client.go:142 after 4s"),  # a source file, no port
        replace(TIMED_OUT, example="upstream 10.2.0.7:8443 timed out"),  # an address, not a domain
        replace(TIMED_OUT, example="read timed out from api.carrier-one.example:443", count=2),  # a stray
        # A cluster's own name, unresolved because its resolver timed out: no third party.
        replace(TIMED_OUT, example="connect to `host=orders-db.svc.cluster.local`: lookup i/o timeout"),
        replace(TIMED_OUT, example="dial failed: lookup host='api.carrier-two.example' timed out"),
        # A crawler's page in the user agent of a request that got a 503: where it came from, not a call.
        replace(
            TIMED_OUT,
            example='"GET /search?q=x HTTP/1.1" 503 UC 0 95 "Mozilla/5.0 (compatible; SailBot/2.1; '
            '+https://sailbot.example/bot)"',
        ),
    ]
    assert external_hosts(lines, known=["redis-main", "rates-svc"]) == set()
    assert external_hosts([TIMED_OUT], known=["rates-svc"]) == {"api.carrier-one.example"}


def test_a_known_systems_generated_url_is_that_system() -> None:
    """A serverless service's URL is its name with a generated tail: the service answering 503 on its own
    push endpoint is no third party of its own (a word after its name with no digit is another host)."""
    own = replace(TIMED_OUT, example="POST 503 https://ledger-writer-5nq3zq7xja-ew.a.run.app/push timed out")
    assert external_hosts([own], known=["ledger-writer"]) == set()
    other = replace(TIMED_OUT, example="POST 503 https://ledger-writer-partner.example/push timed out")
    assert external_hosts([other], known=["ledger-writer"]) == {"ledger-writer-partner.example"}
