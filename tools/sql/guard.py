"""The read-only statement check every SQL datasource runs before a statement reaches a database.

Allowed: exactly one SELECT (set operations, VALUES and CTEs of selects included) whose every
function call is on the allowlist (tools/sql/allowlist.py), SHOW, DESCRIBE/DESC, or EXPLAIN of
such a select without ANALYZE. Everything else, and anything that does not parse, is refused.
The lexer (tools/sql/lexical.py) is the first line, the parsed tree the second; the database's
read-only transaction, statement timeout and a read-only role remain the last.
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
from tools.sql.tree import tree_refusal

logger = logging.getLogger(__name__)

ReadKind = Literal["select", "show", "describe", "explain"]

_INTO = re.compile(r"\binto\b", re.IGNORECASE)
_LOCKING = re.compile(
    r"\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\block\s+in\s+share\s+mode\b",
    re.IGNORECASE,
)
_SHOW = re.compile(r"^show\s+\w", re.IGNORECASE)
# MariaDB's SHOW GRANTS and SHOW CREATE USER print password hashes.
_SECRET_SHOW = re.compile(r"^show\s+(grants|create\s+user)\b", re.IGNORECASE)
_EXPLAIN = re.compile(
    r"^(explain|describe|desc)\b(\s+query\s+plan\b)?"
    r"(\s+(extended|partitions|verbose|format\s*=\s*\w+))?\s*",
    re.IGNORECASE,
)
# PostgreSQL's EXPLAIN (option [value], ...): only options that do not execute the statement.
_EXPLAIN_OPTIONS = re.compile(r"^\(([\w\s,]*)\)\s*")
_EXPLAIN_OPTION = re.compile(
    r"^(verbose|costs|settings|summary|generic_plan|buffers|wal|timing)(\s+(true|false|on|off|1|0))?$"
    r"|^format\s+(text|json|yaml|xml)$",
    re.IGNORECASE,
)
_TABLE_NAME = re.compile(r"^[\w.`\"]+(\s+[\w`\"%]+)?$")
_READ_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)


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
    if _SHOW.match(code):
        return _check_show(scanned.body, code, dialect)
    explain = _EXPLAIN.match(code)
    if explain:
        return _check_explain(scanned.body, code, explain.end(), dialect)
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
    reason = tree_refusal(root, dialect)
    if reason:
        return _refuse(reason)
    return GuardVerdict(allowed=True, reason="", kind="select")


def _check_show(body: str, code: str, dialect: Dialect) -> GuardVerdict:
    if dialect == "sqlite":
        return _refuse("SHOW is not supported by this datasource")
    if _SECRET_SHOW.match(code):
        return _refuse("SHOW GRANTS and SHOW CREATE USER print password hashes")
    statements = _parse(body, dialect)
    if statements is None or len(statements) != 1:
        return _refuse("it could not be parsed as a single SHOW")
    if not isinstance(statements[0], exp.Show | exp.Command):
        return _refuse("it could not be parsed as a single SHOW")
    return GuardVerdict(allowed=True, reason="", kind="show")


def _check_explain(body: str, code: str, end: int, dialect: Dialect) -> GuardVerdict:
    # The prefixes match only keywords, parentheses and commas, so offsets in `code` are offsets
    # in `body` too (quoted text is where the two differ).
    options = _EXPLAIN_OPTIONS.match(code[end:]) if dialect == "postgres" else None
    if options:
        for option in options.group(1).split(","):
            if not _EXPLAIN_OPTION.match(option.strip()):
                return _refuse("EXPLAIN accepts no ANALYZE or unknown option")
        end += options.end()
    rest_code = code[end:].strip()
    if not rest_code:
        return _refuse("nothing to describe")
    if re.match(r"^analy[sz]e\b", rest_code, re.IGNORECASE):
        return _refuse("EXPLAIN ANALYZE executes the statement and is not allowed")
    if re.match(r"^(select|with|\(|table\b|values\b)", rest_code, re.IGNORECASE):
        inner = _check_select(body[end:], dialect)
        if not inner.allowed:
            return inner
        return GuardVerdict(allowed=True, reason="", kind="explain")
    if _TABLE_NAME.match(rest_code) and not options:
        return GuardVerdict(allowed=True, reason="", kind="describe")
    return _refuse("only a SELECT or a table can be described")
