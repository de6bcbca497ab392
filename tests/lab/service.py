"""The real service pointed at the lab: create_app with the lab's Prometheus, Alertmanager, read-only
SQL datasources and log files (the file logs source) and the rule-based analyst, served by uvicorn on
the port the lab's Alertmanager receiver posts to (its webhook starts an investigation per firing
group), and asked over HTTP as the lab's one principal."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from api.app import create_app
from api.settings import Settings
from tests.lab.stack import LabStack
from tests.support.live_server import live_server

PRINCIPAL = "oncall"  # the chat questions and the investigations Alertmanager starts share it


@dataclass
class Answer:
    """One question's outcome as a client sees it."""

    question: str
    http_status: int
    seconds: float
    events: list[str] = field(default_factory=list)
    outcome: str | None = None  # the done event's outcome; None when the stream never finished
    content: dict[str, Any] | None = None
    session_id: str = ""
    run_id: str = ""  # from the stream's metadata event: where the stored run can be read back

    @property
    def terminal(self) -> bool:
        return self.http_status == 200 and self.outcome is not None

    @property
    def root_cause(self) -> dict[str, Any] | None:
        if not self.content or self.content.get("content_type") != "diagnosis_report":
            return None
        payload = self.content["payload"]
        root = payload.get("root_cause")
        return root if isinstance(root, dict) and not payload.get("healthy") else None


def lab_settings(stack: LabStack) -> Settings:
    return Settings(
        database_url=f"sqlite+aiosqlite:///{stack.root / 'superbiz.db'}",
        prometheus_url=stack.prometheus_url,
        alertmanager_url=stack.alertmanager_url,
        backends={"sql_datasources": stack.sql_datasources(), "log_files": stack.log_files()},
        api_tokens=f"{PRINCIPAL}:{stack.webhook_token}-api",
        # Two faults fire the same alert on the same instance minutes apart: each is a new incident,
        # so the dedupe window (meant for an HA pair's copies of one notification) is short here.
        alert_webhook={"token": stack.webhook_token, "principal": PRINCIPAL, "dedupe_window_s": 10},
    )


@asynccontextmanager
async def lab_service(stack: LabStack) -> AsyncIterator[httpx.AsyncClient]:
    """The app served (lifespan and all) on the lab's service port, and a client to it."""
    settings = lab_settings(stack)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", stack.ports["service"]))
    token = f"{stack.webhook_token}-api"
    with listener:
        async with (
            live_server(create_app(settings), listener=listener) as url,
            httpx.AsyncClient(
                base_url=url, timeout=180, headers={"Authorization": f"Bearer {token}"}
            ) as client,
        ):
            yield client


async def ask(client: httpx.AsyncClient, question: str) -> Answer:
    """POST /api/chat in a fresh session (no history carried between scenarios) and read the stream."""
    started = time.monotonic()
    body = {"sessionId": f"lab-{uuid.uuid4().hex[:12]}", "query": question}
    answer = Answer(question=question, http_status=0, seconds=0.0)
    async with aconnect_sse(client, "POST", "/api/chat", json=body) as source:
        answer.http_status = source.response.status_code
        if answer.http_status == 200:
            async for event in source.aiter_sse():
                answer.events.append(event.event)
                data = json.loads(event.data) if event.data else None
                if event.event == "metadata" and isinstance(data, dict):
                    answer.session_id, answer.run_id = str(data["session_id"]), str(data["run_id"])
                elif event.event == "content":
                    answer.content = data
                elif event.event == "done" and isinstance(data, dict):
                    answer.outcome = str(data.get("outcome"))
    answer.seconds = time.monotonic() - started
    return answer


async def guard_record(client: httpx.AsyncClient, answer: Answer) -> str:
    """What EvidenceGuard rejected in the stored run of `answer` (repaired or left), for a wrong row's
    note: a statement thinned by a repair says why only there."""
    if not answer.run_id:
        return "no run id"
    response = await client.get(f"/api/diagnosis/{answer.session_id}/trace", params={"runId": answer.run_id})
    if response.status_code != 200:
        return f"trace HTTP {response.status_code}"
    guard = (response.json()["data"].get("self_evaluation") or {}).get("evidence_guard") or {}
    rejected = [*guard.get("repaired", []), *guard.get("violations", [])]
    return "; ".join(rejected)[:600] or "guard passed first time"
