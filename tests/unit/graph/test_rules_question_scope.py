"""What the question names decides what is diagnosed; other concurrent problems are "also happening".

A Redis memory question must not get a PostgreSQL answer because a critical PostgreSQL alert outranks
the Redis signal; a question naming an alert is answered about that alert's owner.
"""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, Draft, EvidenceRef, Route
from graph.analysts.rules.dated import dated_system
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.scope import scoped_service
from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.digest_facts import lines
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

NOW = "2026-01-01T11:00:00Z"
EVIDENCE = [
    EvidenceRef(id="alerts-1", source="alerts", tool="list_alerts", title="", status="OK", summary=""),
    EvidenceRef(id="metrics-1", source="metrics", tool="read_metric", title="", status="OK", summary=""),
    EvidenceRef(id="logs-1", source="logs", tool="query_logs", title="", status="OK", summary=""),
]
PG_ALERT = AlertGroup(
    evidence_id="alerts-1",
    alertname="PostgresDown",
    service="pg-main",
    severity="critical",
    status="firing",
    count=1,
    instances=[],
    first_started="2026-01-01T10:30:00Z",
    summary="pg-main is not answering",
)
PG_ERRORS = LogPattern(
    evidence_id="logs-1",
    service="pg-main",
    level="ERROR",
    template="could not write to file: I/O error",
    count=50,
    first_seen="2026-01-01T10:29:00Z",
    last_seen="2026-01-01T10:59:00Z",
    example="could not write to file: I/O error",
)


def _memory(service: str) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric="used_memory_bytes",
        labels={"service": service},
        service=service,
        baseline=100.0,
        recent=900.0,
        peak=950.0,
        change_at="2026-01-01T10:45:00Z",
        direction="up",
        ratio=9.0,
        score=8.0,
    )


def _draft(digest: Digest, question: str) -> Draft:
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query=question),
        evidence=EVIDENCE,
        digest=digest,
        now=NOW,
        services=["pg-main", "cache"],
    )
    return diagnose_digest(request)


def test_a_question_about_one_service_is_answered_about_it_and_the_other_incident_is_also_happening() -> None:
    digest = Digest(alert_groups=[PG_ALERT], anomalies=[_memory("cache")], log_patterns=[PG_ERRORS])
    draft = _draft(digest, "why is memory on cache growing?")
    assert draft.root_cause is not None and draft.root_cause.service == "cache"
    assert "used_memory_bytes rose from 100 to 900" in draft.root_cause.statement
    assert "also happening" in draft.root_cause.statement.lower()
    assert "pg-main" in draft.summary
    # The other incident the answer names is shown with its own evidence (the guard checks every
    # name the answer asserts against what its findings cite).
    shown = [f for f in draft.findings if f.statement.startswith("Firing alerts on pg-main")]
    assert shown and shown[0].evidence_ids == ["alerts-1"]


def test_another_incident_known_only_by_its_lines_is_shown_with_them() -> None:
    worker = LogPattern(
        evidence_id="logs-2",
        service="pay-worker",
        level="WARN",
        template="settlement already applied; skipping",
        count=80,
        first_seen="2026-01-01T10:20:00Z",
        last_seen="2026-01-01T10:59:00Z",
        example="settlement already applied; skipping",
    )
    draft = _draft(
        Digest(anomalies=[_memory("cache")], log_patterns=[worker]), "why is memory on cache growing?"
    )
    assert draft.root_cause is not None and draft.root_cause.service == "cache"
    assert "pay-worker" in draft.summary
    lines = [f for f in draft.findings if f.statement.startswith("pay-worker logged 80 WARN lines")]
    assert lines and lines[0].evidence_ids == ["logs-2"]
    [other] = [r for r in draft.ruled_out if r.service == "pay-worker"]
    assert "logs-2" in other.evidence_ids


def test_trouble_elsewhere_that_is_over_is_not_also_happening() -> None:
    """Errors of another system that stopped long before now (a rollout's 503s) are history."""
    over = replace(PG_ERRORS, first_seen="2026-01-01T10:05:00Z", last_seen="2026-01-01T10:12:00Z")
    draft = _draft(Digest(log_patterns=[over]), "is cache OK right now?")
    assert draft.root_cause is None and draft.verdict == "healthy"
    assert "pg-main" not in draft.summary
    current = _draft(Digest(log_patterns=[PG_ERRORS]), "is cache OK right now?")
    assert "Also happening: pg-main" in current.summary


def test_a_named_service_without_trouble_is_not_given_another_services_cause() -> None:
    digest = Digest(alert_groups=[PG_ALERT], log_patterns=[PG_ERRORS])
    draft = _draft(digest, "why is memory on cache growing?")
    assert draft.root_cause is None
    assert draft.summary.startswith("No incident found: cache shows no firing alerts")
    assert "Also happening: pg-main" in draft.summary


def test_a_question_naming_an_alert_is_scoped_to_that_alerts_owner() -> None:
    cache_alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="CacheMemoryHigh",
        service="cache",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T10:46:00Z",
        summary="memory above 80%",
    )
    digest = Digest(
        alert_groups=[PG_ALERT, cache_alert], anomalies=[_memory("cache")], log_patterns=[PG_ERRORS]
    )
    draft = _draft(digest, "why is CacheMemoryHigh firing?")
    assert draft.root_cause is not None and draft.root_cause.service == "cache"


def test_a_question_word_that_is_a_firing_alerts_label_value_scopes_to_that_alert() -> None:
    """'why are exports failing?' with an alert on handler=/export: the export handler's alert is what
    is asked about, not the critical PostgreSQL alert that outranks it (plural and slash as words)."""
    export_alert = AlertGroup(
        evidence_id="alerts-1",
        alertname="HighErrorRate",
        service="/export",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T10:46:00Z",
        summary="5xx above 5%",
        labels={"alertname": "HighErrorRate", "handler": "/export", "severity": "warning"},
    )
    digest = Digest(alert_groups=[PG_ALERT, export_alert], log_patterns=[PG_ERRORS])
    draft = _draft(digest, "why are exports failing?")
    assert draft.root_cause is None  # nothing explains the export alert: not established, not pg-main
    assert "HighErrorRate" in draft.summary and "/export" in draft.summary
    assert "not established" in draft.summary


def test_a_named_service_with_one_error_line_gets_that_line_not_no_incident() -> None:
    """'What is the issue with job nightly-export?': its one ERROR line is too rare to rank as an
    incident, but for a question about it, it is the answer (never 'no error pattern' alone)."""
    aborted = LogPattern(
        evidence_id="logs-1",
        service="nightly-export",
        level="ERROR",
        template="export aborted: PutObject AccessDenied for bucket <*> (request <*>)",
        count=1,
        first_seen="2026-01-01T10:55:00Z",
        last_seen="2026-01-01T10:55:00Z",
        example="export aborted: PutObject AccessDenied for bucket manifests (request 7F3A9C)",
    )
    digest = Digest(alert_groups=[PG_ALERT], log_patterns=[PG_ERRORS, aborted])
    request = DiagnoseRequest(
        route=Route(route="complex", resolved_query="What is the issue with job nightly-export?"),
        evidence=EVIDENCE,
        digest=digest,
        now=NOW,
        services=["pg-main", "nightly-export"],
    )
    draft = diagnose_digest(request)
    said = " ".join([draft.summary, *(f.statement for f in draft.findings)])
    assert "PutObject AccessDenied" in said and "7F3A9C" in said
    assert draft.root_cause is None or draft.root_cause.service == "nightly-export"


def test_a_change_told_in_passing_does_not_become_the_questions_subject() -> None:
    """ "We upgraded X fwiw, but why is Y ...?" asks about Y: X's louder trouble is also happening."""
    digest = Digest(alert_groups=[PG_ALERT], anomalies=[_memory("cache")], log_patterns=[PG_ERRORS])
    draft = _draft(digest, "we upgraded pg-main last week fwiw, but why is memory on cache growing?")
    assert draft.root_cause is not None and draft.root_cause.service == "cache"
    assert "pg-main" in draft.summary


def test_only_a_name_never_asked_about_is_told_in_passing() -> None:
    known = ["lantern-web", "thimble-api"]
    asked = "is lantern-web failing since we deployed thimble-api?"
    assert scoped_service(asked, [], known) == "lantern-web"
    assert scoped_service("why is lantern-web failing? we shipped thimble-api an hour ago", [], known) == (
        "lantern-web"
    )
    # Both asked about: their relation is the question, left to the unscoped ranking.
    assert scoped_service("why did the deploy of thimble-api break lantern-web?", [], known) is None


def test_a_sentence_opening_with_an_unknown_systems_possessive_is_about_it() -> None:
    from graph.analysts.rules.scope import unseen_systems

    digest = Digest(log_patterns=[lines("fleet-portal", "report request rejected", "2026-03-01T10:00:00Z")])
    question = "kiln-sched's nightly reconcile job failed at 02:00. Root cause?"
    assert unseen_systems(question, ["fleet-portal"], digest) == ["kiln-sched"]
    assert unseen_systems("fleet-portal's reports fail. Why?", ["fleet-portal"], digest) == []


# An alert on the archive database fired at 10:10 and resolved at 10:33; another one flaps now.
RESOLVED_ALARM = AlertGroup(
    evidence_id="alerts-1",
    alertname="archive-db-FreeStorageSpace-ALARM",
    service="archive-db",
    severity="warning",
    status="resolved",
    count=1,
    instances=[],
    first_started="2026-01-01T10:10:00Z",
    ended_at="2026-01-01T10:33:00Z",
    summary="Threshold Crossed: FreeStorageSpace below 5 GiB.",
)
FLAPPING_LAG = AlertGroup(
    evidence_id="alerts-1",
    alertname="ConsumerLagHigh",
    service="tally-sync",
    severity="warning",
    status="firing",
    count=1,
    instances=[],
    first_started="2026-01-01T10:51:00Z",
    episodes=9,
    summary="Consumer group tally-sync lag above 1200 messages",
)


def test_a_resolved_alert_asked_about_by_name_or_by_when_it_fired_is_its_systems_story() -> None:
    digest = Digest(alert_groups=[RESOLVED_ALARM, FLAPPING_LAG])
    for question in (
        "archive-db-FreeStorageSpace-ALARM fired earlier today. What happened?",
        "the archive alarm fired around 10:10, what happened there?",
    ):
        draft = _draft(digest, question)

        assert draft.root_cause is None, question
        assert "fired at 2026-01-01T10:10:00Z and resolved at 2026-01-01T10:33:00Z" in draft.summary, question
        assert "Also happening: tally-sync (alert ConsumerLagHigh)" in draft.summary, question


def test_a_dated_question_stays_with_the_first_suspect_when_it_also_had_trouble_at_that_time() -> None:
    """Memory grew from 10:16, its pods were killed at 10:39: "since about 10:40" fits it, and another
    system that began failing then is no reason to scope the question to that one."""
    grew = replace(_memory("search"), change_at="2026-01-01T10:16:00Z")
    killed = AlertGroup(
        evidence_id="alerts-1",
        alertname="SearchContainerRestarting",
        service="search",
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T10:39:00Z",
        summary="search containers restart",
    )
    relay = lines("relay", "fetch failed: 503 from upstream", "2026-01-01T10:41:00Z", count=30)
    ranking = rank_suspects(
        Digest(alert_groups=[killed], anomalies=[grew], log_patterns=[relay]), focus=[], known=[]
    )
    assert [s.service for s in ranking.ranked] == ["search", "relay"]
    assert dated_system(ranking, "since about 10:40 users see errors, why?", NOW) is None
    # Without trouble of its own at that time, the system that began then is what the question dates.
    early = rank_suspects(Digest(anomalies=[grew], log_patterns=[relay]), focus=[], known=[])
    assert dated_system(early, "since about 10:40 users see errors, why?", NOW) == "relay"


def test_a_question_about_what_a_resolved_alert_was_about_is_not_answered_with_another_firing_alert() -> None:
    """ "Is search still returning 500s?": the 5xx alert on `handler="/search"` resolved; a scrape target
    elsewhere is down. The answer is about search, the other alert also happening, never its cause."""
    errors = AlertGroup(
        evidence_id="alerts-1",
        alertname="HighErrorRate",
        service="storefront",
        severity="critical",
        status="resolved",
        count=1,
        instances=[],
        first_started="2026-01-01T10:20:00Z",
        ended_at="2026-01-01T10:31:00Z",
        summary="5xx above 5%",
        labels={"alertname": "HighErrorRate", "handler": "/search", "service": "storefront"},
    )
    down = replace(
        PG_ALERT, alertname="TargetDown", summary="target down", first_started="2026-01-01T10:40:00Z"
    )
    draft = _draft(Digest(alert_groups=[errors, down]), "is search still returning 500s?")
    assert draft.root_cause is None and draft.verdict == "healthy"
    assert "TargetDown" in draft.summary
