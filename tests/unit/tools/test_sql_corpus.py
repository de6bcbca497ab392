"""The read-only guard over the whole hostile-SQL corpus: every expected verdict, no database needed,
and properties: whatever the guard allows calls only allowlisted functions."""

from __future__ import annotations

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from tests.support.hostile_sql import OFFLINE_VALUES, fill, load_corpus
from tools.sql.allowlist import NAMED_FUNCTIONS, TYPED_FUNCTIONS
from tools.sql.guard import check_read_only
from tools.sql.lexical import Dialect
from tools.sql.tree import fold

CORPUS = load_corpus()
CASES = [
    pytest.param(entry.sql, dialect, entry.expect, id=f"{dialect}-{index}")
    for index, entry in enumerate(CORPUS)
    for dialect in entry.dialects
]


def test_corpus_is_large_and_covers_both_verdicts_and_databases() -> None:
    assert len(CORPUS) >= 150
    refused = {dialect for entry in CORPUS if entry.expect == "refuse" for dialect in entry.dialects}
    allowed = {dialect for entry in CORPUS if entry.expect == "allow" for dialect in entry.dialects}
    assert {"postgres", "mysql"} <= refused and {"postgres", "mysql", "sqlite"} <= allowed


@pytest.mark.parametrize(("sql", "dialect", "expect"), CASES)
def test_guard_gives_the_expected_verdict(sql: str, dialect: Dialect, expect: str) -> None:
    verdict = check_read_only(fill(sql, OFFLINE_VALUES), dialect=dialect)
    assert verdict.allowed is (expect == "allow"), verdict.reason
    if not verdict.allowed:
        assert verdict.reason.startswith("Statement refused:")


def _called_functions(sql: str, dialect: Dialect) -> list[str]:
    names = []
    for statement in sqlglot.parse(sql, read=dialect):
        for node in statement.find_all(exp.Func) if statement else ():
            if isinstance(node, exp.Anonymous | exp.AnonymousAggFunc | exp.ParameterizedAgg):
                names.append(fold(node.name))
            else:
                names.append(type(node).__name__)
    return names


_DIALECTS = st.sampled_from(["postgres", "mysql", "sqlite"])
_FUNCTIONS = st.sampled_from(
    ["pg_read_file", "PG_SLEEP", "now", "count", "lo_import", "sleep", "load_file", "upper",
     "dblink_exec", "ts_stat", "coalesce", "version", "get_lock", "txid_current", "repeat"]
)  # fmt: skip
_ARGS = st.sampled_from(["1", "'x'", "id", "NULL", "now()", "pg_sleep(1)", "''", "1 + 2"])
_SHAPES = st.sampled_from(
    ["SELECT {f}({a})", "SELECT * FROM {f}({a}) t", "SELECT id FROM t ORDER BY {f}({a})",
     "SELECT CAST({f}({a}) AS text)", "SELECT x.{f} FROM unnest(array[{a}]) x",
     "SELECT \"{f}\"({a})", "SELECT pg_catalog.{f}({a})", "WITH c AS (SELECT {f}({a}) AS v) SELECT v FROM c",
     "SELECT id FROM t WHERE {f}({a}) IS NULL", "SELECT coalesce({f}({a}), 1)",
     "EXPLAIN SELECT {f}({a})", "SELECT ({a}).{f}"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(shape=_SHAPES, function=_FUNCTIONS, arg=_ARGS, dialect=_DIALECTS)
def test_whatever_is_allowed_calls_only_allowlisted_functions(
    shape: str, function: str, arg: str, dialect: Dialect
) -> None:
    sql = shape.format(f=function, a=arg)
    if not check_read_only(sql, dialect=dialect).allowed:
        return
    body = sql.removeprefix("EXPLAIN ")
    for name in _called_functions(body, dialect):
        assert name in TYPED_FUNCTIONS or name in NAMED_FUNCTIONS[dialect], (sql, name)
