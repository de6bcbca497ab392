"""TraceRecorder on plain events: real transitions only, status codes (repeats dropped), bounded size."""

from __future__ import annotations

import json

from graph.recorder import TraceRecorder
from tests.unit.graph.factories import RecordingObserver


async def _walk(recorder: TraceRecorder, *nodes: str) -> None:
    for node in nodes:
        await recorder.node_started(node)
        await recorder.node_finished(node, "ok", 1.5, "done")


async def test_trace_holds_transitions_in_order_and_merges_concurrent_lanes() -> None:
    observer = RecordingObserver()
    recorder = TraceRecorder(observer)
    await _walk(recorder, "router", "planner")
    for _ in range(3):  # three lanes of one superstep
        await recorder.node_started("executors")
    for _ in range(3):
        await recorder.node_finished("executors", "ok", 300.0, "evidence=1")
    await _walk(recorder, "planner", "diagnose", "composer")
    trace = recorder.trace("COMPOSED", finished=True, repair_count=0)
    assert trace["path"] == ["router", "planner", "executors", "planner", "diagnose", "composer"]
    assert trace["transitions"][0] == {"from": "__start__", "to": "router"}
    assert trace["transitions"][-1] == {"from": "composer", "to": "__end__"}
    assert trace["node_timings_ms"]["executors"] == 900.0
    assert observer.statuses == [
        "ROUTING",
        "PLANNING",
        "COLLECTING_EVIDENCE",
        "PLANNING",
        "DIAGNOSING",
        "COMPOSING",
    ]


async def test_partial_trace_has_no_end_transition() -> None:
    recorder = TraceRecorder(RecordingObserver())
    await _walk(recorder, "router")
    await recorder.node_started("planner")
    recorder.node_interrupted("planner", 5.0)
    trace = recorder.trace("CANCELLED", finished=False)
    assert trace["transitions"] == [
        {"from": "__start__", "to": "router"},
        {"from": "router", "to": "planner"},
    ]
    assert trace["final_node"] == "planner"


async def test_trace_size_is_bounded() -> None:
    # The stream's status cap is api's (`api.run_lifecycle.RunChannel`), tested there.
    observer = RecordingObserver()
    recorder = TraceRecorder(observer, max_trace_bytes=2_000)
    for _ in range(100):
        await _walk(recorder, "evidence_guard", "repair")
    recorder.note_degradation("diagnose", "timeout")
    trace = recorder.trace("FALLBACK", finished=True)
    assert len(json.dumps(trace)) <= 2_000
    assert trace["truncated"] is True and trace["termination_reason"] == "FALLBACK"
    assert trace["degradations"] == [{"step": "diagnose", "degraded_to": "rules", "reason": "timeout"}]
