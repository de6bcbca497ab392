"""The root-cause statement, made of the evidence's own words: the implicated identity and its strongest
signals with their values and times (the alert's name and summary, a metric and its change, the top
error template, the change or event line, the SQL finding). The category is only a tag beside it; a
statement never depends on having a name for what went wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.analysts.rules import findings as say
from graph.analysts.rules.categories import categorize
from graph.analysts.rules.suspect import Suspect
from tools.facts import AlertGroup, LogPattern, MetricAnomaly

MAX_SIGNALS = 4
MAX_QUOTED = 90


def signal_phrases(root: Suspect, changes: Sequence[LogPattern], category: str | None = None) -> list[str]:
    """The root's strongest signals in their own terms, earliest-acting first: a change before the
    trouble, then alerts, metric changes, the top error template and the SQL finding. Each kind keeps
    its place within MAX_SIGNALS: a second metric is the first to go, so the error lines (often the
    only words that say what broke) are never crowded out by another series."""
    phrases = [f"change {say.change_phrase(p, MAX_QUOTED)}" for p in changes[:1]]
    # A restart is a change too, and often the only one: the process's own age says when.
    restarts = [a for a in root.anomalies if a.event == "restart"]
    phrases += [_metric(a) for a in restarts[:1] if not changes]
    phrases += [_alert(group) for group in root.alerts[:1]]
    anomalies = sorted((a for a in root.anomalies if a.event != "restart"), key=lambda a: -a.score)
    metrics: list[str] = []
    seen: set[str] = set()
    for anomaly in anomalies:
        if anomaly.metric not in seen and len(seen) < 2:
            seen.add(anomaly.metric)
            metrics.append(_metric(anomaly))
    phrases += metrics[:1]
    if root.errors:
        top = _telling(root.errors, category)
        if top.origin:
            phrases.append(f'{top.origin} failing ("{_short(top.example)}") since {top.first_seen}')
        else:
            # A machine's lines written by a program of its own (its job runner, its database server).
            of = f" of {top.service}" if top.service and top.service != root.service else ""
            phrases.append(_lines_phrase(top, of))
    for summary in root.held_by_sql[:1]:
        phrases.append(f"{summary.datasource} shows " + "; ".join(summary.highlights[:2]))
    return (phrases + metrics[1:])[:MAX_SIGNALS]


def callers_phrase(root: Suspect) -> str:
    """What a system known only by its callers' lines does to them: their strongest line about it."""
    return _lines_phrase(max(root.blamed_by.values(), key=lambda p: p.count))


def _lines_phrase(pattern: LogPattern, of: str = "") -> str:
    """`58 ERROR lines[ of x] like "..." since <first seen>`."""
    level = (pattern.level or "log").upper()
    lines = f'{pattern.count} {level} lines{of} like "{_short(pattern.example)}"{say.reason_of(pattern)}'
    return f"{lines} since {pattern.first_seen}"


def _telling(errors: Sequence[LogPattern], category: str | None) -> LogPattern:
    """The error pattern that says what the tag says (two "OutOfMemoryError" lines beside a hundred
    pool warnings, for a memory tag), else the most frequent."""
    if not category:
        return max(errors, key=lambda p: p.count)
    # What the statement quotes says it best; the whole line, else.
    quoted = [p for p in errors if categorize(_short(p.example), changed=False) == category]
    fitting = [p for p in errors if categorize(f"{p.template} {p.example}", changed=False) == category]
    return max(quoted or fitting or errors, key=lambda p: p.count)


def _alert(group: AlertGroup) -> str:
    text = f"alert {group.alertname} firing since {group.first_started}"
    return text + (f' ("{_short(group.summary)}")' if group.summary else "")


_WHAT_KEYS = ("reason", "condition")


def _metric(anomaly: MetricAnomaly) -> str:
    # A series counting by reason or condition (`..._last_terminated_reason{reason="OOMKilled"}`,
    # `kube_node_status_condition{condition="DiskPressure"}`) says what in its label.
    key = next((k for k in _WHAT_KEYS if anomaly.labels.get(k)), None)
    name = f"{anomaly.metric}{{{key}={anomaly.labels[key]}}}" if key else anomaly.metric
    if (said := say.event_phrase(anomaly)) is not None:
        return f"{name} {said}"
    verb = "rose" if anomaly.direction == "up" else "fell"
    unit = " /s" if anomaly.metric.startswith("rate(") else ""
    return (
        f"{name} {verb} from {say.number(anomaly.baseline)}{unit} to "
        f"{say.number(anomaly.recent)}{unit} at {anomaly.change_at}"
    )


def _short(text: str) -> str:
    return say.quote(text, MAX_QUOTED)
