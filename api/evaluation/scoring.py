"""Scoring of one released answer against a scenario's expectation, and the totals of a result.

Pure functions on plain data (the released `{content_type, payload}` and the run's self-evaluation),
so an outside scorer can recompute every figure from the stored JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tools.world import ScenarioExpectation

SUCCEEDED = frozenset({"OK", "EMPTY"})
_FINDING_LABEL = re.compile(r"^finding (\d+)\b")
# The analyst's older category names and the broad tag (tools.world.CATEGORY_TAGS) each one means,
# so that a devset expectation written in tags judges the failure mode, not the spelling.
LEGACY_CATEGORY_TAGS: Mapping[str, str] = {
    "disk_full": "storage",
    "connection_pool_exhaustion": "connections",
    "memory_leak": "memory",
    "slow_query": "locks",
    "configuration_error": "configuration",
    "cpu_saturation": "cpu",
    "slow_dependency": "latency",
    "bad_deploy": "deploy",
    "unknown": "unclassified",
}
VERDICTS = frozenset({"incident", "healthy", "inconclusive"})
# Payload keys whose strings are not the answer's data: the evidence list names tools and queries.
_NOT_DATA = frozenset({"evidence", "sources"})


def answer_text(content: Mapping[str, Any], *, with_evidence: bool = True) -> str:
    """The released answer as a reader sees it; keywords are matched against this text."""
    payload = content.get("payload") or {}
    lines: list[str] = [str(payload.get("summary") or payload.get("text") or "")]
    root = payload.get("root_cause")
    if root:
        lines.append(f"root cause: {root.get('service')} ({root.get('category')}): {root.get('statement')}")
    lines += [str(f.get("statement", "")) for f in payload.get("findings") or []]
    lines += [str(point) for point in payload.get("points") or []]
    lines += [f"ruled out: {r.get('service')}: {r.get('reason')}" for r in payload.get("ruled_out") or []]
    lines += [str(r.get("action", "")) for r in payload.get("recommendations") or []]
    lines += [str(q) for q in payload.get("open_questions") or []]
    if with_evidence:
        items = evidence_items(payload)
        lines += [f"evidence {e.get('id')} [{e.get('source')}]: {e.get('title')}" for e in items]
    return "\n".join(lines)


def evidence_items(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The evidence list released with the answer (reports: `evidence`, short answers: `sources`)."""
    return [*(payload.get("evidence") or []), *(payload.get("sources") or [])]


def sources_used(payload: Mapping[str, Any]) -> list[str]:
    """Sources that answered (OK or EMPTY) in the released evidence list."""
    return sorted({str(e.get("source")) for e in evidence_items(payload) if e.get("status") in SUCCEEDED})


def sources_failed(payload: Mapping[str, Any]) -> list[str]:
    """Sources that could not answer (unavailable, error, timeout, refused)."""
    return sorted({str(e.get("source")) for e in evidence_items(payload) if e.get("status") not in SUCCEEDED})


def _keywords(text: str, words: Sequence[str]) -> tuple[list[str], list[str]]:
    lowered = text.lower()
    present = [w for w in words if w.lower() in lowered]
    return present, [w for w in words if w.lower() not in lowered]


def unsupported_findings(payload: Mapping[str, Any], self_evaluation: Mapping[str, Any] | None) -> list[int]:
    """1-based numbers of released findings not bound to evidence: citing nothing, citing an id
    not released as succeeded evidence, or named in the final guard report's violations."""
    findings = payload.get("findings") or []
    succeeded = {e.get("id") for e in evidence_items(payload) if e.get("status") in SUCCEEDED}
    flagged: set[int] = set()
    for number, finding in enumerate(findings, 1):
        ids = finding.get("evidence_ids") or []
        if not ids or any(i not in succeeded for i in ids):
            flagged.add(number)
    report = (self_evaluation or {}).get("evidence_guard") or {}
    for violation in report.get("violations") or []:
        match = _FINDING_LABEL.match(str(violation))
        if match and int(match.group(1)) <= len(findings):
            flagged.add(int(match.group(1)))
    return sorted(flagged)


def _unsupported_root_cause(payload: Mapping[str, Any], self_evaluation: Mapping[str, Any] | None) -> int:
    """1 when a root cause was released although the final guard report objects to it."""
    if not payload.get("root_cause"):
        return 0
    report = (self_evaluation or {}).get("evidence_guard") or {}
    objections = [v for v in report.get("violations") or [] if str(v).startswith(("root cause", "summary"))]
    return 1 if objections else 0


def _same(actual: Any, expected: str) -> bool:
    return isinstance(actual, str) and actual.strip().lower() == expected.strip().lower()


def category_matches(actual: Any, expected: str) -> bool:
    """The same category, or an older category name that means the expected broad tag."""
    if _same(actual, expected):
        return True
    return isinstance(actual, str) and _same(LEGACY_CATEGORY_TAGS.get(actual.strip().lower()), expected)


def released_verdict(content: Mapping[str, Any]) -> str | None:
    """The answer's verdict: its own `verdict` field, else derived from a diagnosis report (healthy
    with no root cause: healthy; otherwise incident); None for an answer that gives none."""
    payload = content.get("payload") or {}
    verdict = payload.get("verdict")
    if isinstance(verdict, str) and verdict.strip().lower() in VERDICTS:
        return verdict.strip().lower()
    if content.get("content_type") != "diagnosis_report":
        return None
    return "healthy" if payload.get("healthy") is True and not payload.get("root_cause") else "incident"


def data_text(content: Mapping[str, Any]) -> str:
    """Every string of the released payload (rows, cells, summary, findings) except the evidence list."""
    parts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if key not in _NOT_DATA:
                    walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(str(value))

    walk(content.get("payload") or {})
    return "\n".join(parts)


def score_answer(
    expect: ScenarioExpectation,
    content: Mapping[str, Any],
    self_evaluation: Mapping[str, Any] | None,
    *,
    max_confidence: float | None = None,
    unavailable_sources: Sequence[str] = (),
    route: str | None = None,
) -> dict[str, Any]:
    """Every per-scenario figure of one released answer; a figure not asked for is None."""
    payload = content.get("payload") or {}
    root = payload.get("root_cause") or {}
    text = answer_text(content)
    _, missing = _keywords(text, expect.keywords_all)
    forbidden, _ = _keywords(text, expect.keywords_none)
    used = sources_used(payload)
    findings = payload.get("findings") or []
    unsupported = unsupported_findings(payload, self_evaluation)
    says_healthy = payload.get("healthy") is True and not root
    confidence = root.get("confidence") if root else None
    data = data_text(content)
    data_missing = [s for s in expect.data_contains if s.lower() not in data.lower()]
    data_forbidden = [s for s in expect.data_none if s.lower() in data.lower()]
    return {
        "root_cause_service_hit": _same(root.get("service"), expect.root_cause_service)
        if expect.root_cause_service
        else None,
        "category_hit": category_matches(root.get("category"), expect.category) if expect.category else None,
        "keywords_all_present": not missing if expect.keywords_all else None,
        "keywords_missing": missing,
        "keywords_none_absent": not forbidden if expect.keywords_none else None,
        "keywords_forbidden_found": forbidden,
        "evidence_sources_used": used,
        "evidence_sources_failed": sources_failed(payload),
        "evidence_sources_hit": set(expect.evidence_sources) <= set(used)
        if expect.evidence_sources
        else None,
        "guard_bound_share": round(1 - len(unsupported) / len(findings), 3) if findings else None,
        "unsupported_claims_released": len(unsupported) + _unsupported_root_cause(payload, self_evaluation),
        "expect_healthy": expected_healthy(expect),
        "healthy_correct": _healthy_correct(expected_healthy(expect), says_healthy, payload),
        "unavailable_sources_reported": _reports_unavailable(content, unavailable_sources)
        if unavailable_sources
        else None,
        "verdict": released_verdict(content),
        "verdict_hit": released_verdict(content) == expect.verdict if expect.verdict else None,
        "route_hit": route == expect.route if expect.route else None,
        "data_contains_present": not data_missing if expect.data_contains else None,
        "data_missing": data_missing,
        "data_none_absent": not data_forbidden if expect.data_none else None,
        "data_forbidden_found": data_forbidden,
        "confidence": confidence,
        "confidence_within_cap": (confidence is None or confidence <= max_confidence)
        if max_confidence is not None
        else None,
    }


def _reports_unavailable(content: Mapping[str, Any], sources: Sequence[str]) -> bool:
    """Each source is listed as failed evidence and named in the answer's own words."""
    failed = set(sources_failed(content.get("payload") or {}))
    narrative = answer_text(content, with_evidence=False).lower()
    return all(source in failed and source.lower() in narrative for source in sources)


def expected_healthy(expect: ScenarioExpectation) -> bool | None:
    """Healthy as declared; a scenario naming a root-cause service is implicitly not healthy."""
    if expect.healthy is not None:
        return expect.healthy
    return False if expect.root_cause_service else None


def _healthy_correct(expected: bool | None, says_healthy: bool, payload: Mapping[str, Any]) -> bool | None:
    if expected is None:
        return None
    if expected:
        return says_healthy
    # A fault scenario is answered wrongly when the report claims everything is fine.
    return payload.get("healthy") is not True


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def totals(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregate figures over every scenario entry of a result."""
    faults = [e for e in entries if e.get("root_cause_service_hit") is not None]
    categories = [e for e in entries if e.get("category_hit") is not None]
    verdicts = [e for e in entries if e.get("verdict_hit") is not None]
    routes = [e for e in entries if e.get("route_hit") is not None]
    data = [e for e in entries if e.get("data_contains_present") is not None]
    healthy = [e for e in entries if e.get("expect_healthy") is True]
    shares = [e["guard_bound_share"] for e in entries if e.get("guard_bound_share") is not None]
    service_hits = sum(1 for e in faults if e["root_cause_service_hit"])
    category_hits = sum(1 for e in categories if e["category_hit"])
    return {
        "scenarios": len(entries),
        "errors": sum(1 for e in entries if e.get("outcome") == "FAILED"),
        "fallbacks": sum(1 for e in entries if e.get("outcome") == "FALLBACK"),
        "fault_scenarios": len(faults),
        "root_cause_service_hits": service_hits,
        "root_cause_hit_rate": _rate(service_hits, len(faults)),
        "category_scenarios": len(categories),
        "category_hits": category_hits,
        "category_hit_rate": _rate(category_hits, len(categories)),
        "healthy_scenarios": len(healthy),
        "healthy_correct": sum(1 for e in healthy if e.get("healthy_correct")),
        "verdict_scenarios": len(verdicts),
        "verdict_hits": sum(1 for e in verdicts if e["verdict_hit"]),
        "route_scenarios": len(routes),
        "route_hits": sum(1 for e in routes if e["route_hit"]),
        "data_scenarios": len(data),
        "data_hits": sum(1 for e in data if e["data_contains_present"]),
        "data_none_failed": sum(1 for e in entries if e.get("data_none_absent") is False),
        "keywords_all_failed": sum(1 for e in entries if e.get("keywords_all_present") is False),
        "keywords_none_failed": sum(1 for e in entries if e.get("keywords_none_absent") is False),
        "unavailable_sources_unreported": sum(
            1 for e in entries if e.get("unavailable_sources_reported") is False
        ),
        "evidence_sources_missed": sum(1 for e in entries if e.get("evidence_sources_hit") is False),
        "unsupported_claims_released": sum(int(e.get("unsupported_claims_released") or 0) for e in entries),
        "mean_guard_bound_share": round(sum(shares) / len(shares), 3) if shares else None,
        "repairs": sum(int(e.get("repairs") or 0) for e in entries),
        "model_calls": sum(int(e.get("model_calls") or 0) for e in entries),
        "tool_calls": sum(int(e.get("tool_calls") or 0) for e in entries),
        "tokens": sum(int(e.get("tokens") or 0) for e in entries),
        "wall_ms": round(sum(float(e.get("wall_ms") or 0) for e in entries), 1),
    }
