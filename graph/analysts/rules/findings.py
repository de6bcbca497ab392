"""Sentences about digest facts that cite their evidence and state only what that evidence holds."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.analysts.base import Finding
from tools.digest.labels import ELIDED, INSTANCE_LABEL_KEYS, SERVICE_LABEL_KEYS
from tools.facts import AlertGroup, CaseClue, LogPattern, MetricAnomaly, RoutineMove, SqlSummary
from tools.identity import DEFAULT_IDENTITY

MAX_QUOTE = 120
_GAP = '" ... "'  # between two verbatim slices of one line
MAX_DISTINGUISHING_LABELS = 2
# Keys the finding already names (service, instance) or that say nothing about the series.
_NAMED_KEYS = frozenset({*SERVICE_LABEL_KEYS, *INSTANCE_LABEL_KEYS, "__name__"})


def number(value: float) -> str:
    """Four significant digits: close enough for the guard's rounding tolerance, short to read."""
    if value == int(value) and abs(value) < 1e12:
        return str(int(value))
    return f"{value:.4g}"


# A quoted URL: often the one thing a line says went wrong ("Post "https://gw/v1": no such host"); a
# quoted reference with a version, what a change brought ("Pulling image "registry/app:3.8.0"").
_QUOTED_VALUE = re.compile(r'"(?:[a-z][a-z0-9+.-]*://[^"\s]+|[^"\s]*[:@/]v?\d+\.\d+[^"\s]*)"')
_QUOTED_HEAD = 12  # a slice's text before an inner double quote that is worth quoting alone
_MESSAGE_KEYS = ("msg", "message", "@m", "@mt")  # a structured line's own words, in that order
_STACK_TRACE = re.compile(
    r'Traceback \(most recent call last\)|File "[^"]+", line \d+|\bat [\w.$]+\([\w.]+:\d+\)'
)


def quote(text: str, most: int = MAX_QUOTE) -> str:
    """A verbatim slice of a log line, cut at a word boundary so it stays a substring of the evidence.

    A long line whose last clause (after its last `; `) is short keeps that clause too, as a second
    slice: `head" ... "tail`, which the caller's double quotes make two quoted substrings. The end
    of a long error line is often what went wrong ("...; Duplicate entry '88412' for key ...").
    """
    # A digest's long line keeps its end after ELIDED: what is quoted is its head, verbatim.
    text = " ".join(text.partition(ELIDED)[0].split())
    # A stack trace is no one's words: the line up to it says what failed ("KeyError: 'carrier_code'").
    if (trace := _STACK_TRACE.search(text)) and len(head := text[: trace.start()].rstrip()) >= _QUOTED_HEAD:
        text = head
    if len(text) > most:  # a long structured line is quoted by its message, a plain one after its preamble
        text = message_of(text) or _after_preamble(text)
    if len(text) <= most:
        return text if _pairs_up(text) else _paired(text)
    _, separator, tail = text.rpartition("; ")
    if not separator and _SETTING_MOVE.search(after := text.rpartition(": ")[2]):
        # "config reloaded from ... (configmap x, resourceVersion 8841): a.flush_interval 10s -> 200ms":
        # the setting and its old and new value are what changed.
        separator, tail = ": ", after
    elif not separator and (hunk := text.rpartition("@@ ")[2]).startswith(("-", "+")):
        # A configuration agent's diff ("--- before: x.cfg +++ after: x.cfg @@ backend b @@ - a + b"):
        # its hunk is what changed.
        separator, tail = "@@ ", hunk
    if separator and 3 <= len(tail) <= most * 2 // 3 and '"' not in tail:
        head = _paired(text[: most - len(tail) - len(_GAP)].rsplit(" ", 1)[0])
        return f"{head}{_GAP}{tail}"
    cut = text[:most].rsplit(" ", 1)[0]
    if not _pairs_up(cut) and (close := text.find('"', len(cut))) != -1 and close < most + most // 3:
        # A quoted URL or value open at the cut ("push failed: Post "https://gw.internal/v1"") is what
        # went wrong: the slice runs to its closing quote rather than stopping before its opening one.
        cut = text[: close + 1]
    return _paired(cut)


# What a plain line says before its message: a timestamp, a thread or query id, a level in brackets
# ("2028.02.09 13:44:38.147307 [ 3037 ] {872dd298-...} <Error> executeQuery: ..."); a quote of it
# says nothing.
# The same after a timestamp: a run of `key=value` fields (`pid=7 tid=yb3 class=MailerJob`), a level,
# and a Spring Boot header's `---` and `logger :` before its message ("WARN: Client::CommandError").
_PREAMBLE = re.compile(
    r"^(?=\d)(?:[\d./:T,+-]+Z?|\[\s*[\w.-]+\s*\]|\{[0-9a-fA-F-]{8,}\}|<\w+>|\s"
    r"|[a-z_]+=[^\s\"'=]+(?=\s)|(?:TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\b:?|---(?=\s)"
    r"|(?<=\s)[\w.$/\[\]]+\s+:(?=\s))+"
)


_SETTING_MOVE = re.compile(r"^\S+\s+\S+\s*(?:->|=>|\u2192)\s*\S+$")


def _after_preamble(line: str) -> str:
    found = _PREAMBLE.match(line)
    rest = line[found.end() :] if found is not None else line
    return rest if len(rest) >= _QUOTED_HEAD else line


def message_of(line: str) -> str | None:
    """The message of a structured line, verbatim: a JSON line's `msg`, `message` or Serilog's `@m` /
    `@mt`, a logfmt line's `msg="..."`, when it says something (a quote of `{"time":"2027-...` says
    nothing). None for a plain line or a message with escapes (not a verbatim slice once unescaped)."""
    for key in _MESSAGE_KEYS:
        said = rf'(?:"{re.escape(key)}"\s*:\s*|\b{re.escape(key)}=)"([^"\\]{{{_QUOTED_HEAD},}})"'
        if found := re.search(said, line):
            return found.group(1)
    return None


def _pairs_up(text: str) -> bool:
    return text.count('"') % 2 == 0 and not text.endswith('"')


def _paired(cut: str) -> str:
    """A slice whose double quotes keep the caller's own quotes around it pairing up: cut before its
    first quote when what comes before says enough, else never ending on an open or a closing quote
    (`"a="b""` would pair the last quote with the next sentence's)."""
    if '"' not in cut or (_pairs_up(cut) and _QUOTED_VALUE.search(cut)):
        return cut  # quotes that pair up around a value worth keeping (a URL, a name): kept whole
    head = cut[: cut.index('"')].rstrip()
    if len(head) >= _QUOTED_HEAD:
        return head
    while not _pairs_up(cut):
        cut = cut[: cut.rindex('"')].rstrip()
    return cut if len(cut) >= 3 else head


def alert_finding(service: str, groups: list[AlertGroup]) -> Finding:
    named = ", ".join(_alert_words(service, g) for g in groups[:4])
    return Finding(
        statement=f"Firing alerts on {service}: {named}.",
        evidence_ids=sorted({g.evidence_id for g in groups[:4]}),
    )


def _alert_words(service: str, group: AlertGroup) -> str:
    """`VolumeNearlyFull (critical, since T) on instance=host-a:9100 mountpoint=/data, value 93.4`:
    where it fires (the labels an SRE needs, not only the exporter job), its value, and whether
    Alertmanager holds it silenced or inhibited."""
    text = f"{group.alertname} ({group.severity or 'unknown severity'}, since {group.first_started})"
    where = where_of(service, group.identities)
    if where:
        text += f" on {where}"
    if group.value:
        text += f", value {group.value}"
    if group.silenced:
        until = f" until {group.silenced_until}" if group.silenced_until else ""
        comment = f' ("{quote(group.silence_comment)}")' if group.silence_comment else ""
        text += f", silenced{until}{comment}"
    if group.inhibited:
        text += ", inhibited by another alert"
    return text


def where_of(service: str, identities: Sequence[str], most: int = 2) -> str:
    """The identities that say more than the service name itself (`instance=host-a:9100 mountpoint=/data`)."""
    shown = [" ".join(p for p in text.split() if p.split("=", 1)[-1] != service) for text in identities]
    return "; ".join(s for s in shown[:most] if s)


# Keys that name the resource a series measures, in exporters' own spellings: a connection pool's
# `data_source=AppDS`, a `pool`, a `bucket`, a vendor's `table_name`.
_RESOURCE_KEY = re.compile(r"(?:^|_)(?:pool|data_?source|bucket|table|index|cache)$|[a-z]_name$|[a-z]Name$")


def distinguishing_labels(anomaly: MetricAnomaly, peers: Sequence[MetricAnomaly]) -> tuple[str, ...]:
    """`key=value` pairs telling this series apart from the other anomalies of its metric.

    Resource labels an SRE needs to find the thing (`mountpoint=/data`, `datname=sales`) always come
    first, alone or not; then keys whose values differ among those anomalies (`code=500` beside
    `code=200`), never the service or instance keys the finding names anyway; at most
    MAX_DISTINGUISHING_LABELS of the latter.
    """
    resources = [k for k in DEFAULT_IDENTITY.resources if anomaly.labels.get(k)]
    resources += sorted(
        k for k, v in anomaly.labels.items() if v and k not in resources and _RESOURCE_KEY.search(k)
    )
    same = [p for p in peers if p.metric == anomaly.metric]
    keys = sorted(
        key
        for key, value in anomaly.labels.items()
        if key not in _NAMED_KEYS
        and key not in resources
        and value
        and any(p.labels.get(key) != value for p in same)
    )
    chosen = [*resources, *keys[:MAX_DISTINGUISHING_LABELS]]
    return tuple(f"{key}={anomaly.labels[key]}" for key in chosen)


def event_phrase(anomaly: MetricAnomaly) -> str | None:
    """What a series' event says, after the series' name: a restart (`tools.digest.restarts`), a
    series that stopped reporting, a move that is over; None for a plain move."""
    unit = " /s" if anomaly.metric.startswith("rate(") else ""
    if anomaly.event == "restart":
        verb = "jumped" if anomaly.direction == "up" else "fell"
        return (
            f"{verb} from {number(anomaly.baseline)} to {number(anomaly.recent)}: "
            f"the process restarted at {anomaly.change_at}"
        )
    if anomaly.event == "silent":
        return f"stopped reporting at {anomaly.change_at} (last value {number(anomaly.recent)})"
    if anomaly.event == "ended":
        verb = "rose" if anomaly.direction == "up" else "fell"
        return (
            f"{verb} from {number(anomaly.baseline)}{unit} to {number(anomaly.peak)}{unit} starting "
            f"{anomaly.change_at} and was back at {number(anomaly.recent)}{unit} by {anomaly.ended_at}: "
            "it recovered"
        )
    return None


def anomaly_finding(anomaly: MetricAnomaly, labels: Sequence[str] = ()) -> Finding:
    """What one series did; `labels` (from `distinguishing_labels`) say which series it is."""
    where = anomaly.labels.get("instance") or anomaly.service or "the series"
    verb = "rose" if anomaly.direction == "up" else "fell"
    series = anomaly.metric + ("{" + ", ".join(labels) + "}" if labels else "")
    if (said := event_phrase(anomaly)) is not None:
        return Finding(statement=f"{series} on {where} {said}.", evidence_ids=[anomaly.evidence_id])
    # Spaced, not glued: the guard reads a number followed by "/" as part of a path, not a value.
    unit = " /s" if anomaly.metric.startswith("rate(") else ""
    return Finding(
        statement=(
            f"{series} on {where} {verb} from {number(anomaly.baseline)}{unit} to "
            f"{number(anomaly.recent)}{unit} (peak {number(anomaly.peak)}{unit}) "
            f"starting {anomaly.change_at}."
        ),
        evidence_ids=[anomaly.evidence_id],
    )


def routine_finding(move: RoutineMove) -> Finding:
    """A move the series made at the same hour days before: its rhythm, cited with both reads."""
    said = anomaly_finding(move.anomaly)
    days = "the day" if move.days_before == 1 else f"{move.days_before} days"
    return Finding(
        statement=(
            f"{said.statement[:-1]}, as it did at the same hour {days} before "
            f"(peak {number(move.earlier_peak)}): its daily rhythm, not an incident."
        ),
        evidence_ids=sorted({move.anomaly.evidence_id, move.earlier_evidence_id}),
    )


def pattern_finding(service: str, pattern: LogPattern) -> Finding:
    level = (pattern.level or "log").upper()
    if pattern.origin:
        return Finding(
            statement=(
                f'{pattern.origin} of {service} failing: "{quote(pattern.example)}" '
                f"(last at {pattern.last_seen})."
            ),
            evidence_ids=[pattern.evidence_id],
        )
    return Finding(
        statement=(
            f'{service} logged {pattern.count} {level} lines like "{quote(pattern.example)}"'
            f"{reason_of(pattern)} from {pattern.first_seen} to {pattern.last_seen}."
        ),
        evidence_ids=[pattern.evidence_id],
    )


def reason_of(pattern: LogPattern) -> str:
    """` (reason OOMKilling)`: the event reason the lines carry, or nothing."""
    return f" (reason {pattern.reason})" if pattern.reason else ""


def recovered_finding(service: str, pattern: LogPattern) -> Finding:
    """Errors that stopped: when they ran, and that none came since."""
    said = pattern_finding(service, pattern)
    return said.model_copy(update={"statement": said.statement[:-1] + " and none since: it recovered."})


def blame_finding(
    downstream: str,
    upstream: str,
    pattern: LogPattern,
    address: str | None = None,
    carriers: Sequence[str] = (),
    *,
    job: str | None = None,
) -> Finding:
    """`downstream`'s errors naming `upstream`; by its `address` (or the scrape `job` of its series)
    alone, the finding also cites the `carriers`, `upstream`'s own evidence at that address or under
    that job, which is what ties the two."""
    named = (
        f"{address}, the address {upstream} is scraped at,"
        if address
        else f"{job}, the job {upstream} is scraped under,"
        if job
        else upstream
    )
    return Finding(
        statement=(
            f"{downstream} errors name {named} as the failing dependency: "
            f'"{quote(pattern.example)}" (first seen {pattern.first_seen}).'
        ),
        evidence_ids=sorted({pattern.evidence_id, *carriers}),
    )


def relay_finding(relay: str, pattern: LogPattern) -> Finding:
    """A caller's errors that fail on the far side of a call, naming no one: the caller's words."""
    return Finding(
        statement=(
            f'{relay} errors fail at its upstream: "{quote(pattern.example)}" '
            f"({pattern.count} lines, first seen {pattern.first_seen})."
        ),
        evidence_ids=[pattern.evidence_id],
    )


def later_finding(later: str, pattern: LogPattern) -> Finding:
    """A system whose trouble of the same kind began after the root's: its own words."""
    return Finding(
        statement=(
            f'{later} shows the same kind of trouble from {pattern.first_seen}: "{quote(pattern.example)}" '
            f"({pattern.count} lines)."
        ),
        evidence_ids=[pattern.evidence_id],
    )


def change_finding(service: str, pattern: LogPattern, quoted_in: LogPattern | None = None) -> Finding:
    """The change shortly before the trouble; one another system recorded (a configuration agent's
    diff of a setting `service`'s errors quote) cites those errors too, which name `service`."""
    if quoted_in is not None and pattern.service and pattern.service != service:
        return Finding(
            statement=f"{pattern.service} changed a setting {service}'s errors quote shortly before the "
            f"trouble began: {change_phrase(pattern)}.",
            evidence_ids=list(dict.fromkeys([pattern.evidence_id, quoted_in.evidence_id])),
        )
    return Finding(
        statement=f"{service} recorded a change shortly before the trouble began: {change_phrase(pattern)}.",
        evidence_ids=[pattern.evidence_id],
    )


def change_phrase(pattern: LogPattern, most: int = MAX_QUOTE) -> str:
    """The change line and when it was written: the pattern's example is its latest line, so its time
    is the pattern's last sighting (a template's first sighting may be an older change of the same
    shape, such as the previous deploy)."""
    line = " ".join(pattern.example.split())
    if len(line) <= most and "`" not in line and _QUOTED_VALUE.search(line):
        # What the change brought is quoted inside it ("Pulling image "registry/app:3.8.0""): the
        # whole line is quoted with backticks, its own quotes and all.
        return f"`{line}` at {pattern.last_seen}"
    return f'"{quote(pattern.example, most)}" at {pattern.last_seen}'


def sql_finding(summary: SqlSummary) -> Finding:
    # Categorical facts ("state=x (40 of 50 rows)") summarise every row: they come first.
    ranked = sorted(summary.highlights, key=lambda h: " of " not in h)
    facts = "; ".join(ranked[:4])
    return Finding(
        statement=f"Datasource {summary.datasource} shows: {facts}.",
        evidence_ids=[summary.evidence_id],
    )


def case_finding(service: str, clue: CaseClue) -> Finding:
    return Finding(
        statement=f"A similar past case also pointed at {service} (a clue, not proof).",
        evidence_ids=[clue.evidence_id],
    )
