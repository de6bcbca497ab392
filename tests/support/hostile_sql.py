"""The hostile-SQL corpus (tests/data/hostile_sql/corpus.yaml), loaded and validated, with its
placeholders filled for a given target."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from tools.sql.lexical import Dialect

CORPUS_PATH = Path(__file__).resolve().parents[1] / "data" / "hostile_sql" / "corpus.yaml"
PLACEHOLDERS = ("secret_file", "out_file", "canary_pid", "canary_app", "lock_key", "lock_name", "dsn")


class CorpusEntry(BaseModel):
    """One statement, the dialects it is tried in, the guard's verdict and what it would do."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sql: str = Field(min_length=1)
    dialects: tuple[Dialect, ...] = Field(min_length=1)
    expect: Literal["refuse", "allow"]
    effect: str = Field(min_length=1)
    note: str | None = None


def load_corpus() -> list[CorpusEntry]:
    raw = yaml.safe_load(CORPUS_PATH.read_text(encoding="utf-8"))
    return [CorpusEntry.model_validate(item) for item in raw]


def entries_for(dialect: Dialect) -> list[CorpusEntry]:
    return [entry for entry in load_corpus() if dialect in entry.dialects]


def fill(sql: str, values: dict[str, str]) -> str:
    """`sql` with each `{name}` placeholder replaced (plain replacement: SQL has its own braces)."""
    for name in PLACEHOLDERS:
        sql = sql.replace("{" + name + "}", values.get(name, ""))
    return sql


# Values for checks that never reach a database.
OFFLINE_VALUES = {
    "secret_file": "/tmp/sb_secret.txt",
    "out_file": "/tmp/sb_out.txt",
    "canary_pid": "4242",
    "canary_app": "sb_canary",
    "lock_key": "424242",
    "lock_name": "sb_lock",
    "dsn": "host=127.0.0.1 dbname=sb user=postgres",
}
