"""Rows of a lookup, read from the structured data of the run's tool results.

One reader per kind of result (log lines, series, alerts, targets, rules, SQL rows), each pure on an
evidence item's bounded data. EvidenceGuard calls the same readers to hold every row shown to a row
of a cited result, so a row is shown exactly as a reader gives it (cells clipped the same way).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from graph.analysts.lookup import LookupAnswer, LookupTable, TableKind
from graph.nodes.lookup.alert_filters import alerts_in_place, alerts_labelled, alerts_placed_in, spells_pair
from tools.base import Evidence
from tools.toolbox.args import mappings, text_labels

MAX_ROWS_SHOWN = 200
MAX_CELL_CHARS = 1000  # a log line whole, ids and all (an SDK error with its ActivityId runs 550)
_CELL_HEAD = 760
Rows = list[list[str]]
Reader = Callable[[Mapping[str, Any], str], tuple[list[str], Rows]]


def cell(value: Any) -> str:
    """One value as the text of a cell, clipped."""
    if value is None:
        return ""
    if isinstance(value, float):
        text = f"{value:.12g}" if math.isfinite(value) else str(value)
    elif isinstance(value, Mapping):
        text = ", ".join(f"{k}={v}" for k, v in sorted(value.items()))
    else:
        text = str(value)
    if len(text) <= MAX_CELL_CHARS:
        return text
    # Its beginning and its end: a long structured line ends with its ids (`"eventID":"3f1c..."`).
    return text[:_CELL_HEAD] + " … " + text[-(MAX_CELL_CHARS - _CELL_HEAD - 3) :]


def cells(*values: Any) -> list[str]:
    return [cell(value) for value in values]


# A stack trace's frames (`\tat com.x.Y.z(Y.java:42)`, `... 12 more`): the exception lines and their
# "Caused by:" say what failed ("... for partition p-4 at offset 18234991"), the frames only where.
# A frame may end with the jar it came from (`~[spring-kafka-3.1.4.jar!/:3.1.4]`).
_FRAME = re.compile(
    r"^\s*(?:at \S+\([^)]*\)(?:\s+~?\[[^\]]*\])?|\.\.\. \d+ (?:more|common frames omitted))\s*$"
)


_TRACE_LINE_CHARS = 160
_TRACE_LINES = 5


def _without_frames(message: str) -> str:
    """A multi-line message without its frames, each line clipped, at most a few lines (the first,
    then the "Caused by" lines, deepest last): the cell keeps what failed at every level."""
    if "\n" not in message:
        return message
    kept = [line for line in message.split("\n") if line.strip() and not _FRAME.match(line)]
    if len(kept) > _TRACE_LINES:
        kept = kept[:1] + kept[1 - _TRACE_LINES :]
    return "\n".join(
        line if len(line) <= _TRACE_LINE_CHARS else line[: _TRACE_LINE_CHARS - 2] + " …" for line in kept
    )


def _log_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    rows = []
    for line in mappings(data.get("lines")):
        labels = text_labels(line.get("labels"))
        others = {k: v for k, v in labels.items() if k not in ("service", "level")}
        message = _without_frames(str(line.get("message") or ""))
        row = cells(line.get("ts"), labels.get("service"), labels.get("level"), others)
        # A trace's lines are clipped one by one above; a one-line message by the cell's own rule.
        rows.append([*row, message if "\n" in message else cell(message)])
    return ["time", "service", "level", "labels", "message"], rows


_NO_LINES = [["0", "", "", ""]]


def _line_count_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    count = f"{'at least ' if data.get('at_least') else ''}{data.get('count', 0)}"
    row = cells(count, data.get("first"), data.get("last"), data.get("by_level") or {})
    return ["matching lines", "first", "last", "by level"], [row]


def _series_name(series: Mapping[str, Any]) -> str:
    labels = ",".join(f'{k}="{v}"' for k, v in sorted(text_labels(series.get("labels")).items()))
    return cell(f"{series.get('metric') or ''}{{{labels}}}")


def _points(series: Mapping[str, Any]) -> list[tuple[float, float]]:
    points = []
    for sample in series.get("samples") or []:
        if isinstance(sample, list | tuple) and len(sample) == 2:
            points.append((float(sample[0]), float(sample[1])))
    return points


def _time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def _series_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    series = mappings(data.get("series"))
    if tool == "query_promql_instant":
        rows = [
            [_series_name(s), cell(points[-1][1]), _time(points[-1][0])]
            for s in series
            if (points := _points(s))
        ]
        return ["series", "value", "time"], rows
    rows = []
    for s in series:
        if points := _points(s):
            values = [v for _, v in points]
            last_time = _time(points[-1][0])
            rows.append(
                [_series_name(s), *cells(values[-1], min(values), max(values), len(points), last_time)]
            )
    return ["series", "last", "min", "max", "points", "last time"], rows


def _alert_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    rows = []
    for alert in mappings(data.get("alerts")):
        labels = text_labels(alert.get("labels"))
        notes = text_labels(alert.get("annotations"))
        muted = "silenced" if alert.get("silenced") else "inhibited" if alert.get("inhibited") else ""
        status = " ".join(filter(None, [str(alert.get("status") or ""), muted]))
        summary = notes.get("summary") or notes.get("description")
        rows.append(
            cells(labels.get("alertname"), alert.get("identity"), labels.get("severity"), status)
            + cells(alert.get("startsAt"), summary)
        )
    return ["alert", "identity", "severity", "status", "since", "summary"], rows


def _history_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    rows = []
    for alert in mappings(data.get("history")):
        labels = text_labels(alert.get("labels"))
        episodes = mappings(alert.get("episodes"))
        if not episodes:
            continue
        identity = " ".join(
            f"{k}={v}" for k, v in sorted(labels.items()) if k not in ("alertname", "severity")
        )
        status = "firing" if alert.get("firing_now") else "resolved"
        rows.append(
            cells(labels.get("alertname"), identity, labels.get("severity"), status)
            + cells(episodes[0].get("startsAt"), episodes[-1].get("endsAt"), len(episodes))
        )
    return ["alert", "identity", "severity", "status", "first fired", "last resolved", "times fired"], rows


def _target_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    rows = []
    for target in mappings(data.get("targets")):
        labels = text_labels(target.get("labels"))
        rows.append(
            cells(labels.get("job"), labels.get("instance"), target.get("health"))
            + cells(target.get("last_error"), target.get("last_scrape"))
        )
    return ["job", "instance", "health", "last error", "last scrape"], rows


def _rule_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    rows = []
    for rule in mappings(data.get("rules")):
        firing = sum(1 for alert in mappings(rule.get("alerts")) if alert.get("state") == "firing")
        rows.append(cells(rule.get("name"), rule.get("kind"), rule.get("health"), firing, rule.get("expr")))
    return ["rule", "kind", "health", "firing", "expression"], rows


def _sql_rows(data: Mapping[str, Any], tool: str) -> tuple[list[str], Rows]:
    columns = [cell(c) for c in data.get("columns") or []]
    rows = [[cell(v) for v in row] for row in data.get("rows") or [] if isinstance(row, list | tuple)]
    return columns, rows


# The tools whose results a lookup shows, and the kind of table each makes.
READERS: Mapping[str, tuple[TableKind, Reader]] = {
    "query_logs": ("log_lines", _log_rows),
    "count_logs": ("line_counts", _line_count_rows),
    "query_promql_instant": ("series", _series_rows),
    "query_promql": ("series", _series_rows),
    "read_metric": ("series", _series_rows),
    "query_metric": ("series", _series_rows),
    "list_alerts": ("alerts", _alert_rows),
    "alert_history": ("alerts", _history_rows),
    "list_targets": ("targets", _target_rows),
    "list_rules": ("rules", _rule_rows),
    "query_mysql": ("rows", _sql_rows),
}
_TITLES: Mapping[TableKind, str] = {
    "log_lines": "log lines",
    "line_counts": "log line counts",
    "series": "series",
    "alerts": "alerts",
    "targets": "scrape targets",
    "rules": "rules",
    "rows": "rows",
}


def rows_of(item: Evidence) -> tuple[list[str], Rows]:
    """The columns and every row one tool result holds (none for a tool a lookup does not show)."""
    reader = READERS.get(item.tool)
    if reader is None or not item.status.succeeded:
        return [], []
    return reader[1](item.data, item.tool)


def query_text(item: Evidence) -> str:
    """The query as it ran: the tool and its recorded arguments and window."""
    parts = [
        f"{key}={cell(value)}" for key, value in sorted(item.query.items()) if value not in (None, "", {})
    ]
    return f"{item.tool}({', '.join(parts)})"


def lookup_answer(items: Sequence[Evidence], about: Sequence[str] = (), question: str = "") -> LookupAnswer:
    """The tables of the lookup's results (log queries merged into one table), with counts.

    `about` names the systems the question asks about beside its expression ("SomeGauge for db-1"):
    series tables keep the rows whose labels name one of them, when any does. Alerts keep those whose
    labels hold the pairs the `question` spells ("for team blue", "with severity critical").
    """
    shown = [alerts_labelled(item, question) for item in items if item.tool in READERS]
    pairs = {p for item in shown for p in item.query.get("labels_asked", {}).items()}
    about = [name for name in about if not any(name in pair for pair in pairs)]
    placed = [name for name in about if any(alerts_placed_in(item, name) for item in shown)]
    shown = [alerts_in_place(item, placed) for item in shown]
    about = [name for name in about if name not in placed]
    failed = [item for item in shown if not item.status.succeeded]
    tables = [
        _pairs_narrowed(_narrowed(_table(group), about, group), question)
        for group in _groups([i for i in shown if i.status.succeeded])
    ]
    # A count of nothing is a row too; it matched nothing all the same (a wider read may have).
    matched = [table for table in tables if table.rows and table.rows != _NO_LINES]
    if not shown:
        summary = "No query could be formed from this question: name what to read (logs, a metric, alerts)."
    elif failed and not matched:
        summary = "The query could not run: " + "; ".join(f"{i.tool}: {i.summary}" for i in failed)
    elif not matched:
        summary = "Nothing matched: " + "; ".join(table.query for table in tables)
    else:
        summary = "; ".join(_count(table) for table in matched)
    return LookupAnswer(
        summary=summary,
        tables=tables,
        nothing_matched=bool(shown) and not matched and not failed,
        failed=[item.id for item in failed],
    )


def _groups(items: Iterable[Evidence]) -> list[list[Evidence]]:
    """Log queries form one table (a level and a text query for one ask); every other result its own."""
    logs = [item for item in items if READERS[item.tool][0] == "log_lines"]
    others = [[item] for item in items if READERS[item.tool][0] != "log_lines"]
    return ([logs] if logs else []) + others


def _table(group: Sequence[Evidence]) -> LookupTable:
    kind = READERS[group[0].tool][0]
    columns: list[str] = []
    rows: Rows = []
    for item in group:
        item_columns, item_rows = rows_of(item)
        columns = columns or item_columns
        rows += [row for row in item_rows if row not in rows]
    if kind == "log_lines":
        rows.sort(key=lambda row: row[0], reverse=True)  # newest first across the merged queries
        rows = rows[: max(_limit(item) for item in group)]
    return LookupTable(
        kind=kind,
        title=f"{len(rows)} {_TITLES[kind]}",
        query="; ".join(query_text(item) for item in group),
        evidence_ids=[item.id for item in group],
        columns=columns,
        rows=rows[:MAX_ROWS_SHOWN],
        total=len(rows),
        truncated=any(item.truncated for item in group),
    )


def _narrowed(table: LookupTable, about: Sequence[str], group: Sequence[Evidence]) -> LookupTable:
    if table.kind == "alerts" and about and not any(item.query.get("service") for item in group):
        return _alerts_mentioning(table, about)
    if table.kind != "series" or not about:
        return table
    # The rows naming the most of what was asked ("p99 of x for berth-planner": its 0.99 quantile, not
    # its median beside it).
    said = [sum(_names(row[0], name) for name in about) for row in table.rows]
    best = max(said, default=0)
    kept = [row for row, count in zip(table.rows, said, strict=True) if best and count == best]
    if not kept:
        return table
    names = ", ".join(about)
    return table.model_copy(
        update={"rows": kept, "total": len(kept), "title": f"{len(kept)} series of {names}"}
    )


def _pairs_narrowed(table: LookupTable, question: str) -> LookupTable:
    """Series rows holding every label and value the question spells together ("lag on partition 7":
    `partition="7"`, not its neighbours), when any row does."""
    if table.kind != "series" or not question:
        return table
    labelled = [dict(re.findall(r'(\w+)="([^"]*)"', row[0])) for row in table.rows]
    pairs = {
        (key, value)
        for labels in labelled
        for key, value in labels.items()
        if value and spells_pair(question, key, value)
    }
    keys = {key for key, _ in pairs}
    kept = [
        row
        for row, labels in zip(table.rows, labelled, strict=True)
        if all((key, labels.get(key)) in pairs for key in keys)
    ]
    if not pairs or not kept or len(kept) == len(table.rows):
        return table
    title = re.sub(r"^\d+", str(len(kept)), table.title)
    return table.model_copy(update={"rows": kept, "total": len(kept), "title": title})


def _alerts_mentioning(table: LookupTable, about: Sequence[str]) -> LookupTable:
    """Every alert listed for a word no alert's identity is: the rows whose cells hold it, none if
    none does (all the firing alerts would answer a question about something else)."""
    # A word of a name (`rabbit` in `RabbitmqTooManyReadyMessages`), never one name inside another's
    # number (`db-1` in `db-10`).
    words = [re.compile(rf"{re.escape(name.lower())}(?!\d)") for name in about]
    kept = [row for row in table.rows if any(w.search(str(cell).lower()) for cell in row for w in words)]
    names = ", ".join(about)
    return table.model_copy(
        update={"rows": kept, "total": len(kept), "title": f"{len(kept)} alerts of {names}"}
    )


def _names(series: str, name: str) -> bool:
    """Whether a series' label values name `name` (exactly, or as a host before its port or domain:
    `mongo-2.internal:27017` names mongo-2); a percentile (`p99`) names its quantile (`quantile="0.99"`)."""
    if (percentile := _PERCENTILE.fullmatch(name.lower())) is not None:
        return f'quantile="{("0." + percentile.group(1)).rstrip("0")}"' in series
    values = re.findall(r'="([^"]*)"', series)
    return any(name in (value, host := value.split(":")[0], host.split(".")[0]) for value in values)


_PERCENTILE = re.compile(r"p(\d{2,4})")


def _limit(item: Evidence) -> int:
    limit = item.query.get("limit")
    return limit if isinstance(limit, int) and limit > 0 else MAX_ROWS_SHOWN


def _count(table: LookupTable) -> str:
    if table.kind == "line_counts":
        return "; ".join(f"{row[0]} matching log lines" for row in table.rows)
    shown = len(table.rows)
    text = (
        f"{table.total} {_TITLES[table.kind]}"
        if shown == table.total
        else (f"{shown} of {table.total} {_TITLES[table.kind]} shown")
    )
    return text + (" (the source's limit was reached; more may exist)" if table.truncated else "")
