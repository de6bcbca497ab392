"""The introspection rows shaped the way an SRE reads them: who holds how many connections in which
state, who blocks whom (the whole chain behind each blocker), and queries as fingerprints only.

Raw query text never leaves this module: every query column becomes its fingerprint (literals masked).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from tools.sql.fingerprint import fingerprint
from tools.sql.introspect_rows import Section

MAX_BLOCKERS = 10
MAX_APPLICATIONS = 10
_QUERY_KEYS = ("query", "blocking_query")


def shaped(aspect: str, section: Section) -> Section:
    """One aspect's section as reported; sections the server could not answer pass unchanged."""
    if section.get("available") is False:
        return section
    section = _fingerprinted(section)
    if aspect == "sessions":
        return _sessions(section)
    if aspect == "blocking":
        return _blocking(section.get("pairs") or [])
    return section


def _fingerprinted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            key: _fingerprinted(inner) if key not in _QUERY_KEYS or inner is None else fingerprint(str(inner))
            for key, inner in value.items()
        }
    if isinstance(value, list):
        return [_fingerprinted(inner) for inner in value]
    return value


def _sessions(section: Section) -> Section:
    groups: Sequence[Mapping[str, Any]] = section.get("groups") or []
    by_state: Counter[str] = Counter()
    by_app: dict[str, Counter[str]] = defaultdict(Counter)
    users: dict[str, set[str]] = defaultdict(set)
    clients: dict[str, set[str]] = defaultdict(set)
    for group in groups:
        count = int(group.get("sessions") or 0)
        state, app = str(group.get("state")), str(group.get("application"))
        by_state[state] += count
        by_app[app][state] += count
        users[app].add(str(group.get("user_name")))
        clients[app].add(str(group.get("client")))
    applications = sorted(by_app.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    limit, total = section.get("max_connections"), int(section.get("total") or 0)
    return {
        "max_connections": limit,
        "total": total,
        "used_percent": round(100 * total / limit, 1) if isinstance(limit, int) and limit else None,
        "by_state": dict(by_state.most_common()),
        "by_application": [
            {
                "application": app,
                "sessions": sum(states.values()),
                "states": dict(states.most_common()),
                "users": sorted(users[app])[:5],
                "clients": sorted(clients[app])[:5],
            }
            for app, states in applications[:MAX_APPLICATIONS]
        ],
        "groups": list(groups),
    }


def _blocking(pairs: Sequence[Mapping[str, Any]]) -> Section:
    """Blockers from (waiter, blocker) pairs: the ones waiting on nobody (the heads of the chains) first,
    each with every session queued behind it, directly or through another waiter."""
    blocked_by: dict[Any, set[Any]] = defaultdict(set)
    holders: dict[Any, Mapping[str, Any]] = {}
    waiters: dict[Any, Mapping[str, Any]] = {}
    for pair in pairs:
        blocked_by[pair["blocking_pid"]].add(pair["waiting_pid"])
        holders.setdefault(pair["blocking_pid"], pair)
        waiters.setdefault(pair["waiting_pid"], pair)
    blockers = []
    for pid, pair in holders.items():
        behind = _behind(pid, blocked_by)
        apps = Counter(str(waiters[w]["waiting_application"]) for w in behind)
        blockers.append(
            {
                "pid": pid,
                "application": pair["blocking_application"],
                "user": pair.get("blocking_user"),
                "client": pair.get("blocking_client"),
                "database": pair.get("database"),
                "state": pair["blocking_state"],
                "xact_age_s": pair.get("blocking_xact_age_s"),
                "state_age_s": pair.get("blocking_state_s"),
                "query": pair.get("blocking_query") or "",
                "head_of_chain": pid not in waiters,
                "waiting_direct": len(blocked_by[pid]),
                "waiting_total": len(behind),
                "waiting_applications": dict(apps.most_common(MAX_APPLICATIONS)),
                "longest_wait_s": max((waiters[w].get("waiting_s") or 0 for w in behind), default=0),
            }
        )
    blockers.sort(key=lambda b: (not b["head_of_chain"], -b["waiting_total"], str(b["pid"])))
    return {"waiting_sessions": len(waiters), "blockers": blockers[:MAX_BLOCKERS]}


def _behind(pid: Any, blocked_by: Mapping[Any, set[Any]]) -> set[Any]:
    """Every session waiting on `pid`, directly or through others (cycles, deadlocks, end the walk)."""
    seen: set[Any] = set()
    frontier = list(blocked_by.get(pid, ()))
    while frontier:
        current = frontier.pop()
        if current in seen or current == pid:
            continue
        seen.add(current)
        frontier.extend(blocked_by.get(current, ()))
    return seen
