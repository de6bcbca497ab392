"""What a data question's lines must say, in a log's own spelling: an event's name in inner capitals, the
kind of line ("the node-left lines"), an upper-case word after "with", the changes made to a system; and
questions that ask whether something matters now, which stay diagnoses."""

from __future__ import annotations

from typing import Any

import pytest

from graph.analysts.base import RouteRequest
from graph.analysts.rules.lookup import lookup_ask
from graph.analysts.rules.route import route_question

# (question, tool, arguments the call must carry, arguments it must not carry)
ASKED: list[tuple[str, str, dict[str, Any], tuple[str, ...]]] = [
    (
        "Show today's CloudTrail PutFunctionConcurrency events.",
        "query_logs",
        {"contains": "PutFunctionConcurrency"},
        (),
    ),
    (
        "Show the node-left lines from the Elasticsearch master log.",
        "query_logs",
        {"contains": "node-left"},
        ("labels",),  # "node-left" is one word, not the label `node`
    ),
    (
        "Show the resolver query log lines with SERVFAIL from the last 10 minutes.",
        "query_logs",
        {"contains": "SERVFAIL", "window_minutes": 10, "any_case": True},
        (),
    ),
    (
        "List the Argo CD sync operations for vellum-render-prod today.",
        "query_logs",
        {"contains": "vellum-render-prod"},
        ("service",),  # the deploy tool's lines about it, whoever wrote them
    ),
    (
        "show me the panic lines from payout-projector",
        "query_logs",
        {"contains": "panic", "service": "payout-projector"},
        (),
    ),
    (
        "show me the IIS log lines with HTTP 500 on WRN-IIS-02",  # "HTTP 500" is a status, no phrase
        "query_logs",
        {"status_class": "500"},
        ("contains",),
    ),
    (
        "Show the last 5 lines with 429 from notify-worker.",  # a status the lines record
        "query_logs",
        {"status_class": "429", "limit": 5, "service": "notify-worker"},
        ("contains",),
    ),
    (
        "Show the last 5 'slow fdatasync' warnings from etcd.",  # the quoted phrase at that level, at once
        "query_logs",
        {"contains": "slow fdatasync", "level": "warn", "limit": 5, "service": "etcd"},
        ("any_case",),  # quoted: as given
    ),
    (
        "Show the election lines from the mongod logs in the last hour.",  # "Election succeeded", ELECTION
        "query_logs",
        {"contains": "election", "any_case": True, "window_minutes": 60},
        (),
    ),
    (
        "Show the kernel lines about the NFS server from web-3.",  # what they are about: "nfs: server"
        "query_logs",
        {"contains": "NFS", "any_case": True},
        (),
    ),
    (
        "How many report-builder jobs are active right now?",  # the kind and its state name the metric
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*(job.*active|active.*job).*"}'},
        (),
    ),
    (
        "How many times has the premium-calc container in pod premium-calc-7c9d5f6b8-kx2lp restarted?",
        "query_promql_instant",
        {"promql": '{__name__=~"(?i).*restart.*"}'},
        (),
    ),
]


@pytest.mark.parametrize(("question", "tool", "carried", "absent"), ASKED)
def test_a_data_question_reads_what_its_lines_must_say(
    question: str, tool: str, carried: dict[str, Any], absent: tuple[str, ...]
) -> None:
    ask = lookup_ask(question)
    assert ask is not None, question
    call = next(c for c in ask.calls if c.tool == tool)
    assert carried.items() <= call.args.items(), call.args
    assert not set(absent) & set(call.args), call.args
    assert route_question(RouteRequest(query=question, flow="CHAT")).route == "lookup"


@pytest.mark.parametrize(
    "question",
    [
        "MySQLReplicationLag fired overnight for ledger-mysql-b. Is there anything we need to act on now?",
        "php-fpm on fb-web-02 logged 'server reached pm.max_children setting' at 12:00. "
        "Is that hurting the store right now?",
        "Traffic doubled after the newsletter. Is the web tier coping?",
    ],
)
def test_whether_a_told_event_matters_now_is_a_diagnosis(question: str) -> None:
    assert lookup_ask(question) is None
    assert route_question(RouteRequest(query=question, flow="CHAT")).route == "complex"
