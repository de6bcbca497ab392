"""A configuration agent changes a balancer's health check (`GET /status` -> `GET /healthz`) on its
machine and every server goes DOWN: the balancer is the root, tagged configuration, its statement quoting
the diff's hunk. Its servers (`server=gv-1`, `gv-2`, ...) are its upstreams, not members to name it by, and
the one machine its lines come from is where it runs."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.vocabulary import CHANGE
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest, LogPattern

QUESTION = "since about 09:13 the gates reject passes and the controllers log 503s, what happened?"
DIFF = (
    "--- before: /etc/haproxy/haproxy.cfg +++ after: /etc/haproxy/haproxy.cfg @@ backend gate_validate @@ "
    "- option httpchk GET /status + option httpchk GET /healthz"
)


def _on(pattern: LogPattern, host: str) -> LogPattern:
    return replace(pattern, host=host)


def _digest() -> Digest:
    labels = {"job": "gate-haproxy", "instance": "10.20.4.11:8405", "proxy": "gate_validate"}
    at = "2026-03-01T09:13:00Z"
    servers = [
        replace(
            move("haproxy_server_up", "gate-haproxy", at, {**labels, "server": f"gv-{n}"}),
            direction="down",
            baseline=1.0,
            recent=0.0,
            peak=1.0,
            ratio=0.0,
        )
        for n in (1, 2, 3)
    ]
    one = {**labels, "server": "gv-1"}
    down = replace(
        alert("HaproxyServerDown", "gate-haproxy", "2026-03-01T09:13:38Z", one, "server down"), count=3
    )
    no_server = "[ALERT] backend 'gate_validate' has no server available!"
    is_down = "[WARNING] Server gate_validate/gv-1 is DOWN, reason: Layer7 wrong status, code: 404"
    failed = "POST http://gate-haproxy.internal/v2/validate failed: 503 Service Unavailable"
    pushed = lines("ansible-pull", DIFF, "2026-03-01T09:12:28Z", count=1, level="info")
    patterns = [
        _on(lines("gate-haproxy", no_server, "2026-03-01T09:12:37Z", count=1), "lb-1"),
        _on(lines("gate-haproxy", is_down, "2026-03-01T09:12:36Z", count=3, level="warn"), "lb-1"),
        _on(replace(pushed, last_seen="2026-03-01T09:12:28Z"), "lb-1"),
        lines("gate-controller", failed, "2026-03-01T09:13:05Z", count=200),
    ]
    return Digest(anomalies=servers, alert_groups=[down], log_patterns=patterns)


def test_a_health_check_pushed_to_the_balancer_is_its_root_by_its_own_name() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest()))
    assert draft.root_cause is not None and draft.root_cause.service == "gate-haproxy"
    assert draft.root_cause.category == "configuration_error"
    assert "option httpchk GET /healthz" in draft.root_cause.statement


def test_a_configuration_agents_task_and_diff_are_changes() -> None:
    assert CHANGE.search("TASK [haproxy : render /etc/haproxy/haproxy.cfg] changed: [lb-1]")
    assert CHANGE.search(DIFF)
    assert not CHANGE.search("TASK [haproxy : validate config] ok: [lb-1]")
