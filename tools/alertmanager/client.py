"""Alertmanager's v2 API as an AlertsSource (I/O and parsing only): `/api/v2/alerts?active=true`."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from tools.base import Alert, SourceError, SourceHealth
from tools.prometheus.http_api import DEFAULT_MAX_BYTES, HttpApi

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


class AlertmanagerClient:
    """An Alertmanager: every active alert instance, as it received them."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        timeout_s: float = 10.0,
    ) -> None:
        self._api = HttpApi(client, base_url, "Alertmanager", max_bytes, timeout_s)

    async def health(self) -> SourceHealth:
        return await self._api.probe("/-/ready")

    async def now(self) -> datetime:
        return datetime.now(UTC)

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
