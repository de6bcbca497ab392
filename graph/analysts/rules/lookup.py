"""Data questions by their grammar: "show / list / find / grep ...", "the last N lines", "the value of
<metric>", "run this PromQL: ...", "which alerts are firing", "which targets are down".

A question is a lookup when it asks for data with a data verb (or "which ... are ...") and names what
to read: log lines (with a service, a level, a quoted phrase, a label such as a namespace), a PromQL
expression or a metric name, alerts, scrape targets, rules or a SQL statement. Nothing here knows a
world's names: the service, the phrase and the expression are the question's own words. A question
asking why, for a cause or what is wrong stays a diagnosis, and so does "what is the issue with X":
it asks for a judgement, not for rows.

This module tells which kind of data a question asks for and reads the asks for alerts, targets,
rules and SQL; log questions are read by `lookup_logs`, metric and PromQL ones by `lookup_metrics`,
and what every kind shares (`LookupAsk`, quotes, the words that name no system, the window) is in
`lookup_words`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from graph.analysts.base import LOOKUP_ROUNDS, Plan, PlannedCall, PlanRequest
from graph.analysts.rules.lookup_logs import COUNT_LINES, labels_named, log_read, logs, named_service
from graph.analysts.rules.lookup_metrics import (
    METRIC_NAME,
    NOW,
    QUEUED,
    about,
    count_in_words,
    promql,
    promql_expression,
    value_in_words,
)
from graph.analysts.rules.lookup_sql import asks_rows, first_calls, rows_calls
from graph.analysts.rules.lookup_widen import WIDER_ROUND, stream_calls, widened_calls
from graph.analysts.rules.lookup_words import (
    DATA_VERB,
    LOGS,
    NOT_A_NAME,
    QUOTED,
    WINDOW,
    LookupAsk,
    first_group,
    window_minutes,
)
from graph.analysts.rules.onset import stated_onset
from tools.digest.labels import parse_instant

_POLITE = re.compile(
    r"^\s*(?:(?:please|pls|hey|ok|okay|so)[,\s]+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:(?:please|kindly)\s+)?",
    re.IGNORECASE,
)
_WHICH = re.compile(
    r"^(?:(?:which|what)\s+(?:\w+\s+){0,2}|(?:are|is)\s+there\s+(?:any\s+)?|any\s+|how\s+many\s+)"
    r"(?:alerts?|targets?|rules?|errors?|warnings?|logs?|log lines|lines|entries|messages)\b",
    re.IGNORECASE,
)
# "Which pods were evicted from node N?", "which jobs got OOMKilled on host H": the lines that say so.
_WHICH_DONE = re.compile(
    r"^which\s+(?:\w+\s+){0,2}?\w+s\s+(?:were|was|got|have\s+been|has\s+been)\s+"
    r"(?P<done>[a-z]+(?:ed|en))\b",
    re.IGNORECASE,
)
# "List the pods in namespace X that restarted in the last hour": the lines that say so, there.
_LIST_DONE = re.compile(
    r"^(?:list|show|find)\s+(?:me\s+)?(?:the\s+|all\s+)?\w+s\b[^?]{0,80}?\bthat\s+"
    r"(?:were\s+|was\s+|got\s+|have\s+been\s+|has\s+been\s+)?(?P<done>[a-z]+(?:ed|en))\b",
    re.IGNORECASE,
)
# A noun phrase asking for rows without a verb: "the last 20 lines containing ...", "error logs of X".
_ROWS_PHRASE = re.compile(
    r"^(?:the\s+)?(?:(?:last|latest|newest|most recent|first|top)\s+\d{1,5}\s+|all\s+)?"
    r"(?:(?:error|warn(?:ing)?|info|debug|fatal|critical)\s+)?(?:log\s+)?(?:lines|logs|entries|messages)\b"
    # "last 10 slow query log entries": a count, then a few words saying which log
    r"|^(?:the\s+)?(?:last|latest|newest|most recent|first|top)\s+\d{1,5}\s+(?:[\w-]+\s+){1,3}"
    r"(?:log\s+)?(?:lines|logs|entries|messages)\b",
    re.IGNORECASE,
)
# Asking for a judgement: a cause, a reason, what is wrong. These stay diagnoses whatever the verb.
_JUDGEMENT = re.compile(
    r"\b(?:why|root[\s-]cause|cause[ds]?|causing|reasons?|what(?:'s| is) (?:wrong|going on|happening)|"
    r"(?:find|figure|work) out|diagnos\w*|investigat\w*|explain\w*|troubleshoot\w*|"
    r"the (?:issue|problem) with|"
    # Whether anything is wrong, in an on-call's words: a judgement, never a lookup.
    r"on fire|(?:is|are) (?:it|we|things|that|this) (?:still )?(?:fine|ok|okay|good|healthy|broken|down)|"
    r"(?:anything|something) to worry|worried|should i worry|"
    # Whether it matters now: "is that hurting the store?", "anything we need to act on?", "coping?"
    r"hurting|harming|act on|(?:need|needs|have|has) to (?:act|do|worry)|coping|keeping up|"
    r"(?:is|are) (?:that|this|it) (?:a |still a )?(?:problem|issue|concern))\b",
    re.IGNORECASE,
)
_DATED_TOOLS = frozenset({"query_logs", "count_logs"})
_ALERTS = re.compile(r"\balerts?\b", re.IGNORECASE)
# "haproxy on lb-1: which backends ...": a topic, a colon, then the ask.
_TOPIC = re.compile(r"^[^:?]{1,60}:\s+(?=(?:which|what|whats|show|list)\b)", re.IGNORECASE)
# "whats firing right now?": what is in an alerting state now.
_FIRING_NOW = re.compile(
    r"^(?:what(?:'s|s| is| are)|anything)\s+(?:currently\s+|still\s+)?(?:firing|alerting)\b", re.I
)
# "Which Consul health checks are critical right now?": things in an alerting state are what the
# firing alerts say, whatever the things are called.
_WHICH_STATE = re.compile(
    r"^(?:which|what)\s+(?:[\w.-]+\s+){1,4}(?:are|is|have|has)\s+(?:\w+\s+)?(?:currently\s+|still\s+|now\s+)?"
    r"(?:critical|firing|failing|unhealthy|degraded|alerting|down|in\s+(?:a\s+)?(?:critical|warning|failed)\s+state)\b",
    re.IGNORECASE,
)
# "Which pods are in CrashLoopBackOff?": things in a state the platform names in one CamelCase or
# upper-case word; the firing alerts and the lines that carry the word list them.
_IN_STATE = re.compile(
    r"^(?i:which|what)\s+(?:[\w.-]+\s+){1,4}(?i:are|is)\s+(?i:currently\s+|still\s+|now\s+)?(?i:stuck\s+)?(?i:in)\s+"
    r"(?P<state>[A-Z][a-z]+(?:[A-Z][a-z]*)+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b"
)
# Alerts asked about over time, not only now: the history holds the ones that resolved.
_PAST = re.compile(
    r"\b(?:fired|have fired|has fired|went off|resolved|earlier|today|tonight|yesterday|last night|"
    r"this (?:morning|afternoon|evening)|history|in the (?:last|past)\s+\d*\s*\w+|since)\b",
    re.IGNORECASE,
)
_TARGETS = re.compile(r"\b(?:scrape\s+)?targets?\b", re.IGNORECASE)
_DOWN = re.compile(r"\b(?:down|unhealthy|failing|failed|not up|unreachable)\b", re.IGNORECASE)
_UP = re.compile(r"\b(?:are|is|that are|which are)\s+(?:up|healthy)\b", re.IGNORECASE)
_ON_DATASOURCE = re.compile(r"\b(?:on|in|against|from)\s+(?:datasource|database|db)?\s*([\w.-]+)\s*$", re.I)
_RULES_ASKED = re.compile(r"\b(?:alerting|recording)\s+rules?\b|^\w+\s+(?:the\s+)?rules\b", re.I)


# The lines themselves named, with no verb: "last 3 warnings from notify-svc?", "latest 20 errors in x".
_LINES_NAMED = re.compile(
    r"^(?:the\s+|my\s+)?(?:last|latest|newest|most\s+recent|recent)\s+\d{1,4}\s+(?:\w+\s+)?(?:log\s+)?"
    r"(?:lines|entries|messages|logs|errors|warnings|events)\b",
    re.IGNORECASE,
)


# "any scrape targets down?", "any alerts firing for x?": a list asked for by whether it has members.
_ANY_LISTED = re.compile(
    r"^(?:are there\s+|is there\s+)?any\s+(?:[\w-]+\s+){0,2}?(?:targets?|alerts?)\b", re.IGNORECASE
)


def lookup_ask(question: str, datasources: Sequence[str] = ()) -> LookupAsk | None:
    """The lookup a question asks for, or None when it is not a data question (or not a clear one)."""
    text = _POLITE.sub("", question.strip(), count=1).strip()
    expression = promql_expression(text)
    if expression is not None:
        return promql(text, expression, about(text, expression))
    if _JUDGEMENT.search(text):
        return None
    statement = _sql_statement(text)
    if statement is not None:
        return _sql(text, statement, datasources)
    if asks_rows(text):
        return LookupAsk("sql", first_calls(text, datasources))
    # "haproxy on lb-1: which backends have servers down atm?": the ask follows a topic and a colon.
    text = _TOPIC.sub("", text, count=1) if _TOPIC.match(text) and not DATA_VERB.match(text) else text
    if (done := _WHICH_DONE.match(text) or _LIST_DONE.match(text)) is not None:
        return _done_lines(text, done.group("done"))
    if (in_state := _IN_STATE.match(text)) is not None:
        state = in_state.group("state")
        lines = {"contains": state, **log_read(text, labels_named(text))}
        calls = (
            PlannedCall(tool="list_alerts", args={}, purpose="lookup"),
            PlannedCall(tool="query_logs", args=lines, purpose="lookup"),
        )
        return LookupAsk("alerts", calls, services=(state,))
    if QUEUED.search(text) and (counted := count_in_words(text)):
        # "How many messages are visible in queue X?": what the queue holds, not log messages.
        return promql(text, counted, about(text, counted))
    state = _WHICH_STATE.match(text) or _FIRING_NOW.match(text)
    asks_data = bool(DATA_VERB.match(text) or _WHICH.match(text) or _ROWS_PHRASE.match(text) or state)
    asks_data = asks_data or bool(_LINES_NAMED.match(text) or _ANY_LISTED.match(text))
    if not asks_data and COUNT_LINES.match(text) and (lines_counted := logs(text)) is not None:
        return lines_counted
    if not asks_data:
        named = value_in_words(text) or count_in_words(text)
        return promql(text, named, about(text, named)) if named else None
    if NOW.search(text) and not LOGS.search(text) and (metric := METRIC_NAME.search(text)):
        return promql(text, metric.group(0), about(text, metric.group(0)))
    if _TARGETS.search(text) and not LOGS.search(text):
        return _targets(text)
    if (_ALERTS.search(text) or state) and not LOGS.search(text):
        return _alerts(text)
    if _RULES_ASKED.search(text):
        kind = re.search(r"\b(alerting|recording)\b", text, re.I)
        args = {"kind": kind.group(1).lower()} if kind else {}
        return LookupAsk("rules", (PlannedCall(tool="list_rules", args=args, purpose="lookup"),))
    return logs(text)


def _sql_statement(text: str) -> str | None:
    match = re.search(r"\b(select|show|describe|explain)\b\s", text, re.IGNORECASE)
    if match is None or not re.search(r"\b(?:sql|select\b.*\bfrom)\b", text, re.IGNORECASE | re.DOTALL):
        return None
    quoted = QUOTED.search(text)
    if quoted is not None and re.match(r"\s*(?:select|show|describe|explain)\b", first_group(quoted), re.I):
        return first_group(quoted).strip().rstrip(";")
    return text[match.start() :].strip().rstrip("?;").strip()


def _sql(text: str, statement: str, datasources: Sequence[str]) -> LookupAsk:
    """The statement on the datasource the question names (else the first); routing knows no
    datasources yet and only needs to know it is a lookup."""
    if not datasources:
        return LookupAsk("sql", ())
    named = [name for name in datasources if re.search(rf"\b{re.escape(name)}\b", text)]
    datasource = (named or list(datasources))[0]
    if (tail := _ON_DATASOURCE.search(statement)) and tail.group(1) == datasource:
        statement = statement[: tail.start()].strip()
    args = {"datasource": datasource, "statement": statement}
    return LookupAsk("sql", (PlannedCall(tool="query_mysql", args=args, purpose="lookup"),))


# A probe's target fails in its result, not in its scrape: the probing exporter's scrape succeeds
# and reports its check's `..._success` as 0, so any such check failing now is listed. An exporter's
# report on its own collectors (`..._scrape_collector_success{collector="hwmon"}`) is not a target:
# a healthy host's node exporter reports a dozen at 0 for hardware it does not have.
FAILING_CHECKS = '{__name__=~".+_success", collector=""} == 0'


def _targets(text: str) -> LookupAsk:
    args: dict[str, Any] = {}
    if _DOWN.search(text):
        args["health"] = "down"
    elif _UP.search(text):
        args["health"] = "up"
    if job := re.search(r"\bjob\s+[\"'`]?([A-Za-z0-9_.:/-]+)", text, re.IGNORECASE):
        args["job"] = job.group(1)
    calls = [PlannedCall(tool="list_targets", args=args, purpose="lookup")]
    if args.get("health") == "down":
        failing = {"promql": FAILING_CHECKS}
        calls.append(PlannedCall(tool="query_promql_instant", args=failing, purpose="lookup"))
    return LookupAsk("targets", tuple(calls))


def _alerts(text: str) -> LookupAsk:
    service = named_service(text)
    args = {"service": service} if service else {}
    calls = [PlannedCall(tool="list_alerts", args=args, purpose="lookup")]
    if _PAST.search(text):
        # "Which alerts fired ... this morning?": resolved ones too, from the alert history.
        history: dict[str, Any] = {"about": service} if service else {}
        if (window := window_minutes(text)) is not None:
            history["window_minutes"] = window
        calls.append(PlannedCall(tool="alert_history", args=history, purpose="lookup"))
    return LookupAsk("alerts", tuple(calls), services=(service,) if service else ())


def _done_lines(text: str, done: str) -> LookupAsk:
    """The lines that say it was done, by the word's stem ("restarted": "Back-off restarting ..."), on
    the node, host or namespace the question names."""
    stem = done[:-2] if done.lower().endswith("ed") and len(done) > 5 else done
    args = {"contains": stem, **log_read(text, labels_named(text))}
    return LookupAsk("logs", (PlannedCall(tool="query_logs", args=args, purpose="lookup"),))


def plan_lookup(request: PlanRequest) -> Plan:
    """The round of a lookup: the calls that run the query the question asks for (none when the
    question's grammar names no query; the model may have routed it), then, when all of them matched
    nothing, the same ask read more widely (`lookup_widen`)."""
    if request.round > 1 and (rows := rows_calls(request)) is not None:
        return Plan(calls=rows[: request.remaining_tool_calls])
    if request.round == WIDER_ROUND:
        return Plan(calls=widened_calls(request.evidence)[: request.remaining_tool_calls])
    if request.round == LOOKUP_ROUNDS:
        text = request.route.resolved_query.lower()
        words = [w for w in re.findall(r"[a-z0-9]+", text) if len(w) >= 3 and w not in NOT_A_NAME]
        calls = stream_calls(request.evidence, request.discovery.log_services, words)
        return Plan(calls=calls[: request.remaining_tool_calls])
    if request.round != 1:
        return Plan()
    ask = lookup_ask(request.route.resolved_query, request.datasources)
    if ask is None:
        return Plan()
    calls = [_dated(call, request.route.resolved_query, request.now) for call in ask.calls]
    return Plan(calls=calls[: request.remaining_tool_calls])


def _dated(call: PlannedCall, question: str, now: str) -> PlannedCall:
    """A log read from the time the question states ("since 14:00", "after 03:00"), not a window
    back from now, when it states one and no window of its own."""
    moment = parse_instant(now)
    since = stated_onset(question, moment) if moment is not None else None
    if call.tool not in _DATED_TOOLS or since is None or WINDOW.search(question):
        return call
    args = {k: v for k, v in call.args.items() if k != "window_minutes"}
    return call.model_copy(update={"args": {**args, "since": since.isoformat().replace("+00:00", "Z")}})


_ANOTHER = re.compile(
    r"^\s*(?:and|also|same|now|what about|how about|and what about|and now)\s+(?:the same\s+)?"
    r"(?:for|of|from|on|in|with)?\s*(?:the\s+)?([A-Za-z0-9_.:-]+)(?:\s+(?:service|app|job|logs?|too))?\s*[?.!]?\s*$",
    re.IGNORECASE,
)


def follow_up_lookup(question: str, previous: str) -> str | None:
    """A follow-up such as "and for X?" after a lookup about a system: the previous lookup, about X."""
    another = _ANOTHER.match(question)
    earlier = lookup_ask(previous) if another is not None else None
    if another is None or earlier is None or not earlier.services:
        return None
    name = another.group(1).strip(".-")
    if name.lower() in NOT_A_NAME:
        return None
    return re.sub(rf"(?<![\w.-]){re.escape(earlier.services[0])}(?![\w-])", name, previous)
