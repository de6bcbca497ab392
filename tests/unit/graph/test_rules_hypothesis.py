"""A question asking whether something caused the trouble ("did X break it?") is not scoped to X: the
trouble is diagnosed, and X, when nothing ties it to the cause and its own trouble began later, is
ruled out by name. The quote of the caller's error keeps its message past a logfmt preamble."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.findings import change_phrase, quote
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

REFUSED = "2026-03-01T10:12:00.5Z pid=7 tid=yb3 class=ReviewMailerJob jid=aa356cec2a91a4c270fc76b0 WARN: "
REFUSED += "Cachedb::CommandError: ERR max number of clients reached"
QUESTION = (
    "KubePodNotReady keeps firing about promo-banner and orders throw errors. Did its deploy break orders?"
)


def _digest() -> Digest:
    cache = [
        move("cachedb_connected_clients", "jobs-cache", "2026-03-01T10:10:00Z", {"instance": "jobs-cache-0"}),
        move(
            "cachedb_rejected_connections", "jobs-cache", "2026-03-01T10:10:00Z", {"instance": "jobs-cache-0"}
        ),
    ]
    banner = alert(
        "KubePodNotReady", "promo-banner", "2026-03-01T10:40:00Z", {"pod": "promo-banner-5c8d"}, "x"
    )
    return Digest(
        anomalies=cache,
        alert_groups=[banner],
        log_patterns=[
            lines("orders-worker", REFUSED, "2026-03-01T10:12:00Z"),
            lines(
                "k8s-events",
                "Warning Failed pod/promo-banner-5c8d Error: ImagePullBackOff",
                "2026-03-01T10:30:00Z",
            ),
        ],
    )


def test_the_system_asked_about_is_ruled_out_when_its_trouble_came_later_and_unlinked() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest()))
    assert draft.root_cause is not None and draft.root_cause.service == "jobs-cache"
    assert "promo-banner" in [item.service for item in draft.ruled_out]
    assert "Also affected: promo-banner" not in draft.summary


def test_a_logfmt_preamble_is_no_part_of_the_quote() -> None:
    assert quote(REFUSED) == "Cachedb::CommandError: ERR max number of clients reached"


def test_a_change_that_quotes_what_it_brought_is_quoted_whole() -> None:
    pulled = lines(
        "k8s-events", 'Pulling image "registry.example/apps/quote-api:3.8.0"', "2026-03-01T10:02:00Z"
    )
    assert change_phrase(pulled).startswith('`Pulling image "registry.example/apps/quote-api:3.8.0"` at ')


def test_a_loud_system_the_question_doubts_is_ruled_out_when_no_error_names_it() -> None:
    cpu = move("node_cpu_utilisation", "batch-node-7", "2026-03-01T10:00:00Z", {"instance": "batch-node-7"})
    crash = lines("quote-api", "panic: assignment to entry in nil map", "2026-03-01T10:12:00Z")
    digest = Digest(
        anomalies=[cpu],
        alert_groups=[
            alert(
                "NodeCPUHighUsage",
                "batch-node-7",
                "2026-03-01T10:05:00Z",
                {"instance": "batch-node-7"},
                "cpu",
            ),
            alert("QuoteApiHigh5xx", "quote-api", "2026-03-01T10:14:00Z", {}, "5xx above 5%"),
        ],
        log_patterns=[crash],
    )
    question = "hammered with NodeCPUHighUsage pages on the batch pool — is that what's breaking quotes?"
    draft = diagnose_digest(ask(question, digest))
    assert draft.root_cause is not None and draft.root_cause.service == "quote-api"
    assert "batch-node-7" in [item.service for item in draft.ruled_out]


def test_two_unlinked_troubles_are_both_named() -> None:
    digest = Digest(
        log_patterns=[
            lines(
                "ingest", "insert failed: Too many parts (300) in table events_raw", "2026-03-01T10:10:00Z"
            ),
            lines("ingest", "batch rejected by events-store: Too many parts", "2026-03-01T10:11:00Z"),
            lines(
                "nightly-export",
                "write to export-host-3 failed: No space left on device",
                "2026-03-01T10:40:00Z",
            ),
        ],
        alert_groups=[
            alert("StoreTooManyParts", "events-store", "2026-03-01T10:09:00Z", {}, "parts above 300"),
            alert("HostOutOfInodes", "export-host-3", "2026-03-01T10:38:00Z", {}, "inodes below 3%"),
        ],
    )
    draft = diagnose_digest(ask("dashboards are stale and the export failed too. What happened?", digest))
    assert draft.root_cause is not None
    assert draft.root_cause.service == "events-store"
    # The second trouble is named as happening beside it, with its own evidence; not dismissed.
    assert "Also happening, unrelated to it: the incident in export-host-3" in draft.summary
    assert not any(item.service == "export-host-3" for item in draft.ruled_out)
    assert any("export-host-3" in f.statement and f.evidence_ids for f in draft.findings)
