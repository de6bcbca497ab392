"""The read-only statement guard: hostile inputs refused in every dialect, plain reads allowed."""

from __future__ import annotations

import pytest

from tools.sql.guard import check_read_only
from tools.sql.lexical import Dialect

DIALECTS: tuple[Dialect, ...] = ("mysql", "postgres", "sqlite")

HOSTILE = [
    "DELETE FROM orders",
    "delete from orders where 1=1",
    "UPDATE orders SET amount = 0",
    "uPdAtE orders SeT amount = 0",
    "INSERT INTO orders VALUES (1, 'x', 2)",
    "REPLACE INTO orders VALUES (1, 'x', 2)",
    "MERGE INTO orders USING other ON orders.id = other.id WHEN MATCHED THEN DELETE",
    "DROP TABLE orders",
    "TRUNCATE TABLE orders",
    "ALTER TABLE orders ADD COLUMN x INT",
    "CREATE TABLE x AS SELECT * FROM orders",
    "GRANT ALL ON orders TO public",
    "SELECT 1; DELETE FROM orders",
    "SELECT 1;DROP TABLE orders;",
    "SELECT 1 --1; DELETE FROM orders",
    "SELECT 1 /*!; DELETE FROM orders */",
    "SELECT 1 /*M!100000 ; DELETE FROM orders */",
    "SELECT 1 # comment\n; DELETE FROM orders",
    "SELECT /* hidden */ 1",
    "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
    "WITH u AS (UPDATE orders SET amount = 0 RETURNING id) SELECT count(*) FROM u",
    "SELECT * FROM orders FOR UPDATE",
    "select * from orders for share",
    "SELECT * FROM orders FOR NO KEY UPDATE",
    "SELECT * FROM orders LOCK IN SHARE MODE",
    "SELECT * INTO backup FROM orders",
    "SELECT * FROM orders INTO OUTFILE '/tmp/orders.csv'",
    "SELECT * FROM orders INTO DUMPFILE '/tmp/x'",
    "SELECT 1 INTO @a",
    "SELECT SLEEP(100)",
    "SELECT sleep (100)",
    "SELECT BENCHMARK(100000000, MD5('x'))",
    "SELECT LOAD_FILE('/etc/passwd')",
    "SELECT pg_sleep(100)",
    "SELECT pg_catalog.pg_sleep(100)",
    'SELECT "pg_sleep"(100)',
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT * FROM dblink('host=evil', 'select 1') AS t(a int)",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT nextval('orders_id_seq')",
    "SELECT setval('orders_id_seq', 1)",
    "SELECT pg_terminate_backend(42)",
    "SELECT get_lock('x', 100)",
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT query_to_xml('delete from orders', true, true, '')",
    "EXPLAIN ANALYZE DELETE FROM orders",
    "EXPLAIN DELETE FROM orders",
    "EXPLAIN ANALYZE SELECT * FROM orders",
    "SET SESSION TRANSACTION READ WRITE",
    "PRAGMA query_only = OFF",
    "ATTACH DATABASE '/tmp/x.db' AS x",
    "COPY orders TO '/tmp/orders.csv'",
    "LOAD DATA INFILE '/etc/passwd' INTO TABLE orders",
    "CALL refresh_orders()",
    "DO sleep(5)",
    "HANDLER orders OPEN",
    "COMMIT",
    "BEGIN; DELETE FROM orders; COMMIT",
    "SELECT 'unterminated",
    "SELECT 1\x00; DELETE FROM orders",
    "",
    "   ;  ",
]

READS = [
    "SELECT 1",
    "select status, count(*) from orders group by status order by 2 desc",
    "SELECT * FROM orders WHERE note = 'a; DELETE FROM orders -- /* */'",
    "WITH recent AS (SELECT * FROM orders WHERE id > 10) SELECT count(*) FROM recent",
    "SELECT id FROM orders UNION ALL SELECT id FROM refunds",
    "SELECT * FROM orders WHERE status LIKE '%sleep(%';",
    "EXPLAIN SELECT * FROM orders",
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("statement", HOSTILE)
def test_guard_refuses_hostile_statement(statement: str, dialect: Dialect) -> None:
    verdict = check_read_only(statement, dialect=dialect)
    assert not verdict.allowed
    assert verdict.reason.startswith("Statement refused:")


def test_hostile_table_is_large_enough() -> None:
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("statement", READS)
def test_guard_allows_plain_reads(statement: str, dialect: Dialect) -> None:
    verdict = check_read_only(statement, dialect=dialect)
    assert verdict.allowed, verdict.reason


@pytest.mark.parametrize(
    ("statement", "dialect", "kind"),
    [
        ("SHOW TABLES", "mysql", "show"),
        ("SHOW PROCESSLIST", "mysql", "show"),
        ("SHOW max_connections", "postgres", "show"),
        ("DESCRIBE orders", "mysql", "describe"),
        ("DESC orders", "mysql", "describe"),
        ("EXPLAIN SELECT 1", "postgres", "explain"),
        ("EXPLAIN QUERY PLAN SELECT 1", "sqlite", "explain"),
    ],
)
def test_guard_names_the_read_kind(statement: str, dialect: Dialect, kind: str) -> None:
    verdict = check_read_only(statement, dialect=dialect)
    assert verdict.allowed
    assert verdict.kind == kind


def test_show_is_refused_on_sqlite() -> None:
    assert not check_read_only("SHOW TABLES", dialect="sqlite").allowed


def test_refusal_reason_does_not_echo_the_statement() -> None:
    verdict = check_read_only("DELETE FROM secret_table_name", dialect="mysql")
    assert "secret_table_name" not in verdict.reason
