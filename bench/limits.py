"""The physical limit of a chat run: the same work with nothing extra (item 1).

Three parts, each measured at the same concurrency as the full run: a bare sse-starlette endpoint
sending the same frames, the same LangGraph node sequence with no-op nodes, and the run's rows
written in one batched transaction. A fourth, informative part is the real graph in-process with a
silent observer (the analysis work itself: digest, guards), which is not orchestration overhead.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from langgraph.graph import END, START, StateGraph
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from typing_extensions import TypedDict

from api.backends import world_sources
from api.composition import build_toolbox, tool_limits
from api.diagnoser import build_diagnoser
from api.settings import Settings
from bench.load import DEMO_QUESTION, RunTiming, chat_run, client, closed_loop
from graph.recorder import SilentObserver
from graph.runner import RunRequest
from persistence import tables
from persistence.db import make_engine
from tests.support.live_server import live_server
from tools.demo_world import DEMO_WORLD_DIR
from tools.world import load_world

Frames = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class RunRows:
    """One real run's rows, keyed by table name, without surrogate ids."""

    session: dict[str, Any]
    run: dict[str, Any]
    steps: list[dict[str, Any]]
    tools: list[dict[str, Any]]

    @property
    def count(self) -> int:
        return 2 + len(self.steps) + len(self.tools)


async def bare_sse(frames: Frames, *, concurrency: int, total: int) -> float:
    """Seconds per stream (wall / streams) of an endpoint that only sends `frames`."""

    async def endpoint(_: Request) -> EventSourceResponse:
        async def stream() -> AsyncIterator[ServerSentEvent]:
            for event, data in frames:
                yield ServerSentEvent(data=data, event=event)

        return EventSourceResponse(stream())

    app = Starlette(routes=[Route("/api/chat", endpoint, methods=["POST"])])
    async with live_server(app) as url, client() as http:
        result = await closed_loop(lambda _: chat_run(http, url), concurrency=concurrency, total=total)
    return result.wall_s / max(1, len(result.completed))


class _NoOpState(TypedDict, total=False):
    step: int


async def _noop(_: _NoOpState) -> dict[str, Any]:
    return {}


def noop_graph(path: Sequence[str], lanes: int = 3) -> Any:
    """The run's node sequence with no-op nodes; each `executors` visit fans out to `lanes` nodes."""
    g = StateGraph(_NoOpState)
    previous: list[str] = [START]
    for index, node in enumerate(path):
        names = (
            [f"{node}_{index}_{lane}" for lane in range(lanes)]
            if node == "executors"
            else [f"{node}_{index}"]
        )
        for name in names:
            g.add_node(name, _noop)  # type: ignore[call-overload]
            _join(g, previous, name)
        previous = names
    _join(g, previous, END)
    return g.compile()


def _join(g: StateGraph[Any], sources: list[str], target: str) -> None:
    # A list of sources makes the target wait for all of them, as the planner waits for the lanes.
    g.add_edge(sources[0] if len(sources) == 1 else sources, target)


async def noop_langgraph(path: Sequence[str], *, concurrency: int, total: int) -> float:
    """Seconds per run of the no-op node sequence."""
    graph = noop_graph(path)

    async def one(_: int) -> RunTiming:
        await graph.ainvoke({"step": 0})
        return RunTiming(events=["done"], status_code=200)

    result = await closed_loop(one, concurrency=concurrency, total=total)
    return result.wall_s / total


async def sample_rows(database_url: str, run_id: str) -> RunRows:
    """The rows one finished run left in the database."""
    engine = make_engine(database_url)
    meta = tables.metadata.tables
    try:
        async with engine.connect() as conn:
            run = dict(
                (await conn.execute(sa.select(meta["diagnosis_run"]).filter_by(run_id=run_id)))
                .mappings()
                .one()
            )
            session_table = meta["chat_session"]
            session = (
                (await conn.execute(sa.select(session_table).filter_by(session_id=run["session_id"])))
                .mappings()
                .one()
            )
            steps = (
                (await conn.execute(sa.select(meta["agent_step"]).filter_by(run_id=run_id))).mappings().all()
            )
            tools = (
                (await conn.execute(sa.select(meta["tool_invocation"]).filter_by(run_id=run_id)))
                .mappings()
                .all()
            )
    finally:
        await engine.dispose()
    return RunRows(
        session=_without_id(session),
        run=_without_id(run),
        steps=[_without_id(s) for s in steps],
        tools=[_without_id(t) for t in tools],
    )


async def batched_writes(database_url: str, rows: RunRows, *, concurrency: int, total: int) -> float:
    """Seconds per run of writing the same rows in one transaction (fresh ids each time)."""
    engine = make_engine(database_url, pool_size=max(5, concurrency), max_overflow=10)
    meta = tables.metadata.tables

    async def one(_: int) -> RunTiming:
        session_id, run_id = f"bench-{uuid.uuid4().hex}", uuid.uuid4().hex
        ids = {"session_id": session_id, "run_id": run_id}
        async with engine.begin() as conn:
            await conn.execute(sa.insert(meta["chat_session"]), [{**rows.session, "session_id": session_id}])
            await conn.execute(sa.insert(meta["diagnosis_run"]), [{**rows.run, **ids}])
            if rows.steps:
                await conn.execute(sa.insert(meta["agent_step"]), [{**s, **ids} for s in rows.steps])
            if rows.tools:
                await conn.execute(sa.insert(meta["tool_invocation"]), [{**t, **ids} for t in rows.tools])
        return RunTiming(events=["done"], status_code=200)

    try:
        result = await closed_loop(one, concurrency=concurrency, total=total)
    finally:
        await engine.dispose()
    return result.wall_s / total


async def graph_in_process(settings: Settings, *, concurrency: int, total: int) -> float:
    """Seconds per run of the real graph on the demo world, no HTTP, no database, silent observer."""
    world = load_world(settings.world_dir or DEMO_WORLD_DIR)
    diagnoser = build_diagnoser(settings, build_toolbox(world_sources(world), tool_limits(settings)))

    async def one(index: int) -> RunTiming:
        request = RunRequest(run_id=f"inproc-{index}", session_id="inproc", query=DEMO_QUESTION)
        await diagnoser.start(request, observer=SilentObserver()).result()
        return RunTiming(events=["done"], status_code=200)

    await one(-1)  # warm the caches, as the served app is warm
    result = await closed_loop(one, concurrency=concurrency, total=total)
    return result.wall_s / total


def _without_id(row: Any) -> dict[str, Any]:
    values = {key: value for key, value in dict(row).items() if key != "id"}
    for key, value in values.items():
        if isinstance(value, dict | list) and key not in (
            "self_evaluation",
            "feedback",
            "orchestration_trace",
        ):
            values[key] = json.dumps(value)
    return values
