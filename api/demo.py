"""`superbiz demo`: drive a running server like a person would and print what happened.

Two chat turns in one session, the exact trace of each run by its runId, then an AIOps scan and its
trace. Exits non-zero when any trace does not belong to the run it was asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
from httpx_sse import connect_sse

QUESTIONS = ("Why is checkout slow?", "And why did that start?")


def _frames(client: httpx.Client, path: str, body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The named frames of one streamed POST, data parsed as JSON (httpx-sse skips the ping comments)."""
    with connect_sse(client, "POST", path, json=body) as source:
        source.response.raise_for_status()
        for frame in source.iter_sse():
            yield frame.event, frame.json()


def _chat(client: httpx.Client, session_id: str | None, query: str) -> dict[str, Any]:
    body: dict[str, Any] = {"query": query} | ({"sessionId": session_id} if session_id else {})
    result: dict[str, Any] = {"statuses": []}
    for event, data in _frames(client, "/api/chat", body):
        if event == "metadata":
            result.update(data)
        elif event == "status":
            result["statuses"].append(data["code"])
        else:
            result[event] = data
    return result


def _aiops(client: httpx.Client) -> dict[str, Any]:
    result: dict[str, Any] = {"contents": []}
    for _, message in _frames(client, "/api/ai_ops", {}):
        kind = message.get("type")
        if kind == "metadata":
            result.update(message["data"])
        elif kind == "content":
            result["contents"].append(message["data"])
        else:
            result[kind] = message.get("data", True)
    return result


def _trace(client: httpx.Client, session_id: str, run_id: str) -> dict[str, Any]:
    response = client.get(f"/api/diagnosis/{session_id}/trace", params={"runId": run_id})
    response.raise_for_status()
    data: dict[str, Any] = response.json()["data"]
    return data


def _line(label: str, session_id: str, run_id: str, trace: dict[str, Any], base: str) -> str:
    run = trace["run"]
    orchestration = run.get("orchestrationTrace") or {}
    return (
        f"{label}: run {run_id} status={run['status']} outcome={run.get('outcome')} "
        f"steps={run['stepCount']} tools={run['toolCallCount']} "
        f"final={orchestration.get('final_node')}\n"
        f"  trace: {base}/trace.html?sessionId={session_id}&runId={run_id}"
    )


def run_demo(base_url: str, *, token: str | None = None, timeout_s: float = 180.0) -> int:
    """Run the demo against `base_url`; 0 when every trace matched the run it names."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    mismatches = 0
    with httpx.Client(base_url=base_url, timeout=timeout_s, headers=headers) as client:
        session_id: str | None = None
        for turn, question in enumerate(QUESTIONS, start=1):
            answer = _chat(client, session_id, question)
            session_id = answer["session_id"]
            trace = _trace(client, answer["session_id"], answer["run_id"])
            mismatches += trace["run"]["runId"] != answer["run_id"]
            payload = (answer.get("content") or {}).get("payload", {})
            print(f"Q{turn}: {question}")
            print(f"  answer: {payload.get('summary') or payload.get('text') or answer.get('failure')}")
            print("  " + _line(f"turn {turn}", answer["session_id"], answer["run_id"], trace, base_url))
        scan = _aiops(client)
        trace = _trace(client, scan["sessionId"], scan["runId"])
        mismatches += trace["run"]["runId"] != scan["runId"]
        summary = scan["contents"][-1].get("summary") if scan["contents"] else scan.get("error")
        print(f"AIOps scan: {summary}")
        print("  " + _line("aiops", scan["sessionId"], scan["runId"], trace, base_url))
    print("every trace matched its run" if not mismatches else f"{mismatches} trace(s) did NOT match")
    return 0 if not mismatches else 1
