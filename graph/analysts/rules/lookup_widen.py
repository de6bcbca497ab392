"""The second round of a lookup that matched nothing: the same ask, read more widely.

A question names things in its own words, not always the backend's: a metric by part of its name
("DeadletteredMessages" for `azure_..._deadletteredmessages_average_count`, "oldest_unacked_message_age"
for a cloud exporter's long prefixed name), a machine by its host name where the log streams are named
by the program (`service=vault` with `host=vault-2`). When every query of the first round answered
EMPTY, the second reads the metric names containing the word (case-insensitive) and the lines whose
host labels equal the name, and alerts asked for by a word no alert's identity is are all listed, to be
narrowed to those holding the word; the first round's empty table still says what the literal query found.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from itertools import permutations

from graph.analysts.base import EvidenceRef, PlannedCall
from tools.digest.labels import HOST_LABEL_KEYS

# Labels that name the machine or pod a log line came from, in the spellings log shippers use.
HOST_LABELS = (*HOST_LABEL_KEYS, "instance", "pod")
_LOG_READS = frozenset({"query_logs", "count_logs"})
_PROMQL_READS = frozenset({"query_promql_instant", "query_promql"})
_ASKS = frozenset({*_PROMQL_READS, "list_alerts", *_LOG_READS})
# The words of a CamelCase name (`EngineCPUUtilization` -> Engine, CPU, Utilization).
_CAMEL_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_BARE_NAME = re.compile(r"^[A-Za-z_:][A-Za-z0-9_:]*$")
_PARTS = re.compile(r"[-_.:/]")
# Parts many stream names share: they name no one system.
_GENERIC_PARTS = frozenset(
    ["api", "app", "svc", "service", "server", "web", "worker", "prod", "dev", "log", "logs"]
)
_KEPT_LOG_ARGS = ("contains", "any_case", "level", "limit", "window_minutes", "since", "status_class")
_EMPTY = "EMPTY"
WIDER_ROUND = 2
MAX_WORDS = 2
_WORDS_QUERY = re.compile(r'^\{__name__=~"\(\?i\)\.\*(.+)\.\*"\}$')
MAX_STREAMS = 3
RATE_RANGE = "5m"
_RATED = re.compile(rf"^rate\((.+)\[{RATE_RANGE}\]\)$")
# A word of a question and the words metric names use for it instead.
_SAID_OTHERWISE: dict[str, tuple[str, ...]] = {
    "depth": ("messages", "length", "size"),
    "backlog": ("messages", "lag", "pending"),
    "backends": ("connections", "sessions"),
    "connections": ("backends", "sessions", "clients"),
    "sessions": ("connections", "backends"),
    "clients": ("connections", "connected"),
    "restarts": ("restart",),
    "lag": ("delay", "behind"),
    "latency": ("duration", "seconds"),
}


def widened_calls(evidence: Sequence[EvidenceRef]) -> list[PlannedCall]:
    """The wider reads of a first round whose queries all matched nothing; none otherwise."""
    asked = _all_empty(evidence, _ASKS)
    calls: list[PlannedCall] = []
    for ref in asked:
        if ref.tool in _PROMQL_READS:
            name = str(ref.args.get("promql", "")).strip()
            # A range read stays one over the window asked ("the peak of X over the last 2 hours").
            window = {"window_minutes": w} if (w := ref.args.get("window_minutes")) else {}
            promqls: list[str] = []
            if _BARE_NAME.match(name):
                # RE2's (?i): the question's spelling of a vendor's name rarely matches its case.
                promqls.append(f'{{__name__=~"(?i).*{name}.*"}}')
                # A vendor's CamelCase name is its exporter's snake_case words
                # (`EngineCPUUtilization` -> `aws_..._engine_cpuutilization_average`).
                if len(camel := _CAMEL_WORD.findall(name)) >= 2 and "_" not in name:
                    promqls.append(words_query([w.lower() for w in camel][:3]))
            # The question's words that no one name holds together: each of the longest alone
            # ("pending messages" -> `jetstream_consumer_num_pending`), still narrowed to the system.
            inner, was_rated = _unrated(name)
            promqls += [
                rated(words_query([word])) if was_rated else words_query([word])
                for word in [*_asked_words(inner), *_other_words(inner)]
            ]
            calls += [
                PlannedCall(tool=ref.tool, args={"promql": promql, **window}, purpose="lookup")
                for promql in promqls
            ]
        elif ref.tool == "list_alerts":
            if ref.args.get("service"):
                # "alerts for rabbit": no alert's identity is the word; the answer keeps the firing
                # alerts whose names, labels or summaries hold it (`RabbitmqTooManyReadyMessages`).
                calls.append(PlannedCall(tool="list_alerts", args={}, purpose="lookup"))
        elif (
            (service := ref.args.get("service"))
            and not ref.args.get("labels")
            and not ref.args.get("native_query")
        ):
            calls += [
                PlannedCall(tool=ref.tool, args={**_kept(ref), "labels": {h: str(service)}}, purpose="lookup")
                for h in HOST_LABELS
            ]
            listing = PlannedCall(tool="list_log_streams", args={"label": "service"}, purpose="lookup")
            calls += [] if listing in calls else [listing]  # for the last round, when these find nothing
    return calls


def rated(selector: str) -> str:
    """A selector's per-second rate (counters asked for "per second")."""
    return f"rate({selector}[{RATE_RANGE}])"


def _unrated(promql: str) -> tuple[str, bool]:
    """The selector inside `rated`, and whether it was rated."""
    match = _RATED.match(promql)
    return (match.group(1), True) if match else (promql, False)


def words_query(words: Sequence[str]) -> str:
    """Every metric whose name holds `words` in any order: `{__name__=~"(?i).*(a.*b|b.*a).*"}` (RE2
    has no lookahead, so each ordering is an alternative; (?i): a question's spelling rarely matches a
    vendor's case). `_asked_words` reads the words back for the wider round."""
    spellings = dict.fromkeys(".*".join(re.escape(w) for w in order) for order in permutations(words))
    either = next(iter(spellings)) if len(spellings) == 1 else "(" + "|".join(spellings) + ")"
    return '{__name__=~"(?i).*' + either + '.*"}'


def _asked_words(promql: str) -> list[str]:
    """The words of a `words_query` that alone may name the metric: the two longest, when it had
    several."""
    # A word of two letters alone (`.*up.*`) holds in many names a server has; `lag` is specific.
    words = [w for w in _query_words(promql) if w.isalnum() and len(w) >= 3]
    return sorted(words, key=lambda w: (-len(w), w))[:MAX_WORDS] if len(words) > 1 else []


def _query_words(promql: str) -> list[str]:
    """The words a `words_query` was built of, in its first ordering; none for any other query."""
    match = _WORDS_QUERY.match(promql)
    return match.group(1).split("|")[0].strip("()").split(".*") if match else []


def _other_words(promql: str) -> list[str]:
    """The words backends use for what a question's word asks (a queue's "depth" is its messages
    ready, a database's "backends" its connections), for a `words_query` that matched nothing."""
    words = _query_words(promql)
    others = [other for word in words for other in _SAID_OTHERWISE.get(word.lower(), ())]
    # A noun of an act is its verb in metric names: "evictions" are `items_evicted_total`.
    others += [word[:-4] + "ed" for word in words if word.lower().endswith("ions") and len(word) > 7]
    return list(dict.fromkeys(others))


def stream_calls(
    evidence: Sequence[EvidenceRef], streams: Sequence[str], words: Sequence[str]
) -> list[PlannedCall]:
    """The last round of a log lookup nothing matched: the streams whose names hold a word of the
    question or the name asked for as a part ("slow query log entries from db": `db-slow`; "the
    kafka broker logs", read as the stream `broker`: `kafka`), at most three."""
    asked = _all_empty(evidence, _LOG_READS)
    read = {str(name) for ref in asked if (name := ref.args.get("service"))}
    wanted = ({w.lower() for w in words} | {name.lower() for name in read}) - _GENERIC_PARTS
    # The streams sharing the most words first: `x` before `x-sync` for "x".
    shared = {s: len(wanted & set(_PARTS.split(s.lower()))) for s in streams if s not in read}
    named = sorted((s for s, n in shared.items() if n), key=lambda s: (-shared[s], len(s)))[:MAX_STREAMS]
    if not asked:
        return []
    if not named:
        # No stream goes by the name (a program's, `mongod`, logging under its hosts' names; "the backup
        # job", written by `pgbackrest`): the lines of any stream that say what was asked for, else
        # that say the name.
        kept = _kept(asked[0])
        said = kept.get("contains") or next((name for name in sorted(read) if len(name) >= 4), None)
        wider = PlannedCall(tool=asked[0].tool, args={**kept, "contains": said}, purpose="lookup")
        return [wider] if said else []
    return [
        PlannedCall(tool=asked[0].tool, args={**_kept(asked[0]), "service": s}, purpose="lookup")
        for s in named
    ]


def _all_empty(evidence: Sequence[EvidenceRef], tools: Collection[str]) -> list[EvidenceRef]:
    """The calls of `tools` made so far, when there are some and every one matched nothing; else none."""
    asked = [ref for ref in evidence if ref.tool in tools]
    return asked if asked and all(ref.status == _EMPTY for ref in asked) else []


def _kept(ref: EvidenceRef) -> dict[str, object]:
    """The filters of a log read a wider read keeps (what it asked for, not where it looked)."""
    return {key: ref.args[key] for key in _KEPT_LOG_ARGS if key in ref.args}
