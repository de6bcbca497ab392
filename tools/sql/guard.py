"""The read-only statement check every SQL datasource runs before a statement reaches a database.

Allowed: exactly one SELECT (set operations and CTEs of selects included), SHOW, DESCRIBE/DESC,
or EXPLAIN of such a select. Everything else, and anything that does not parse, is refused.
The database's read-only transaction and statement timeout remain the second line of defence.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from tools.sql.lexical import Dialect, LexicalRefusal, scan

logger = logging.getLogger(__name__)

ReadKind = Literal["select", "show", "describe", "explain"]

# Functions that sleep, touch files, change state or reach other servers, by name or prefix.
DENIED_FUNCTIONS = (
    "sleep|benchmark|load_file|get_lock|release_lock|release_all_locks|is_used_lock"
    "|master_pos_wait|source_pos_wait|wait_for_executed_gtid_set|sys_exec|sys_eval"
    "|pg_sleep\\w*|pg_read_\\w+|pg_ls_\\w+|pg_stat_file|pg_file_\\w+|lo_\\w+|dblink\\w*"
    "|set_config|nextval|setval|txid_current\\w*|pg_current_xact_id\\w*|pg_notify"
    "|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_switch_wal"
    "|pg_create_\\w+|pg_drop_\\w+|pg_logical_\\w+|pg_replication_\\w+|pg_promote"
    "|pg_backup_\\w+|pg_start_backup|pg_stop_backup|pg_advisory_\\w+|pg_try_advisory_\\w+"
    "|pg_import_system_collations|query_to_xml\\w*|table_to_xml\\w*|cursor_to_xml\\w*"
    "|load_extension|readfile|writefile|edit|fts3_tokenizer|zeroblob|randomblob"
)
_DENIED_CALL = re.compile(rf"\b({DENIED_FUNCTIONS})\s*\(", re.IGNORECASE)
_INTO = re.compile(r"\binto\b", re.IGNORECASE)
_LOCKING = re.compile(
    r"\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\block\s+in\s+share\s+mode\b",
    re.IGNORECASE,
)
_SHOW = re.compile(r"^show\s+\w", re.IGNORECASE)
_EXPLAIN = re.compile(
    r"^(explain|describe|desc)\b(\s+query\s+plan\b)?(\s+(extended|partitions|format\s*=\s*\w+))?\s*",
    re.IGNORECASE,
)
_TABLE_NAME = re.compile(r"^[\w.`\"]+(\s+[\w`\"%]+)?$")
_READ_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery)
_FORBIDDEN_NODES: tuple[type[exp.Expr], ...] = (
    exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter,
    exp.TruncateTable, exp.Command, exp.Into, exp.Lock, exp.Set, exp.Transaction, exp.Commit,
    exp.Rollback, exp.Grant, exp.Revoke, exp.Copy, exp.LoadData, exp.Use, exp.Pragma,
    exp.Attach, exp.Detach, exp.Analyze, exp.Kill, exp.Cache, exp.Uncache, exp.Refresh,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class GuardVerdict:
    """Whether a statement may run; `reason` is safe to show a client."""

    allowed: bool
    reason: str
    kind: ReadKind | None = None


def _refuse(reason: str) -> GuardVerdict:
    return GuardVerdict(allowed=False, reason=f"Statement refused: {reason}.")


def check_read_only(statement: str, *, dialect: Dialect) -> GuardVerdict:
    """Allow only a single read statement in `dialect`; refuse everything else with a reason."""
    return _verdict(statement, dialect)


# A verdict depends only on the text and the dialect, and a planner asks the same statements run
# after run: parsing one with sqlglot costs about a millisecond of event-loop time.
@lru_cache(maxsize=256)
def _verdict(statement: str, dialect: Dialect) -> GuardVerdict:
    try:
        scanned = scan(statement, dialect)
    except LexicalRefusal as refusal:
        return _refuse(str(refusal))
    code = scanned.code.strip()
    if not code:
        return _refuse("the statement is empty")
    if _INTO.search(code):
        return _refuse("INTO (writing a result to a table, variable or file) is not allowed")
    if _LOCKING.search(code):
        return _refuse("locking reads are not allowed")
    denied = _DENIED_CALL.search(code)
    if denied:
        return _refuse(f"function {denied.group(1).lower()} is not allowed")
    if _SHOW.match(code):
        return _check_show(scanned.body, dialect)
    explain = _EXPLAIN.match(code)
    if explain:
        return _check_explain(scanned.body, code, explain, dialect)
    return _check_select(scanned.body, dialect)


def _parse(body: str, dialect: Dialect) -> list[exp.Expr] | None:
    try:
        parsed = sqlglot.parse(body, read=dialect)
    except SqlglotError:
        logger.debug("statement did not parse", exc_info=True)
        return None
    return [statement for statement in parsed if statement is not None]


def _check_select(body: str, dialect: Dialect) -> GuardVerdict:
    statements = _parse(body, dialect)
    if statements is None:
        return _refuse("it could not be parsed as a read-only query")
    if len(statements) != 1:
        return _refuse("only one statement is allowed")
    root = statements[0]
    if not isinstance(root, _READ_ROOTS):
        return _refuse("only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed")
    for node in root.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            return _refuse(f"{node.key.upper()} is not allowed in a read-only query")
    return GuardVerdict(allowed=True, reason="", kind="select")


def _check_show(body: str, dialect: Dialect) -> GuardVerdict:
    if dialect == "sqlite":
        return _refuse("SHOW is not supported by this datasource")
    statements = _parse(body, dialect)
    if statements is None or len(statements) != 1:
        return _refuse("it could not be parsed as a single SHOW")
    if not isinstance(statements[0], exp.Show | exp.Command):
        return _refuse("it could not be parsed as a single SHOW")
    return GuardVerdict(allowed=True, reason="", kind="show")


def _check_explain(body: str, code: str, prefix: re.Match[str], dialect: Dialect) -> GuardVerdict:
    rest_code = code[prefix.end() :].strip()
    if not rest_code:
        return _refuse("nothing to describe")
    if re.match(r"^analy[sz]e\b", rest_code, re.IGNORECASE):
        return _refuse("EXPLAIN ANALYZE executes the statement and is not allowed")
    if re.match(r"^(select|with|\(|table\b|values\b)", rest_code, re.IGNORECASE):
        # The prefix holds only keywords, so its offsets in `code` are offsets in `body` too.
        inner = _check_select(body[prefix.end() :], dialect)
        if not inner.allowed:
            return inner
        return GuardVerdict(allowed=True, reason="", kind="explain")
    if _TABLE_NAME.match(rest_code):
        return GuardVerdict(allowed=True, reason="", kind="describe")
    return _refuse("only a SELECT or a table can be described")
