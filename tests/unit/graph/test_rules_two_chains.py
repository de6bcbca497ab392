"""Two incidents told by errors at once: a database machine's saturated disk behind an API's slow
queries (its driver's words, `pgx: query ...`), and a DNS server behind a board's failed lookups (known
by the address its callers name, which a probe's `target_host` label names). The root is the first;
the second is "also happening", with its own victim, never folded into the first."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

QUESTION = (
    "since about 02:00 tally lookups crawl and the dispatch board keeps throwing errors, what is going on?"
)


def _digest() -> Digest:
    disk = move("rate(node_disk_io_time_seconds_total)", "node", "2026-03-01T01:59:00Z",
                {"job": "node", "instance": "pg-tally-01:9100"})  # fmt: skip
    load = move("node_load1", "node", "2026-03-01T01:59:00Z", {"job": "node", "instance": "pg-tally-01:9100"})
    probe = move("probe_success", "blackbox-dns", "2026-03-01T02:07:00Z",
                 {"job": "blackbox-dns", "instance": "10.40.0.2:53", "target_host": "ns-int-01"})  # fmt: skip
    probe = replace(probe, direction="down", baseline=1.0, recent=0.0, peak=1.0, ratio=0.0)
    saturated = alert("NodeDiskIOSaturation", "node", "2026-03-01T02:31:00Z",
                      {"job": "node", "instance": "pg-tally-01:9100"}, "Disk IO queue is high")  # fmt: skip
    probe_failed = alert("BlackboxProbeFailed", "blackbox-dns", "2026-03-01T02:07:00Z",
                         {"job": "blackbox-dns", "instance": "10.40.0.2:53", "target_host": "ns-int-01"},
                         "probe failed")  # fmt: skip
    slow = lines("tally-api", "GET /moves 504 30s: pgx: query tally_moves: context deadline exceeded",
                 "2026-03-01T02:00:30Z")  # fmt: skip
    failed = "refresh failed: lookup gate.internal on 10.40.0.2:53: read: connection refused"
    refused = lines("dispatch-board", failed, "2026-03-01T02:06:41Z")
    return Digest(
        anomalies=[disk, load, probe], alert_groups=[saturated, probe_failed], log_patterns=[slow, refused]
    )


def test_the_database_machine_is_the_root_and_the_dns_server_a_second_incident_by_its_name() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest()))
    assert draft.root_cause is not None and draft.root_cause.service == "pg-tally-01"
    assert "Also happening, unrelated to it: the incident in ns-int-01" in draft.summary
    assert "dispatch-board" not in draft.summary.split("Also happening")[0]
