"""What every kind of data question is read with: the lookup it becomes (`LookupAsk`), the verbs that
ask for data, a quoted phrase, the nouns of log lines, the words that name no system, and the window of
time the question gives ("the last 2 hours").

Shared by the grammar of each kind of ask: `lookup` (which kind a question asks for, and alerts,
targets, rules and SQL), `lookup_logs` and `lookup_metrics`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from graph.analysts.base import PlannedCall

LookupKind = Literal["logs", "promql", "alerts", "targets", "rules", "sql"]
# Verbs that ask for data itself; "show me why ..." is caught by lookup._JUDGEMENT first.
DATA_VERB = re.compile(
    r"^(?:show|list|find|grep|search|get|give|print|display|fetch|post|paste|dump|tail|return|pull|"
    r"look\s+up|lookup|query|run|execute|evaluate|eval|count|output|read)(?![\w-])",
    re.IGNORECASE,
)
# A single quote opens a quote only where a word does not run into it: "claims-api's logs for 'panic'"
# quotes `panic`, not "s logs for ".
QUOTED = re.compile(r"`([^`]{1,2000})`|\"([^\"]{1,2000})\"|“([^”]{1,2000})”|(?<!\w)'([^']{1,2000})'(?!\w)")
LOGS = re.compile(r"\b(?:logs?|log lines?|lines|entries|messages|events)\b", re.IGNORECASE)
WINDOW = re.compile(
    r"\b(?:last|past|previous)\s+(\d{1,4})?\s*(minutes?|mins?|m|hours?|hrs?|h|days?|d)\b", re.IGNORECASE
)
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 1_440}
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
NOT_A_NAME = frozenset(_NAMELESS_WORDS.split())


@dataclass(frozen=True, slots=True)
class LookupAsk:
    """What a data question asks to read: the kind of data and the tool calls that read it."""

    kind: LookupKind
    calls: tuple[PlannedCall, ...]
    services: tuple[str, ...] = field(default=())


def window_minutes(text: str) -> int | None:
    match = WINDOW.search(text)
    if match is None:
        return None
    count = int(match.group(1) or 1)
    return count * _UNIT_MINUTES[match.group(2)[0].lower()]


def first_group(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group is not None)
