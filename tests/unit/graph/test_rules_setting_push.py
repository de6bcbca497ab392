"""A client's setting pushed by a sync (a sink's flush interval cut from 10s to 200ms) floods the store
it writes to: the store's alerts fire and the question names it, yet the client that changed just before
the store's trouble began is the root, its category the configuration, its statement the setting moved.
The setting's key naming the store (`sink.parts-store.flush_interval`) is no change to the store."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.suspect import Suspect
from graph.analysts.rules.upstream import _changed_clients
from tests.unit.graph.digest_facts import alert, ask, lines, move
from tools.facts import Digest

QUESTION = (
    "dashboards stopped updating around 10:45 and parts-store alerts are firing, what is the root cause?"
)
RELOADED = (
    "config reloaded from /etc/ingest/ingest.yaml (configmap ingest-config, resourceVersion 88412934): "
    "sink.parts-store.flush_interval 10s -> 200ms"
)


def _change(text: str, at: str) -> object:
    return replace(lines("ingest", text, at, count=1, level="info"), last_seen=at)


def _digest() -> Digest:
    parts = move("max_part_count_for_partition", "parts-store", "2026-03-01T10:20:00Z",
                 {"job": "parts-store", "instance": "ps-1:9363"})  # fmt: skip
    labels = {"job": "parts-store", "instance": "ps-1:9363"}
    too_many = alert(
        "PartsStoreTooManyParts", "parts-store", "2026-03-01T10:22:00Z", labels, "Too many parts"
    )
    failed = lines("ingest", "parts-store insert failed: code: 252, Too many parts", "2026-03-01T10:23:11Z")
    synced = _change('level=info msg="Sync operation to b71e4c0d succeeded" application=argocd/ingest',
                     "2026-03-01T10:01:35Z")  # fmt: skip
    reloaded = _change(RELOADED, "2026-03-01T10:01:52Z")
    return Digest(anomalies=[parts], alert_groups=[too_many], log_patterns=[failed, synced, reloaded])  # type: ignore[list-item]


def test_the_client_whose_setting_changed_before_the_store_filled_is_the_root() -> None:
    draft = diagnose_digest(ask(QUESTION, _digest()))
    assert draft.root_cause is not None and draft.root_cause.service == "ingest"
    assert draft.root_cause.category == "configuration_error"
    assert "sink.parts-store.flush_interval 10s -> 200ms" in draft.root_cause.statement


def test_an_orchestrators_events_about_the_systems_own_pods_are_no_client_change() -> None:
    """Cluster events naming the store's replica sets ("Scaled up replica set parts-store-5b7f9c8d6")
    just before its trouble are the store's rollout told by a reporter, not a client that changed."""
    scaled = replace(
        lines("k8s-events", "Scaled up replica set parts-store-5b7f9c8d6 to 2 from 1", "2026-03-01T10:19:00Z",
              count=1, level="info"),
        last_seen="2026-03-01T10:19:00Z",
    )  # fmt: skip
    started = lines("k8s-events", "Started container parts-store in pod parts-store-5b7f9c8d6-x2x7k",
                    "2026-03-01T10:19:30Z", count=1, level="info")  # fmt: skip
    store = Suspect("parts-store", anomalies=list(_digest().anomalies))
    reporter = Suspect("k8s-events", changes=[scaled])
    began = datetime(2026, 3, 1, 10, 20, tzinfo=UTC)
    everyone = {"parts-store": store, "k8s-events": reporter}
    assert _changed_clients(store, began, everyone, Digest(log_patterns=[scaled, started])) == set()
    # A client's own change just before, naming the store in its lines, is one.
    client = Suspect(
        "ingest", changes=[replace(scaled, service="ingest", example=RELOADED, template=RELOADED)]
    )
    said = lines("ingest", "parts-store insert slow", "2026-03-01T10:19:40Z", level="warn")
    everyone["ingest"] = client
    assert _changed_clients(store, began, everyone, Digest(log_patterns=[scaled, started, said])) == {
        "ingest"
    }
