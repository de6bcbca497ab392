"""Alertmanager's v2 API as an AlertsSource (I/O and parsing only): `/api/v2/alerts?active=true`."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from tools.base import Alert, SourceError
from tools.prometheus.http_api import HttpSource

# Alertmanager's alert states; an active or silenced/inhibited ("suppressed") alert is firing.
_STATUS_BY_STATE = {"active": "firing", "suppressed": "firing", "unprocessed": "pending"}


class _AlertState(BaseModel):
    state: str


class _GettableAlert(BaseModel):
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: datetime | None = Field(default=None, alias="startsAt")
    ends_at: datetime | None = Field(default=None, alias="endsAt")
    status: _AlertState


_ALERTS = TypeAdapter(list[_GettableAlert])


class AlertmanagerClient(HttpSource):
    """An Alertmanager: every active alert instance, as it received them."""

    backend = "Alertmanager"

    async def active_alerts(self, *, limit: int) -> list[Alert]:
        raw = await self._api.get_json("/api/v2/alerts", [("active", "true")])
        try:
            alerts = _ALERTS.validate_python(raw)
        except ValidationError as error:
            raise SourceError("Alertmanager returned an unexpected response") from error
        return [
            Alert(
                labels=alert.labels,
                annotations=alert.annotations,
                starts_at=_utc(alert.starts_at),
                ends_at=_utc(alert.ends_at),
                status=_STATUS_BY_STATE.get(alert.status.state, "firing"),
            )
            for alert in alerts[:limit]
        ]


def _utc(value: datetime | None) -> datetime | None:
    if value is None or value.year <= 1:  # Go's zero time means "unset"
        return None
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
