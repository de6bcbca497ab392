"""The released report as Markdown: in the content payload and at report.md, matching the typed fields."""

from __future__ import annotations

import re
from typing import Any

import httpx

from graph.report_markdown import ReleasedReport, render_markdown
from tests.api.conftest import MakeClient
from tests.support.sse import only, post_stream

ALICE = {"Authorization": "Bearer alice-token-123"}
BOB = {"Authorization": "Bearer bob-token-4567"}
TOKENS = "alice:alice-token-123,bob:bob-token-4567"


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def sections(markdown: str) -> dict[str, list[str]]:
    """`## Heading` → its non-empty lines, unescaped (the head of the document under "")."""
    found: dict[str, list[str]] = {"": []}
    current = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = line[3:]
            found[current] = []
        elif line.strip() and not line.startswith("# "):
            found[current].append(line)
    return found


def assert_consistent(markdown: str, payload: dict[str, Any]) -> None:
    """Every typed field is in its section, in order, with its evidence ids; nothing else is."""
    parts = sections(markdown)
    assert _unescape(parts[""][0]) == " ".join(payload["summary"].split())
    if payload.get("verdict"):
        assert f"**Verdict:** {payload['verdict']}" in parts[""]
    root = payload.get("root_cause")
    assert ("Root cause" in parts) == (root is not None)
    if root is not None:
        lines = [_unescape(line) for line in parts["Root cause"]]
        assert lines[:3] == [
            f"- **Service:** {root['service']}",
            f"- **Category:** {root['category']}",
            f"- **Confidence:** {root['confidence']:.2f}",
        ]
        assert lines[3] == " ".join(root["statement"].split())
    findings = payload["findings"]
    assert len(parts.get("Findings", [])) == len(findings)
    for n, (line, finding) in enumerate(zip(parts.get("Findings", []), findings, strict=True), 1):
        statement, _, cited = line.rpartition(" (evidence: ")
        assert _unescape(statement) == f"{n}. " + " ".join(finding["statement"].split())
        assert re.findall(r"`([^`]+)`", cited) == finding["evidence_ids"]
    recommendations = [_unescape(line) for line in parts.get("Recommendations", [])]
    assert [line.split(" (runbook: ")[0] for line in recommendations] == [
        "- " + " ".join(r["action"].split()) for r in payload["recommendations"]
    ]
    assert len(parts.get("Ruled out", [])) == len(payload["ruled_out"])
    assert [_unescape(q) for q in parts.get("Open questions", [])] == [
        "- " + " ".join(q.split()) for q in payload["open_questions"]
    ]
    listed = [re.match(r"- `([^`]+)`", line) for line in parts.get("Evidence", [])]
    assert [m.group(1) for m in listed if m] == [e["id"] for e in payload["evidence"]]


async def test_report_markdown_in_payload_and_endpoint_matches_typed_report(make_client: MakeClient) -> None:
    async with make_client(api_tokens=TOKENS) as (_, client):
        client.headers.update(ALICE)
        frames = await post_stream(
            client, "/api/chat", {"sessionId": "md-s", "query": "why is checkout slow?"}
        )
        run_id = only(frames, "metadata")["run_id"]
        content = only(frames, "content")
        assert content["content_type"] == "diagnosis_report"
        payload = content["payload"]
        assert payload["findings"] and payload["root_cause"], "the demo world has a diagnosis"
        markdown = payload["markdown"]
        assert markdown == render_markdown(ReleasedReport.model_validate(payload))
        assert_consistent(markdown, payload)

        response = await client.get("/api/diagnosis/md-s/report.md", params={"runId": run_id})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/markdown")
        assert response.text == markdown

        bob = httpx.AsyncClient(transport=client._transport, base_url="http://test", headers=BOB)
        async with bob:
            stolen = await bob.get("/api/diagnosis/md-s/report.md", params={"runId": run_id})
            assert stolen.status_code == 404 and stolen.json()["code"] == "NOT_FOUND"
            assert "checkout" not in stolen.text
        missing = await client.get("/api/diagnosis/md-s/report.md", params={"runId": "r-missing"})
        assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"
        no_session = await client.get("/api/diagnosis/nope/report.md", params={"runId": run_id})
        assert no_session.status_code == 404 and no_session.json()["code"] == "NOT_FOUND"
        assert (await client.get("/api/diagnosis/md-s/report.md")).status_code == 422


async def test_a_short_answer_has_no_report(make_client: MakeClient) -> None:
    async with make_client() as (_, client):
        frames = await post_stream(client, "/api/chat", {"sessionId": "md-a", "query": "hello"})
        content = only(frames, "content")
        assert content["content_type"] != "diagnosis_report"
        assert "markdown" not in content["payload"]
        run_id = only(frames, "metadata")["run_id"]
        response = await client.get("/api/diagnosis/md-a/report.md", params={"runId": run_id})
        assert response.status_code == 404
        assert response.json()["code"] == "REPORT_NOT_AVAILABLE"


def test_hostile_text_stays_literal_and_every_section_is_consistent() -> None:
    payload: dict[str, Any] = {
        "summary": "Checkout\nfails <script>alert(1)</script>",
        "verdict": "incident",
        "healthy": False,
        "root_cause": {
            "service": "db_main",
            "category": "saturation",
            "statement": "pool | full [x](y)",
            "confidence": 0.8,
        },
        "findings": [
            {"statement": "# not a heading", "evidence_ids": ["ev-1", "ev-2"]},
            {"statement": "no evidence", "evidence_ids": []},
        ],
        "evidence": [
            {"id": "ev-1", "source": "metrics", "tool": "query_metrics", "title": "p99 *up*", "status": "OK"}
        ],
        "recommendations": [{"action": "Raise the pool", "runbook": "db.md"}, {"action": "Page the DBA"}],
        "open_questions": ["Was a deploy made?"],
        "ruled_out": [{"service": "cache", "reason": "hits steady", "evidence_ids": ["ev-1"]}],
        "degraded": False,
    }
    markdown = render_markdown(ReleasedReport.model_validate(payload))
    assert "<script>" not in markdown and "\\<script\\>" in markdown
    assert "\n# not" not in markdown and "[x](y)" not in markdown
    assert "(evidence: no evidence cited)" in markdown
    assert_consistent(markdown, payload)
