"""A caller's errors naming the software one system of the incident runs point to that system; an
orchestrator's event about one of its objects is that object's own trouble, not the reporter's call."""

from __future__ import annotations

from dataclasses import replace

from graph.analysts.rules.dependencies import link_dependencies, reports_about
from graph.analysts.rules.products import link_product_errors
from graph.analysts.rules.suspect import Suspect
from tests.unit.graph.digest_facts import lines, move

AT = "2026-03-01T10:40:00Z"
REFUSED = "WARN: Cachedb::CommandError: ERR max number of clients reached"


def _server(name: str, software: str) -> Suspect:
    series = [
        move(f"{software}_connected_clients", name, AT, {}),
        move(f"{software}_config_maxclients", name, AT, {}),
    ]
    return Suspect(name, anomalies=series)


def _caller(text: str = REFUSED) -> Suspect:
    return Suspect("mail-worker", errors=[lines("mail-worker", text, "2026-03-01T10:41:00Z")])


def test_errors_naming_the_software_one_system_runs_point_to_it() -> None:
    caller, server = _caller(), _server("jobs-cache", "cachedb")
    link_product_errors([caller, server, _server("orders-db", "pgsql")])
    assert caller.blames == {"jobs-cache"} and "mail-worker" in server.blamed_by


def test_two_systems_running_it_say_nothing_about_which() -> None:
    caller = _caller()
    link_product_errors([caller, _server("jobs-cache", "cachedb"), _server("session-cache", "cachedb")])
    assert caller.blames == set()


def test_a_generic_prefix_or_a_caller_already_pointing_elsewhere_is_left_alone() -> None:
    caller = _caller("process crashed: out of file descriptors")
    link_product_errors([caller, _server("web-3", "process")])
    assert caller.blames == set()
    pointed = _caller()
    pointed.blames.add("elsewhere")
    server = _server("jobs-cache", "cachedb")
    link_product_errors([pointed, server])
    assert not server.blamed_by


def test_an_orchestrators_event_about_an_object_is_that_objects_own_trouble() -> None:
    event = "Warning Failed pod/promo-banner-5c8d7f9b6-k2vzn Error: ImagePullBackOff"
    assert reports_about(event.lower(), "promo-banner")
    assert not reports_about("GET /promo-banner/img.png failed", "promo-banner")
    reporter = Suspect("k8s-events", errors=[replace(lines("k8s-events", event, AT), count=7)])
    banner = Suspect("promo-banner")
    link_dependencies({"k8s-events": reporter, "promo-banner": banner}, {}, {})
    assert not banner.blamed_by and reporter.errors == []
    assert [p.example for p in banner.errors] == [event]


def test_a_kubelets_event_names_its_pod_after_in_pod() -> None:
    event = "back-off restarting failed container quote-api in pod quote-api-5f7b9d8c4d-x8q2n_pricing(0f7c)"
    assert reports_about(event, "quote-api")
    assert not reports_about("sent quote to quote-api for pricing", "quote-api")


def test_the_site_a_proxy_serves_is_no_dependency_its_errors_name() -> None:
    line = (
        "2027/06/15 14:37:41 [error] 41#41: *390348 upstream prematurely closed connection while reading "
        'response header from upstream, client: 10.64.0.242, server: quotes.example, host: "quotes.example"'
    )
    proxy = Suspect("edge-proxy", errors=[replace(lines("edge-proxy", line, AT), count=30)])
    site = Suspect("quotes.example")
    link_dependencies({"edge-proxy": proxy, "quotes.example": site}, {}, {})
    assert not site.blamed_by and proxy.blames == set()


def test_a_job_named_after_its_software_is_named_by_no_plain_word_of_a_line() -> None:
    """ "memory alarm set on node 'rabbit@mq-2'" names no exporter job called node (its series
    `node_load1`, and a recording rule's `instance:node_cpu_utilisation:rate5m`)."""
    alarm = "memory resource limit alarm set on node 'rabbit@mq-2'. Publishers will be blocked"
    broker = Suspect("jobs-mq", errors=[replace(lines("jobs-mq", alarm, AT), count=9)])
    node = Suspect(
        "node",
        anomalies=[
            move("instance:node_cpu_utilisation:rate5m", "node", AT, {"job": "node", "instance": "r-1:9100"}),
            move("node_load1", "node", AT, {"job": "node", "instance": "r-1:9100"}),
        ],
    )
    link_dependencies({"jobs-mq": broker, "node": node}, {}, {})
    assert not node.blamed_by and broker.blames == set()
