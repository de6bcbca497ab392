"""The chat flow over the run lifecycle: multi-turn context, one graph run, its released answer.

The rule that content is released only after SemanticGuard lives in the graph; here the answer is
bounded, stored with the run's outcome, and only then published. Terminal states other than success
are the lifecycle's (`api.run_lifecycle`).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson

from api.diagnoser import Diagnoser
from api.run_lifecycle import Answer, OpenedRun, Run, RunLifecycle
from graph.runner import RunFailed, RunRequest, RunResult
from persistence.sessions import SessionContextStore
from persistence.tables import AgentFlow, RunOutcome, RunStatus

log = logging.getLogger("superbiz.chat")


class ChatFlow:
    """Built once in the composition root and shared by every chat run."""

    def __init__(
        self,
        *,
        lifecycle: RunLifecycle,
        contexts: SessionContextStore,
        diagnoser: Diagnoser,
        max_answer_bytes: int,
    ) -> None:
        self.lifecycle = lifecycle
        self._contexts = contexts
        self._diagnoser = diagnoser
        self._max_answer_bytes = max_answer_bytes

    async def open(self, *, session_id: str | None, query: str, principal: str | None = None) -> OpenedRun:
        return await self.lifecycle.open(
            session_id=session_id, query=query, principal=principal, flow=AgentFlow.CHAT
        )

    def start(self, opened: OpenedRun) -> Run:
        return self.lifecycle.start(opened, self._diagnose)

    async def _diagnose(self, run: Run) -> None:
        opened = run.opened
        history = await self._contexts.history(session_id=opened.session_id)
        request = RunRequest(
            run_id=opened.run_id,
            session_id=opened.session_id,
            query=opened.query,
            history=list(history.turns),
            flow=opened.flow.value,
            services=opened.services,
            principal=opened.principal,
        )
        graph_run = self._diagnoser.start(request, observer=run.recorder)
        run.partial_trace = graph_run.partial_trace
        result = await graph_run.result()
        run.work_stopped()
        await self._release(run, result, history.degraded)
        await self._remember(opened, result)

    async def _release(self, run: Run, result: RunResult, history_degraded: bool) -> None:
        content = result.content
        if _encoded_size(content) > self._max_answer_bytes:
            content = _without_markdown(content)
            if _encoded_size(content) > self._max_answer_bytes:
                raise RunFailed("ANSWER_TOO_LARGE")
        payload = content.get("payload", {})
        content_type = str(content.get("content_type", ""))
        evaluation = dict(result.self_evaluation)
        evaluation["history_degraded"] = history_degraded
        stored = await run.finish(
            RunStatus.SUCCESS,
            outcome=RunOutcome(result.outcome),
            answer=content,
            answer_preview=_preview(payload),
            content_type=content_type,
            route=result.route,
            self_evaluation=evaluation,
            orchestration_trace=result.trace,
            message_pair=True,
        )
        if not stored:  # finished elsewhere meanwhile (swept): nothing is released
            raise RunFailed("RUN_NOT_RUNNING")
        metrics = self.lifecycle.metrics
        metrics.model_calls.inc(result.model_calls)
        metrics.model_tokens.inc(result.tokens)
        await run.channel.publish(Answer(content_type, dict(payload), result.outcome))

    async def _remember(self, opened: OpenedRun, result: RunResult) -> None:
        """Best effort: the answer is stored and released already when the history is written."""
        try:
            await self._contexts.append_turn(
                session_id=opened.session_id, turn=history_turn(opened.query, result)
            )
        except Exception:
            log.warning(
                "run %s: could not record the turn in the session history", opened.run_id, exc_info=True
            )


def _without_markdown(content: dict[str, Any]) -> dict[str, Any]:
    """`content` without its Markdown copy, which repeats the whole report: a report near the size cap
    is still released, and its Markdown stays available from GET .../report.md (rendered from the
    stored typed payload)."""
    payload = content.get("payload")
    if not isinstance(payload, dict) or "markdown" not in payload:
        return content
    return {**content, "payload": {k: v for k, v in payload.items() if k != "markdown"}}


def _encoded_size(content: dict[str, Any]) -> int:
    """Bytes of `content` as JSON (orjson: the answer's chart points made the standard library's
    encoder a visible share of a run's CPU)."""
    try:
        return len(orjson.dumps(content, default=str))
    except TypeError:  # beyond orjson (integers over 64 bits, non-string keys)
        return len(json.dumps(content, ensure_ascii=False, default=str).encode())


def _preview(payload: Any) -> str:
    if isinstance(payload, dict):
        for key in ("summary", "text", "message"):
            value = payload.get(key)
            if isinstance(value, str) and value:
                return value[:300]
    return ""


def history_turn(query: str, result: RunResult) -> dict[str, Any]:
    """What the next turn of the conversation remembers of this one (shared with the evaluation)."""
    payload = result.content.get("payload", {})
    root = payload.get("root_cause") if isinstance(payload, dict) else None
    return {
        "query": query[:500],
        "summary": _preview(payload),
        "root_cause_service": root.get("service") if isinstance(root, dict) else None,
    }
