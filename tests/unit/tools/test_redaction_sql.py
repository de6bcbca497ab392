"""SQL rows are masked by column name, the statement by its text, and the CLI prints only masked
evidence: a password in a row names nothing a text pattern could catch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.base import Sources
from tools.cli import run_evidence_command
from tools.evidence_store import EvidenceCache, RunEvidence
from tools.limits import ToolLimits
from tools.redaction import REDACTED, masked_rows, sensitive_name
from tools.sql.fixture import SqliteWorldDatasources
from tools.toolbox import Toolbox

ROW_PASSWORD = "plain words Zq9"  # no pattern recognises it: only its column says what it is


@pytest.mark.parametrize(
    "name",
    ["password", "rolpassword", "DB_PASSWORD", "api_key", "apiKey", "client_secret", "auth_token", "pwd"],
)
def test_secret_column_names_are_sensitive(name: str) -> None:
    assert sensitive_name(name)


@pytest.mark.parametrize("name", ["name", "author", "token_count", "keyboard", "status", "amount"])
def test_ordinary_column_names_are_not(name: str) -> None:
    assert not sensitive_name(name)


def test_masked_rows_hide_every_value_of_a_sensitive_column_but_null() -> None:
    rows = masked_rows(["name", "password", "note"], [("a", "x1", "n"), ("b", None, "m"), ("c",)])
    assert rows == [["a", REDACTED, "n"], ["b", None, "m"], ["c"]]


def test_token_counts_stay_and_tokens_in_a_tokens_column_do_not() -> None:
    rows = masked_rows(["max_tokens", "api_tokens", "pin_password"], [(2048, "tok-1,tok-2", 1234)])
    assert rows == [[2048, REDACTED, REDACTED]]


@pytest.fixture
def sources(tmp_path: Path) -> Sources:
    (tmp_path / "vault.sql").write_text(
        "CREATE TABLE accounts (name TEXT, password TEXT, api_key TEXT, tokens INT);\n"
        f"INSERT INTO accounts VALUES ('svc', '{ROW_PASSWORD}', 'k-Zq9-key', 42);\n",
        encoding="utf-8",
    )
    return Sources(sql=SqliteWorldDatasources(tmp_path))


async def test_query_results_are_masked_in_data_summary_and_query(sources: Sources) -> None:
    toolbox = Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))
    statement = "SELECT * FROM accounts WHERE password <> 'guess Zq9-literal' OR name = 'svc'"
    evidence = await toolbox.call(
        "query_mysql", {"datasource": "vault", "statement": statement}, RunEvidence(budget_bytes=1_000_000)
    )
    assert evidence.data["rows"] == [["svc", REDACTED, REDACTED, 42]]
    shown = json.dumps([evidence.summary, evidence.title, evidence.data, evidence.query])
    assert "Zq9" not in shown
    assert "tokens=42" in evidence.summary and "name=svc" in evidence.summary


async def test_the_evidence_command_prints_masked_rows(sources: Sources) -> None:
    args = {"datasource": "vault", "statement": "SELECT name, password FROM accounts"}
    toolbox = Toolbox(sources, ToolLimits(), EvidenceCache(ttl_s=30, capacity=16))
    text = await run_evidence_command(toolbox, "query_mysql", args)
    assert json.loads(text)["data"]["rows"] == [["svc", REDACTED]]
    assert "Zq9" not in text
