"""SemanticGuard: released text holds no secrets, internal errors, prompt text or unguarded destructive
commands.

Pure and deterministic. A rejection carries an internal reason code that is stored, never streamed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graph.analysts.base import Draft

# A value the evidence boundary masked already (`password=[REDACTED]`) is no secret to hold back.
_NOT_MASKED = r"(?![\"']?\[REDACTED\])"

SECRET_PATTERNS: Sequence[tuple[str, re.Pattern[str]]] = (
    ("secret:openai_key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")),
    ("secret:aws_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("secret:github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}")),
    ("secret:slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("secret:private_key", re.compile(rf"-----BEGIN [A-Z ]*PRIVATE KEY-----{_NOT_MASKED}")),
    ("secret:bearer", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}")),
    ("secret:jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    (
        "secret:assignment",
        re.compile(
            r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
            rf"\s*[=:]\s*{_NOT_MASKED}[^\s,;]{{3,}}"
        ),
    ),
    ("secret:connection_string", re.compile(rf"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:{_NOT_MASKED}[^\s@/]+@")),
)

INTERNAL_PATTERNS: Sequence[tuple[str, re.Pattern[str]]] = (
    ("internal:python_traceback", re.compile(r"Traceback \(most recent call last\)")),
    ("internal:python_frame", re.compile(r"File \"[^\"]+\", line \d+")),
    ("internal:java_frame", re.compile(r"\n\s*at [\w.$]+\([\w.]+\.(?:java|kt|scala):\d+\)")),
    ("internal:object_repr", re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>")),
    ("internal:validation_error", re.compile(r"\d+ validation errors? for \w+")),
)

PROMPT_PATTERNS: Sequence[tuple[str, re.Pattern[str]]] = (
    (
        "prompt:role_preamble",
        re.compile(r"(?i)\byou are an? (?:\w+ ){0,3}(?:assistant|analyst|agent|sre)\b"),
    ),
    (
        "prompt:instructions",
        re.compile(r"(?i)\b(?:system prompt|ignore (?:all )?previous instructions)\b"),
    ),
)

DESTRUCTIVE = re.compile(
    r"(?i)\b(?:drop\s+(?:table|database|schema|index)|truncate\s+(?:table\s+)?\w+|delete\s+from\s+\w+"
    r"|rm\s+-(?:rf|fr|r)\b|kubectl\s+delete|docker\s+(?:system\s+)?prune|mkfs(?:\.\w+)?|"
    r"dd\s+if=|flushall|flushdb|shutdown\s+-h|terraform\s+destroy|helm\s+uninstall)"
)
WARNING = re.compile(
    r"(?i)\b(?:warning|caution|destructive|irreversible|data loss|back ?up|snapshot|"
    r"only after|make sure|confirm|dry[- ]run|do not run)\b"
)


@dataclass(frozen=True, slots=True)
class SemanticVerdict:
    ok: bool
    reason: str | None = None  # internal code, never shown to a client

    def report(self) -> dict[str, object]:
        return {"passed": self.ok, "reason": self.reason}


def released_texts(draft: Draft) -> list[str]:
    """Every piece of text that would reach a reader if the draft were released."""
    texts = [draft.summary, *draft.open_questions]
    texts += [finding.statement for finding in draft.findings]
    texts += [f"{item.service} {item.reason}" for item in draft.ruled_out]
    texts += [f"{rec.action} {rec.runbook or ''}" for rec in draft.recommendations]
    if draft.root_cause is not None:
        texts += [draft.root_cause.service, draft.root_cause.category, draft.root_cause.statement]
    return texts


def check_release(draft: Draft, prompt_lines: Iterable[str] = ()) -> SemanticVerdict:
    """Reject a draft whose released text leaks something or advises an unguarded destructive command."""
    prompt_lines = [line.lower() for line in prompt_lines if len(line) >= 40]
    for text in released_texts(draft):
        for code, pattern in (*SECRET_PATTERNS, *INTERNAL_PATTERNS, *PROMPT_PATTERNS):
            if pattern.search(text):
                return SemanticVerdict(False, code)
        lowered = text.lower()
        if any(line in lowered for line in prompt_lines):
            return SemanticVerdict(False, "prompt:verbatim")
        if DESTRUCTIVE.search(text) and not WARNING.search(text):
            return SemanticVerdict(False, "destructive:unguarded_command")
    return SemanticVerdict(True)
