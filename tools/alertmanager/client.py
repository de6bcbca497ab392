"""Alertmanager's v2 API as an AlertsSource (I/O and parsing only).

`/api/v2/alerts` lists every active alert, silenced and inhibited ones included (`status.state`
"suppressed", `silencedBy`, `inhibitedBy`); a silenced alert's silence (comment, end) comes from
`/api/v2/silences`, read only when some alert is silenced.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from tools.base import Alert, SourceError
from tools.prometheus.http_api import HttpSource

# Alertmanager's alert states; an active or silenced/inhibited ("suppressed") alert is firing.
_STATUS_BY_STATE = {"active": "firing", "suppressed": "firing", "unprocessed": "pending"}


class _AlertState(BaseModel):
    state: str
    silenced_by: list[str] = Field(default_factory=list, alias="silencedBy")
    inhibited_by: list[str] = Field(default_factory=list, alias="inhibitedBy")


class _Silence(BaseModel):
    id: str
    comment: str = ""
    ends_at: datetime | None = Field(default=None, alias="endsAt")


class _GettableAlert(BaseModel):
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: datetime | None = Field(default=None, alias="startsAt")
    ends_at: datetime | None = Field(default=None, alias="endsAt")
    status: _AlertState


_ALERTS = TypeAdapter(list[_GettableAlert])
_SILENCES = TypeAdapter(list[_Silence])
# A silence comment is an operator's free text: kept short in evidence.
_COMMENT_CHARS = 300


class AlertmanagerClient(HttpSource):
    """An Alertmanager: every active alert instance, as it received them."""

    backend = "Alertmanager"

    async def active_alerts(self, *, limit: int) -> list[Alert]:
        raw = await self._api.get_json("/api/v2/alerts", [("active", "true")])
        try:
            alerts = _ALERTS.validate_python(raw)
        except ValidationError as error:
            raise SourceError("Alertmanager returned an unexpected response") from error
        alerts = alerts[:limit]
        silences = await self._silences() if any(a.status.silenced_by for a in alerts) else {}
        out: list[Alert] = []
        for alert in alerts:
            silence = next((silences[i] for i in alert.status.silenced_by if i in silences), None)
            out.append(
                Alert(
                    labels=alert.labels,
                    annotations=alert.annotations,
                    starts_at=_utc(alert.starts_at),
                    ends_at=_utc(alert.ends_at),
                    status=_STATUS_BY_STATE.get(alert.status.state, "firing"),
                    silenced=bool(alert.status.silenced_by),
                    inhibited=bool(alert.status.inhibited_by),
                    silence_comment=silence.comment[:_COMMENT_CHARS] if silence else None,
                    silenced_until=_utc(silence.ends_at) if silence else None,
                )
            )
        return out

    async def _silences(self) -> dict[str, _Silence]:
        raw = await self._api.get_json("/api/v2/silences", [])
        try:
            return {s.id: s for s in _SILENCES.validate_python(raw)}
        except ValidationError as error:
            raise SourceError("Alertmanager returned an unexpected response") from error


def _utc(value: datetime | None) -> datetime | None:
    if value is None or value.year <= 1:  # Go's zero time means "unset"
        return None
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
