"""Metric questions: a PromQL expression given ("run this PromQL: ...", a quoted expression), a metric
asked for by its name ("what is x_bytes on X right now?"), or a value in plain words ("the current
replication lag of X", "how many restarts has pod X had?").

An expression or a metric's name is run as written, over the window the question gives when it asks
for a range ("over the last hour", "the trend"), else at the instant; plain words become a query over
every metric whose name holds them (`lookup_widen.words_query`). A symptom told beside the words
("high cpu on X now") leaves the question a diagnosis, and so does asking how a system is rather than
how much.
"""

from __future__ import annotations

import re

from graph.analysts.base import PlannedCall
from graph.analysts.rules.lookup_logs import named_service
from graph.analysts.rules.lookup_widen import rated, words_query
from graph.analysts.rules.lookup_words import (
    DATA_VERB,
    LOGS,
    NOT_A_NAME,
    QUOTED,
    LookupAsk,
    first_group,
    window_minutes,
)

# "the value of X", "what was the highest value of X over the last day", "the peak of X", "the highest
# X on db-1" (the range read shows its peak).
_VALUE_OF = re.compile(
    r"^(?:what(?:'s|\u2019s|s| is| are| was| were)\s+)?(?:the\s+)?"
    r"(?:(?:current|latest|highest|maximum|max|peak|lowest|minimum|min|average|mean)\s+)?values?\s+of\b"
    r"|^what(?:'s|\u2019s|s| is| are| was| were)\s+(?:the\s+)?"
    r"(?:highest|maximum|max|peak|lowest|minimum|min)\b(?:\s+of\b)?",
    re.IGNORECASE,
)
# "what's the current replication lag of mongo-2", "cache uptime on pw-cache-01 right now?": a value
# asked for now in plain words, which a metric's name holds (`..._replication_lag`); "the current value
# of connected clients on X", "the number of pending messages for Y" name their words after "of".
_VALUE_WORDS = re.compile(
    r"^(?:what(?:'s|\u2019s|s| is| are)\s+)?(?:the\s+)?(?:(?:current|latest|present)\s+)?"
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
# "How many nightly-export jobs are active?": a named workload's objects counted in a state; the metric
# names the kind and the state (`kube_job_status_active`), the name is a label of its series.
_HOW_MANY_NAMED = re.compile(
    r"^how\s+many\s+(?P<name>[a-z][\w.]*[-_\d][\w.-]*)\s+(?P<kind>[a-z]{3,}?)s?\s+(?:are|is|were)\s+"
    r"(?:currently\s+|still\s+)?(?P<state>active|running|pending|ready|available|scheduled|succeeded|completed)\b",
    re.IGNORECASE,
)
# What "how many times" counts: the verb the question ends on ("... restarted?", "... crashed?").
_TIMES_DONE = re.compile(r"\b([a-z]{3,}?)(?:ed|d)\s*\??\s*$", re.IGNORECASE)
_PER_SECOND = re.compile(r"\b(?:per|a|each)\s+(?:second|sec)\b|/s\b", re.IGNORECASE)
QUEUED = re.compile(r"\b(?:queue|topic|stream|dlq)\b", re.IGNORECASE)  # messages a queue holds
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
    r"^what(?:'s|\u2019s|s| is| are)\s+(?:the\s+)?(?:current|latest|present)\s+(?=[A-Za-z_:]*[_A-Z][\w:]*\b)",
    re.IGNORECASE,
)
_PROMQL_INTRO = re.compile(
    r"\b(?:promql|prometheus query|metrics? query|query prometheus(?:\s+(?:for|with))?)\b\s*[:=]?\s*",
    re.IGNORECASE,
)
# "evaluate sum(rate(x[5m]))": a verb that runs what follows it, unquoted.
_RUN_VERB = re.compile(
    r"^(?:run|execute|evaluate|eval|query)\s+(?:this\s*:?\s*|the\s+)?(?:expression\s*:?\s*)?", re.I
)
# A metric name (snake_case, or any name with a selector) the question asks the value of.
METRIC_NAME = re.compile(
    r"\b[a-zA-Z_:][a-zA-Z0-9_:]*(?:_[a-zA-Z0-9_:]*(?:\{[^}]{0,500}\})?|\{[^}]{0,500}\})"
    r"|\b(?=[A-Za-z0-9]*[a-z])[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b"  # CamelCase (cloud vendors)
)
# A value asked for now ("the current X", "X now"): with a metric name, an instant query.
NOW = re.compile(
    r"\b(?:current|currently|latest|now|atm|value|values|level|reading|at the moment|at present)\b",
    re.IGNORECASE,
)
# "What's DCGM_FI_DEV_GPU_TEMP for gpu 3 ...": a name with an underscore or inner capitals right after
# "what is" (with a word saying now) is a metric asked for, not a word to explain.
_WHAT_METRIC = re.compile(
    r"^what(?:'s|\u2019s|s| is| are)\s+(?:the\s+)?(?=[A-Za-z][A-Za-z0-9]*(?:_[\w:]+|[a-z][A-Z][\w:]*)\b)",
    re.IGNORECASE,
)
# A metric's name and nothing but where and when: "ApproximateAgeOfOldestMessage for orders-q rn?",
# "node_load5 on db-2 now?": its value is the question.
_NAME_ONLY = re.compile(
    r"^(?P<metric>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9_:]+|[a-z][A-Z][A-Za-z0-9]*))"
    r"(?i:\s+(?:for|on|of|at|in)\s+(?:the\s+)?[\w.:/-]+)?"
    r"(?i:\s+(?:rn|now|right now|atm|currently|pls|please|at the moment))?\s*\?+\s*$"
)
# A state a platform names in CamelCase ("CrashLoopBackOff", "ImagePullBackOff"): no metric.
_STATE_WORD = re.compile(r"(?:BackOff|Error|Failed|Killed|Pending|Evicted|Exceeded)$")
_ON_SYSTEM = re.compile(r"[\w:]\s+(?:on|for|of|at)\s+[\w.-]*[-_\d.][\w.:-]*\s*\??\s*$", re.IGNORECASE)
_PROMQL_SHAPE = re.compile(
    r"[a-zA-Z_:][\w:]*\s*(?:\{|\(|\[|(?:==|!=|>=|<=|>|<)\s*-?\d)|\b(?:by|without)\s*\("
    # An aggregation with its grouping first: `sum by (job) (up)`.
    r"|[a-z_]+\s+(?:by|without)\s*\("
)
_NAME_LIKE = re.compile(r"\b[A-Za-z][\w.:]*[-_\d.][\w.:-]*[A-Za-z0-9]\b")  # `db-1`, `x.dlq`
_RANGE = re.compile(
    r"\b(?:over|during|for|in)\s+the\s+(?:last|past)\b|\b(?:trend|history|graph|range)\b", re.I
)


def value_in_words(text: str) -> str | None:
    """Every metric whose name holds the question's words (any order), for a value asked for now in
    plain words; None for anything else (how a system is, logs, a judgement)."""
    match = _VALUE_WORDS.match(text)
    if match is None or _SYMPTOM.search(text):
        return None
    if not (_NOW_ASKED.search(text) or _MEASURE.search(match.group("words"))):
        return None  # "what is the impact of X?" asks for a judgement; "what is p99 latency of X?" a value
    # "the number of pending messages for X" counts what a queue holds; other log words ask for lines.
    logs = LOGS.search(text)
    if logs is not None and not (
        match.group("counted") and match.start("words") <= logs.start() < match.end()
    ):
        return None
    words = _value_words(match.group("words"))
    # In any order: "active connections" is `nginx_connections_active`.
    return words_query(words) if words else None


def count_in_words(text: str) -> str | None:
    """Every metric whose name holds the noun a "how many" question counts, for a named system; None
    for log lines (a log lookup) and for a symptom told beside it (a diagnosis)."""
    logs = LOGS.search(text) and not QUEUED.search(text)
    if (named := _HOW_MANY_NAMED.match(text)) is not None and not logs:
        return words_query([named.group("kind").lower(), named.group("state").lower()])
    match = _HOW_MANY.match(text)
    if match is None or logs or _SYMPTOM.search(text) or not _NAME_LIKE.search(text):
        return None
    said = match.group("words")
    if said.lower() == "times" and (done := _TIMES_DONE.search(text)) is not None:
        said = done.group(1)  # "how many times has X restarted": restarts are what is counted
    if not (words := _value_words(said)):
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


def promql_expression(text: str) -> str | None:
    """A PromQL expression the question gives ("run this PromQL: ...", a quoted expression, the
    value of a metric name)."""
    intro = _PROMQL_INTRO.search(text)
    if intro is not None:
        rest = text[intro.end() :].strip()
        if ":" in rest and not QUOTED.match(rest):
            # "run this PromQL over the last hour: <expression>": the expression follows the colon.
            head, _, tail = rest.partition(":")
            rest = tail if not _PROMQL_SHAPE.search(head) else rest
        # Quoted when the quote opens it: quotes inside (`{protocol="ws"}`) are the expression's own.
        quoted = QUOTED.match(rest)
        expression = first_group(quoted) if quoted else rest
        return expression.strip().rstrip("?") or None
    run = _RUN_VERB.match(text)
    if run is not None and _PROMQL_SHAPE.match(text[run.end() :]) and not LOGS.search(text):
        return text[run.end() :].strip().rstrip("?")
    quoted = QUOTED.search(text)
    asked = bool(DATA_VERB.match(text) or _VALUE_OF.match(text))
    if quoted is not None and asked and _PROMQL_SHAPE.search(first_group(quoted)) and not LOGS.search(text):
        return first_group(quoted).strip()
    value_of = _VALUE_OF.match(text) or _CURRENT_OF.match(text)
    if value_of is None and (NOW.search(text) or _ON_SYSTEM.search(text)):
        # "What is the_load_metric on nas-3 right now?", "what is x_limit_bytes on mq-2?": a metric's
        # name asked for now, or on a system (not "what is x_bytes?", which may ask what it means).
        value_of = _WHAT_METRIC.match(text)
    if value_of is not None and (metric := METRIC_NAME.search(text[value_of.end() :])):
        return metric.group(0)
    if (named := _NAME_ONLY.match(text)) is not None and not _STATE_WORD.search(named.group("metric")):
        return named.group("metric")
    return None


def about(text: str, expression: str) -> tuple[str, ...]:
    """The system a metric question names beside its expression ("SomeGauge for db-1")."""
    words = set(re.findall(r"[\w.:-]+", expression))
    rest = QUOTED.sub(" ", text.replace(expression, " "))
    # A name-like word (a hyphen, an underscore or a digit: `orders-dlq`, `db-1`) names the system
    # better than the first word after "of" (`of the SQS queue orders-dlq`).
    named = [w for w in _NAME_LIKE.findall(rest) if w not in words and w.lower() not in NOT_A_NAME]
    name = named[0] if named else named_service(rest, skip=words)
    return (name,) if name else ()


def promql(text: str, expression: str, about: tuple[str, ...] = ()) -> LookupAsk:
    window = window_minutes(text)
    if window is not None and _RANGE.search(text):
        call = PlannedCall(
            tool="query_promql", args={"promql": expression, "window_minutes": window}, purpose="lookup"
        )
    else:
        call = PlannedCall(tool="query_promql_instant", args={"promql": expression}, purpose="lookup")
    return LookupAsk("promql", (call,), services=about)
