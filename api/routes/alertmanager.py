"""`POST /api/alertmanager/webhook`: Alertmanager's webhook receiver (`api.alert_webhook`).

Authenticated by its own token (`SUPERBIZ_ALERT_WEBHOOK__TOKEN`, sent by Alertmanager's
`http_config.authorization`), not by the API's principals: the runs it starts belong to
`alert_webhook.principal`. Without its token it is open only while the API has no tokens either.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, Request

from api.alert_webhook import AlertInvestigations, AlertmanagerNotification
from api.deps import ServicesDep
from api.errors import Unauthorized
from api.schemas import _Body, _Envelope

router = APIRouter(tags=["alertmanager"])


class WebhookAckBody(_Body):
    accepted: bool
    reason: str | None  # DUPLICATE, RESOLVED_ONLY; null when a run was started
    session_id: str | None
    run_id: str | None


class WebhookAckEnvelope(_Envelope):
    data: WebhookAckBody


async def alert_investigations(request: Request, services: ServicesDep) -> AlertInvestigations:
    """Built on first use, once per app, from the composition root's parts."""
    found: AlertInvestigations | None = getattr(request.app.state, "alert_investigations", None)
    if found is None:
        settings = services.settings
        found = AlertInvestigations(
            flow=services.aiops,
            admission=services.admission,
            settings=settings.alert_webhook,
            http=services.http,
            identity=services.diagnosis.toolbox.limits.identity,
            run_deadline_s=settings.chat.run_deadline_s,
            background=services.background,
        )
        request.app.state.alert_investigations = found
    return found


async def webhook_caller(request: Request, services: ServicesDep) -> None:
    """Its own bearer token when configured; else open only on a server without API tokens."""
    expected = services.settings.alert_webhook.token
    if expected is None:
        if services.tokens.enabled:
            raise Unauthorized()
        return
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    given = token.strip().encode() if scheme.lower() == "bearer" else b""
    if not hmac.compare_digest(given, expected.get_secret_value().encode()):
        raise Unauthorized()


Investigations = Annotated[AlertInvestigations, Depends(alert_investigations)]


@router.post(
    "/api/alertmanager/webhook",
    status_code=202,
    dependencies=[Depends(webhook_caller)],
)
async def alertmanager_webhook(
    notification: AlertmanagerNotification, investigations: Investigations
) -> WebhookAckEnvelope:
    """One AIOps run per notification group (202 with its ids); a duplicate within the window or a
    resolved-only notification starts nothing (202 with `accepted: false` and the reason)."""
    ack = await investigations.receive(notification)  # 503 WEBHOOK_QUEUE_FULL or UNAVAILABLE
    return WebhookAckEnvelope(
        data=WebhookAckBody(
            accepted=ack.accepted, reason=ack.reason, session_id=ack.session_id, run_id=ack.run_id
        )
    )
