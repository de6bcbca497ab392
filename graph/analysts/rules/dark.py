"""The system a question asks about, when its telemetry cannot say how it is: no series read measures it
(at most its scrape status, `up`, is there) and it logged nothing, or its lines stopped long before now.

Quiet telemetry is not health: a service whose metrics go elsewhere and whose log stream went silent an
hour ago may be down, or only its shipper may be. The answer is inconclusive and says what is missing,
with the last line it wrote when there is one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from graph.analysts.base import Draft, EvidenceRef, Finding
from tools.digest.labels import parse_instant
from tools.digest.targets import SCRAPE
from tools.facts import Digest, LogPattern

# Lines that stopped this long before now, from a stream that wrote before, are a silence.
SILENT_AFTER = timedelta(minutes=15)
_MAX_CITED = 8


def dark_draft(
    target: str, digest: Digest, checked: Sequence[EvidenceRef], now: datetime | None
) -> Draft | None:
    """The inconclusive answer about `target` when no series measures it and its lines are absent or
    stopped; None when its telemetry answers."""
    name = target.lower()
    # No series read at all is the metrics source's silence, not this system's (`missing_sources`).
    if not digest.measured or any(_names(value.lower(), name) for value in digest.measured):
        return None
    lines = [p for p in digest.log_patterns if (p.service or "").lower() == name and p.origin != SCRAPE]
    last = _last_line(lines)
    if lines and (last is None or now is None or now - last[0] < SILENT_AFTER):
        return None
    measures = f"no metric series read measures {target}"
    if name in {value.lower() for value in digest.names} and not lines:
        measures += " (at most its scrape status)"
    if last is None:
        said = f"{measures} and no log line of it was found"
    else:
        said = f"{measures} and its log lines stopped at {last[1].last_seen}"
        if len(lines) == 1:
            # A count the evidence states; a sum over several patterns is no number any tool returned,
            # and the guard rejects what it cannot find.
            said += f" ({lines[0].count} lines before)"
    cited = [e.id for e in checked if e.source in ("metrics", "logs") and e.status == "OK"][:_MAX_CITED]
    if last is not None and last[1].evidence_id not in cited:
        cited.append(last[1].evidence_id)
    return Draft(
        summary=f"Inconclusive: {said}; whether it is failing or only its telemetry stopped cannot be told "
        "from this evidence.",
        verdict="inconclusive",
        findings=[Finding(statement=f"Checked metrics and logs: {said}.", evidence_ids=cited)],
        open_questions=[f"Where does {target} send its metrics and logs now?"],
    )


def _names(value: str, name: str) -> bool:
    """A label value that is the name, or holds it as a part of a resource path
    (`projects/p/locations/l/instances/<name>`)."""
    return value == name or name in re.split(r"[/:@,;= ]", value)


def _last_line(lines: Sequence[LogPattern]) -> tuple[datetime, LogPattern] | None:
    stamped = [(t, p) for p in lines if (t := parse_instant(p.last_seen)) is not None]
    return max(stamped, key=lambda pair: pair[0]) if stamped else None
