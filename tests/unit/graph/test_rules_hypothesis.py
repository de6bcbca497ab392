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
