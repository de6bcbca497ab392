"""Links between the systems of one incident that no line names outright: a caller failing at its
upstream the way another system fails, the same kind of trouble first in one system then in another,
and signals that began before others' errors (cause before effect)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from graph.analysts.rules.categories import categorize
from graph.analysts.rules.category_cues import GENERIC_CATEGORIES, UNKNOWN_CATEGORY
from graph.analysts.rules.machines import machine_of
from graph.analysts.rules.members import software_host
from graph.analysts.rules.suspect import CLUSTER_SPAN, MIN_PATTERN_COUNT, Suspect, instant, troubling
from graph.analysts.rules.vocabulary import WAITING_ON_LOCK, readable
from tools.facts import LogPattern

# An error that says the failure is on the far side of a call (a proxy's upstream, a peer, a backend,
# the database or broker a client talks to).
_RELAYED = re.compile(
    r"\b(?:upstream|backend|peer|remote|dependency|downstream|database|sql\w*|jdbc|broker|"
    r"(?:connecting|handshak\w*|proxying|calling) to)\b",
    re.IGNORECASE,
)
# A call to a database failing, in a client's or driver's words; a system speaking of itself as one.
# A client's words for its database calls, its drivers' names among them (`pgx: query ...`, `pq: ...`).
_DATABASE_CALL = re.compile(
    r"\b(?:database|\w*sql\w*|jdbc|r2dbc|db\w*command|dbcontext|pgx|pq|psycopg\w*|asyncpg|"
    # A JVM's pool of database connections and its persistence layer ("HikariPool-1 - Connection is not
    # available", "Could not open JPA EntityManager for transaction").
    r"hikari\w*|jpa|entitymanager\w*)\b",
    re.IGNORECASE,
)
# A database's own words: its product in a metric or a stream's name (a server daemon's trailing `d`).
_DATABASE_SELF = re.compile(r"\b(?:\w*sql\w?|database|db|pg)\b")


def link_relayed(involved: Sequence[Suspect]) -> None:
    """A system whose errors say the failure is on the far side of a call ("certificate verify
    failed while handshaking to upstream 10.1.9.20") relays trouble: a system in the incident
    whose own signals (alerts, moving series, its own errors that blame no one) name the same
    failure mode (its certificate expired) is the far side, even when the errors only give an
    address."""
    # The far sides: systems with signals of their own that are not callers themselves, each with
    # the failure mode its own words name (read once, not once per caller).
    modes = {
        s.service: categorize(own_words(s), changed=False)
        for s in involved
        if (s.alerts or s.anomalies) and not relays(s)
    }
    # Systems whose own lines say they ran out, with when they began to (read once).
    ran_out = [(s, first) for s in involved if _ran_out(s) and (first := _first_line(s.errors)) is not None]
    for relay in involved:
        patterns = _incident_patterns(relay)
        if relay.blames or not patterns:
            continue
        # Its lines together: one says whom it called ("SQL Error: 1205"), another what failed there
        # ("chosen as the deadlock victim").
        text = " ".join(f"{p.template} {p.example}" for p in patterns)
        mode = categorize(text, changed=False)
        if _RELAYED.search(text) and mode in _WAITING:
            _link_exhausted_far_side(relay, patterns, ran_out)
        if mode in GENERIC_CATEGORIES:
            continue
        if not _RELAYED.search(text):
            # No word for a far side, but a failure its own alerts and series do not show (a client's
            # "disk usage exceeded flood-stage watermark" rejections): the one system whose own signals
            # say it.
            _link_quoted_failure(
                relay, mode, [s for s in involved if modes.get(s.service) == mode], patterns[0]
            )
            continue
        for source in involved:
            if source is not relay and modes.get(source.service) == mode:
                source.relayed_by.setdefault(relay.service, patterns[0])
                relay.blames.add(source.service)


def said_first_by(others: Sequence[Suspect], involved: Sequence[Suspect]) -> list[Suspect]:
    """Systems outside the incident's window whose own alerts or series say, since before, the failure
    an incident's caller quotes with no word for whom it called (a search cluster alerting "disk out
    of space" an hour before its clients' rejections): its far side, however early."""
    quoted: list[tuple[str, datetime]] = []
    for caller in involved:
        patterns = _incident_patterns(caller)
        text = " ".join(f"{p.template} {p.example}" for p in patterns)
        mode = categorize(text, changed=False) if patterns else UNKNOWN_CATEGORY
        began = _first_line(patterns)
        if (
            mode in GENERIC_CATEGORIES
            or began is None
            or _RELAYED.search(text)
            or mode in _signal_modes(caller)
        ):
            continue
        quoted.append((mode, began))
    return [
        other
        for other in others
        if (said := signals_began(other)) is not None
        and any(mode in _signal_modes(other) and said <= began for mode, began in quoted)
    ]


def _own_signals(suspect: Suspect) -> list[tuple[str | None, str]]:
    """When each of a system's alerts and moving series began, and what it says."""
    said = [(g.first_started, f"{g.alertname} {g.summary}") for g in suspect.alerts]
    return said + [(a.change_at, a.metric) for a in suspect.anomalies if troubling(a)]


def _signal_modes(suspect: Suspect) -> set[str]:
    """The failure each of a system's own alerts and moving series speaks of."""
    return {categorize(text, changed=False) for _, text in _own_signals(suspect)}


def _link_quoted_failure(relay: Suspect, mode: str, saying: Sequence[Suspect], pattern: LogPattern) -> None:
    """`relay`'s errors name a failure (`mode`) with no word for whom it called: the one other system
    `saying` it in its own signals is where it happened, unless `relay`'s own alerts or series say it."""
    if mode in _signal_modes(relay):
        return  # its own trouble: its own alerts or series say so too
    # Cause before effect: its own signals began by the time the quoted errors did.
    began = _first_line([pattern])
    far = [
        s
        for s in saying
        if s is not relay
        and not s.service.startswith(f"{relay.service}-")  # its own pod or member: itself
        and began is not None
        and (said := signals_began(s)) is not None
        and said <= began
    ]
    if len(far) == 1:
        far[0].relayed_by.setdefault(relay.service, pattern)
        relay.blames.add(far[0].service)


def quoted_onset(suspect: Suspect, involved: Sequence[Suspect]) -> datetime | None:
    """When a system whose failure its callers relay first said so itself: the earliest of its alerts
    and moving series of that failure's kind, before its callers' trouble (a search cluster's
    "disk out of space" alert an hour before its clients' rejections), else None."""
    callers = [s.onset for s in involved if s.service in suspect.relayed_by and s.onset is not None]
    if not callers or suspect.onset is None:
        return None
    kinds = {categorize(f"{p.template} {p.example}", changed=False) for p in suspect.relayed_by.values()}
    began = [
        t
        for moment, text in _own_signals(suspect)
        if (t := instant(moment)) is not None
        and t < min(suspect.onset, *callers)
        and categorize(text, changed=False) in kinds - GENERIC_CATEGORIES
    ]
    return min(began, default=None)


# A caller that only says its far side was slow or failed ("upstream timed out"): which side is
# left to the far side's own words.
_WAITING = frozenset({"slow_dependency", "latency"})
# How long before the caller's first timeout the far side may have run out and still be what it waits on.
_RAN_OUT_LEAD = timedelta(minutes=10)
# Own words of a far side that ran out of something (workers, parts, connections, memory, space).
_RAN_OUT_MODES = frozenset({"saturation", "connection_pool_exhaustion", "memory_leak", "disk_full"})


def _link_exhausted_far_side(
    relay: Suspect, patterns: Sequence[LogPattern], ran_out: Sequence[tuple[Suspect, datetime]]
) -> None:
    """A caller timing out at its upstream ("upstream timed out ... upstream: fastcgi://10.44.2.21")
    waits on the one system in the incident whose own lines said it ran out (a process manager at
    its worker cap) shortly before the caller's errors began."""
    calls = [p for p in patterns if _RELAYED.search(f"{p.template} {p.example}")]
    began = _first_line(calls)
    if began is None:
        return
    exhausted = [s for s, first in ran_out if s is not relay and began - _RAN_OUT_LEAD <= first <= began]
    if len(exhausted) == 1:
        exhausted[0].relayed_by.setdefault(relay.service, calls[0])
        relay.blames.add(exhausted[0].service)


def _first_line(patterns: Sequence[LogPattern]) -> datetime | None:
    return min((t for p in patterns if (t := instant(p.first_seen)) is not None), default=None)


def _ran_out(suspect: Suspect) -> bool:
    said = " ".join(f"{p.template} {p.example}" for p in suspect.errors)
    return bool(said) and not relays(suspect) and categorize(said, changed=False) in _RAN_OUT_MODES


def link_database_callers(involved: Sequence[Suspect]) -> None:
    """A caller whose errors say its database calls failed, naming no database ("Failed executing
    DbCommand", "SQLTimeoutException"), waits on the one database in the incident: the system whose
    own signals speak of a database (`azure_sql_dtu_consumption_percent`, `pg_` series)
    and began before the caller's errors did."""
    # A machine known by its host telemetry speaks of a database by its name too (`pg-tally-01`), a
    # server whose lock queue is its only signal by its own name (`ledger-pg`), and a machine's lines
    # by the server that wrote them (a database daemon's stream from the machine's host).
    waiting = {s.service for s in involved if _lock_waits(s)}
    databases = [
        s
        for s in involved
        if (s.alerts or s.anomalies or s.service in waiting)
        and not relays(s)
        and _DATABASE_SELF.search(
            readable(f"{own_words(s)} {software_host(s) or ''} {s.service if s.service in waiting else ''} ")
            + " ".join(sorted({p.service.lower() for p in s.errors if p.service and p.service != s.service}))
        )
    ]
    for caller in involved:
        patterns = [
            p for p in _incident_patterns(caller) if _DATABASE_CALL.search(f"{p.template} {p.example}")
        ]
        surge = surge_of(caller)
        if caller.blames or not patterns or surge is None:
            continue
        # A database whose own series or lines name the caller (`user=plotwise` for `plotwise-api`)
        # is the one it calls, whatever else runs hot at the time; its minutely series may begin a
        # step after the caller's first failed call.
        serving = [s for s in databases if s is not caller and _names_client(s, caller.service)]
        waited = [
            s
            for s in serving or databases
            if s is not caller
            and (began := signals_began(s)) is not None
            and began <= surge + (_CLIENT_STEP if serving else timedelta(0))
        ]
        if len(waited) == 1:
            waited[0].relayed_by.setdefault(caller.service, patterns[0])
            caller.blames.add(waited[0].service)


_CLIENT_STEP = timedelta(minutes=2)


def _names_client(database: Suspect, caller: str) -> bool:
    """Whether a database's own labels or lines name the caller, or its family (`plotwise` of
    `plotwise-api`), as a word."""
    family = caller.split("-", 1)[0]
    names = {caller.lower(), family.lower()} if len(family) >= 4 else {caller.lower()}
    said = [v for labels in database.label_sets() for v in labels.values()]
    said += [f"{p.template} {p.example}" for p in database.errors]
    text = " ".join(said).lower()
    return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in names)


def link_same_kind(involved: Sequence[Suspect]) -> None:
    """Trouble of the same specific kind in two systems, one after the other, with nothing else
    linking them: the first is upstream of the second (the kernel's NVMe I/O errors at 09:56, then
    an app's slow fsyncs at 09:57). Generic kinds (latency, error rates) say nothing about a link."""
    kinds = {s.service: categorize(own_words(s), changed=False) for s in involved}
    for later in involved:
        patterns = _incident_patterns(later)
        kind = kinds[later.service]
        if later.blames or later.onset is None or not patterns or kind in GENERIC_CATEGORIES:
            continue
        for first in involved:
            if (
                first is not later
                and first.onset is not None
                and first.onset < later.onset
                and kinds[first.service] == kind
                and later.service not in first.blames
            ):
                first.followed_by.setdefault(later.service, patterns[0])
                later.blames.add(first.service)


def _incident_patterns(suspect: Suspect) -> list[LogPattern]:
    """A system's error patterns frequent enough to count, the most frequent first."""
    return sorted((p for p in suspect.errors if p.count >= MIN_PATTERN_COUNT), key=lambda p: -p.count)


def own_words(suspect: Suspect) -> str:
    """What a system's alerts, moving series and own errors say about it, in their own words."""
    words = [text for _, text in _own_signals(suspect)]
    words += [f"{p.template} {p.example}" for p in suspect.errors if p.count >= MIN_PATTERN_COUNT]
    return " ".join(words)


def relays(suspect: Suspect) -> bool:
    """Whether a system's own errors fail on the far side of a call (then it is a caller too). A
    path's words (`/providers/Microsoft.Sql/servers/x`) say where a resource is, not whom it called;
    a server's wait on its own locks ("... of database 16384") calls no one."""
    return any(
        _RELAYED.search(_PATH.sub(" ", f"{p.template} {p.example}"))
        for p in suspect.errors
        if p.count >= MIN_PATTERN_COUNT and not WAITING_ON_LOCK.search(p.example)
    )


_PATH = re.compile(r"\S*/\S*")


def causally_linked(involved: Sequence[Suspect]) -> set[str]:
    names = {s.service for s in involved}
    linked: set[str] = set()
    for suspect in involved:
        related = (pointed_at_by(suspect) | suspect.blames) & names
        if related or suspect.errors or suspect.changes or suspect.held_by_sql:
            linked.add(suspect.service)
            linked |= related
    return linked


def pointed_at_by(suspect: Suspect) -> set[str]:
    """Systems whose errors point to `suspect`: by name, by relaying its failure, or by following it."""
    return set(suspect.blamed_by) | set(suspect.relayed_by) | set(suspect.followed_by)


def link_precursors(involved: Sequence[Suspect]) -> set[str]:
    """Cause before effect: a service whose troubling signals began before another's errors, within
    CLUSTER_SPAN, may explain them even when no error names it (a database whose connections filled,
    a replica that fell behind). Both are linked; the earlier onset then ranks it first."""
    linked: set[str] = set()
    hurt = [(s, surge_of(s)) for s in involved if any(p.count >= MIN_PATTERN_COUNT for p in s.errors)]
    for cause in involved:
        began = signals_began(cause)
        for effect, surge in hurt:
            if effect is cause or began is None or surge is None or effect.service in cause.blames:
                continue
            if surge - CLUSTER_SPAN <= began < surge:
                cause.precedes.add(effect.service)
                linked |= {cause.service, effect.service}
    return linked


def surge_of(suspect: Suspect) -> datetime | None:
    """When the suspect's main symptom began: its most frequent error pattern's first line."""
    top = max(suspect.errors, key=lambda p: p.count, default=None)
    return instant(top.first_seen) if top is not None else None


def signals_began(suspect: Suspect) -> datetime | None:
    """When the suspect's own telemetry (troubling metrics, alerts, change or event lines) began to
    show trouble."""
    times = [instant(a.change_at) for a in suspect.anomalies if troubling(a)]
    times += [instant(g.first_started) for g in suspect.alerts]
    times += [instant(p.first_seen) for p in suspect.changes]
    times += [instant(p.first_seen) for p in _lock_waits(suspect)]
    found = sorted(t for t in times if t is not None)
    return found[0] if found else None


def _lock_waits(suspect: Suspect) -> list[LogPattern]:
    """A server's own lines saying its work waits on a lock: only the server holding the locks says
    so, so they are its trouble as an alert would be, whatever level they are logged at."""
    return [p for p in suspect.errors if WAITING_ON_LOCK.search(p.example)]


def link_same_machine(alerted: Suspect, others: Sequence[Suspect]) -> None:
    """A system known only by its alerts on one machine, and other systems' errors of the same
    specific kind logged on that machine after the alert began (an inode alert on a CI runner, then
    its job runner's "no space left on device"): they suffer what the alert says, so it is upstream
    of them, as `link_same_kind` links systems in one incident window."""
    machines = {host for g in alerted.alerts if (host := machine_of(g.labels))}
    began = min((t for g in alerted.alerts if (t := instant(g.first_started)) is not None), default=None)
    kind = categorize(own_words(alerted), changed=False)
    if len(machines) != 1 or began is None or kind in GENERIC_CATEGORIES:
        return
    for other in others:
        here = [p for p in _incident_patterns(other) if p.host in machines]
        first = _first_line(here)
        if other is alerted or first is None or first < began:
            continue
        if categorize(" ".join(f"{p.template} {p.example}" for p in here), changed=False) == kind:
            alerted.followed_by.setdefault(other.service, here[0])
            other.blames.add(alerted.service)
