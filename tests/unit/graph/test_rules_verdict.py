"""The three verdicts of the rule-based diagnosis: incident, healthy, inconclusive.

A firing, unmuted alert is never healthy, even when no other evidence explains it or it has no service
label; key sources that could not answer make the verdict inconclusive; errors that stopped long
before now are a recovered incident, not a cause.
"""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.base import DiagnoseRequest, EvidenceRef, Route
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.vocabulary import improving
from tools.facts import AlertGroup, Digest, LogPattern, MetricAnomaly

NOW = "2026-01-01T11:00:00Z"


def _ref(evidence_id: str, source: str, tool: str, status: str = "OK") -> EvidenceRef:
    return EvidenceRef(id=evidence_id, source=source, tool=tool, title=tool, status=status, summary="")


ANSWERED = [
    _ref("alerts-1", "alerts", "list_alerts"),
    _ref("metrics-1", "metrics", "read_metric"),
    _ref("logs-1", "logs", "query_logs", "EMPTY"),
]


def _request(
    digest: Digest, evidence: list[EvidenceRef], question: str = "is anything wrong?"
) -> DiagnoseRequest:
    route = Route(route="complex", resolved_query=question)
    return DiagnoseRequest(route=route, evidence=evidence, digest=digest, now=NOW)


def _burst(last_seen: str) -> LogPattern:
    """Forty disk-full errors from 10:05 until `last_seen`."""
    return LogPattern(
        evidence_id="logs-1",
        service="ingest",
        level="ERROR",
        template="write failed: no space left on device",
        count=40,
        first_seen="2026-01-01T10:05:00Z",
        last_seen=last_seen,
        example="write failed: no space left on device",
    )


def _alert(service: str | None, name: str = "QueueBacklogGrowing", muted: int = 0) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1",
        alertname=name,
        service=service,
        severity="warning",
        status="firing",
        count=1,
        instances=[],
        first_started="2026-01-01T10:40:00Z",
        summary="backlog above 500 messages",
        identities=["instance=host-x:9100"] if service is None else [f"job={service}"],
        muted=muted,
        silenced=muted,
    )


def test_a_firing_alert_nothing_explains_is_an_incident_whose_cause_is_not_established() -> None:
    # A lone alert with no corroborating evidence used to be healthy (a bystander) or a made-up cause.
    draft = diagnose_digest(_request(Digest(alert_groups=[_alert("relay")]), ANSWERED))
    assert draft.verdict == "incident" and not draft.healthy
    assert draft.root_cause is None
    assert draft.summary.startswith(
        'Alert QueueBacklogGrowing is firing on relay ("backlog above 500 messages")'
    )
    assert "its cause is not established: logs, metrics showed no anomaly" in draft.summary
    assert any(f.evidence_ids == ["alerts-1"] for f in draft.findings)


def test_a_firing_alert_with_no_line_and_no_series_anywhere_is_inconclusive() -> None:
    listing = _ref("logs-2", "logs", "list_log_streams", "EMPTY")  # not one stream anywhere
    names = _ref("metrics-2", "metrics", "list_metrics", "EMPTY")  # and no series to read
    blind = [ANSWERED[0], ANSWERED[2], listing, names, _ref("metrics-3", "metrics", "alert_history")]
    draft = diagnose_digest(_request(Digest(alert_groups=[_alert("relay")]), blind))
    assert draft.verdict == "inconclusive" and not draft.healthy and draft.root_cause is None
    assert "inconclusive: logs (returned nothing at all), metrics (no series returned)" in draft.summary
    assert "showed no anomaly" not in draft.summary
    # A series was read (nothing moved), or streams exist and held no error line: that is a finding.
    for seen in ([*blind, ANSWERED[1]], [*blind[:2], replace(listing, status="OK"), *blind[3:]]):
        assert diagnose_digest(_request(Digest(alert_groups=[_alert("relay")]), seen)).verdict == "incident"


def test_a_firing_alert_without_a_service_label_is_named_by_where_it_fires() -> None:
    draft = diagnose_digest(_request(Digest(alert_groups=[_alert(None)]), ANSWERED))
    assert draft.verdict == "incident" and draft.root_cause is None
    assert "Alert QueueBacklogGrowing is firing on instance=host-x:9100" in draft.summary
    assert "cause is not established: logs, metrics showed no anomaly" in draft.summary


def test_a_silenced_alert_alone_is_not_an_incident() -> None:
    draft = diagnose_digest(_request(Digest(alert_groups=[_alert("relay", muted=1)]), ANSWERED))
    assert draft.verdict == "healthy" and draft.healthy and draft.root_cause is None


def test_failed_key_sources_make_the_verdict_inconclusive_and_are_named() -> None:
    evidence = [ANSWERED[0], _ref("metrics-1", "metrics", "read_metric", "TIMEOUT"), ANSWERED[2]]
    draft = diagnose_digest(_request(Digest(), evidence))
    assert draft.verdict == "inconclusive" and not draft.healthy and draft.root_cause is None
    assert "metrics" in draft.summary


def test_metrics_that_returned_no_series_make_the_verdict_inconclusive() -> None:
    evidence = [ANSWERED[0], _ref("metrics-1", "metrics", "list_metrics"), ANSWERED[2]]
    draft = diagnose_digest(_request(Digest(), evidence))
    assert draft.verdict == "inconclusive"
    assert "metrics (no series returned)" in draft.summary


def test_errors_that_stopped_long_ago_are_a_recovery_not_a_cause() -> None:
    burst = _burst("2026-01-01T10:20:00Z")
    draft = diagnose_digest(_request(Digest(log_patterns=[burst]), ANSWERED))
    assert draft.verdict == "healthy" and draft.root_cause is None
    assert any("none since: it recovered" in f.statement for f in draft.findings)
    assert "nothing is abnormal now" in draft.summary


def test_errors_still_coming_are_a_current_incident() -> None:
    burst = _burst("2026-01-01T10:58:00Z")
    draft = diagnose_digest(_request(Digest(log_patterns=[burst]), ANSWERED))
    assert draft.verdict == "incident" and draft.root_cause is not None
    assert draft.root_cause.service == "ingest"


def _proxy_refused(last_seen: str) -> LogPattern:
    """A mesh proxy's warnings that name the system it could not reach, from 10:05 until `last_seen`."""
    text = "outbound:service{ns=loyalty name=tallyhall port=8080}: Failed to connect error=Connection refused"
    return replace(_burst(last_seen), service="mesh-proxy", level="WARN", template=text, example=text)


def test_a_system_blamed_only_by_lines_that_stopped_long_ago_has_recovered() -> None:
    """Is tallyhall healthy now? Others' lines naming it stopped 40 minutes ago: a past incident."""
    # tallyhall logs too (a known system), quietly.
    own = replace(
        _burst("2026-01-01T10:59:00Z"), service="tallyhall", level="INFO", template="served", example="served"
    )
    past = Digest(log_patterns=[_proxy_refused("2026-01-01T10:20:00Z"), own])
    draft = diagnose_digest(_request(past, ANSWERED, "is tallyhall healthy now?"))
    assert draft.verdict == "healthy" and draft.root_cause is None
    now = Digest(log_patterns=[_proxy_refused("2026-01-01T10:58:00Z"), own])
    current = diagnose_digest(_request(now, ANSWERED, "is tallyhall healthy now?"))
    assert current.verdict == "incident" and current.root_cause is not None
    assert current.root_cause.service == "tallyhall"


def test_a_question_about_an_alert_of_no_system_is_not_given_another_systems_cause() -> None:
    errors = _burst("2026-01-01T10:58:00Z")
    digest = Digest(alert_groups=[_alert(None)], log_patterns=[errors])
    question = "Alert QueueBacklogGrowing is firing. What is the root cause?"
    draft = diagnose_digest(_request(digest, ANSWERED, question))
    assert draft.verdict == "incident" and draft.root_cause is None
    assert "QueueBacklogGrowing is firing" in draft.summary and "Also happening: ingest." in draft.summary


def test_a_system_named_only_by_a_label_of_a_series_read_is_known() -> None:
    """A cloud namespace named by `resourceName` on the series read, with nothing about it a fact, is
    a system the evidence knows: quiet, so healthy, not "no series names it"."""
    question = "is sb-ledger-prod healthy? a queue spiked at 02:00"
    unknown = diagnose_digest(_request(Digest(), ANSWERED, question))
    assert unknown.verdict == "inconclusive"
    seen = diagnose_digest(_request(Digest(names={"sb-ledger-prod", "ledger-post"}), ANSWERED, question))
    assert seen.verdict == "healthy" and seen.root_cause is None


def test_a_system_no_evidence_names_is_inconclusive_not_another_systems_trouble() -> None:
    """Asked about `ingest-reconciler` when only `ingest` speaks: its health cannot be read, and the
    ingest errors are listed beside it, never given as its cause."""
    question = "is ingest-reconciler healthy? reports look late"
    draft = diagnose_digest(
        _request(Digest(log_patterns=[_burst("2026-01-01T10:44:00Z")]), ANSWERED, question)
    )
    assert draft.verdict == "inconclusive"
    assert draft.root_cause is None
    assert "no alert, metric series or log line names ingest-reconciler" in draft.summary
    assert "Also happening: ingest" in draft.summary
    # A member of a system the evidence names (`ingest-2` of `ingest`) is not unknown.
    member = diagnose_digest(
        _request(Digest(log_patterns=[_burst("2026-01-01T10:59:00Z")]), ANSWERED, "why is ingest-2 failing?")
    )
    assert member.verdict == "incident"


def test_the_named_subject_of_a_health_question_is_unseen_whatever_its_family() -> None:
    """`quillmate-search` shares no family with anything the evidence names: asked whether it is
    healthy, the answer is that nothing about it was seen, not that it is healthy. A hyphenated
    adjective ("long-running") is no system."""
    quiet = Digest(log_patterns=[_burst("2026-01-01T10:20:00Z")])  # recovered: otherwise healthy
    questions = (
        "Is quillmate-search healthy?",
        "why is quillmate-search slow since 10:00?",
        "Is the quillmate-search cluster healthy?",
        "Why is the quillmate-search nightly job failing?",
        # A known system named after it is where it runs, not the subject.
        "Why is the quillmate-search nightly job failing on ingest?",
    )
    for question in questions:
        draft = diagnose_digest(_request(quiet, ANSWERED, question))
        assert draft.verdict == "inconclusive", question
        assert "quillmate-search" in draft.summary
    adjective = diagnose_digest(_request(quiet, ANSWERED, "why are long-running queries piling up?"))
    assert adjective.verdict == "healthy"


def test_a_question_about_a_silenced_alert_is_answered_healthy_and_says_it_is_silenced() -> None:
    """The alert the question names fires, but an operator silenced it: known, not new trouble. The
    answer names it and its silence instead of "cause not established"."""
    question = "QueueBacklogGrowing is still active. Do we have a delivery problem?"
    draft = diagnose_digest(_request(Digest(alert_groups=[_alert(None, muted=1)]), ANSWERED, question))
    assert draft.verdict == "healthy" and draft.root_cause is None
    assert "no unmuted firing alerts" in draft.summary
    assert "QueueBacklogGrowing is firing but silenced by an operator" in draft.summary
    assert any("silenced" in f.statement and f.evidence_ids == ["alerts-1"] for f in draft.findings)
    unmuted = diagnose_digest(_request(Digest(alert_groups=[_alert(None)]), ANSWERED, question))
    assert unmuted.verdict == "incident"


def test_a_name_spelled_apart_from_a_known_one_is_not_unseen() -> None:
    """`ingest-er` asked while `ingester` logs: the same name, spelled with a hyphen."""
    burst = LogPattern(
        evidence_id="logs-1",
        service="ingester",
        level="ERROR",
        template="write failed: no space left on device",
        count=40,
        first_seen="2026-01-01T10:05:00Z",
        last_seen="2026-01-01T10:58:00Z",
        example="write failed: no space left on device",
    )
    draft = diagnose_digest(_request(Digest(log_patterns=[burst]), ANSWERED, "Is ingest-er healthy?"))
    assert draft.verdict == "incident"


def test_a_dns_name_of_a_known_system_names_that_system() -> None:
    """`quill-api.service.consul` in a caller's complaint is quill-api, which the evidence knows."""
    burst = LogPattern(
        evidence_id="logs-1",
        service="quill-api",
        level="ERROR",
        template="config validation failed",
        count=40,
        first_seen="2026-01-01T10:05:00Z",
        last_seen="2026-01-01T10:58:00Z",
        example="config validation failed",
    )
    question = "web says 'lookup quill-api.service.consul: no such host' since 10:05, is dns broken?"
    draft = diagnose_digest(_request(Digest(log_patterns=[burst]), ANSWERED, question))
    assert draft.verdict == "incident" and draft.root_cause is not None
    assert draft.root_cause.service == "quill-api"


def _moved(metric: str, direction: str, base: float, now: float) -> MetricAnomaly:
    return MetricAnomaly(
        evidence_id="metrics-1",
        metric=metric,
        labels={"job": "ingest", "pod": "ingest-2"},
        service="ingest",
        baseline=base,
        recent=now,
        peak=max(base, now),
        change_at="2026-01-01T10:21:00Z",
        direction=direction,
        ratio=now / base,
        score=50.0,
    )


def test_a_system_back_from_its_trouble_that_only_serves_more_or_is_less_busy_has_recovered() -> None:
    """Its errors stopped at 10:20; from 10:21 it takes its share of the traffic again."""
    burst = _burst("2026-01-01T10:20:00Z")
    more_work = _moved("rate(broker_kafka_request_bytes_total)", "up", 1.2e6, 10.5e6)
    less_busy = _moved("rate(broker_cpu_busy_seconds_total)", "down", 2.6, 1.3)
    draft = diagnose_digest(
        _request(Digest(log_patterns=[burst], anomalies=[more_work, less_busy]), ANSWERED)
    )
    assert draft.verdict == "healthy" and draft.root_cause is None
    # More failures are no load: still trouble.
    failing = _moved("rate(broker_failed_produce_requests_total)", "up", 0.1, 40)
    draft = diagnose_digest(_request(Digest(log_patterns=[burst], anomalies=[failing]), ANSWERED))
    assert draft.verdict == "incident"


def test_the_age_of_a_queues_oldest_message_falling_is_its_recovery() -> None:
    assert improving("aws_sqs_approximate_age_of_oldest_message", "down")
    assert improving("kafka_consumer_oldest_message_age_seconds", "down")
    assert not improving("aws_sqs_approximate_age_of_oldest_message", "up")


def test_a_product_named_as_one_word_that_no_telemetry_says_is_unseen() -> None:
    """ "Is Keycloak down?": a capitalised plain word is a product's name; when no alert, series or
    line says it, its health cannot be read. A product the lines do name, or a plain lower-case word,
    is not unseen."""
    quiet = Digest(log_patterns=[_burst("2026-01-01T10:20:00Z")])
    for question, name in (
        ("Is Keycloak down? nobody can log in", "keycloak"),
        ("why is PgBouncer slow?", "pgbouncer"),
    ):
        draft = diagnose_digest(_request(quiet, ANSWERED, question))
        assert draft.verdict == "inconclusive", question
        assert f"log line names {name}" in draft.summary
    for question in ("Is Ingest down?", "is the database slow?", "Is DB ok?"):
        assert diagnose_digest(_request(quiet, ANSWERED, question)).verdict == "healthy", question


def test_a_name_opening_the_question_as_its_subject_is_unseen_when_nothing_names_it() -> None:
    """ "seatmap-svc is showing blank seat maps since lunch, can u check why": asked about seatmap-svc,
    which no evidence names; another system's trouble is no answer about it."""
    busy = Digest(log_patterns=[_burst("2026-01-01T10:59:00Z")])
    draft = diagnose_digest(
        _request(busy, ANSWERED, "seatmap-svc is showing blank seat maps since lunch, can u check why")
    )
    assert draft.verdict == "inconclusive" and "log line names seatmap-svc" in draft.summary
    assert "Also happening: ingest" in draft.summary


def test_a_short_name_of_a_known_system_is_not_unseen() -> None:
    """ "is master-1 dying?" about `om-es-master-1`: the name's last parts, not an unknown system."""
    known = replace(_burst("2026-01-01T10:59:00Z"), service="om-es-master-1")
    draft = diagnose_digest(_request(Digest(log_patterns=[known]), ANSWERED, "is master-1 dying?"))
    assert draft.verdict == "incident"


def test_a_program_asked_about_on_a_machine_that_no_telemetry_names_is_unseen() -> None:
    """ "is memcached on mc-01 ok?": the machine may be known by its host metrics; the program is not."""
    quiet = Digest(log_patterns=[_burst("2026-01-01T10:20:00Z")], names={"mc-01:9100"})
    draft = diagnose_digest(_request(quiet, ANSWERED, "is memcached on mc-01 ok? hit rate looks off"))
    assert draft.verdict == "inconclusive" and "log line names memcached" in draft.summary
    said = replace(_burst("2026-01-01T10:20:00Z"), service="memcached")
    named = diagnose_digest(_request(Digest(log_patterns=[said]), ANSWERED, "is memcached on mc-01 ok?"))
    assert named.verdict != "inconclusive"


def test_a_question_headed_by_a_name_nothing_says_is_about_it() -> None:
    """ "ledger-archiver stuck?", "x-connect s3 sink lagging?", "loyalty-svc: points not credited": the
    name heading the question is its subject; another system's trouble is no answer about it."""
    busy = Digest(log_patterns=[_burst("2026-01-01T10:59:00Z")])
    for question, name in (
        ("ledger-archiver stuck? nothing landed in the bucket since lunch", "ledger-archiver"),
        ("kafka-connect s3 sink lagging? yesterday's data is incomplete", "kafka-connect"),
        ("loyalty-svc: customers say points not credited since lunch, can u check it", "loyalty-svc"),
    ):
        draft = diagnose_digest(_request(busy, ANSWERED, question))
        assert draft.verdict == "inconclusive" and f"log line names {name}" in draft.summary, question
    adjective = diagnose_digest(_request(busy, ANSWERED, "long-running queries piling up on ingest?"))
    assert adjective.verdict == "incident"
