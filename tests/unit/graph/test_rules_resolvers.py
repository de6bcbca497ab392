"""A name lookup that failed is the resolver's trouble: "lookup orders-api.internal on 127.0.0.1:53:
server misbehaving" points to the one system whose own signals say its answers fail (SERVFAIL lines, a
response-code series), never to the system looked up, which the caller never reached."""

from __future__ import annotations

from graph.analysts.rules.resolvers import named_as_looked_up
from graph.analysts.rules.suspects import rank_suspects
from tests.unit.graph.digest_facts import lines, move
from tools.facts import Digest

SYNC = lines(
    "locker-sync",
    'push failed: Post "https://orders-api.internal/v2/sync": dial tcp: lookup orders-api.internal on '
    "127.0.0.1:53: server misbehaving",
    "2026-03-01T10:03:00Z",
    120,
)
RESOLVER = lines(
    "resolver", "Oct 05 10:02:40 edge-b2 resolver[757]: [757:0] error: SERVFAIL", "2026-03-01T10:02:40Z", 70
)
ORDERS = lines("orders-api", "request failed: upstream connect error", "2026-03-01T10:10:00Z", 4)


def test_a_failed_lookup_points_to_the_resolver_not_to_the_name_looked_up() -> None:
    ranking = rank_suspects(Digest(log_patterns=[SYNC, RESOLVER, ORDERS]))
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert everyone["locker-sync"].blames == {"resolver"}
    assert "locker-sync" in everyone["resolver"].blamed_by
    assert "locker-sync" not in everyone["orders-api"].blamed_by


def test_a_resolver_known_by_its_response_codes_is_pointed_to_and_callers_are_no_resolvers() -> None:
    """No SERVFAIL line, but its response-code series moved; a second caller whose own lookups fail is
    a caller, not a resolver, so the choice stays one."""
    labels = {"job": "resolver", "instance": "edge-b2:9167", "rcode": "SERVFAIL"}
    rcodes = move("rate(dns_answer_rcodes_total)", "resolver", "2026-03-01T10:02:00Z", labels)
    other = lines("billing", "getaddrinfo: Temporary failure in name resolution", "2026-03-01T10:04:00Z", 30)
    ranking = rank_suspects(Digest(anomalies=[rcodes], log_patterns=[SYNC, other]))
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    assert everyone["locker-sync"].blames == {"resolver"} and everyone["billing"].blames == {"resolver"}


def test_only_a_failed_lookup_makes_a_name_the_looked_up_one() -> None:
    said = "dial tcp: lookup orders-api.internal on 10.0.0.2:53: no such host"
    assert named_as_looked_up(said, "orders-api")
    assert not named_as_looked_up("lookup orders-api took 3s; upstream orders-api timed out", "orders-api")
