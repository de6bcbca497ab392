"""The api side of the graph's observer: steps and tool calls become rows, statuses go to the stream."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from api.metrics import ServiceMetrics
from persistence.runs import RunStore
from tools.base import Evidence

log = logging.getLogger("superbiz.recorder")

StatusSink = Callable[[str, str], Awaitable[None]]
_ARGS_CHARS = 400


class RunRecorder:
    """Implements `graph.recorder.RunObserver` for one run; never lets a write failure stop the run."""

    def __init__(
        self,
        *,
        runs: RunStore,
        run_id: str,
        status_sink: StatusSink,
        max_status_events: int,
        metrics: ServiceMetrics,
    ) -> None:
        self._metrics = metrics
        self._runs = runs
        self.run_id = run_id
        self._status_sink = status_sink
        self._status_left = max_status_events
        self.steps = 0
        self.tool_calls = 0

    async def on_status(self, code: str, message: str) -> None:
        # Bounded: a looping graph cannot flood the stream.
        if self._status_left <= 0:
            return
        self._status_left -= 1
        await self._status_sink(code, message)

    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        self.steps += 1
        await self._runs.append_step(
            run_id=self.run_id, node=node, status=status, summary=summary, duration_ms=duration_ms
        )

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        self.tool_calls += 1
        self._metrics.tool_calls.labels(evidence.tool, evidence.status.value).inc()
        await self._runs.append_tool_invocation(
            run_id=self.run_id,
            tool=evidence.tool,
            status=evidence.status.value,
            evidence_id=evidence.id,
            args_summary=_args_summary(args),
            result_summary=evidence.summary,
            bytes=evidence.bytes,
            duration_ms=evidence.duration_ms,
        )


def _args_summary(args: Mapping[str, Any]) -> str:
    text = json.dumps(dict(args), ensure_ascii=False, default=str, sort_keys=True)
    return text if len(text) <= _ARGS_CHARS else text[: _ARGS_CHARS - 1] + "…"
