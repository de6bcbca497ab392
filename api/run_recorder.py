"""The api side of the graph's observer: statuses go to the stream, steps and tool calls are buffered
and stored with the run's outcome (one transaction, not one per event)."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from api.metrics import ServiceMetrics
from persistence.trace_rows import StepDraft, ToolDraft
from tools.base import Evidence
from tools.redaction import redact

StatusSink = Callable[[str, str], Awaitable[None]]
_ARGS_CHARS = 400
MAX_ROWS = 500  # per kind and run: a looping graph cannot grow a run's trace without bound


class RunRecorder:
    """Implements `graph.recorder.RunObserver` for one run."""

    def __init__(
        self,
        *,
        run_id: str,
        status_sink: StatusSink,
        max_status_events: int,
        metrics: ServiceMetrics,
        flow: str = "CHAT",
    ) -> None:
        self.run_id = run_id
        self._metrics = metrics
        self._flow = flow
        self._started: float | None = time.monotonic()
        self._status_sink = status_sink
        self._status_left = max_status_events
        self.steps: list[StepDraft] = []
        self.tools: list[ToolDraft] = []

    def mark_finished(self) -> None:
        """Record the run's latency once, when its outcome is decided (before it is sent)."""
        if self._started is not None:
            self._metrics.run_latency.labels(self._flow).observe(time.monotonic() - self._started)
            self._started = None

    async def on_status(self, code: str, message: str) -> None:
        # Bounded: a looping graph cannot flood the stream.
        if self._status_left <= 0:
            return
        self._status_left -= 1
        await self._status_sink(code, message)

    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        if len(self.steps) < MAX_ROWS:
            self.steps.append(StepDraft(node, status, redact(summary), duration_ms))

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        self._metrics.tool_calls.labels(evidence.tool, evidence.status.value).inc()
        if len(self.tools) < MAX_ROWS:
            self.tools.append(
                ToolDraft(
                    tool=evidence.tool,
                    status=evidence.status.value,
                    evidence_id=evidence.id,
                    args_summary=_args_summary(args),
                    result_summary=redact(evidence.summary),
                    bytes=evidence.bytes,
                    duration_ms=evidence.duration_ms,
                )
            )


def _args_summary(args: Mapping[str, Any]) -> str:
    text = redact(json.dumps(dict(args), ensure_ascii=False, default=str, sort_keys=True))
    return text if len(text) <= _ARGS_CHARS else text[: _ARGS_CHARS - 1] + "…"
