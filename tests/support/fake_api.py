"""A stand-in API for browser tests: serves `frontend/` and fakes the JSON API and SSE streams.

Tests drive it through a `FakeApi`: queue raw chunk scripts for the next chat or AIOps requests
(malformed, duplicated or split frames), set a bearer token, and read back what the page sent.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import frontend

FRONTEND_DIR = Path(frontend.__file__).parent

ChatScript = Callable[[str, str], list[str]]
"""Given (session_id, run_id), the raw text chunks one chat response sends, in order."""

JsonObject = dict[str, Any]


def frame(event: str, data: object, line_end: str = "\n") -> str:
    """One named SSE frame with JSON data."""
    return f"event: {event}{line_end}data: {json.dumps(data)}{line_end}{line_end}"


DEMO_FINDING = "p99 latency of checkout rose from 120 ms to 2300 ms at 10:02"


def demo_report(finding: str = DEMO_FINDING) -> JsonObject:
    """A diagnosis_report payload shaped like the real one."""
    return {
        "summary": "Checkout is slow because its database connection pool is exhausted.",
        "healthy": False,
        "root_cause": {
            "service": "checkout",
            "category": "resource_exhaustion",
            "statement": "The checkout DB pool hit its limit of 50 connections at 10:02.",
            "confidence": 0.82,
        },
        "findings": [
            {"statement": finding, "evidence_ids": ["ev-metrics-1"]},
            {
                "statement": "Logs show 412 'pool timeout' errors since 10:02",
                "evidence_ids": ["ev-logs-1", "ev-sql-1"],
            },
        ],
        "evidence": [
            {
                "id": "ev-metrics-1",
                "source": "metrics",
                "tool": "query_prometheus",
                "title": "checkout p99 latency",
                "status": "ok",
            },
            {
                "id": "ev-logs-1",
                "source": "logs",
                "tool": "query_loki",
                "title": "checkout error patterns",
                "status": "ok",
            },
            {
                "id": "ev-sql-1",
                "source": "sql",
                "tool": "query_mysql",
                "title": "active connections",
                "status": "ok",
            },
            {
                "id": "ev-alerts-1",
                "source": "alerts",
                "tool": "list_alerts",
                "title": "firing alerts",
                "status": "unavailable",
            },
        ],
        "recommendations": [
            {
                "action": "Raise the checkout pool limit to 80 and watch p99",
                "runbook": "runbooks/db-pool.md",
            },
            {"action": "Find the slow query holding connections", "runbook": None},
        ],
        "open_questions": ["Did the 10:00 deploy change the pool settings?"],
        "ruled_out": [{"service": "payments", "reason": "latency flat, no errors"}],
        "degraded": False,
    }


def success_script(report: JsonObject | None = None, line_end: str = "\n") -> ChatScript:
    """A well-formed chat stream: metadata, statuses, one report, SUCCESS."""

    def script(session_id: str, run_id: str) -> list[str]:
        return [
            frame("metadata", {"session_id": session_id, "run_id": run_id}, line_end),
            frame("status", {"code": "ROUTING", "message": "Understanding the question"}, line_end),
            frame(
                "status",
                {"code": "COLLECTING_EVIDENCE", "message": "Collecting evidence"},
                line_end,
            ),
            frame("status", {"code": "VERIFYING", "message": "Checking every claim"}, line_end),
            frame(
                "content",
                {"content_type": "diagnosis_report", "payload": report or demo_report()},
                line_end,
            ),
            frame("done", {"outcome": "SUCCESS"}, line_end),
        ]

    return script


@dataclass
class FakeApi:
    """State of the fake server, shared with the test that drives it."""

    chat_scripts: deque[ChatScript] = field(default_factory=deque)
    aiops_scripts: deque[ChatScript] = field(default_factory=deque)
    chat_requests: list[JsonObject] = field(default_factory=list)
    aiops_requests: list[JsonObject] = field(default_factory=list)
    feedback: list[JsonObject] = field(default_factory=list)
    runs: dict[str, list[JsonObject]] = field(default_factory=dict)
    answers: dict[str, JsonObject | None] = field(default_factory=dict)
    token: str | None = None
    chunk_delay: float = 0.01
    runs_delay: float = 0.0  # how long the session history takes to answer
    _counter: int = 0

    def reset(self) -> None:
        """Forget everything between tests."""
        fresh = FakeApi()
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(fresh, name))

    def next_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-{self._counter:04d}"

    def record_run(self, session_id: str, run_id: str, query: str, flow: str) -> None:
        self.runs.setdefault(session_id, []).append(
            {
                "runId": run_id,
                "sessionId": session_id,
                "query": query,
                "status": "SUCCEEDED",
                "agentFlow": flow,
                "answerPreview": "Checkout is slow: its database pool is exhausted.",
                "stepCount": 10,
                "toolCallCount": 4,
                "createdAt": "2026-11-30T10:05:00Z",
                "updatedAt": "2026-11-30T10:05:04Z",
            }
        )


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "data": None}, status_code=status)


def _ok(data: object) -> JSONResponse:
    return JSONResponse({"code": "OK", "message": "ok", "data": data})


def _find_run(fake: FakeApi, session_id: str, run_id: str) -> JsonObject | None:
    return next((r for r in fake.runs.get(session_id, []) if r["runId"] == run_id), None)


def _stream(fake: FakeApi, chunks: list[str]) -> StreamingResponse:
    async def body() -> AsyncIterator[str]:
        for chunk in chunks:
            yield chunk
            await asyncio.sleep(fake.chunk_delay)

    return StreamingResponse(body(), media_type="text/event-stream")


def create_fake_api(fake: FakeApi) -> Starlette:
    """The Starlette app: the JSON/SSE API routes first, then `frontend/` as static files at `/`."""

    def authorized(request: Request) -> bool:
        return fake.token is None or request.headers.get("authorization") == f"Bearer {fake.token}"

    async def chat(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "AUTH_REQUIRED", "A bearer token is required.")
        body = await request.json()
        fake.chat_requests.append(body)
        if not str(body.get("query", "")).strip():
            return _error(400, "VALIDATION_ERROR", "The query must not be blank.")
        session_id = body.get("sessionId") or fake.next_id("sess")
        run_id = fake.next_id("run")
        fake.record_run(session_id, run_id, body["query"], "CHAT")
        script = fake.chat_scripts.popleft() if fake.chat_scripts else success_script()
        chunks = script(session_id, run_id)
        fake.answers[run_id] = _released_content(chunks)
        return _stream(fake, chunks)

    async def aiops(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "AUTH_REQUIRED", "A bearer token is required.")
        body = await request.json()
        fake.aiops_requests.append(body)
        session_id = body.get("sessionId") or fake.next_id("sess")
        run_id = fake.next_id("run")
        fake.record_run(session_id, run_id, "AIOps alert scan", "AI_OPS")
        script = fake.aiops_scripts.popleft() if fake.aiops_scripts else aiops_script()
        return _stream(fake, script(session_id, run_id))

    async def runs(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "AUTH_REQUIRED", "A bearer token is required.")
        session_id = request.path_params["session_id"]
        await asyncio.sleep(fake.runs_delay)
        if session_id not in fake.runs:
            return _error(404, "NOT_FOUND", "Unknown session.")
        return _ok(fake.runs[session_id])

    async def trace(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "AUTH_REQUIRED", "A bearer token is required.")
        run_id = request.query_params.get("runId")
        if not run_id:
            return _error(400, "VALIDATION_ERROR", "runId is required.")
        run = _find_run(fake, request.path_params["session_id"], run_id)
        if run is None:
            return _error(404, "NOT_FOUND", "Unknown run for this session.")
        return _ok(trace_of(run, fake.answers.get(run_id), _feedback_of(fake, run_id)))

    async def feedback(request: Request) -> Response:
        if not authorized(request):
            return _error(401, "AUTH_REQUIRED", "A bearer token is required.")
        body = await request.json()
        if _find_run(fake, str(body.get("sessionId")), str(body.get("runId"))) is None:
            return _error(404, "NOT_FOUND", "Unknown run for this session.")
        fake.feedback.append(body)
        return _ok({"runId": body["runId"], "useful": body["useful"]})

    return Starlette(
        routes=[
            Route("/api/chat", chat, methods=["POST"]),
            Route("/api/ai_ops", aiops, methods=["POST"]),
            Route("/api/chat/session/{session_id}/runs", runs, methods=["GET"]),
            Route("/api/diagnosis/{session_id}/trace", trace, methods=["GET"]),
            Route("/api/feedback", feedback, methods=["POST"]),
            Mount("/", StaticFiles(directory=FRONTEND_DIR, html=True)),
        ]
    )


def _feedback_of(fake: FakeApi, run_id: str) -> JsonObject | None:
    given = [f for f in fake.feedback if f.get("runId") == run_id]
    return {"useful": given[-1]["useful"], "comment": given[-1].get("comment")} if given else None


def _released_content(chunks: list[str]) -> JsonObject | None:
    text = "".join(chunks).replace("\r\n", "\n")
    for block in text.split("\n\n"):
        if block.startswith("event: content\n"):
            try:
                content: JsonObject = json.loads(block.split("data: ", 1)[1])
            except (IndexError, json.JSONDecodeError):
                return None
            return content
    return None


def aiops_script(report: JsonObject | None = None) -> ChatScript:
    """A well-formed AIOps stream: metadata, a text line, the report, done."""

    def script(session_id: str, run_id: str) -> list[str]:
        return [
            frame("message", {"type": "metadata", "data": {"sessionId": session_id, "runId": run_id}}),
            frame("message", {"type": "content", "data": "Scanning 3 firing alerts across 2 services"}),
            frame("message", {"type": "content", "data": report or demo_report()}),
            frame("message", {"type": "done"}),
        ]

    return script


_PATH = [
    "router",
    "planner",
    "executors",
    "diagnose",
    "evidence_guard",
    "repair",
    "diagnose",
    "evidence_guard",
    "semantic_guard",
    "composer",
]


def trace_of(run: JsonObject, answer: JsonObject | None, feedback: JsonObject | None) -> JsonObject:
    """A trace body for one run: the path includes one repair loop, as a real diagnosis may."""
    steps = [
        {
            "seq": i + 1,
            "node": node,
            "status": "ok",
            "durationMs": 40 + 35 * (i % 4),
            "summary": f"{node} finished" if i else f"routed: {run['query']}",
        }
        for i, node in enumerate(_PATH)
    ]
    tools = [
        {
            "seq": 1,
            "tool": "query_prometheus",
            "evidenceId": "ev-metrics-1",
            "status": "ok",
            "durationMs": 120,
            "bytes": 5400,
            "argsSummary": "checkout p99 15m",
            "resultSummary": "peak 2300 ms at 10:02",
        },
        {
            "seq": 2,
            "tool": "query_loki",
            "evidenceId": "ev-logs-1",
            "status": "ok",
            "durationMs": 210,
            "bytes": 18200,
            "argsSummary": "{app=checkout} |= error",
            "resultSummary": f"412 lines; last: {run['query']}",
        },
        {
            "seq": 3,
            "tool": "list_alerts",
            "evidenceId": "ev-alerts-1",
            "status": "unavailable",
            "durationMs": 3000,
            "bytes": 0,
            "argsSummary": "firing",
            "resultSummary": "timed out",
        },
    ]
    orchestration = {
        "version": 1,
        "transitions": [{"from": a, "to": b} for a, b in itertools.pairwise(_PATH)],
        "path": _PATH,
        "final_node": "composer",
        "termination_reason": "COMPLETED",
        "degraded": False,
        "evidence_retry_count": 1,
        "repair_count": 1,
        "node_timings_ms": {"router": 40, "planner": 75, "executors": 310},
    }
    return {
        "session": {"sessionId": run["sessionId"], "status": "ACTIVE", "messagePairCount": 1},
        "run": {
            **run,
            "outcome": "SUCCESS",
            "route": "complex",
            "finishedAt": run["updatedAt"],
            "orchestrationTrace": orchestration,
        },
        "steps": steps,
        "toolInvocations": tools,
        "selfEvaluation": {
            "evidence_guard": {"passed": True, "violations": 0},
            "semantic_guard": {"passed": True},
            "score": 0.9,
        },
        "answer": answer,
        "feedback": feedback,
    }
