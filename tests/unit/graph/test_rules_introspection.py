"""Database introspection in the rule-based analyst, on plain data: when a database is implicated the
plan asks it for its own state; the head of a blocking chain or the application holding most of a busy
database's connections becomes the root cause in an SRE's words, and EvidenceGuard holds those words
(names, pids, seconds, counts) to the introspection result."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graph.analysts.base import Discovery, Draft, Finding, PlanRequest, RootCause, Route, RuledOut
from graph.analysts.rules.introspection import (
    database_cause,
    duration,
    introspection_calls,
    with_database_cause,
)
from graph.analysts.rules.plan import plan_targeted
from graph.nodes.evidence_guard.checks import check_draft
from graph.nodes.evidence_guard.corpus import build_corpus, run_entities, runbook_names
from tools.base import Evidence, EvidenceSource, EvidenceStatus
from tools.digest.build import build_digest
from tools.facts import AlertGroup, Digest
from tools.sql.introspect_shape import shaped

NOW = datetime(2026, 12, 2, 4, 0, tzinfo=UTC)
TOOLS = ["list_alerts", "query_logs", "read_metric", "query_mysql", "inspect_database"]


def _pair(waiter: int, blocker: int, *, waiter_app: str = "checkout-api") -> dict[str, Any]:
    head = blocker == 17836
    return {
        "waiting_pid": waiter, "waiting_application": waiter_app, "database": "payments", "waiting_s": 40,
        "blocking_pid": blocker, "blocking_user": "app", "blocking_client": "10.0.0.7",
        "blocking_application": "batch-reconciler" if head else waiter_app,
        "blocking_state": "idle in transaction" if head else "active",
        "blocking_xact_age_s": 121 if head else 40, "blocking_state_s": 118 if head else 40,
        "blocking_query": "UPDATE orders SET status = 'held' WHERE id = 42",
    }  # fmt: skip


def _sessions(*groups: tuple[str, str, int], limit: int = 100) -> dict[str, Any]:
    rows = [
        {"application": a, "user_name": "app", "client": "10.0.0.7", "state": s, "sessions": n}
        for a, s, n in groups
    ]
    return shaped("sessions", {"max_connections": limit, "total": sum(n for *_, n in groups), "groups": rows})


def _evidence(sections: dict[str, Any], evidence_id: str = "sql-1") -> Evidence:
    data = {"datasource": "payments", "dialect": "postgres", "introspection": sections}
    return Evidence(
        id=evidence_id, source=EvidenceSource.SQL, tool="inspect_database", title="State of payments",
        summary="payments (postgres)", data=data, query={"datasource": "payments"}, status=EvidenceStatus.OK,
    )  # fmt: skip


# A chain: 17836 holds the row; 201 waits on it, 202-205 queue behind 201 (tuple lock) and 17836.
LOCK = _evidence(
    {
        "sessions": _sessions(("checkout-api", "active", 5), ("batch-reconciler", "idle in transaction", 1)),
        "blocking": shaped(
            "blocking",
            {"pairs": [_pair(201, 17836)] + [_pair(w, 201) for w in range(202, 206)] + [_pair(205, 17836)]},
        ),
        "transactions": {"open": []},
        "lock_waits": {
            "relations": [{"relation": "public.orders", "waiting_sessions": 5, "longest_wait_s": 40}]
        },
    }
)
LEAK = _evidence({"sessions": _sessions(("leaky-worker", "idle", 55), ("checkout-api", "active", 8))})


def _check(draft: Draft, items: list[Evidence]) -> list[str]:
    digest = build_digest(items, now=NOW)
    corpus = build_corpus(items, digest)
    return check_draft(
        draft, corpus, entities=run_entities(items), runbook_text=runbook_names(items)
    ).violations


def test_the_head_of_the_chain_counts_every_session_queued_behind_it() -> None:
    [head, inner] = LOCK.data["introspection"]["blocking"]["blockers"]
    assert (head["pid"], head["head_of_chain"], head["waiting_total"]) == (17836, True, 5)
    assert head["waiting_applications"] == {"checkout-api": 5}
    assert head["query"] == "UPDATE orders SET status = ? WHERE id = ?"  # literals masked
    assert (inner["pid"], inner["head_of_chain"], inner["waiting_direct"]) == (201, False, 4)


def test_the_blocker_is_the_root_cause_in_an_sres_words_and_passes_the_guard() -> None:
    digest = build_digest([LOCK], now=NOW)
    digest.alert_groups = [
        _firing("PostgresLockContention", instance="pg-1", datname="payments"),
        _firing("HostHighCpuLoad", instance="web-1"),
    ]
    before = Draft(
        summary="Root cause: inventory-db (errors).",
        root_cause=RootCause(service="inventory-db", category="errors", statement="x.", confidence=0.5),
        findings=[
            Finding(statement="payments (postgres) is in the state shown.", evidence_ids=["sql-1"]),
            Finding(statement="inventory-db logged 3 WARN lines.", evidence_ids=["sql-1"]),
        ],
        ruled_out=[
            RuledOut(service="pg-1", reason="PostgresLockContention has no causal link", evidence_ids=["a"]),
            RuledOut(service="web-1", reason="HostHighCpuLoad has no causal link", evidence_ids=["a"]),
        ],
        open_questions=["What makes PostgresLockContention fire on pg-1?", "Is web-1 busy?"],
    )
    draft = with_database_cause(before, digest)
    assert draft.root_cause is not None and draft.root_cause.service == "batch-reconciler"
    assert draft.root_cause.statement == (
        "batch-reconciler (pid 17836) has been idle in transaction for 1m58s (118 s) holding the lock that"
        " 5 checkout-api sessions wait on in payments"
    )
    assert draft.summary == "Root cause: batch-reconciler (slow query) in payments."
    assert "public.orders (5 waiting)" in draft.findings[0].statement
    # The database's alert is its symptom, never ruled out; findings ranked without the database's
    # account stay only when they are about the same database or applications.
    assert draft.findings[1].statement.startswith("Firing alerts on pg-1: PostgresLockContention")
    assert [f.statement for f in draft.findings[2:]] == ["payments (postgres) is in the state shown."]
    assert [item.service for item in draft.ruled_out] == ["web-1"]
    assert draft.open_questions == ["Is web-1 busy?"]
    checked = draft.model_copy(update={"findings": [draft.findings[0], draft.findings[2]], "ruled_out": []})
    assert _check(checked, [LOCK]) == []


def test_the_guard_refuses_a_wrong_pid_count_or_application() -> None:
    draft = with_database_cause(Draft(summary="x"), build_digest([LOCK], now=NOW))
    assert draft.root_cause is not None
    # A pid far from the real one (the guard allows numbers 0.5 % of slack, which a pid does not need).
    for wrong in ("pid 4242", "that 7 checkout-api", "(130 s)"):
        right = {"pid 4242": "pid 17836", "that 7 checkout-api": "that 5 checkout-api", "(130 s)": "(118 s)"}
        finding = Finding(
            statement=draft.findings[0].statement.replace(right[wrong], wrong), evidence_ids=["sql-1"]
        )
        assert _check(draft.model_copy(update={"findings": [finding]}), [LOCK]), wrong
    other = _evidence({"sessions": _sessions(("report-worker", "idle", 3))}, "sql-2")
    lie = Finding(statement="report-worker holds the lock.", evidence_ids=["sql-1"])
    assert _check(draft.model_copy(update={"findings": [lie]}), [LOCK, other])


def test_the_leaking_application_is_named_with_its_share_of_max_connections() -> None:
    cause = database_cause(build_digest([LEAK], now=NOW))
    assert cause is not None and cause.service == "leaky-worker"
    assert (
        cause.statement == "leaky-worker holds 55 of 100 connections (55 idle) in payments, 63 in use in all"
    )
    draft = with_database_cause(
        Draft(summary="No incident found.", healthy=True), build_digest([LEAK], now=NOW)
    )
    assert (draft.healthy, draft.verdict) == (False, "incident") and _check(draft, [LEAK]) == []


def test_a_quiet_database_names_no_cause() -> None:
    quiet = _evidence({"sessions": _sessions(("leaky-worker", "idle", 30), ("api", "active", 5))})
    assert database_cause(build_digest([quiet], now=NOW)) is None  # 35 of 100: not short of connections
    healthy = Draft(summary="No incident found.", healthy=True)
    assert with_database_cause(healthy, build_digest([quiet], now=NOW)) is healthy


def _request(
    query: str, digest: Digest | None = None, datasources: tuple[str, ...] = ("payments", "inventory")
) -> PlanRequest:
    return PlanRequest(
        route=Route(route="complex", resolved_query=query), round=2, tool_names=TOOLS,
        datasources=list(datasources), remaining_tool_calls=40, digest=digest or Digest(),
        discovery=Discovery(),
    )  # fmt: skip


def _firing(alertname: str, **labels: str) -> AlertGroup:
    return AlertGroup(
        evidence_id="alerts-1", alertname=alertname, service=None, severity="warning", status="firing",
        count=1, instances=[], first_started="2026-12-02T03:58:00Z", summary="", labels=labels,
    )  # fmt: skip


def test_a_database_is_implicated_by_the_question_or_an_alert_and_inspected_first() -> None:
    asked = introspection_calls(_request("who holds the lock everyone waits on?"))
    assert [c.args["datasource"] for c in asked] == ["payments", "inventory"]
    alert = Digest(alert_groups=[_firing("PostgresTooManyConnections", instance="pg-1", datname="payments")])
    plan = plan_targeted(_request("why is checkout failing?", alert))
    assert plan.calls[0].tool == "inspect_database" and plan.calls[0].args == {"datasource": "payments"}
    assert introspection_calls(_request("anything abnormal on the hosts?")) == []
    host = Digest(alert_groups=[_firing("HostHighCpuLoad", instance="web-1")])
    assert introspection_calls(_request("why is the CPU saturated?", host)) == []


def test_durations_read_as_an_sre_says_them() -> None:
    assert [duration(s) for s in (42, 118, 7380)] == ["42s", "1m58s", "2h03m"]
