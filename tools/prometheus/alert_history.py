"""`alert_history`: when each alert fired and resolved over a window, read from Prometheus' `ALERTS`.

Neither Alertmanager nor Prometheus' alerts API lists an alert that has resolved; the `ALERTS` series
every rule evaluation writes is its only history. Each series becomes one alert's episodes (a run of
points; a pause longer than two steps ends one), so an answer can say "X fired at 10:40 and resolved at
10:52" and tell a flapping rule (many short episodes) from a standing one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from tools.base import EvidenceSource, MetricsSource, Series
from tools.toolbox.args import Name, ToolArgs, Window
from tools.toolbox.spec import Answer, ToolContext, ToolSpec, iso, require, window_query

_SELECTOR = 'ALERTS{alertstate="firing"}'
_SUMMARY_ITEMS = 6
HISTORY_MINUTES = 180


class AlertHistoryArgs(ToolArgs):
    alertname: Name | None = Field(default=None, description="only this alert")
    about: Name | None = Field(default=None, description="only alerts with this label value (a system, host)")
    window_minutes: Window | None = None


async def alert_history(ctx: ToolContext, args: AlertHistoryArgs) -> Answer:
    source: MetricsSource = require(ctx.sources.metrics, "metrics")
    # Hours, not the diagnosis window: whether an alert flaps, or what resolved before the question.
    window = ctx.window(args.window_minutes or min(HISTORY_MINUTES, ctx.limits.max_range_minutes))
    step_s = ctx.step_for(window, None)
    promql = _SELECTOR if args.alertname is None else _SELECTOR[:-1] + f', alertname="{args.alertname}"}}'
    limit = ctx.limits.max_alerts
    series = await source.query_range(promql=promql, window=window, step_s=step_s, max_series=limit + 1)
    now = window.end.timestamp()
    items = [_item(s, step_s, now) for s in series[:limit] if s.samples and _about(s, args.about)]
    resolved = [i for i in items if not i["firing_now"]]
    shown = "; ".join(_line(i) for i in (resolved or items)[:_SUMMARY_ITEMS])
    return Answer(
        title="Alert history",
        summary=f"{len(items)} alerts fired in the window, {len(resolved)} since resolved; {shown}",
        data={"history": items},
        query={"promql": promql, "about": args.about, "step_seconds": step_s, **window_query(window)},
        empty=not items,
        truncated=len(series) > limit,
    )


def _item(series: Series, step_s: int, now: float) -> dict[str, Any]:
    episodes = _episodes([t for t, _ in series.samples], step_s)
    firing_now = now - episodes[-1][1] <= 2 * step_s
    labels = {k: v for k, v in series.labels.items() if k != "alertstate"}
    return {
        "labels": labels,
        "firing_now": firing_now,
        "episodes": [
            {"startsAt": _iso(start), "endsAt": None if firing_now and i == len(episodes) - 1 else _iso(end)}
            for i, (start, end) in enumerate(episodes)
        ],
    }


def _about(series: Series, name: str | None) -> bool:
    """Whether an alert's labels name `name` (any value but its name and state; an instance by its
    host too)."""
    if name is None:
        return True
    values = {v for k, v in series.labels.items() if k not in ("alertname", "alertstate")}
    return name in values or name in {v.rsplit(":", 1)[0] for v in values}


def _episodes(stamps: Sequence[float], step_s: int) -> list[tuple[float, float]]:
    """Runs of points: (first point, last point + one step), a pause over two steps ending a run."""
    runs: list[tuple[float, float]] = []
    start = previous = stamps[0]
    for stamp in stamps[1:]:
        if stamp - previous > 2 * step_s:
            runs.append((start, previous + step_s))
            start = stamp
        previous = stamp
    runs.append((start, previous + step_s))
    return runs


def _iso(seconds: float) -> str | None:
    return iso(datetime.fromtimestamp(seconds, tz=UTC))


def _line(item: dict[str, Any]) -> str:
    name = item["labels"].get("alertname", "?")
    episodes = item["episodes"]
    last = episodes[-1]
    state = "firing now" if item["firing_now"] else f"resolved at {last['endsAt']}"
    times = "once" if len(episodes) == 1 else f"{len(episodes)} times"
    return f"{name} fired {times} from {episodes[0]['startsAt']} ({state})"


TOOLS = (
    ToolSpec(
        "alert_history",
        EvidenceSource.METRICS,
        AlertHistoryArgs,
        "When each alert fired and resolved in the window (Prometheus' ALERTS series): resolved and "
        "flapping alerts that the active-alert list no longer shows.",
        alert_history,
        lane="signals",
    ),
)
