"""Log questions: "the last 20 ERROR lines from X", "grep X's logs for 'timeout'", "how many 5xx did
X log since 14:00", "error logs in namespace N".

A log read takes its filters from the question's own words: the system it names ("service X", "X's
logs", "from X"), a level, a quoted or "containing" phrase (or an upper-case code the lines carry), an
HTTP status class, labels such as a namespace or a node, a window and a number of lines. A question
that counts lines gets one `count_logs` call with its most exact filter.
"""

from __future__ import annotations

import re
from typing import Any

from graph.analysts.base import PlannedCall
from graph.analysts.rules.lookup_words import LOGS, NOT_A_NAME, QUOTED, LookupAsk, first_group, window_minutes

# A lookup reads logs over a day unless the question gives a window (ToolLimits.max_range_minutes).
LOG_WINDOW_MINUTES = 1_440
DEFAULT_LINES = 100
MAX_LINES = 500
# "How many 5xx did the proxy log", "how many errors were in X's logs", "count the warnings X logged":
# a number of lines, read by `count_logs`.
COUNT_LINES = re.compile(
    r"^(?:how\s+many\b|count\b|number\s+of\b)(?=.*\blog(?:s|ged)?\b)|"
    r"^how\s+many\b(?=.*\b(?:errors?|warnings?|lines|entries)\b)(?=.*\b(?:since|last|past)\b)",
    re.IGNORECASE,
)
# "5xx", or one status: "504s", "the 502 errors", "status 503", "HTTP 429".
_STATUS_CLASS = re.compile(
    r"(?:\b([45])xx\b|\b([45][0-9][0-9])s\b|\b(?:status|http|code)\s+([45][0-9][0-9])\b|\b([45][0-9][0-9])(?=\s+(?:errors?|responses?)\b)"
    # "the last 5 lines with 429": a status the lines record, not a count or a duration.
    r"|\blines?\s+(?:with|containing|showing)\s+([45][0-9][0-9])\b(?!\s*(?:ms|s|seconds?|%|lines?)\b))"
    r"(?:\s+(?:errors?|responses?|statuses))?",
    re.IGNORECASE,
)
# A request path the lines carry: "504s on /api/v2/quotes".
_PATH = re.compile(r"(?<![\w/])/[\w.~%-]+(?:/[\w.~%{}-]*)*")
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
    r"(?:lines|entries|messages|logs|rows|errors|warnings|hits|matches|occurrences)\b",
    re.IGNORECASE,
)
# An upper-case code with an underscore (`TCP_DENIED`, `ER_LOCK_WAIT`): a token log lines carry.
_CODE_TOKEN = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")
# "lines with SERVFAIL": an upper-case word after "with" (a level word is a level, not a phrase).
_WITH_UPPER = re.compile(
    r"\bwith\s+(?!(?:ERRORS?|WARN|WARNINGS?|INFO|DEBUG|FATAL)\b)([A-Z][A-Z0-9_]{2,})\b(?!\s*\d)"
)
# "the node-left lines from X", "the panic lines from X": a word naming the kind of line, the system
# that wrote it named after it ("from X").
_KIND_OF_LINE = re.compile(
    r"\bthe\s+([A-Za-z][\w.-]*)\s+(?:lines|entries|events|messages)\b(?=\s+(?:from|of|in)\b)"
)
# "the kernel lines about the NFS server from web-3": what the lines are about, a word they carry.
_ABOUT = re.compile(r"\b(?:lines|entries|events|messages)\s+about\s+(?:the\s+|an?\s+)?([A-Za-z][\w.:/-]*)")
# Changes made to a system ("sync operations for x", "deploys of x", "rollouts to x"): the lines that
# name it, in the deploy tool's stream as much as in its own.
_CHANGES_ABOUT = re.compile(
    r"\b(?:syncs?|sync operations|operations|deploys|deployments|rollouts|releases|changes)\s+"
    r"(?:for|of|on|to)\s+(?:the\s+)?([A-Za-z][\w.-]*[-_.\d][\w.-]*)",
    re.IGNORECASE,
)
# Words before "lines" that say which lines, not what they say ("the log lines", "the access lines").
_WHICH_LINES = frozenset({"log", "access", "audit", "request", "query", "slow", "same", "other", "matching"})
# A name in inner capitals (`PutFunctionConcurrency`, `OutOfMemoryError`): the most specific one names
# what the lines carry; a product's name (`CloudTrail`) has fewer parts.
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b")
_GREP_FOR = re.compile(r"\b(?:grep|search)\b.{1,80}?\s+for\s+([^\s,;]+)", re.IGNORECASE)
_CONTAINING = re.compile(
    r"\b(?:containing|contains|contain|matching|match|mentioning|mention|with the (?:text|word|phrase)|"
    r"grep(?:\s+for)?|search(?:\s+for)?|look(?:ing)? for)\s+([^\s,;]+)",
    re.IGNORECASE,
)
# A label and its value, apart ("node tansy-wk-07", "namespace=web"): "node-left" is one word, no label.
_LABEL = re.compile(
    r"\b(namespace|ns|pod|container|host|hostname|node|instance|cluster|region|zone|env|environment)"
    r"(?:\s*[=:]\s*|\s+)[\"'`]?([A-Za-z0-9_.:/-]+)",
    re.IGNORECASE,
)
_LABEL_NAMES = {"ns": "namespace", "hostname": "host", "environment": "env"}
_SERVICE_PATTERNS = (
    re.compile(r"\b(?:service|app|application|job|workload|deployment)\s+[\"'`]?([A-Za-z0-9_.-]+)", re.I),
    re.compile(r"\b([A-Za-z0-9_.-]+)'s\s+(?:logs?|errors?|warnings?|lines)\b", re.I),
    re.compile(r"\b(?:logs?|lines|errors?|warnings?)\s+(?:of|from|for|in)\s+(?:the\s+)?([\w.-]+)", re.I),
    # A lookahead: "of for X" must still find X after skipping "for".
    re.compile(r"\b(?:from|of|for|in|on)\s+(?:the\s+)?(?=([A-Za-z0-9_.-]+)\b)", re.I),
    # "X logs", "X access logs": the kind of log (access, audit, slow query) is no system.
    re.compile(
        r"\b([A-Za-z0-9_.-]+)\s+(?:(?:service|access|audit|request|slow(?:\s+query)?|query)\s+)?"
        r"(?:logs?|log lines)\b",
        re.I,
    ),
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


# A machine named after "on": a name with a digit in it (`pricing-01`, `web-3.dc1`).
_ON_MACHINE = re.compile(r"\bon\s+([A-Za-z][\w.-]*\d[\w.-]*)(?![\w.-])")


def labels_named(text: str) -> dict[str, str]:
    """`node tansy-wk-07`, `namespace=web`: the labels a question filters lines by."""
    return {_label_name(m.group(1)): m.group(2).rstrip(".,;:!?/-") for m in _LABEL.finditer(text)}


def log_read(text: str, labels: dict[str, str]) -> dict[str, Any]:
    """A log read's window, line limit and label filters, as the question gives them."""
    args: dict[str, Any] = {"window_minutes": window_minutes(text) or LOG_WINDOW_MINUTES}
    args["limit"] = min(_lines_asked(text) or DEFAULT_LINES, MAX_LINES)
    return args | ({"labels": labels} if labels else {})


def logs(text: str) -> LookupAsk | None:
    """Log lines with the question's filters; None when it names no filter and no log noun."""
    labels = labels_named(text)
    phrase, level, exact = _phrase_and_level(text)
    status = _status_asked(text)
    # The words of a status ("502 errors", "504s") are its filter: no level, phrase or line count.
    rest = _STATUS_CLASS.sub(" ", text) if status is not None else text
    if status is not None and not _LEVEL_WORD.search(rest):
        level, exact = None, None
    if status is not None and phrase is not None and _STATUS_CLASS.fullmatch(phrase):
        phrase = None  # "grep ... for 504s": the status, not the text "504s"
    if phrase is None and status is not None and (path := _PATH.search(QUOTED.sub(" ", text))):
        phrase = path.group(0).rstrip(".,;?")  # "504s on /api/v2/quotes"
    if phrase is None and (about := _CHANGES_ABOUT.search(text)) is not None:
        # "the Argo CD sync operations for x-prod": a deploy tool's lines about x, whoever wrote them.
        phrase, rest = about.group(1).rstrip(".,;?!"), rest.replace(about.group(0), " ")
    service = named_service(rest, skip=set(labels.values()) | ({phrase} if phrase else set()))
    if not (LOGS.search(text) or level or phrase or status):
        return None
    if service and not labels and (on := _ON_MACHINE.search(text)) and on.group(1) != service:
        # "lines from pricing-engine on pricing-01": the machine the service's lines came from.
        labels = {"host": on.group(1)}
    args = log_read(rest, labels)
    if service:
        args["service"] = service
    if COUNT_LINES.match(text):
        # One count with every filter the question gives: a phrase is more exact than its level, a
        # status class ("5xx") is what an access log records, not a level.
        args.pop("limit", None)
        if status is not None:
            args["status_class"] = status
        elif phrase or exact:
            args["contains"] = phrase or exact
        elif level:
            args["level"] = level
        count = PlannedCall(tool="count_logs", args=args, purpose="lookup")
        return LookupAsk("logs", (count,), services=(service,) if service else ())
    if status is not None:
        args["status_class"] = status
    calls = []
    if level and phrase and QUOTED.search(text):
        # "the last 5 'slow fdatasync' warnings": the lines at that level saying the quoted phrase. An
        # unquoted code ("the TOO_MANY_PARTS errors") may be spelt otherwise in a client's lines: both reads.
        args |= {"level": level, "contains": phrase}
    elif level:
        calls.append(PlannedCall(tool="query_logs", args={**args, "level": level}, purpose="lookup"))
    if "contains" not in args and (contains := phrase or exact):
        # A phrase the question gives unquoted ("the election lines", "about the NFS server"), in any
        # case the log writes it ("Election succeeded", `"c":"ELECTION"`, "nfs: server"); a quoted one
        # as given.
        spelled = {"any_case": True} if phrase and not QUOTED.search(text) else {}
        calls.append(
            PlannedCall(tool="query_logs", args={**args, "contains": contains, **spelled}, purpose="lookup")
        )
    if not calls:
        calls.append(PlannedCall(tool="query_logs", args=args, purpose="lookup"))
    return LookupAsk("logs", tuple(calls), services=(service,) if service else ())


def _phrase_and_level(text: str) -> tuple[str | None, str | None, str | None]:
    """(quoted or "containing" phrase, level asked, the level word as written in capitals).

    "containing ERROR" asks for lines at level error and for lines whose text holds "ERROR" (many
    logs carry the level only in the message): both queries run and their lines are merged.
    """
    quoted = QUOTED.search(text)
    if quoted is not None:
        phrase: str | None = first_group(quoted)
    else:
        # "grep X's logs for Y": Y is the phrase, X (a possessive) the stream.
        found = [
            m.group(1).strip("\"'`.?!") for m in (*_GREP_FOR.finditer(text), *_CONTAINING.finditer(text))
        ]
        found = [word for word in found if not word.lower().endswith(("'s", "\u2019s"))]
        phrase = next((word for word in found if word and word.lower() not in NOT_A_NAME), None)
        level_named = next((word for word in found if word.lower() in _LEVELS), None)
        if phrase is None and level_named is not None:
            exact = level_named if level_named.isupper() else None
            return None, _LEVELS[level_named.lower()], exact
    if phrase is None and (token := _CODE_TOKEN.search(text)) is not None:
        phrase = token.group(0)  # "the 3 most recent TCP_DENIED entries": a code the lines carry
    if phrase is None and (upper := _WITH_UPPER.search(text)) is not None:
        phrase = upper.group(1)  # "the resolver's query lines with SERVFAIL": a word the lines carry
    if phrase is None and (about := _ABOUT.search(text)) is not None and _a_kind(about.group(1)):
        phrase = about.group(1)  # "the kernel lines about the NFS server": the lines saying NFS
    kind = _KIND_OF_LINE.search(text)
    if phrase is None and kind is not None and _a_kind(kind.group(1)):
        phrase = kind.group(1)  # "the node-left lines", "the panic lines from X": what the lines say
    if phrase is None and (camel := _camel_token(text)) is not None:
        phrase = camel  # "CloudTrail PutFunctionConcurrency events": the event's own name
    level_word = _LEVEL_WORD.search(text if quoted is None else QUOTED.sub(" ", text))
    level = _LEVELS.get(level_word.group(1).lower().split()[0]) if level_word else None
    if phrase is not None and phrase.lower() in _LEVELS:
        exact = phrase if phrase.isupper() else None
        return None, _LEVELS[phrase.lower()], exact
    return phrase, level, None


def _a_kind(word: str) -> bool:
    """Whether "the <word> lines" names what the lines say, not which ones ("the last", "the log")."""
    lowered = word.lower()
    return lowered not in _LEVELS and lowered not in NOT_A_NAME and lowered not in _WHICH_LINES


def _camel_token(text: str) -> str | None:
    found = _CAMEL.findall(QUOTED.sub(" ", text))
    parts = {token: len(re.findall(r"[A-Z]", token)) for token in found}
    best = max(found, key=lambda token: parts[token], default=None)
    return best if best is not None and parts[best] >= 3 else None


def _status_asked(text: str) -> str | None:
    """The status filter a question asks for: a class ("5xx") or one status ("504")."""
    if (found := _STATUS_CLASS.search(text)) is None:
        return None
    klass, *codes = found.groups()
    return f"{klass}xx" if klass else next(code for code in codes if code)


def named_service(text: str, skip: set[str] | None = None) -> str | None:
    """The system the question names for its rows: "service X", "X's logs", "from X", "X logs"."""
    skipped = {s.lower() for s in skip or set()}
    cleaned = QUOTED.sub(" ", text)
    for pattern in _SERVICE_PATTERNS:
        for match in pattern.finditer(cleaned):
            name = match.group(1).strip(".-")
            if name.lower() in NOT_A_NAME | skipped or not name or name.isdigit():
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
