"""Trouble that has stopped: a steady background warning does not keep it current, a change and good news
left after it are no incident, and asked what caused it, its cause is named with nothing wrong now."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.test_rules_verdict import ANSWERED, _burst, _moved, _request
from tools.facts import Digest, LogPattern


def test_a_steady_background_warning_does_not_keep_a_stopped_outage_current() -> None:
    """The errors stopped at 10:20; a rate-limit warning has come now and then all along (steady through
    the read): the outage recovered, and that background says nothing against it."""
    background = replace(
        _burst("2026-01-01T10:59:00Z"),
        level="WARN",
        template="rate limit hit for ip <IP>",
        example="rate limit hit for ip 10.0.0.7",
        first_seen="2026-01-01T09:00:00Z",
        steady=True,
    )
    asked = "what happened to ingest at 10:05?"
    draft = diagnose_digest(
        _request(Digest(log_patterns=[_burst("2026-01-01T10:20:00Z"), background]), ANSWERED, asked)
    )
    assert draft.verdict == "healthy" and "recovered" in " ".join(f.statement for f in draft.findings)
    current = replace(background, steady=False)
    assert (
        diagnose_digest(
            _request(Digest(log_patterns=[_burst("2026-01-01T10:20:00Z"), current]), ANSWERED, asked)
        ).verdict
        != "healthy"
    )


def test_a_change_and_good_news_left_after_a_stopped_outage_are_no_incident() -> None:
    """Errors from 10:05 stopped at 10:20; storage was extended on another system at 09:55 (its free space
    rose): nothing is troubled now, so no root cause, not the change that came shortly before the outage."""
    extended = LogPattern(
        evidence_id="logs-1",
        service="archive-db",
        level="INFO",
        template="Applying modification to allocated storage: 100 GiB to 200 GiB",
        count=1,
        first_seen="2026-01-01T09:55:00Z",
        last_seen="2026-01-01T09:55:00Z",
        example="Applying modification to allocated storage: 100 GiB to 200 GiB",
    )
    grew = replace(_moved("FreeStorageSpace", "up", 1e10, 1.1e11), service="archive-db", labels={})
    grew = replace(grew, change_at="2026-01-01T09:56:00Z")
    digest = Digest(log_patterns=[_burst("2026-01-01T10:20:00Z"), extended], anomalies=[grew])
    for asked in ("what happened to ingest at 10:05?", "is anything wrong?"):
        draft = diagnose_digest(_request(digest, ANSWERED, asked))
        assert draft.root_cause is None and draft.verdict == "healthy", asked


def test_asked_what_caused_trouble_that_has_ended_its_cause_is_named_and_nothing_is_wrong_now() -> None:
    """The disk-full errors stopped at 10:20: "what caused ..." gets that cause with a healthy verdict;
    "is it ok now?" gets no cause."""
    digest = Digest(log_patterns=[_burst("2026-01-01T10:20:00Z")])
    for asked in (
        "What caused the ingest pages between 10:05 and 10:20?",
        "why did ingest fail at 10:05?",
        "ingest threw a burst of errors that cleared by itself. What happened at 10:05?",
    ):
        draft = diagnose_digest(_request(digest, ANSWERED, asked))
        assert draft.verdict == "healthy" and draft.root_cause is not None, asked
        assert draft.root_cause.service == "ingest", asked
        assert "no space left on device" in draft.root_cause.statement, asked
        assert draft.summary.endswith("It is over: nothing is abnormal now."), asked
    now = diagnose_digest(_request(digest, ANSWERED, "is ingest ok now?"))
    assert now.verdict == "healthy" and now.root_cause is None


def test_a_host_whose_load_fell_when_its_nightly_job_ended_is_no_incident() -> None:
    """A database host's run queue fell from 6.9 to 0.8 when the night's report job finished: a system
    less busy is no trouble of its own, so "is something wrong right now?" gets no cause. The same host's
    load rising tenfold is trouble."""
    fell = replace(_moved("node_load1", "down", 6.92, 0.76), service="pg-ledger-01", labels={"job": "node"})
    for metric in ("node_load1", "system_load_1", "load_avg_5m"):
        digest = Digest(anomalies=[replace(fell, metric=metric)])
        draft = diagnose_digest(_request(digest, ANSWERED, "is something wrong with the database right now?"))
        assert draft.root_cause is None and draft.verdict == "healthy", metric
    rose = replace(fell, direction="up", baseline=0.76, recent=6.92, peak=6.92, ratio=9.1)
    draft = diagnose_digest(_request(Digest(anomalies=[rose]), ANSWERED, "is something wrong right now?"))
    assert draft.root_cause is not None and draft.root_cause.service == "pg-ledger-01"
