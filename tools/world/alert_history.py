"""The `ALERTS` series Prometheus would have recorded for a world's alerts.

Prometheus writes `ALERTS{alertname=..., alertstate="firing", <labels>} 1` at every rule evaluation
while an alert fires, and a staleness marker when it resolves: that series is the only history of an
alert that has since resolved (neither API lists it any more). A world that carries no `ALERTS`
series of an alert gets them here, from the alert's `startsAt` to its `endsAt` (or `now` while it is
active), one sample per evaluation interval, so the fixture serves the history a real Prometheus would.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tools.world.models import WorldAlert, WorldSeries

ALERTS_METRIC = "ALERTS"
EVALUATION_INTERVAL_S = 60.0
# A week of one-minute evaluations: more than any query's window (a day), so the newest are kept.
MAX_SAMPLES_PER_ALERT = 10_080


def alert_series(
    alerts: Sequence[WorldAlert], series: Sequence[WorldSeries], now: datetime, *, max_series: int
) -> tuple[WorldSeries, ...]:
    """One firing series per alert that has a start and no recorded `ALERTS` history of its name, at
    most `max_series` of them, each its newest MAX_SAMPLES_PER_ALERT evaluations."""
    recorded = {s.labels.get("alertname") for s in series if s.metric == ALERTS_METRIC}
    found: list[WorldSeries] = []
    for alert in alerts:
        if len(found) >= max_series:
            break
        if alert.starts_at is None or alert.labels["alertname"] in recorded:
            continue
        end = alert.ends_at if alert.ends_at is not None and alert.ends_at < now else None
        if end is None and not alert.active_at(now):
            continue  # resolved without an end: when it stopped is unknown, so is its history
        start, stop = alert.starts_at.timestamp(), (end or now).timestamp()
        count = int((stop - start) // EVALUATION_INTERVAL_S) + 1
        if count <= 0 or start > now.timestamp():
            continue
        first = max(0, count - MAX_SAMPLES_PER_ALERT)
        samples = [(start + i * EVALUATION_INTERVAL_S, 1.0) for i in range(first, count)]
        labels = {**alert.labels, "alertstate": "firing"}
        found.append(WorldSeries(metric=ALERTS_METRIC, labels=labels, samples=samples))
    return tuple(found)
