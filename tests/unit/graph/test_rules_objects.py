"""A caller's errors naming an object (an index, a table) another system acted on just before."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.objects import link_shared_objects
from graph.analysts.rules.suspect import Suspect
from graph.analysts.rules.vocabulary import own_credentials_refused
from tests.unit.graph.digest_facts import alert, ask, lines
from tools.facts import Digest, LogPattern

REFUSED = LogPattern(
    evidence_id="logs-1",
    service="feed-indexer",
    level="ERROR",
    template="bulk batch <*> failed: <NUM> items rejected: cluster_block_exception index [products-v3]",
    count=60,
    first_seen="2026-01-01T10:02:35Z",
    last_seen="2026-01-01T10:30:00Z",
    example="bulk batch b-4e1a32 failed: 435 items rejected: cluster_block_exception index [products-v3] "
    "blocked by: [FORBIDDEN/12/index read-only / allow delete (api)] on feed-indexer-0",
)
# The cluster's own line about the same index, 21 seconds before: an info line, not an error.
BLOCKED = LogPattern(
    evidence_id="logs-2",
    service="search-master",
    level="INFO",
    template="updating index.blocks.read_only_allow_delete to [true] for indices [<*>]",
    count=1,
    first_seen="2026-01-01T10:02:14Z",
    last_seen="2026-01-01T10:02:14Z",
    example="updating index.blocks.read_only_allow_delete to [true] for indices [products-v3/Zr4kP1xX]",
)
# A third system that logs about its own pod name the caller's line also carries.
NEIGHBOUR = replace(
    BLOCKED,
    evidence_id="logs-3",
    service="node-agent",
    template="evicting pod <*>",
    example="evicting pod feed-indexer-0 from node w-3",
)


def _involved(*patterns: LogPattern) -> list[Suspect]:
    caller = Suspect("feed-indexer", errors=[REFUSED])
    others = {p.service: Suspect(p.service) for p in patterns if p.service and p.service != "feed-indexer"}
    return [caller, *others.values()]


def test_the_system_that_acted_on_the_callers_object_just_before_is_upstream() -> None:
    involved = _involved(REFUSED, BLOCKED)
    link_shared_objects(involved, [REFUSED, BLOCKED])
    caller, master = involved
    assert caller.blames == {"search-master"}
    assert master.relayed_by == {"feed-indexer": REFUSED}


def test_a_line_about_the_object_long_before_links_nothing() -> None:
    earlier = replace(BLOCKED, first_seen="2026-01-01T08:00:00Z", last_seen="2026-01-01T10:02:14Z")
    involved = _involved(REFUSED, earlier)
    link_shared_objects(involved, [REFUSED, earlier])
    assert not involved[0].blames


def test_the_callers_own_names_are_no_shared_object() -> None:
    # Its pod, named after it, and the machine its lines come from are the caller, whoever logs them.
    on_host = replace(REFUSED, host="ix-node-3", example=f"{REFUSED.example} (worker ix-node-3)")
    for line in ("evicting pod feed-indexer-0 from node w-3", "kubelet on ix-node-3: PLEG is not healthy"):
        caller, agent = Suspect("feed-indexer", errors=[on_host]), Suspect("node-agent")
        link_shared_objects([caller, agent], [on_host, replace(NEIGHBOUR, example=line)])
        assert not caller.blames, line


def test_a_cache_alerting_on_the_setting_its_clients_quote_is_their_upstream() -> None:
    # The cache's only sign is its alert, fired half an hour before its clients' writes were refused.
    quoted = lines(
        "session-svc",
        "failed to create session: ReplyError: OOM command not allowed when used memory > 'maxmemory'.",
        "2026-03-01T10:11:29Z",
        count=72,
    )
    full = alert(
        "CacheOutOfConfiguredMaxmemory",
        "session-cache",
        "2026-03-01T09:35:00Z",
        {"job": "session-cache", "instance": "session-cache:9121"},
        "Cache is out of configured maxmemory",
    )
    failing = lines("web", "login failed upstream=session-svc status=503", "2026-03-01T10:11:48Z", count=24)
    draft = diagnose_digest(
        ask("nobody can sign in, what's broken?", Digest(log_patterns=[quoted, failing], alert_groups=[full]))
    )
    assert draft.root_cause is not None and draft.root_cause.service == "session-cache"
    assert not any(r.service == "session-cache" for r in draft.ruled_out)


def test_a_login_that_failed_on_a_server_error_is_no_refused_credential() -> None:
    assert own_credentials_refused("login failed: invalid credentials for user svc-report")
    assert not own_credentials_refused("login failed upstream=session-svc status=503")


def test_a_fields_key_is_no_object() -> None:
    keyed = replace(REFUSED, example=f"{REFUSED.example} trace_id=a24625 request_id=b7d9")
    logged = replace(BLOCKED, example="sampled trace_id=ffe1 request_id=0c2a")
    involved = _involved(keyed, logged)
    link_shared_objects(involved, [keyed, logged])
    assert not involved[0].blames


def test_a_client_the_caller_names_as_its_own_caller_is_no_object_it_failed_on() -> None:
    """The tile server logs which client it rate-limits (`"client_id":"orbit-geofeed"`); an alert about
    that client is not what the server failed on. The same client named as where a call went is."""
    limited = alert(
        "ClientRateLimited",
        "tiles-ns",
        "2026-02-27T08:14:00Z",
        {"namespace": "tiles-ns", "client_id": "orbit-geofeed"},
        "Client orbit-geofeed is being rate limited",
    )
    for line, linked in (
        ('{"msg":"rate limit exceeded","client_id":"orbit-geofeed"}', False),
        ('{"msg":"push to partner failed","target":"orbit-geofeed"}', True),
    ):
        server = Suspect("tile-render", errors=[lines("tile-render", line, "2026-03-01T09:00:00Z")])
        namespace = Suspect("tiles-ns", alerts=[limited])
        link_shared_objects([server, namespace], server.errors)
        assert (server.blames == {"tiles-ns"}) is linked, line
