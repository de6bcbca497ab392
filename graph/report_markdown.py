"""The released diagnosis report as Markdown, for a ticket or a chat: a pure function of the typed report.

`ReleasedReport` reads the payload the composer (or the fallback) released; `render_markdown` writes
it section by section, in the order an on-call engineer reads it. Every piece of text comes from the
payload: nothing is added that the guards did not pass. Text is escaped so that evidence quoting
Markdown or HTML (`<script>`, `[x](y)`, `|`) stays literal wherever the Markdown is pasted.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graph.analysts.base import Finding, Recommendation, RootCause, RuledOut

REPORT_CONTENT_TYPE = "diagnosis_report"
MARKDOWN_FIELD = "markdown"
_MAX_EVIDENCE_LINES = 50  # the payload lists at most this many already (composer.render)
_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ReportEvidence(_Part):
    id: str
    source: str = ""
    tool: str = ""
    title: str = ""
    status: str = ""


class ReleasedReport(_Part):
    """The typed view of a released `diagnosis_report` payload (older payloads lack `verdict`)."""

    summary: str
    verdict: str | None = None
    healthy: bool | None = None
    root_cause: RootCause | None = None
    findings: list[Finding] = Field(default_factory=list)
    evidence: list[ReportEvidence] = Field(default_factory=list)
    recommendations: list[Recommendation] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    ruled_out: list[RuledOut] = Field(default_factory=list)
    degraded: bool = False


def escape(text: str) -> str:
    """One line of literal text: Markdown specials escaped, line breaks folded to spaces."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _ids(ids: list[str]) -> str:
    return ", ".join(f"`{i.replace('`', '')}`" for i in ids) if ids else "no evidence cited"


def render_markdown(report: ReleasedReport) -> str:
    """The report as Markdown: heading, verdict, root cause, findings, recommendations, ruled out,
    open questions, evidence; a section is left out when the report has nothing for it."""
    lines = ["# Diagnosis report", "", escape(report.summary), ""]
    if report.verdict:
        lines += [f"**Verdict:** {escape(report.verdict)}", ""]
    if report.degraded:
        lines += ["> Degraded: no verified diagnosis; the evidence is listed for manual review.", ""]
    if report.root_cause is not None:
        root = report.root_cause
        lines += [
            "## Root cause",
            "",
            f"- **Service:** {escape(root.service)}",
            f"- **Category:** {escape(root.category)}",
            f"- **Confidence:** {root.confidence:.2f}",
            "",
            escape(root.statement),
            "",
        ]
    if report.findings:
        lines += ["## Findings", ""]
        lines += [
            f"{n}. {escape(f.statement)} (evidence: {_ids(f.evidence_ids)})"
            for n, f in enumerate(report.findings, 1)
        ]
        lines.append("")
    if report.recommendations:
        lines += ["## Recommendations", ""]
        for rec in report.recommendations:
            runbook = f" (runbook: {escape(rec.runbook)})" if rec.runbook else ""
            lines.append(f"- {escape(rec.action)}{runbook}")
        lines.append("")
    if report.ruled_out:
        lines += ["## Ruled out", ""]
        lines += [
            f"- **{escape(r.service)}**: {escape(r.reason)} (evidence: {_ids(r.evidence_ids)})"
            for r in report.ruled_out
        ]
        lines.append("")
    if report.open_questions:
        lines += ["## Open questions", ""]
        lines += [f"- {escape(question)}" for question in report.open_questions]
        lines.append("")
    if report.evidence:
        lines += ["## Evidence", ""]
        for item in report.evidence[:_MAX_EVIDENCE_LINES]:
            where = f"{escape(item.tool)}, {escape(item.status)}"
            lines.append(f"- `{item.id.replace('`', '')}` {escape(item.title)} ({where})")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def report_markdown(content: Any) -> str | None:
    """The Markdown of a released `{content_type, payload}`, or None when it is not a diagnosis report
    (a short answer, a lookup table) or not a readable one."""
    if not isinstance(content, dict) or content.get("content_type") != REPORT_CONTENT_TYPE:
        return None
    payload = content.get("payload")
    if not isinstance(payload, dict):
        return None
    try:
        return render_markdown(ReleasedReport.model_validate(payload))
    except ValueError:  # pydantic's ValidationError: a stored payload of another shape
        return None


def with_markdown(content: dict[str, Any]) -> dict[str, Any]:
    """`content` with the report's Markdown in the optional payload field `markdown` (other content
    types unchanged)."""
    markdown = report_markdown(content)
    if markdown is None:
        return content
    return {**content, "payload": {**content["payload"], MARKDOWN_FIELD: markdown}}
