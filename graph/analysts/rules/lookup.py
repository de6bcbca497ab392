"""Data questions by their grammar: "show / list / find / grep ...", "the last N lines", "the value of
<metric>", "run this PromQL: ...", "which alerts are firing", "which targets are down".

A question is a lookup when it asks for data with a data verb (or "which ... are ...") and names what
to read: log lines (with a service, a level, a quoted phrase, a label such as a namespace), a PromQL
expression or a metric name, alerts, scrape targets, rules or a SQL statement. Nothing here knows a
world's names: the service, the phrase and the expression are the question's own words. A question
asking why, for a cause or what is wrong stays a diagnosis, and so does "what is the issue with X":
it asks for a judgement, not for rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from graph.analysts.base import LOOKUP_ROUNDS, Plan, PlannedCall, PlanRequest
from graph.analysts.rules.lookup_sql import asks_rows, first_calls, rows_calls
from graph.analysts.rules.lookup_widen import WIDER_ROUND, rated, stream_calls, widened_calls, words_query
from graph.analysts.rules.onset import stated_onset
from tools.digest.labels import parse_instant

LookupKind = Literal["logs", "promql", "alerts", "targets", "rules", "sql"]
# A lookup reads logs over a day unless the question gives a window (ToolLimits.max_range_minutes).
LOG_WINDOW_MINUTES = 1_440
DEFAULT_LINES = 100
MAX_LINES = 500

_POLITE = re.compile(
    r"^\s*(?:(?:please|pls|hey|ok|okay|so)[,\s]+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:(?:please|kindly)\s+)?",
    re.IGNORECASE,
)
# Verbs that ask for data itself; "show me why ..." is caught by _JUDGEMENT first.
_DATA_VERB = re.compile(
    r"^(?:show|list|find|grep|search|get|give|print|display|fetch|post|paste|dump|tail|return|pull|"
    r"look\s+up|lookup|query|run|execute|evaluate|eval|count|output|read)\b",
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
# "the value of X", "what was the highest value of X over the last day", "the peak of X", "the highest
# X on db-1" (the range read shows its peak).
_VALUE_OF = re.compile(
    r"^(?:what(?:'s| is| are| was| were)\s+)?(?:the\s+)?"
    r"(?:(?:current|latest|highest|maximum|max|peak|lowest|minimum|min|average|mean)\s+)?values?\s+of\b"
    r"|^what(?:'s| is| are| was| were)\s+(?:the\s+)?"
    r"(?:highest|maximum|max|peak|lowest|minimum|min)\b(?:\s+of\b)?",
    re.IGNORECASE,
)
# "what's the current replication lag of mongo-2", "cache uptime on pw-cache-01 right now?": a value
# asked for now in plain words, which a metric's name holds (`..._replication_lag`); "the current value
# of connected clients on X", "the number of pending messages for Y" name their words after "of".
_VALUE_WORDS = re.compile(
    r"^(?:what(?:'s| is| are)\s+)?(?:the\s+)?(?:(?:current|latest|present)\s+)?"
    r"(?:(?P<counted>values?|number|count|amount)\s+of\s+)?"
    r"(?P<words>[a-z][a-z0-9]*(?:[ -][a-z][a-z0-9]*){0,2})\s+(?:of|on|for|in)\s+[\w.:/-]",
    re.IGNORECASE,
)
# "How many restarts has pod X had?", "how many backends are connected to Y right now?": a count a
# metric's name holds the noun of.
_HOW_MANY = re.compile(
    r"^how\s+many\s+(?P<words>[a-z][a-z0-9]*(?:[ -][a-z][a-z0-9]*)?)"
    r"(?:\s+(?:per|a|an|each)\s+(?:second|minute|hour|sec|min))?\s+"
    r"(?:has|have|had|are|is|were|was|does|do|did|on|in|for|of|at)\b",
    re.IGNORECASE,
)
_PER_SECOND = re.compile(r"\b(?:per|a|each)\s+(?:second|sec)\b|/s\b", re.IGNORECASE)
_QUEUED = re.compile(r"\b(?:queue|topic|stream|dlq)\b", re.IGNORECASE)  # messages a queue holds
# "Now" as a time (not "value" or "level", which describe, "error level in X is elevated").
# Words that name a measurement: asked for in the present tense, they ask for its value now.
_MEASURE = re.compile(
    r"\b(?:p\d{2,3}|percentile|latency|throughput|usage|utili[sz]ation|consumption|size|depth|lag|"
    r"qps|rps|iops|connections|memory|cpu)\b",
    re.IGNORECASE,
)
_NOW_ASKED = re.compile(r"\b(?:current|currently|latest|now|atm|at the moment|at present)\b", re.IGNORECASE)
# A symptom told beside the words ("high cpu on db-1 now", "disk full on node-3 now"): a diagnosis.
_SYMPTOM = re.compile(
    r"\b(?:high|higher|low|full|fail\w*|broken|break\w*|elevated|crash\w*|outage|down|slow\w*|spik\w*|"
    r"degraded|timeouts?|timing out|wrong|bad|stuck|help|problem\w*|issue\w*|error(?:s|ing)?\b(?!\s+rate))\b",
    re.IGNORECASE,
)
_PREPOSITIONS = frozenset(["of", "on", "for", "in", "at", "by", "to", "from", "with"])
_FILLER = frozenset(["the", "a", "an", "current", "latest", "present", "value", "values", "my", "our", "its"])
# Words that ask how a system is, not a value of it: that is a diagnosis (the symptom words among
# them, "issue" or "wrong", already make the whole question one, `_SYMPTOM`).
_NO_VALUE_WORDS = frozenset(
    [
        *("state", "status", "health", "healthy", "condition", "situation", "cause", "going"),
        # A question's own words ("is anything on fire right now on X?"): it asks whether, not how much.
        *("is", "are", "was", "does", "do", "can", "any", "anything", "something", "everything", "there"),
    ]
)
# "What is the current ApproximateAgeOfOldestMessage of ...": a metric asked for by its name and "now".
_CURRENT_OF = re.compile(
    r"^what(?:'s| is| are)\s+(?:the\s+)?(?:current|latest|present)\s+(?=[A-Za-z_:]*[_A-Z][\w:]*\b)",
    re.IGNORECASE,
)
# Asking for a judgement: a cause, a reason, what is wrong. These stay diagnoses whatever the verb.
_JUDGEMENT = re.compile(
    r"\b(?:why|root[\s-]cause|cause[ds]?|causing|reasons?|what(?:'s| is) (?:wrong|going on|happening)|"
    r"(?:find|figure|work) out|diagnos\w*|investigat\w*|explain\w*|troubleshoot\w*|"
    r"the (?:issue|problem) with)\b",
    re.IGNORECASE,
)
_PROMQL_INTRO = re.compile(
    r"\b(?:promql|prometheus query|metrics? query|query prometheus(?:\s+(?:for|with))?)\b\s*[:=]?\s*",
    re.IGNORECASE,
)
# "evaluate sum(rate(x[5m]))": a verb that runs what follows it, unquoted.
_RUN_VERB = re.compile(
    r"^(?:run|execute|evaluate|eval|query)\s+(?:this\s+|the\s+)?(?:expression\s*:?\s*)?", re.I
)
# A single quote opens a quote only where a word does not run into it: "claims-api's logs for 'panic'"
# quotes `panic`, not "s logs for ".
_QUOTED = re.compile(r"`([^`]{1,2000})`|\"([^\"]{1,2000})\"|“([^”]{1,2000})”|(?<!\w)'([^']{1,2000})'(?!\w)")
# A metric name (snake_case, or any name with a selector) the question asks the value of.
_METRIC_NAME = re.compile(
    r"\b[a-zA-Z_:][a-zA-Z0-9_:]*(?:_[a-zA-Z0-9_:]*(?:\{[^}]{0,500}\})?|\{[^}]{0,500}\})"
    r"|\b(?=[A-Za-z0-9]*[a-z])[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b"  # CamelCase (cloud vendors)
)
# A value asked for now ("the current X", "X now"): with a metric name, an instant query.
_NOW = re.compile(
    r"\b(?:current|currently|latest|now|atm|value|values|level|reading|at the moment|at present)\b",
    re.IGNORECASE,
)
# "What's DCGM_FI_DEV_GPU_TEMP for gpu 3 ...": a name with an underscore or inner capitals right after
# "what is" (with a word saying now) is a metric asked for, not a word to explain.
_WHAT_METRIC = re.compile(
    r"^what(?:'s| is| are)\s+(?:the\s+)?(?=[A-Za-z][A-Za-z0-9]*(?:_[\w:]+|[a-z][A-Z][\w:]*)\b)", re.IGNORECASE
)
_ON_SYSTEM = re.compile(r"[\w:]\s+(?:on|for|of|at)\s+[\w.-]*[-_\d.][\w.:-]*\s*\??\s*$", re.IGNORECASE)
_PROMQL_SHAPE = re.compile(
    r"[a-zA-Z_:][\w:]*\s*(?:\{|\(|\[|(?:==|!=|>=|<=|>|<)\s*-?\d)|\b(?:by|without)\s*\("
)
_LOGS = re.compile(r"\b(?:logs?|log lines?|lines|entries|messages|events)\b", re.IGNORECASE)
# "How many 5xx did the proxy log", "how many errors were in X's logs", "count the warnings X logged":
# a number of lines, read by `count_logs`.
_COUNT_LINES = re.compile(
    r"^(?:how\s+many\b|count\b|number\s+of\b)(?=.*\blog(?:s|ged)?\b)|"
    r"^how\s+many\b(?=.*\b(?:errors?|warnings?|lines|entries)\b)(?=.*\b(?:since|last|past)\b)",
    re.IGNORECASE,
)
_STATUS_CLASS = re.compile(r"\b([45])xx\b", re.IGNORECASE)
_LEVEL_WORD = re.compile(
    r"\b(errors?|error lines?|warnings?|warns?|fatal|critical|debug|info)\b", re.IGNORECASE
)
_LEVELS = {
    "error": "error",
    "errors": "error",
    "warning": "warn",
    "warnings": "warn",
    "warn": "warn",
    "warns": "warn",
    "fatal": "fatal",
    "critical": "critical",
    "debug": "debug",
    "info": "info",
}
_LAST_N = re.compile(
    r"\b(?:last|latest|newest|recent|most recent|first|top)\s+(\d{1,5})\b|\b(\d{1,5})\s+"
    r"(?:(?:most\s+recent|latest|newest|last|recent)\s+)?(?:\w+\s+)?(?:log\s+)?"
    r"(?:lines|entries|messages|logs|rows|errors|warnings)\b",
    re.IGNORECASE,
)
_WINDOW = re.compile(
    r"\b(?:last|past|previous)\s+(\d{1,4})?\s*(minutes?|mins?|m|hours?|hrs?|h|days?|d)\b", re.IGNORECASE
)
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 1_440}
_DATED_TOOLS = frozenset({"query_logs", "count_logs"})
# An upper-case code with an underscore (`TCP_DENIED`, `ER_LOCK_WAIT`): a token log lines carry.
_CODE_TOKEN = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")
_GREP_FOR = re.compile(r"\b(?:grep|search)\b.{1,80}?\s+for\s+([^\s,;]+)", re.IGNORECASE)
_CONTAINING = re.compile(
    r"\b(?:containing|contains|contain|matching|match|mentioning|mention|with the (?:text|word|phrase)|"
    r"grep(?:\s+for)?|search(?:\s+for)?|look(?:ing)? for)\s+([^\s,;]+)",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"\b(namespace|ns|pod|container|host|hostname|node|instance|cluster|region|zone|env|environment)\b"
    r"\s*[=:]?\s*[\"'`]?([A-Za-z0-9_.:/-]+)",
    re.IGNORECASE,
)
_NAME_LIKE = re.compile(r"\b[A-Za-z][\w.:]*[-_\d.][\w.:-]*[A-Za-z0-9]\b")  # `db-1`, `x.dlq`
_LABEL_NAMES = {"ns": "namespace", "hostname": "host", "environment": "env"}
_SERVICE_PATTERNS = (
    re.compile(r"\b(?:service|app|application|job|workload|deployment)\s+[\"'`]?([A-Za-z0-9_.-]+)", re.I),
    re.compile(r"\b([A-Za-z0-9_.-]+)'s\s+(?:logs?|errors?|warnings?|lines)\b", re.I),
    re.compile(r"\b(?:logs?|lines|errors?|warnings?)\s+(?:of|from|for|in)\s+(?:the\s+)?([\w.-]+)", re.I),
    # A lookahead: "of for X" must still find X after skipping "for".
    re.compile(r"\b(?:from|of|for|in|on)\s+(?:the\s+)?(?=([A-Za-z0-9_.-]+)\b)", re.I),
    re.compile(r"\b([A-Za-z0-9_.-]+)\s+(?:service\s+)?(?:logs?|log lines)\b", re.I),
    # "the last 3 ERROR lines ripple-enricher logged"
    re.compile(
        r"\b(?:lines|errors?|warnings?|entries)\s+(?:that\s+)?([A-Za-z0-9_.-]+)\s+(?:logged|wrote|emitted)\b",
        re.I,
    ),
    re.compile(
        r"\b(?:did|does|do|is|are|has|have)\s+(?:the\s+)?([\w.-]+)\s+(?:service\s+)?"
        r"(?:log|logged|logging|throw|threw|thrown|throwing|emit|emitted|emitting|report|reported|print|printed)\b",
        re.I,
    ),
)
# Words that can stand where a service name would, but name none.
_NAMELESS_WORDS = """
    the a an all any every last latest recent newest past previous first top logs log lines line
    entries messages error errors warn warns warning warnings info debug fatal critical level levels
    namespace ns pod container host hostname node instance cluster region zone env environment service
    services app application job workload deployment today yesterday now minutes minute hours hour days
    day mins min it this that them these those me us my our its their alerts alert targets target rules
    rule metrics metric value values text word phrase containing contains matching with for from in
    of on prometheus promql sql query loki show list find grep search get give print display fetch post
    paste dump tail return pull lookup run execute evaluate count output read which what who are is was
    were there how many did does do has have shows and or but then also plus so""".strip()
_NOT_A_NAME = frozenset(_NAMELESS_WORDS.split())
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
_RANGE = re.compile(
    r"\b(?:over|during|for|in)\s+the\s+(?:last|past)\b|\b(?:trend|history|graph|range)\b", re.I
)
_ON_DATASOURCE = re.compile(r"\b(?:on|in|against|from)\s+(?:datasource|database|db)?\s*([\w.-]+)\s*$", re.I)
_RULES_ASKED = re.compile(r"\b(?:alerting|recording)\s+rules?\b|^\w+\s+(?:the\s+)?rules\b", re.I)


@dataclass(frozen=True, slots=True)
class LookupAsk:
    """What a data question asks to read: the kind of data and the tool calls that read it."""

    kind: LookupKind
    calls: tuple[PlannedCall, ...]
    services: tuple[str, ...] = field(default=())


def lookup_ask(question: str, datasources: Sequence[str] = ()) -> LookupAsk | None:
    """The lookup a question asks for, or None when it is not a data question (or not a clear one)."""
    text = _POLITE.sub("", question.strip(), count=1).strip()
    expression = _promql_expression(text)
    if expression is not None:
        return _promql(text, expression, _about(text, expression))
    if _JUDGEMENT.search(text):
        return None
    statement = _sql_statement(text)
    if statement is not None:
        return _sql(text, statement, datasources)
    if asks_rows(text):
        return LookupAsk("sql", first_calls(text, datasources))
    # "haproxy on lb-1: which backends have servers down atm?": the ask follows a topic and a colon.
    text = _TOPIC.sub("", text, count=1) if _TOPIC.match(text) and not _DATA_VERB.match(text) else text
    if (done := _WHICH_DONE.match(text) or _LIST_DONE.match(text)) is not None:
        return _done_lines(text, done.group("done"))
    if (in_state := _IN_STATE.match(text)) is not None:
        state = in_state.group("state")
        lines = {"contains": state, **_log_read(text, _labels_named(text))}
        calls = (
            PlannedCall(tool="list_alerts", args={}, purpose="lookup"),
            PlannedCall(tool="query_logs", args=lines, purpose="lookup"),
        )
        return LookupAsk("alerts", calls, services=(state,))
    if _QUEUED.search(text) and (counted := _count_in_words(text)):
        # "How many messages are visible in queue X?": what the queue holds, not log messages.
        return _promql(text, counted, _about(text, counted))
    state = _WHICH_STATE.match(text) or _FIRING_NOW.match(text)
    asks_data = bool(_DATA_VERB.match(text) or _WHICH.match(text) or _ROWS_PHRASE.match(text) or state)
    if not asks_data and _COUNT_LINES.match(text) and (lines_counted := _logs(text)) is not None:
        return lines_counted
    if not asks_data:
        named = _value_in_words(text) or _count_in_words(text)
        return _promql(text, named, _about(text, named)) if named else None
    if _NOW.search(text) and not _LOGS.search(text) and (metric := _METRIC_NAME.search(text)):
        return _promql(text, metric.group(0), _about(text, metric.group(0)))
    if _TARGETS.search(text) and not _LOGS.search(text):
        return _targets(text)
    if (_ALERTS.search(text) or state) and not _LOGS.search(text):
        return _alerts(text)
    if _RULES_ASKED.search(text):
        kind = re.search(r"\b(alerting|recording)\b", text, re.I)
        args = {"kind": kind.group(1).lower()} if kind else {}
        return LookupAsk("rules", (PlannedCall(tool="list_rules", args=args, purpose="lookup"),))
    return _logs(text)


def _value_in_words(text: str) -> str | None:
    """Every metric whose name holds the question's words (any order), for a value asked for now in
    plain words; None for anything else (how a system is, logs, a judgement)."""
    match = _VALUE_WORDS.match(text)
    if match is None or _SYMPTOM.search(text):
        return None
    if not (_NOW_ASKED.search(text) or _MEASURE.search(match.group("words"))):
        return None  # "what is the impact of X?" asks for a judgement; "what is p99 latency of X?" a value
    # "the number of pending messages for X" counts what a queue holds; other log words ask for lines.
    logs = _LOGS.search(text)
    if logs is not None and not (
        match.group("counted") and match.start("words") <= logs.start() < match.end()
    ):
        return None
    words = _value_words(match.group("words"))
    # In any order: "active connections" is `nginx_connections_active`.
    return words_query(words) if words else None


def _count_in_words(text: str) -> str | None:
    """Every metric whose name holds the noun a "how many" question counts, for a named system; None
    for log lines (a log lookup) and for a symptom told beside it (a diagnosis)."""
    match = _HOW_MANY.match(text)
    logs = _LOGS.search(text) and not _QUEUED.search(text)
    if match is None or logs or _SYMPTOM.search(text) or not _NAME_LIKE.search(text):
        return None
    if not (words := _value_words(match.group("words"))):
        return None
    # "How many evictions per second": a counter's rate, not its total since the process started.
    return rated(words_query(words)) if _PER_SECOND.search(text) else words_query(words)


def _value_words(said: str) -> list[str]:
    """The words a metric's name should hold, of the words a value question said (filler dropped);
    none when they ask how something is, not how much, or are too short to name anything."""
    words = [w for w in re.split(r"[ -]", said.lower()) if w not in _FILLER]
    if not words or (_NO_VALUE_WORDS | _PREPOSITIONS) & set(words) or max(len(w) for w in words) < 3:
        return []
    return words


def _promql_expression(text: str) -> str | None:
    """A PromQL expression the question gives ("run this PromQL: ...", a quoted expression, the
    value of a metric name)."""
    intro = _PROMQL_INTRO.search(text)
    if intro is not None:
        rest = text[intro.end() :].strip()
        if ":" in rest and not _QUOTED.match(rest):
            # "run this PromQL over the last hour: <expression>": the expression follows the colon.
            head, _, tail = rest.partition(":")
            rest = tail if not _PROMQL_SHAPE.search(head) else rest
        # Quoted when the quote opens it: quotes inside (`{protocol="ws"}`) are the expression's own.
        quoted = _QUOTED.match(rest)
        expression = _first_group(quoted) if quoted else rest
        return expression.strip().rstrip("?") or None
    run = _RUN_VERB.match(text)
    if run is not None and _PROMQL_SHAPE.match(text[run.end() :]) and not _LOGS.search(text):
        return text[run.end() :].strip().rstrip("?")
    quoted = _QUOTED.search(text)
    asked = bool(_DATA_VERB.match(text) or _VALUE_OF.match(text))
    if quoted is not None and asked and _PROMQL_SHAPE.search(_first_group(quoted)) and not _LOGS.search(text):
        return _first_group(quoted).strip()
    value_of = _VALUE_OF.match(text) or _CURRENT_OF.match(text)
    if value_of is None and (_NOW.search(text) or _ON_SYSTEM.search(text)):
        # "What is the_load_metric on nas-3 right now?", "what is x_limit_bytes on mq-2?": a metric's
        # name asked for now, or on a system (not "what is x_bytes?", which may ask what it means).
        value_of = _WHAT_METRIC.match(text)
    if value_of is not None and (metric := _METRIC_NAME.search(text[value_of.end() :])):
        return metric.group(0)
    return None


def _about(text: str, expression: str) -> tuple[str, ...]:
    """The system a metric question names beside its expression ("SomeGauge for db-1")."""
    words = set(re.findall(r"[\w.:-]+", expression))
    rest = _QUOTED.sub(" ", text.replace(expression, " "))
    # A name-like word (a hyphen, an underscore or a digit: `orders-dlq`, `db-1`) names the system
    # better than the first word after "of" (`of the SQS queue orders-dlq`).
    named = [w for w in _NAME_LIKE.findall(rest) if w not in words and w.lower() not in _NOT_A_NAME]
    name = named[0] if named else _service(rest, skip=words)
    return (name,) if name else ()


def _promql(text: str, expression: str, about: tuple[str, ...] = ()) -> LookupAsk:
    window = _window_minutes(text)
    if window is not None and _RANGE.search(text):
        call = PlannedCall(
            tool="query_promql", args={"promql": expression, "window_minutes": window}, purpose="lookup"
        )
    else:
        call = PlannedCall(tool="query_promql_instant", args={"promql": expression}, purpose="lookup")
    return LookupAsk("promql", (call,), services=about)


def _sql_statement(text: str) -> str | None:
    match = re.search(r"\b(select|show|describe|explain)\b\s", text, re.IGNORECASE)
    if match is None or not re.search(r"\b(?:sql|select\b.*\bfrom)\b", text, re.IGNORECASE | re.DOTALL):
        return None
    quoted = _QUOTED.search(text)
    if quoted is not None and re.match(r"\s*(?:select|show|describe|explain)\b", _first_group(quoted), re.I):
        return _first_group(quoted).strip().rstrip(";")
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


def _targets(text: str) -> LookupAsk:
    args: dict[str, Any] = {}
    if _DOWN.search(text):
        args["health"] = "down"
    elif _UP.search(text):
        args["health"] = "up"
    if job := re.search(r"\bjob\s+[\"'`]?([A-Za-z0-9_.:/-]+)", text, re.IGNORECASE):
        args["job"] = job.group(1)
    return LookupAsk("targets", (PlannedCall(tool="list_targets", args=args, purpose="lookup"),))


def _alerts(text: str) -> LookupAsk:
    service = _service(text)
    args = {"service": service} if service else {}
    calls = [PlannedCall(tool="list_alerts", args=args, purpose="lookup")]
    if _PAST.search(text):
        # "Which alerts fired ... this morning?": resolved ones too, from the alert history.
        history: dict[str, Any] = {"about": service} if service else {}
        if (window := _window_minutes(text)) is not None:
            history["window_minutes"] = window
        calls.append(PlannedCall(tool="alert_history", args=history, purpose="lookup"))
    return LookupAsk("alerts", tuple(calls), services=(service,) if service else ())


def _done_lines(text: str, done: str) -> LookupAsk:
    """The lines that say it was done, by the word's stem ("restarted": "Back-off restarting ..."), on
    the node, host or namespace the question names."""
    stem = done[:-2] if done.lower().endswith("ed") and len(done) > 5 else done
    args = {"contains": stem, **_log_read(text, _labels_named(text))}
    return LookupAsk("logs", (PlannedCall(tool="query_logs", args=args, purpose="lookup"),))


def _labels_named(text: str) -> dict[str, str]:
    """`node tansy-wk-07`, `namespace=web`: the labels a question filters lines by."""
    return {_label_name(m.group(1)): m.group(2).rstrip(".,;:!?/-") for m in _LABEL.finditer(text)}


def _log_read(text: str, labels: dict[str, str]) -> dict[str, Any]:
    """A log read's window, line limit and label filters, as the question gives them."""
    args: dict[str, Any] = {"window_minutes": _window_minutes(text) or LOG_WINDOW_MINUTES}
    args["limit"] = min(_lines_asked(text) or DEFAULT_LINES, MAX_LINES)
    return args | ({"labels": labels} if labels else {})


def _logs(text: str) -> LookupAsk | None:
    """Log lines with the question's filters; None when it names no filter and no log noun."""
    labels = _labels_named(text)
    phrase, level, exact = _phrase_and_level(text)
    service = _service(text, skip=set(labels.values()) | ({phrase} if phrase else set()))
    status = _STATUS_CLASS.search(text)
    if not (_LOGS.search(text) or level or phrase or status):
        return None
    args = _log_read(text, labels)
    if service:
        args["service"] = service
    if _COUNT_LINES.match(text):
        # One count with every filter the question gives: a phrase is more exact than its level, a
        # status class ("5xx") is what an access log records, not a level.
        args.pop("limit", None)
        if status is not None:
            args["status_class"] = f"{status.group(1)}xx"
        elif phrase or exact:
            args["contains"] = phrase or exact
        elif level:
            args["level"] = level
        count = PlannedCall(tool="count_logs", args=args, purpose="lookup")
        return LookupAsk("logs", (count,), services=(service,) if service else ())
    if status is not None:
        args["status_class"] = f"{status.group(1)}xx"
    calls = []
    if level:
        calls.append(PlannedCall(tool="query_logs", args={**args, "level": level}, purpose="lookup"))
    if contains := phrase or exact:
        calls.append(PlannedCall(tool="query_logs", args={**args, "contains": contains}, purpose="lookup"))
    if not calls:
        calls.append(PlannedCall(tool="query_logs", args=args, purpose="lookup"))
    return LookupAsk("logs", tuple(calls), services=(service,) if service else ())


def _phrase_and_level(text: str) -> tuple[str | None, str | None, str | None]:
    """(quoted or "containing" phrase, level asked, the level word as written in capitals).

    "containing ERROR" asks for lines at level error and for lines whose text holds "ERROR" (many
    logs carry the level only in the message): both queries run and their lines are merged.
    """
    quoted = _QUOTED.search(text)
    if quoted is not None:
        phrase: str | None = _first_group(quoted)
    else:
        # "grep X's logs for Y": Y is the phrase, X (a possessive) the stream.
        found = [
            m.group(1).strip("\"'`.?!") for m in (*_GREP_FOR.finditer(text), *_CONTAINING.finditer(text))
        ]
        found = [word for word in found if not word.lower().endswith(("'s", "\u2019s"))]
        phrase = next((word for word in found if word and word.lower() not in _NOT_A_NAME), None)
        level_named = next((word for word in found if word.lower() in _LEVELS), None)
        if phrase is None and level_named is not None:
            exact = level_named if level_named.isupper() else None
            return None, _LEVELS[level_named.lower()], exact
    if phrase is None and (token := _CODE_TOKEN.search(text)) is not None:
        phrase = token.group(0)  # "the 3 most recent TCP_DENIED entries": a code the lines carry
    level_word = _LEVEL_WORD.search(text if quoted is None else _QUOTED.sub(" ", text))
    level = _LEVELS.get(level_word.group(1).lower().split()[0]) if level_word else None
    if phrase is not None and phrase.lower() in _LEVELS:
        exact = phrase if phrase.isupper() else None
        return None, _LEVELS[phrase.lower()], exact
    return phrase, level, None


def _service(text: str, skip: set[str] | None = None) -> str | None:
    """The system the question names for its rows: "service X", "X's logs", "from X", "X logs"."""
    skipped = {s.lower() for s in skip or set()}
    cleaned = _QUOTED.sub(" ", text)
    for pattern in _SERVICE_PATTERNS:
        for match in pattern.finditer(cleaned):
            name = match.group(1).strip(".-")
            if name.lower() in _NOT_A_NAME | skipped or not name or name.isdigit():
                continue
            if not _is_label_value(cleaned, match.start(1)):
                return name
    return None


def _is_label_value(text: str, start: int) -> bool:
    """Whether the word at `start` is the value of a label the question names ("namespace X")."""
    before = text[:start].rstrip(" =:\"'`").split()
    return bool(before) and _LABEL.fullmatch(before[-1] + " x") is not None


def _label_name(word: str) -> str:
    return _LABEL_NAMES.get(word.lower(), word.lower())


def _lines_asked(text: str) -> int | None:
    for match in _LAST_N.finditer(text):
        number = match.group(1) or match.group(2)
        following = text[match.end() : match.end() + 12].lower()
        if match.group(1) and re.match(r"\s*(?:minutes?|mins?|hours?|hrs?|days?|[mhd]\b)", following):
            continue
        return max(1, int(number))
    return None


def _window_minutes(text: str) -> int | None:
    match = _WINDOW.search(text)
    if match is None:
        return None
    count = int(match.group(1) or 1)
    return count * _UNIT_MINUTES[match.group(2)[0].lower()]


def _first_group(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group is not None)


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
        words = [w for w in re.findall(r"[a-z0-9]+", text) if len(w) >= 3 and w not in _NOT_A_NAME]
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
    if call.tool not in _DATED_TOOLS or since is None or _WINDOW.search(question):
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
    if name.lower() in _NOT_A_NAME:
        return None
    return re.sub(rf"(?<![\w.-]){re.escape(earlier.services[0])}(?![\w-])", name, previous)
