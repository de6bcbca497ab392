"""What the answer says about its root: a ruled-out system's reason names the root, so it cites evidence
naming the root (its own lines when it has no alert or series; else EvidenceGuard finds the name in
nothing the entry cites and the whole answer falls back); and the root's kind is not named by a usage
that fell (an idle CPU)."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly


def _lines(service: str, example: str, count: int, first: str, evidence_id: str) -> LogPattern:
    return LogPattern(
        evidence_id=evidence_id,
        service=service,
        level="warn",
        template=example,
        count=count,
        first_seen=first,
        last_seen="2026-01-01T16:39:00Z",
        example=example,
    )


def test_a_herring_ruled_out_beside_a_root_known_only_by_its_lines_cites_those_lines() -> None:
    digest = Digest(
        log_patterns=[
            _lines("pricer", "TLS error: TLSV1_ALERT_UNKNOWN_CA", 89, "2026-01-01T16:02:00Z", "logs-3"),
            _lines(
                "gateway",
                "pricing call failed: 503 upstream connect error (tls)",
                147,
                "2026-01-01T16:16:00Z",
                "logs-2",
            ),
        ],
        alert_groups=[
            AlertGroup(
                evidence_id="alerts-1",
                alertname="OutstandingRequestsHigh",
                service="coordinator",
                severity="warning",
                status="firing",
                count=1,
                instances=[],
                first_started="2026-01-01T13:05:00Z",
                summary="outstanding requests above 10",
                labels={"alertname": "OutstandingRequestsHigh"},
            )
        ],
    )
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="claims fail with 503s since 16:00, what's going on?"),
        evidence=[],
        digest=digest,
        now="2026-01-01T16:40:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.service == "pricer"
    (ruled,) = draft.ruled_out
    assert ruled.service == "coordinator" and "pricer" in ruled.reason
    assert "logs-3" in ruled.evidence_ids


def test_a_usage_that_fell_does_not_name_the_troubles_kind() -> None:
    # The service idles while its handshakes fail: its CPU fell (in both pods), which is no CPU trouble.
    idle = MetricAnomaly(
        evidence_id="metrics-5",
        metric="rate(container_cpu_usage_seconds_total)",
        labels={"job": "kubelet", "namespace": "policy", "pod": "pricer-5b8f6c7d4-xq2lm"},
        service="pricer",
        baseline=0.43,
        recent=0.03,
        peak=0.03,
        change_at="2026-01-01T16:04:00Z",
        direction="down",
        ratio=0.07,
        score=18.0,
    )
    lines = _lines("pricer", "TLS error: TLSV1_ALERT_UNKNOWN_CA", 89, "2026-01-01T16:02:00Z", "logs-3")
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="why is the pricer failing?"),
        evidence=[],
        digest=Digest(
            anomalies=[idle, replace(idle, labels={**idle.labels, "pod": "pricer-5b8f6c7d4-b9r6t"})],
            log_patterns=[lines],
        ),
        now="2026-01-01T16:40:00Z",
    )
    draft = diagnose_digest(request)
    assert draft.root_cause is not None and draft.root_cause.category == "tls"
