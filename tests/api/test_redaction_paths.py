"""Secrets in a world's log lines and SQL rows never reach the SSE stream, the stored trace or the
server log, even at DEBUG (the issue's reproductions, driven through the app with the rule-based
analyst, on the contract world plus a log line and a SQL table that hold secrets)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from api.logs import QUIET_AT_DEBUG, configure_logging
from tests.api.conftest import MakeClient
from tests.support.sse import only, post_stream
from tests.support.world_builder import build_contract_world

# Each secret is unique, so finding any part of one anywhere is a leak.
LOG_PASSWORD = "Hunter 2 Zq9-log-pw"
ROW_PASSWORD = "Zq9-row-password"
ROW_DSN_PASSWORD = "Zq9-dsn-pw"
ROW_ENV_PASSWORD = "Zq9-env-pw"
SCRAM_BODY = "c2FsdFpxOXNhbHQ=$c3RvcmVkWnE5a2V5:c2VydmVyWnE5a2V5"
REQUEST_TOKEN = "Zq9RequestToken12345"
SECRETS = (
    LOG_PASSWORD,
    "Zq9-log-pw",
    ROW_PASSWORD,
    ROW_DSN_PASSWORD,
    ROW_ENV_PASSWORD,
    SCRAM_BODY,
    REQUEST_TOKEN,
)


@pytest.fixture
def secret_world(tmp_path: Path) -> Path:
    world = build_contract_world(tmp_path / "world", datetime.now(UTC) - timedelta(days=1))
    line = {
        "ts": (world.now - timedelta(minutes=3)).isoformat().replace("+00:00", "Z"),
        "service": "ledger",
        "level": "error",
        "message": f'ledger auth rejected payload {{"user": "svc", "password": "{LOG_PASSWORD}"}}',
        "context": {"thread": "main"},
        "host": "ledger-2",
    }
    with (world.path / "logs.jsonl").open("a", encoding="utf-8") as logs:
        logs.write(json.dumps(line) + "\n")
    (world.path / "sql").mkdir()
    (world.path / "sql" / "ledgerdb.sql").write_text(
        "CREATE TABLE service_accounts (name TEXT, password TEXT, note TEXT);\n"
        f"INSERT INTO service_accounts VALUES ('svc', '{ROW_PASSWORD}', "
        f"'dsn postgresql://svc:{ROW_DSN_PASSWORD}@ledger-db/ledger');\n"
        f"INSERT INTO service_accounts VALUES ('batch', NULL, 'env DB_PASSWORD={ROW_ENV_PASSWORD}');\n"
        "CREATE TABLE roles (rolname TEXT, hash TEXT);\n"
        f"INSERT INTO roles VALUES ('ledger_app', 'SCRAM-SHA-256$4096:{SCRAM_BODY}');\n",
        encoding="utf-8",
    )
    return world.path


@pytest.fixture
def debug_server_logging() -> Iterator[None]:
    """The logging `superbiz serve` sets up at SUPERBIZ_LOG_LEVEL=DEBUG, undone afterwards."""
    root = logging.getLogger()
    names = ("uvicorn.access", "httpx", "alembic.runtime.plugins", "drain3", *QUIET_AT_DEBUG)
    saved = root.handlers[:], root.level, logging.getLogRecordFactory()
    levels = {name: logging.getLogger(name).level for name in names}
    configure_logging("DEBUG")
    try:
        yield
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.setLogRecordFactory(saved[2])
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def _assert_no_secret(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} reached {where}"


async def test_secrets_in_log_lines_and_sql_rows_reach_neither_the_stream_nor_the_trace_nor_the_log(
    make_client: MakeClient,
    secret_world: Path,
    debug_server_logging: None,
    caplog: pytest.LogCaptureFixture,
    app_database_url: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    # An operator who also turns SQLAlchemy's statement logging on (it stays at WARNING by itself).
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")
    settings = {"world_dir": str(secret_world), "log_level": "DEBUG", "database_url": app_database_url}
    async with make_client(**settings) as (_app, client):
        question = f"why is ledger slow? client sends access_token={REQUEST_TOKEN}"
        frames = await post_stream(client, "/api/chat", {"query": question})
        meta = only(frames, "metadata")
        trace = await client.get(
            f"/api/diagnosis/{meta['session_id']}/trace", params={"runId": meta["run_id"]}
        )
    assert trace.status_code == 200
    data = trace.json()["data"]
    content = only(frames, "content")

    # The secrets were on the run's path: the rows and the log line were read and shown masked.
    tools = data["toolInvocations"]
    sql = [t for t in tools if t["tool"] == "query_mysql" and "service_accounts" in t["argsSummary"]]
    assert sql and "password=[REDACTED]" in sql[0]["resultSummary"]
    released = json.dumps(content)
    assert 'payload {\\"user\\": \\"svc\\", \\"password\\": \\"[REDACTED]\\"}' in released
    assert "SCRAM-SHA-256$[REDACTED]" in released and "postgresql://svc:[REDACTED]@ledger-db" in released
    # Masked values cited in the answer are no secret to the semantic guard: the diagnosis is released.
    assert only(frames, "done") == {"outcome": "SUCCESS"}

    _assert_no_secret("the SSE content", json.dumps(content))
    _assert_no_secret("the SSE stream", json.dumps(frames))
    for part in ("steps", "toolInvocations", "answer", "selfEvaluation"):
        _assert_no_secret(f"the trace's {part}", json.dumps(data[part]))
    _assert_no_secret("the stored run", json.dumps({k: v for k, v in data["run"].items() if k != "query"}))
    _assert_no_secret("the server log", caplog.text)
    statements = [r for r in caplog.records if r.name.startswith("sqlalchemy.engine")]
    assert any("INSERT INTO diagnosis_run" in r.getMessage() for r in statements)
    assert any("parameters hidden" in r.getMessage() for r in statements)
