"""`GET /api/diagnosis/{sessionId}/report.md?runId=`: a run's released report as Markdown.

The same ownership rule as the trace (`OwnedRun`): another principal's session is a missing one. The
Markdown is rendered from the stored typed payload (`graph.report_markdown`), so it is the same for
runs stored before the payload carried its own `markdown` field.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from api.deps import OwnedRun, RunStoreDep
from api.errors import NotFound, ReportNotAvailable
from graph.report_markdown import report_markdown
from persistence.records import RecordNotFound

router = APIRouter(tags=["runs"])
MARKDOWN_MEDIA_TYPE = "text/markdown; charset=utf-8"


@router.get(
    "/api/diagnosis/{sessionId}/report.md",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
async def run_report_markdown(owned: OwnedRun, runs: RunStoreDep) -> PlainTextResponse:
    """404 NOT_FOUND for an unknown session or run; 404 REPORT_NOT_AVAILABLE while the run has no
    released diagnosis report (running, failed, a short answer)."""
    try:
        trace = await runs.load_trace(session_id=owned.session.session_id, run_id=owned.run_id)
    except RecordNotFound:
        raise NotFound("Run not found in this session.") from None
    markdown = report_markdown(trace.answer)
    if markdown is None:
        raise ReportNotAvailable()
    return PlainTextResponse(markdown, media_type=MARKDOWN_MEDIA_TYPE)
