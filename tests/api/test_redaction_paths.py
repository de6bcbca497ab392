"""Secrets in a world's log lines and SQL rows never reach the SSE stream, the stored trace or the
server log, even at DEBUG (the issue's reproductions, driven through the app with the rule-based
analyst, on the contract world plus a log line and a SQL table that hold secrets)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.logs import QUIET_AT_DEBUG, configure_logging
from tests.api.conftest import MakeClient
from tests.support.secret_world import SECRETS, build_secret_world
from tests.support.sse import only, post_stream

REQUEST_TOKEN = "Zq9RequestToken12345"


@pytest.fixture
def secret_world(tmp_path: Path) -> Path:
    return build_secret_world(tmp_path / "world")


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
    for secret in (*SECRETS, REQUEST_TOKEN):
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
    # A secret pasted into the question is masked before the run row stores it.
    assert "access_token=[REDACTED]" in data["run"]["query"]
    _assert_no_secret("the stored run", json.dumps(data["run"]))
    _assert_no_secret("the server log", caplog.text)
    statements = [r for r in caplog.records if r.name.startswith("sqlalchemy.engine")]
    assert any("INSERT INTO diagnosis_run" in r.getMessage() for r in statements)
    assert any("parameters hidden" in r.getMessage() for r in statements)
