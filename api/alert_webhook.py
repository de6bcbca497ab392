"""Investigations Alertmanager starts: each webhook notification group becomes one AIOps run.

The run goes through the same lifecycle as `POST /api/ai_ops` (`AiOpsFlow.open/start`: stored,
traced, counted), scoped to the systems the group's firing alerts name, under the webhook's principal
(`alert_webhook.principal`), in one session per group key. Nobody streams it: a background task reads
the run's channel to its end and, when `alert_webhook.notify_url` is set, posts the finished report as
Markdown (`{"text": ...}`, Slack-compatible) with bounded retries.

Bounds: a worker slot from the shared admission (503 UNAVAILABLE when none), at most
`max_in_flight` webhook runs at once (503 WEBHOOK_QUEUE_FULL; Alertmanager retries a 5xx answer), a
notification repeating a group key and its firing fingerprints within `dedupe_window_s` starts
nothing (202, reason DUPLICATE), and one with no firing alert starts nothing (202, reason RESOLVED_ONLY).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import time
from collections import OrderedDict
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from api.admission import Admission
from api.aiops_flow import AiOpsFlow
from api.errors import INVALID_CHARACTERS_ERROR, ApiError, Unavailable
from api.run_lifecycle import Done, Failure, OpenedRun, Part, Run
from api.schemas import forbidden_character
from api.settings import AlertWebhookSettings
from graph.report_markdown import report_markdown
from tools.identity import DEFAULT_IDENTITY, IdentityLabels, identity_of

log = logging.getLogger("superbiz.alert_webhook")
MAX_DEDUPE_KEYS = 1_024
MAX_SCOPED_SERVICES = 20  # AiOpsRequest's own bound
NOTIFY_MAX_CHARS = 35_000  # Slack truncates a message's text near 40,000 characters


class WebhookQueueFull(ApiError):
    # 503, not 429: Alertmanager's notifier retries only 5xx answers (notify.Retrier); a 4xx would
    # drop the group until its next group_interval.
    status_code = 503
    code = "WEBHOOK_QUEUE_FULL"
    message = "Too many Alertmanager investigations are running; retry shortly."


class WebhookAlert(BaseModel):
    """One alert of Alertmanager's webhook payload (version 4)."""

    model_config = ConfigDict(extra="ignore")

    status: Literal["firing", "resolved"]
    labels: dict[str, str] = Field(default_factory=dict, max_length=64)
    annotations: dict[str, str] = Field(default_factory=dict, max_length=64)
    # Alertmanager's own camelCase field names.
    startsAt: str = ""
    endsAt: str = ""
    generatorURL: str = ""
    fingerprint: str = Field(default="", max_length=64)


class AlertmanagerNotification(BaseModel):
    """Alertmanager's webhook body; only version 4 exists (and is accepted)."""

    model_config = ConfigDict(extra="ignore")

    version: Literal["4"]
    groupKey: str = Field(max_length=2_000)
    truncatedAlerts: int = 0
    status: Literal["firing", "resolved"]
    receiver: str = Field(default="", max_length=200)
    groupLabels: dict[str, str] = Field(default_factory=dict, max_length=64)
    commonLabels: dict[str, str] = Field(default_factory=dict, max_length=64)
    commonAnnotations: dict[str, str] = Field(default_factory=dict, max_length=64)
    externalURL: str = Field(default="", max_length=2_000)
    alerts: list[WebhookAlert] = Field(max_length=10_000)

    @model_validator(mode="after")
    def _no_control_characters(self) -> AlertmanagerNotification:
        """The API's one rule for text (`api.schemas`): the group key and labels become stored text."""
        texts = [self.groupKey, *self.groupLabels.values()]
        for alert in self.alerts:
            texts += [*alert.labels, *alert.labels.values(), alert.fingerprint]
        if any(forbidden_character(text) for text in texts):
            raise PydanticCustomError(INVALID_CHARACTERS_ERROR, "control characters are not allowed")
        return self

    def firing(self) -> list[WebhookAlert]:
        return [alert for alert in self.alerts if alert.status == "firing"]


@dataclasses.dataclass(frozen=True, slots=True)
class Acknowledgement:
    accepted: bool
    reason: str | None = None  # DUPLICATE, RESOLVED_ONLY
    session_id: str | None = None
    run_id: str | None = None


def fingerprint(alert: WebhookAlert) -> str:
    """Alertmanager's fingerprint, else one of the labels (older senders leave it out)."""
    if alert.fingerprint:
        return alert.fingerprint
    text = "\x1f".join(f"{k}={v}" for k, v in sorted(alert.labels.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def group_session_id(group_key: str) -> str:
    """One session per notification group: its runs are listed together."""
    return "am-" + hashlib.sha256(group_key.encode()).hexdigest()[:32]


def group_title(notification: AlertmanagerNotification, firing: list[WebhookAlert]) -> str:
    """The run's question: what fired (the alerts read of it), how often, under which group labels."""
    names = sorted({a.labels.get("alertname", "unnamed") for a in firing})
    labels = " ".join(f"{k}={v}" for k, v in sorted(notification.groupLabels.items()))
    head = f"Alertmanager: {', '.join(names[:5])}{' ...' if len(names) > 5 else ''} firing"
    return f"{head} ({len(firing)} alert(s){'; ' + labels if labels else ''}). What is the root cause?"[
        :2_000
    ]


def scoped_services(alerts: list[WebhookAlert], identity: IdentityLabels) -> list[str]:
    """The systems the firing alerts name (their identity), so the scan diagnoses this group only."""
    names: list[str] = []
    for alert in alerts:
        ident = identity_of(alert.labels, identity)
        for name in (ident.name, *(value for _, value in ident.primary)):
            if name and name not in names and len(name) <= 128:
                names.append(name)
    return names[:MAX_SCOPED_SERVICES]


def report_text(title: str, parts: list[dict[str, Any]]) -> str:
    """The finished investigation as Markdown: its summary, then each group's report."""
    lines = [f"*SuperBiz investigation*: {title}", ""]
    for part in parts:
        if "summary" in part and "group" not in part:
            lines += [str(part["summary"]), ""]
    for part in parts:
        group = part.get("group")
        if not isinstance(group, dict):
            continue
        where = group.get("identity") or group.get("service")
        lines.append(f"## {group.get('alertname')} ({where}): {part.get('outcome')}")
        markdown = report_markdown({"content_type": "diagnosis_report", "payload": part.get("report")})
        lines += [markdown or "No diagnosis.", ""]
    return "\n".join(lines)[:NOTIFY_MAX_CHARS]


class AlertInvestigations:
    """One per app: admits webhook notifications, starts and follows their runs, posts the reports."""

    def __init__(
        self,
        *,
        flow: AiOpsFlow,
        admission: Admission,
        settings: AlertWebhookSettings,
        http: httpx.AsyncClient,
        identity: IdentityLabels = DEFAULT_IDENTITY,
        run_deadline_s: float = 120.0,
        background: set[asyncio.Task[None]] | None = None,
    ) -> None:
        self._flow = flow
        self._admission = admission
        self._settings = settings
        self._http = http
        self._identity = identity
        self._deadline_s = run_deadline_s * 2 + 30  # every group of a scan, then its terminal write
        self._seen: OrderedDict[str, tuple[float, str | None, str | None]] = OrderedDict()
        self._opening = 0  # notifications between the bound check and their run's task
        self.in_flight: set[asyncio.Task[None]] = set()
        # The app's background tasks: cancelled at shutdown, as the runs they follow are.
        self._background = background if background is not None else set()

    def _duplicate(self, key: str) -> tuple[str | None, str | None] | None:
        now = time.monotonic()
        while self._seen and next(iter(self._seen.values()))[0] < now - self._settings.dedupe_window_s:
            self._seen.popitem(last=False)
        seen = self._seen.get(key)
        return (seen[1], seen[2]) if seen else None

    async def receive(self, notification: AlertmanagerNotification) -> Acknowledgement:
        firing = notification.firing()[: self._settings.max_alerts]  # bounded work per notification
        if not firing:
            return Acknowledgement(False, "RESOLVED_ONLY")
        key = notification.groupKey + "\x1e" + ",".join(sorted(fingerprint(a) for a in firing))
        duplicate = self._duplicate(key)
        if duplicate is not None:
            return Acknowledgement(False, "DUPLICATE", *duplicate)
        # Checked and reserved before the first await: concurrent notifications cannot both pass.
        if len(self.in_flight) + self._opening >= self._settings.max_in_flight:
            raise WebhookQueueFull()
        permit = None if self._flow.lifecycle.backlogged else self._admission.try_acquire()
        if permit is None:
            raise Unavailable()
        self._seen[key] = (time.monotonic(), None, None)  # a concurrent copy is a duplicate already
        self._opening += 1
        title = group_title(notification, firing)
        try:
            opened = await self._flow.open(
                session_id=group_session_id(notification.groupKey),
                instruction=title,
                services=scoped_services(firing, self._identity),
                principal=self._settings.principal,
            )
        except BaseException:
            permit.release()
            self._seen.pop(key, None)
            raise
        finally:
            self._opening -= 1
        opened = dataclasses.replace(opened, slot=permit)
        self._seen[key] = (time.monotonic(), opened.session_id, opened.run_id)
        while len(self._seen) > MAX_DEDUPE_KEYS:
            self._seen.popitem(last=False)
        task = asyncio.create_task(self._follow(opened, title), name=f"webhook-{opened.run_id}")
        for tasks in (self.in_flight, self._background):
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        return Acknowledgement(True, None, opened.session_id, opened.run_id)

    async def _follow(self, opened: OpenedRun, title: str) -> None:
        """Read the run's events to its end (nobody streams it), then post the report."""
        run: Run = self._flow.start(opened)
        parts: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(self._deadline_s):
                while True:
                    event = await run.channel.events.get()
                    if isinstance(event, Part):
                        parts.append(event.payload)
                    elif isinstance(event, Done | Failure):
                        break
        except TimeoutError:
            run.cancel("DEADLINE")
            log.warning("webhook run %s did not finish in %ss: cancelled", opened.run_id, self._deadline_s)
            return
        finally:
            run.work_stopped()
        if self._settings.notify_url is not None and parts:
            await self.notify(report_text(title, parts))

    async def notify(self, text: str) -> bool:
        """POST `{"text": text}` to the outgoing webhook; a few attempts with backoff, never raises."""
        assert self._settings.notify_url is not None
        url = self._settings.notify_url.get_secret_value()
        for attempt in range(1, self._settings.notify_attempts + 1):
            try:
                response = await self._http.post(
                    url, json={"text": text}, timeout=self._settings.notify_timeout_s
                )
                if response.status_code < 300:
                    return True
                retryable = response.status_code == 429 or response.status_code >= 500
                log.warning("outgoing webhook answered %s (attempt %s)", response.status_code, attempt)
                if not retryable:
                    return False
            except httpx.HTTPError as error:  # the URL holds a secret: the error class only
                log.warning("outgoing webhook failed: %s (attempt %s)", type(error).__name__, attempt)
            if attempt < self._settings.notify_attempts:
                await asyncio.sleep(0.5 * 2 ** (attempt - 1))
        return False
