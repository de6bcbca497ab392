"""`inspect_database` results as digest facts: the records an SRE's sentence is made of, bounded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tools.facts import DatabaseState

MAX_HOLDERS = 3
MAX_BLOCKERS = 3
MAX_TRANSACTIONS = 3
MAX_RELATIONS = 3
_HOLDER_KEYS = ("application", "sessions", "states")
_BLOCKER_KEYS = (
    "pid", "application", "state", "state_age_s", "xact_age_s", "database", "query", "waiting_total",
    "waiting_applications",
)  # fmt: skip
_TRANSACTION_KEYS = ("pid", "application", "state", "xact_age_s", "query")


def state_from(evidence_id: str, data: Mapping[str, Any]) -> DatabaseState:
    sections: Mapping[str, Any] = data.get("introspection") or {}
    sessions = _section(sections, "sessions")
    blocking = _section(sections, "blocking")
    return DatabaseState(
        evidence_id=evidence_id,
        datasource=str(data.get("datasource") or ""),
        dialect=str(data.get("dialect") or ""),
        max_connections=_int(sessions.get("max_connections")),
        total_sessions=_int(sessions.get("total")),
        holders=_kept(sessions.get("by_application"), _HOLDER_KEYS, MAX_HOLDERS),
        blockers=_kept(
            [b for b in blocking.get("blockers") or [] if isinstance(b, Mapping) and b.get("head_of_chain")],
            _BLOCKER_KEYS,
            MAX_BLOCKERS,
        ),
        transactions=_kept(
            _section(sections, "transactions").get("open"), _TRANSACTION_KEYS, MAX_TRANSACTIONS
        ),
        lock_waits=_kept(
            _section(sections, "lock_waits").get("relations"), ("relation", "waiting_sessions"), MAX_RELATIONS
        ),
        unavailable={
            str(name): str(section.get("reason") or "")[:200]
            for name, section in sections.items()
            if isinstance(section, Mapping) and section.get("available") is False
        },
    )


def _section(sections: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    section = sections.get(name)
    return section if isinstance(section, Mapping) and section.get("available") is not False else {}


def _kept(records: Any, keys: tuple[str, ...], most: int) -> list[dict[str, object]]:
    kept = [r for r in records or [] if isinstance(r, Mapping)][:most]
    return [{key: record.get(key) for key in keys if key in record} for record in kept]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
