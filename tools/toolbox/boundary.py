"""The one tool boundary: validate, bound, cache and record every evidence call; never raise."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from tools.base import (
    Evidence,
    EvidenceSource,
    EvidenceStatus,
    SourceError,
    SourceHealth,
    Sources,
)
from tools.evidence_store import FRESH_SLACK_S, EvidenceCache, RunEvidence, ToolOutcome
from tools.limits import ToolLimits
from tools.redaction import redact, redact_data
from tools.toolbox.bounds import clip_text, masked_and_bounded
from tools.toolbox.catalog import KEY_SOURCES, SOURCES, TOOLS, TOOLS_BY_NAME
from tools.toolbox.live_answers import LiveAnswers
from tools.toolbox.spec import Answer, ToolContext, ToolSpec

logger = logging.getLogger(__name__)

_FAILED = "The source failed to answer; details are in the service log."
_TIMED_OUT = "The source did not answer within {seconds:g} s."
_NOT_CONFIGURED = "The {source} source is not configured."
# An unknown tool has no source of its own; it is filed under knowledge so the run still shows it.
_UNKNOWN_TOOL_SOURCE = EvidenceSource.KNOWLEDGE
# The live telemetry tells the run's clock: a world's frozen time, or the backend's.
_CLOCK_SOURCES = tuple(source.value for source in KEY_SOURCES)
# Sources whose answers belong to one principal: past cases never cross principals.
_PER_PRINCIPAL = frozenset({EvidenceSource.CASES})
# Sources whose answers are live state: an alert resolves or starts firing between two questions,
# so their answers are shared within one run only (and by concurrent identical calls of that run),
# never served to a later question.
_LIVE_STATE = frozenset({EvidenceSource.ALERTS})
# Tools that read live state of other sources: a database's sessions and locks (a lock taken a
# second ago), which scrape targets are down.
_LIVE_TOOLS = frozenset({"inspect_database", "list_targets"})


class Toolbox:
    """Every evidence tool, bounded by `limits`, answered from `sources`, shared through `cache`."""

    def __init__(self, sources: Sources, limits: ToolLimits, cache: EvidenceCache) -> None:
        self.sources = sources
        self.limits = limits
        self._cache = cache
        # Keys are namespaced per toolbox so two toolboxes (two worlds) never share answers.
        self._namespace = uuid.uuid4().hex
        self._live = LiveAnswers()

    def tool_names(self) -> list[str]:
        return [spec.name for spec in TOOLS]

    def datasources(self) -> list[str]:
        """Names of the SQL datasources (empty when SQL is not configured)."""
        return [] if self.sources.sql is None else list(self.sources.sql.datasources())

    async def now(self) -> datetime:
        """The telemetry clock (a world's frozen time, or the backend's); wall clock UTC if none."""
        for name in _CLOCK_SOURCES:
            source = getattr(self.sources, name)
            if source is None:
                continue
            try:
                async with asyncio.timeout(self.limits.tool_timeout_s):
                    moment: datetime = await source.now()
            except Exception:
                # Outer edge of the clock: any failure falls through to the next clock.
                logger.warning("clock of the %s source failed; trying the next", name, exc_info=True)
                continue
            return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return datetime.now(UTC)

    async def health(self) -> dict[str, SourceHealth]:
        """Health of every source by name; a missing source reports not configured."""
        names = [source.value for source in SOURCES]
        checks = await asyncio.gather(*(self._health_of(name) for name in names))
        return dict(zip(names, checks, strict=True))

    async def probe(self) -> dict[str, tuple[SourceHealth, float, str]]:
        """Each configured source's health, how long its probe took (ms) and its backend's name
        (`Prometheus`, `Alertmanager`, `Loki`, a world fixture...): what /readyz reports."""
        names = [s.value for s in SOURCES if getattr(self.sources, s.value) is not None]

        async def timed(name: str) -> tuple[SourceHealth, float, str]:
            started = time.perf_counter()
            health = await self._health_of(name)
            source = getattr(self.sources, name)
            return health, _elapsed_ms(started), str(getattr(source, "backend", type(source).__name__))

        probes = await asyncio.gather(*(timed(name) for name in names))
        return dict(zip(names, probes, strict=True))

    async def _health_of(self, name: str) -> SourceHealth:
        source = getattr(self.sources, name)
        if source is None:
            return SourceHealth(ok=False, reason="not configured")
        if not hasattr(source, "health"):
            return SourceHealth(ok=True)  # a port with no probe of its own (the case library)
        try:
            async with asyncio.timeout(self.limits.tool_timeout_s):
                health: SourceHealth = await source.health()
                return health
        except TimeoutError:
            return SourceHealth(ok=False, reason="health check timed out")
        except Exception:
            logger.exception("health check of the %s source failed", name)
            return SourceHealth(ok=False, reason="health check failed")

    async def call(self, tool: str, args: Mapping[str, Any], run: RunEvidence) -> Evidence:
        """Run one tool and file its bounded result in `run`. Never raises for bad input or a
        failing backend: the status and a safe summary say what happened."""
        spec = TOOLS_BY_NAME.get(tool)
        if spec is None:
            return run.record(_refusal(tool, _UNKNOWN_TOOL_SOURCE, f"Unknown tool {tool!r}.", {}))
        try:
            parsed = spec.args.model_validate(dict(args) if isinstance(args, Mapping) else args)
        except ValidationError as error:
            return run.record(_refusal(tool, spec.source, _invalid(error), {}))
        query = parsed.model_dump(mode="json", exclude_none=True)
        if getattr(self.sources, spec.source.value) is None:
            summary = _NOT_CONFIGURED.format(source=spec.source.value)
            return run.record(_refusal(tool, spec.source, summary, query, EvidenceStatus.UNAVAILABLE))
        # A per-principal source sees the run's principal and caches per principal; every other
        # source sees none, so its shared cached answers can never depend on who asked.
        principal = run.principal if spec.source in _PER_PRINCIPAL else None
        scope = run.run_key if spec.source in _LIVE_STATE or tool in _LIVE_TOOLS else None
        key = json.dumps([self._namespace, tool, query, principal, scope], sort_keys=True)
        evidence_id = run.reserve(spec.source)  # before the await: ids follow the plan order

        async def compute() -> ToolOutcome:
            outcome = await self._compute(spec, parsed, query, principal)
            if scope is None:
                return outcome
            # Before the cache keeps it: a run's entry holds the shared data, not its own copy.
            return self._live.shared(json.dumps([tool, query, principal], sort_keys=True), outcome)

        if run.opened_at is None:
            run.opened_at = self._cache.now()
        fresh_since = run.opened_at - FRESH_SLACK_S
        return run.record(
            await self._cache.get_or_compute(key, compute, fresh_since=fresh_since), evidence_id
        )

    async def _compute(
        self, spec: ToolSpec, parsed: BaseModel, query: dict[str, Any], principal: str | None
    ) -> ToolOutcome:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.limits.tool_timeout_s):
                now = await self.now()
                context = ToolContext(sources=self.sources, limits=self.limits, now=now, principal=principal)
                answer = await spec.handler(context, parsed)
        except TimeoutError:
            failure = (
                EvidenceStatus.TIMEOUT,
                _TIMED_OUT.format(seconds=self.limits.tool_timeout_s),
            )
        except SourceError as error:
            logger.info("tool %s: %s (%s)", spec.name, error.status, error.public)
            failure = (error.status, error.public)
        except Exception:
            # The real text stays in the log: it may hold hosts, credentials or vendor bodies.
            logger.exception("tool %s failed", spec.name)
            failure = (EvidenceStatus.ERROR, _FAILED)
        else:
            return self._bounded(spec, answer, query, _elapsed_ms(started))
        status, summary = failure
        return ToolOutcome(
            source=spec.source,
            tool=spec.name,
            title=spec.name.replace("_", " "),
            summary=clip_text(summary, self.limits.max_summary_chars),
            data={},
            query=redact_data(query),
            status=status,
            duration_ms=_elapsed_ms(started),
            bytes=2,
        )

    def _bounded(
        self, spec: ToolSpec, answer: Answer, query: dict[str, Any], duration_ms: float
    ) -> ToolOutcome:
        # Secrets in tool output never reach the model, the trace or the client.
        data, cut, size = masked_and_bounded(answer.data, self.limits.max_result_bytes, mask=redact)
        cut |= answer.cut
        truncated = cut or answer.truncated
        summary = redact(answer.summary) + (" [truncated]" if cut else "")
        return ToolOutcome(
            source=spec.source,
            tool=spec.name,
            title=clip_text(redact(answer.title or spec.name), 200),
            summary=clip_text(summary, self.limits.max_summary_chars),
            data=data,
            query={**redact_data(query), **masked_and_bounded(answer.query, 4_096, mask=redact)[0]},
            status=EvidenceStatus.EMPTY if answer.empty else EvidenceStatus.OK,
            duration_ms=duration_ms,
            bytes=size,
            truncated=truncated,
        )


def _refusal(
    tool: str,
    source: EvidenceSource,
    summary: str,
    query: Mapping[str, Any],
    status: EvidenceStatus = EvidenceStatus.REJECTED,
) -> ToolOutcome:
    return ToolOutcome(
        source=source,
        tool=tool[:100],
        title=f"{tool[:100]} refused" if status is EvidenceStatus.REJECTED else tool[:100],
        summary=summary[:600],
        data={},
        # The model's arguments (a SQL literal, a log filter) may spell a secret too.
        query=redact_data(dict(query)),
        status=status,
        bytes=2,
    )


def _invalid(error: ValidationError) -> str:
    # Field paths and pydantic's messages only: the rejected input values are never echoed.
    problems = [
        f"{'.'.join(str(part) for part in issue['loc']) or 'args'}: {issue['msg']}"
        for issue in error.errors()[:5]
    ]
    return "Invalid arguments: " + "; ".join(problems)


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
