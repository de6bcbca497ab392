"""The second round of a lookup that matched nothing: the same ask, read more widely.

A question names things in its own words, not always the backend's: a metric by part of its name
("DeadletteredMessages" for `azure_..._deadletteredmessages_average_count`, "oldest_unacked_message_age"
for a cloud exporter's long prefixed name), a machine by its host name where the log streams are named
by the program (`service=vault` with `host=vault-2`). When every query of the first round answered
EMPTY, the second reads the metric names containing the word (case-insensitive) and the lines whose
host labels equal the name; the first round's empty table still says what the literal query found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.analysts.base import EvidenceRef, PlannedCall
from tools.digest.labels import HOST_LABEL_KEYS

# Labels that name the machine or pod a log line came from, in the spellings log shippers use.
HOST_LABELS = (*HOST_LABEL_KEYS, "instance", "pod")
_ASKS = frozenset({"query_promql_instant", "query_logs"})
_BARE_NAME = re.compile(r"^[A-Za-z_:][A-Za-z0-9_:]*$")
_KEPT_LOG_ARGS = ("contains", "level", "limit", "window_minutes")
_EMPTY = "EMPTY"


def widened_calls(evidence: Sequence[EvidenceRef]) -> list[PlannedCall]:
    """The wider reads of a first round whose queries all matched nothing; none otherwise."""
    asked = [ref for ref in evidence if ref.tool in _ASKS]
    if not asked or any(ref.status != _EMPTY for ref in asked):
        return []
    calls: list[PlannedCall] = []
    for ref in asked:
        if ref.tool == "query_promql_instant":
            name = str(ref.args.get("promql", "")).strip()
            if _BARE_NAME.match(name):
                # RE2's (?i): the question's spelling of a vendor's name rarely matches its case.
                promql = f'{{__name__=~"(?i).*{name}.*"}}'
                calls.append(
                    PlannedCall(tool="query_promql_instant", args={"promql": promql}, purpose="lookup")
                )
        elif (
            (service := ref.args.get("service"))
            and not ref.args.get("labels")
            and not ref.args.get("native_query")
        ):
            kept = {key: ref.args[key] for key in _KEPT_LOG_ARGS if key in ref.args}
            calls += [
                PlannedCall(
                    tool="query_logs", args={**kept, "labels": {label: str(service)}}, purpose="lookup"
                )
                for label in HOST_LABELS
            ]
    return calls
