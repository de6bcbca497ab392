"""A client carrying its server's error inside a quoted value points at the server; peers that say the
same words outright point at no one. An alert raised only under a namespace belongs to the system its
series carry it, and a plain line is quoted after its timestamp and ids."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.findings import quote
from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.digest.labels import ELIDED, clip_ends
from tools.facts import Digest

SERVER = (
    "2026.03.01 10:04:38.147307 [ 3037 ] {872dd298-520f-6b7c-7049-b92a88e45023} <Error> executeQuery: "
    "Code: 252. DB::Exception: Too many parts (3009 with average size of 70.38 KiB) in table 'm.readings'. "
    "Merges are processing significantly slower than inserts. (TOO_MANY_PARTS)"
)
CLIENT = (
    'level=error caller=writer.go:142 msg="insert failed" table=m.readings err="code: 252, message: Too many '
    "parts (3006 with average size of 68.68 KiB) in table 'm.readings'. Merges are processing significantly "
    'slower than inserts"'
)


def test_a_client_quoting_its_servers_error_points_at_the_server() -> None:
    digest = Digest(
        anomalies=[move("ingest_buffered_rows", "ingest", "2026-03-01T10:04:00Z", {"namespace": "tele"})],
        alert_groups=[
            alert("IngestErrors", "ingest", "2026-03-01T10:06:00Z", {"service": "ingest"}, "inserts fail"),
            # Raised under the namespace only: the ingest's series carry it.
            alert(
                "ReadingsStale", "tele", "2026-03-01T10:10:00Z", {"namespace": "tele", "team": "bi"}, "stale"
            ),
        ],
        log_patterns=[
            lines("ingest", CLIENT, "2026-03-01T10:04:08Z", 75),
            lines("colstore", SERVER, "2026-03-01T10:09:13Z", 47, host="col-1"),  # its first lines capped
        ],
    )
    ranking = rank_suspects(digest)
    assert ranking.ranked[0].service == "colstore"
    assert "tele" not in {s.service for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert {g.alertname for g in ranking.ranked[1].alerts} == {"IngestErrors", "ReadingsStale"}
    draft = diagnose_digest(ask("readings stopped arriving around 10:05, what is going on?", digest))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("colstore", "saturation")
    assert "Too many parts" in draft.root_cause.statement


def test_peers_saying_the_same_words_outright_point_at_no_one() -> None:
    refused = "dial tcp 10.0.0.5:5432: connect: connection refused while opening the orders database pool"
    digest = Digest(
        log_patterns=[
            lines("cart", refused, "2026-03-01T10:04:00Z", 30),
            lines("checkout", refused, "2026-03-01T10:04:30Z", 30),
        ]
    )
    ranked = rank_suspects(digest).ranked
    assert not any(s.relayed_by for s in ranked)


def test_a_plain_line_is_quoted_after_its_timestamp_and_ids() -> None:
    said = quote(SERVER)
    assert said.startswith("executeQuery: Code: 252. DB::Exception: Too many parts") and said in SERVER


def test_a_quote_of_a_clipped_line_is_its_verbatim_head() -> None:
    line = "checkout request failed after retries exhausted " * 10 + "upstream=payments-api:8443"
    clipped = clip_ends(line, 240, 80)
    assert ELIDED in clipped and clipped.endswith("upstream=payments-api:8443")
    quoted = quote(clipped)
    assert ELIDED.strip() not in quoted and quoted in " ".join(line.split())
