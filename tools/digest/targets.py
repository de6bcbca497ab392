"""Scrape targets that are not up, as digest facts: Prometheus' own last scrape error is the
evidence's words for why a system's telemetry stopped ("dial tcp ...: connect: connection refused").

A target's health is a fact of its own, independent of how much history its `up` series has: a
Prometheus started a minute ago, or a target down for one scrape step, shows no move in `up` yet,
while the target list already says it is down and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tools.digest.labels import clip, instance_of, iso_utc, parse_instant, service_of
from tools.digest.limits import DigestLimits
from tools.facts import LogPattern

_ERROR = "error"
SCRAPE = "scrape"  # LogPattern.origin of a failed scrape


def patterns_from_targets(
    evidence_id: str, data: Mapping[str, Any], *, now: datetime, limits: DigestLimits
) -> list[LogPattern]:
    """One error pattern per target that is not up and says why, in Prometheus' words."""
    found: list[LogPattern] = []
    for raw in data.get("targets") or []:
        if not isinstance(raw, Mapping) or raw.get("health") == "up":
            continue
        error = str(raw.get("last_error") or "").strip()
        if not error:
            continue  # a target not scraped yet ("unknown") says nothing
        labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
        scraped = parse_instant(raw.get("last_scrape"))
        seen = iso_utc(scraped if scraped is not None and scraped <= now else now)
        text = clip(error, limits.example_chars)
        found.append(
            LogPattern(
                evidence_id=evidence_id,
                service=service_of(labels, limits.identity),
                level=_ERROR,
                template=text,
                count=1,
                first_seen=seen,
                last_seen=seen,
                example=text,
                host=instance_of(labels),
                origin=SCRAPE,
            )
        )
    return found[: limits.max_patterns_per_evidence]
