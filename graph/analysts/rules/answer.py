"""Rule-based short answers: greetings, and how-to questions answered from runbook passages."""

from __future__ import annotations

from graph.analysts.base import DiagnoseRequest, Draft, Finding, Recommendation

GREETING_REPLY = (
    "Hello! Ask me why a service is slow, failing or alerting, and I will gather alerts, metrics, "
    "logs and runbooks to diagnose it."
)
MAX_PASSAGES = 3


def answer_question(request: DiagnoseRequest) -> Draft:
    """Greetings get a fixed reply; other short questions get the best runbook passages, cited."""
    if request.route.intent == "greeting":
        return Draft(kind="answer", summary=GREETING_REPLY)
    passages = request.digest.runbooks[:MAX_PASSAGES]
    if not passages:
        return Draft(
            kind="answer",
            summary="I found no runbook that answers this question.",
            open_questions=["Which service or procedure do you mean?"],
        )
    best = passages[0]
    return Draft(
        kind="answer",
        summary=f"The runbook {best.file} covers this under '{best.heading}'.",
        findings=[
            Finding(statement=f"{p.file}, {p.heading}: {p.excerpt}", evidence_ids=[p.evidence_id])
            for p in passages
        ],
        recommendations=[Recommendation(action=f"Read '{p.heading}'.", runbook=p.file) for p in passages[:1]],
    )
