"""SemanticGuard on plain drafts: leaks and unguarded destructive commands are rejected."""

from __future__ import annotations

import pytest

from graph.analysts.base import Draft, Finding, Recommendation
from graph.analysts.llm.prompts import PROMPT_LINES
from graph.nodes.semantic_guard.checks import check_release


def _with_action(action: str) -> Draft:
    return Draft(summary="Root cause: payment.", recommendations=[Recommendation(action=action)])


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Use key sk-proj-abcdefghijklmnop1234 to call it.", "secret:openai_key"),
        ("Credentials AKIAABCDEFGHIJKLMNOP were found.", "secret:aws_key"),
        ("Set password=hunter22 in the config.", "secret:assignment"),
        ("Send Authorization: Bearer abcdefghijklmnopqrstuvwx.", "secret:bearer"),
        ("Connect with postgresql://admin:s3cret@db:5432/orders.", "secret:connection_string"),
        ('Traceback (most recent call last):\n  File "x.py", line 3', "internal:python_traceback"),
        ("You are an expert SRE assistant.", "prompt:role_preamble"),
        ("Run DROP TABLE orders; to clean up.", "destructive:unguarded_command"),
        ("Just rm -rf /var/lib/data and restart.", "destructive:unguarded_command"),
        ("kubectl delete pod payment-0", "destructive:unguarded_command"),
    ],
)
def test_semantic_guard_rejects(text: str, code: str) -> None:
    verdict = check_release(_with_action(text), PROMPT_LINES)
    assert not verdict.ok
    assert verdict.reason == code


def test_semantic_guard_rejects_verbatim_prompt_text() -> None:
    line = next(line for line in PROMPT_LINES if len(line) > 60)
    draft = Draft(summary="ok", findings=[Finding(statement=line, evidence_ids=["a-1"])])
    assert check_release(draft, PROMPT_LINES).reason == "prompt:verbatim"


def test_semantic_guard_allows_destructive_command_with_warning() -> None:
    action = "Warning: irreversible. Only after a backup, run TRUNCATE TABLE sessions_tmp."
    assert check_release(_with_action(action), PROMPT_LINES).ok


def test_semantic_guard_allows_quoted_error_messages() -> None:
    draft = Draft(
        summary="payment errors",
        findings=[
            Finding(
                statement='payment logged "CannotGetJdbcConnectionException: Failed to obtain a Connection".',
                evidence_ids=["logs-1"],
            )
        ],
    )
    assert check_release(draft, PROMPT_LINES).ok


@pytest.mark.parametrize(
    "statement",
    [
        "ledgerdb row: name=svc, password=[REDACTED], note=dsn postgresql://svc:[REDACTED]@ledger-db/x",
        'ledger logged auth rejected payload {"password": "[REDACTED]"}',
        "a key file -----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY----- was logged",
    ],
)
def test_semantic_guard_allows_secrets_the_evidence_boundary_masked(statement: str) -> None:
    draft = Draft(summary="ledger", findings=[Finding(statement=statement, evidence_ids=["sql-1"])])
    assert check_release(draft, PROMPT_LINES).ok
