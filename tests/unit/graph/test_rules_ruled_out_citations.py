"""A ruled-out system's reason names the root cause, so it cites evidence that names the root: its
alerts or series, or, for a root known only by its own lines, those lines (else EvidenceGuard finds
the root's name in nothing the entry cites, and the whole answer falls back)."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Route
from graph.analysts.rules.diagnose import diagnose_digest
from tools.facts import AlertGroup, Digest, LogPattern


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
