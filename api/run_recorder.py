"""`RunRecorder`, the api side of the graph's `RunObserver`: status codes go to the run's channel
(`api.run_lifecycle.RunChannel`, which caps them); steps and tool calls go to the run store in batches
while the run is alive (each within `flush_after_s` of finishing, so a crash loses at most the last
second) and the rest with the run's outcome, in the transaction that finishes it."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy.exc import SQLAlchemyError

from api.metrics import ServiceMetrics
from persistence.trace_rows import StepDraft, ToolDraft
from tools.base import Evidence
from tools.redaction import CleanTexts

log = logging.getLogger("superbiz.runs")

_ARGS_CHARS = 400
MAX_ROWS = 500  # per kind and run: a looping graph cannot grow a run's trace without bound
FLUSH_AFTER_S = 1.0  # a finished step reaches the database within this (a typical run ends sooner)
FLUSH_TIMEOUT_S = 10.0
# Every run of one question shape reports the same summaries and arguments: redacted once each.
_TEXTS = CleanTexts()


class TraceStore(Protocol):
    """What the recorder needs of `persistence.runs.RunStore`."""

    async def append_trace_rows(
        self, *, run_id: str, steps: Sequence[StepDraft], tools: Sequence[ToolDraft]
    ) -> None: ...
    @property
    def finish_run(self) -> Callable[..., Awaitable[bool]]: ...  # (run_id, steps, tools, **outcome)


class RunRecorder:
    """Implements `graph.recorder.RunObserver` for one run and stores its trace rows."""

    def __init__(
        self,
        *,
        run_id: str,
        on_status: Callable[[str], None],
        metrics: ServiceMetrics,
        runs: TraceStore,
        flow: str = "CHAT",
        flush_after_s: float = FLUSH_AFTER_S,
    ) -> None:
        self.run_id = run_id
        self._metrics = metrics
        self._runs = runs
        self._flow = flow
        self._started: float | None = time.monotonic()
        self._on_status = on_status
        self._rows = {"steps": 0, "tools": 0}
        # Rows not yet stored; a flush takes them all, the terminal write takes what is left.
        self._steps: list[StepDraft] = []
        self._tools: list[ToolDraft] = []
        self._flush_after_s = flush_after_s
        self._flush: asyncio.Task[None] | None = None
        self._writing = False
        self._closed = False

    def mark_finished(self) -> None:
        """Record the run's latency once, when its outcome is decided (before it is sent)."""
        if self._started is not None:
            self._metrics.run_latency.labels(self._flow).observe(time.monotonic() - self._started)
            self._started = None

    async def on_status(self, code: str) -> None:
        self._on_status(code)

    async def on_node(self, node: str, status: str, duration_ms: float, summary: str) -> None:
        if self._counted("steps"):
            self._steps.append(StepDraft(node, status, _TEXTS.redact(summary), duration_ms))
            self._schedule()

    async def on_tool(self, evidence: Evidence, args: Mapping[str, Any]) -> None:
        self._metrics.tool_calls.labels(evidence.tool, evidence.status.value).inc()
        if self._counted("tools"):
            self._tools.append(
                ToolDraft(
                    tool=evidence.tool,
                    status=evidence.status.value,
                    evidence_id=evidence.id,
                    args_summary=_args_summary(args),
                    result_summary=_TEXTS.redact(evidence.summary),
                    bytes=evidence.bytes,
                    duration_ms=evidence.duration_ms,
                )
            )
            self._schedule()

    async def finish(self, **outcome: Any) -> bool:
        """Finish the run with its outcome and every row not stored yet, in one transaction (see
        `RunStore.finish_run`); an in-flight flush completes first, so rows keep their order."""
        self._closed = True
        flush = self._flush
        if flush is not None:
            if self._writing:
                await asyncio.wait({flush})
            else:
                flush.cancel()  # still waiting: its rows go with the outcome instead
                self._flush = None
        steps, tools = self._take()
        return await self._runs.finish_run(run_id=self.run_id, steps=steps, tools=tools, **outcome)

    def close(self) -> None:
        """Stop a pending flush of a run that ends without a terminal write (idempotent)."""
        self._closed = True
        if self._flush is not None and not self._writing:
            self._flush.cancel()
            self._flush = None

    def _counted(self, kind: str) -> bool:
        if self._rows[kind] >= MAX_ROWS:
            return False
        self._rows[kind] += 1
        return True

    def _schedule(self) -> None:
        if self._flush is None and not self._closed:
            self._flush = asyncio.create_task(self._flush_later(), name=f"{self.run_id}-flush")

    def _take(self) -> tuple[list[StepDraft], list[ToolDraft]]:
        steps, tools = self._steps, self._tools
        self._steps, self._tools = [], []
        return steps, tools

    async def _flush_later(self) -> None:
        """One batch: everything that finished since the first unstored row, a second after it."""
        await asyncio.sleep(self._flush_after_s)
        self._writing = True
        steps, tools = self._take()
        try:
            await asyncio.wait_for(
                self._runs.append_trace_rows(run_id=self.run_id, steps=steps, tools=tools),
                FLUSH_TIMEOUT_S,
            )
        except (SQLAlchemyError, OSError, TimeoutError):
            # Kept for the next batch or the terminal write (a timed-out commit may have landed:
            # a rare duplicate row is better than a lost one).
            log.warning("run %s: could not store its trace rows yet", self.run_id, exc_info=True)
            self._steps[:0], self._tools[:0] = steps, tools
        finally:
            self._writing = False
            self._flush = None
        if self._steps or self._tools:
            self._schedule()


def _args_summary(args: Mapping[str, Any]) -> str:
    text = _TEXTS.redact(json.dumps(dict(args), ensure_ascii=False, default=str, sort_keys=True))
    return text if len(text) <= _ARGS_CHARS else text[: _ARGS_CHARS - 1] + "…"
