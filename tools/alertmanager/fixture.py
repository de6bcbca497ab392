"""Serve a world's alerts through AlertsSource: the firing alerts active at the world's `now`."""

from __future__ import annotations

from datetime import datetime

from tools.base import Alert, SourceHealth
from tools.world import World


class AlertmanagerFixture:
    """The world's alerts as Alertmanager (or Prometheus's alerts API) would list them at `now`."""

    def __init__(self, world: World) -> None:
        self._world = world

    async def health(self) -> SourceHealth:
        return SourceHealth(ok=True)

    async def now(self) -> datetime:
        return self._world.now

    async def active_alerts(self, *, limit: int) -> list[Alert]:
        """Every active instance, in file order; nothing is de-duplicated."""
        now = self._world.now
        active = [alert for alert in self._world.alerts if alert.active_at(now)]
        return [
            Alert(
                labels=dict(alert.labels),
                annotations=dict(alert.annotations),
                starts_at=alert.starts_at,
                ends_at=alert.ends_at,
                status="firing",
                silenced=alert.silenced,
                inhibited=alert.inhibited,
                silence_comment=alert.silence_comment,
                silenced_until=alert.silenced_until,
            )
            for alert in active[:limit]
        ]
