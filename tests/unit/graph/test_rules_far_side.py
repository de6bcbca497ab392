"""A proxy timing out at its upstream waits on the system whose own lines said it ran out just before
(a process manager at its worker cap); a site known only by a prober's URL is how the incident looks
from outside, never its cause by the names the web tier's lines give it."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.categories import categorize
from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.links import relays
from graph.analysts.rules.suspect import Suspect
from tests.unit.graph.digest_facts import alert, ask, lines
from tools.facts import Digest, LogPattern

PROBE = {"instance": "https://shop.example.test/cart", "job": "blackbox"}
TIMEOUT = (
    "upstream timed out (110: Connection timed out) while reading response header from upstream, "
    'server: shop.example.test, upstream: "fastcgi://10.4.2.21:9000", host: "shop.example.test"'
)
CAP = "WARNING: [pool shop] server reached pm.max_children setting (8), consider raising it"


def _web(cap_at: str) -> Digest:
    return Digest(
        alert_groups=[alert("ProbeFailed", "shop", "2026-03-01T10:06:00Z", PROBE, "probe failed")],
        log_patterns=[
            lines("edge-proxy", TIMEOUT, "2026-03-01T10:03:15Z", 84),
            lines("fpm", CAP, cap_at, 13, level="warn"),
        ],
    )


def test_a_proxy_timing_out_waits_on_the_upstream_that_ran_out_just_before() -> None:
    draft = diagnose_digest(ask("customers get 504s since 10:00, why?", _web("2026-03-01T10:02:41Z")))
    assert draft.root_cause is not None
    assert (draft.root_cause.service, draft.root_cause.category) == ("fpm", "saturation")
    assert "max_children" in draft.root_cause.statement
    assert "shop" not in {r.service for r in draft.ruled_out}  # the probe is the symptom, not a herring


def test_an_upstream_that_ran_out_long_before_is_no_far_side_by_time_alone() -> None:
    draft = diagnose_digest(ask("customers get 504s, why?", _web("2026-03-01T08:30:00Z")))
    assert draft.root_cause is not None and draft.root_cause.service != "fpm"


def test_a_process_managers_pool_tag_is_no_connection_pool() -> None:
    assert categorize(CAP, changed=False) == "saturation"
    assert (
        categorize("HikariPool-1 - Connection is not available", changed=False)
        == "connection_pool_exhaustion"
    )


def test_a_resource_path_in_a_systems_own_line_is_no_call_it_made() -> None:
    # A managed database's activity log names its own path (`.../providers/Microsoft.Sql/...`).
    own_alert = LogPattern(
        evidence_id="logs-1",
        template="Metric alert <*> Activated: Resource ID <*>",
        first_seen="2026-01-01T10:00:00Z",
        last_seen="2026-01-01T10:30:00Z",
        service="ledger-sqldb",
        level="WARN",
        count=3,
        example="Metric alert 'dtu-high' Activated: Resource ID /subscriptions/6c1e/providers/Microsoft.Sql/"
        "servers/sql-weu-1/databases/ledger-sqldb has reached its DTU limit",
    )
    assert not relays(Suspect("ledger-sqldb", errors=[own_alert]))
    assert relays(
        Suspect("api", errors=[replace(own_alert, example="SqlException: the request limit was reached")])
    )
