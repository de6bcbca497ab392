"""The lab's table: scenario, question, verdict, what the answer named, seconds; then each fault's alert;
then the investigations Alertmanager's webhook started."""

from __future__ import annotations

from collections import Counter

from tests.lab.judge import VERDICTS
from tests.lab.run import LabReport


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def render(report: LabReport) -> str:
    lines = [
        "| scenario | question | verdict | named | firing when asked | s |",
        "|---|---|---|---|---|---|",
    ]
    for row in report.rows:
        named = row.judgement.named + (" [monitoring stack]" if row.judgement.blames_monitoring else "")
        lines.append(
            f"| {row.scenario} | {_cell(row.question)} | {row.judgement.verdict} | {_cell(named)} "
            f"| {', '.join(row.firing) or '-'} | {row.answer.seconds:.1f} |"
        )
    lines += [
        "",
        "| fault | kind | alert | fired after s | labels | cleared after s | problem |",
        "|---|---|---|---|---|---|---|",
    ]
    for fault in report.faults:
        labels = ", ".join(f"{k}={v}" for k, v in sorted(fault.labels.items()) if k != "alertname")
        fired = f"{fault.fired_s:.1f}" if fault.fired_s is not None else "-"
        cleared = f"{fault.cleared_s:.1f}" if fault.cleared_s is not None else "-"
        lines.append(
            f"| {fault.scenario} | {fault.kind} | {fault.alert} | {fired} | {_cell(labels)} "
            f"| {cleared} | {_cell(fault.problem)} |"
        )
    lines += [
        "",
        "| investigation Alertmanager started | status | root cause |",
        "|---|---|---|",
    ]
    for investigation in report.investigations:
        root = (investigation.root_cause or "-")[:90]
        lines.append(f"| {_cell(investigation.query[:90])} | {investigation.status} | {_cell(root)} |")
    verdicts = Counter(row.judgement.verdict for row in report.rows)
    summary = ", ".join(f"{name} {verdicts[name]}" for name in VERDICTS)
    lines += [
        "",
        f"{len(report.rows)} questions: {summary}. Stack up in {report.start_s:.0f} s, "
        f"whole lab {report.total_s:.0f} s.",
    ]
    lines += [f"note: {note}" for note in report.notes]
    return "\n".join(lines)
