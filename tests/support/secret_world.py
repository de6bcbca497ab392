"""A world whose log line and SQL rows hold secrets: the contract world plus a JSON password in a
ledger error line and a `ledgerdb` datasource with password, DSN, env and SCRAM values."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.world_builder import build_contract_world

# Each secret is unique, so finding any part of one anywhere is a leak.
LOG_PASSWORD = "Hunter 2 Zq9-log-pw"
ROW_PASSWORD = "Zq9-row-password"
ROW_DSN_PASSWORD = "Zq9-dsn-pw"
ROW_ENV_PASSWORD = "Zq9-env-pw"
SCRAM_BODY = "c2FsdFpxOXNhbHQ=$c3RvcmVkWnE5a2V5:c2VydmVyWnE5a2V5"
SECRETS = (LOG_PASSWORD, "Zq9-log-pw", ROW_PASSWORD, ROW_DSN_PASSWORD, ROW_ENV_PASSWORD, SCRAM_BODY)


def build_secret_world(directory: Path) -> Path:
    """Write the world (frozen a day ago) into `directory` and return it."""
    world = build_contract_world(directory, datetime.now(UTC) - timedelta(days=1))
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
