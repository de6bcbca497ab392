"""What a parsed read statement may contain: allowlisted calls, plain reads, no secret catalogs.

Names are compared after the server's own folding (ASCII lower case, quotes removed, schema
qualification split off), so `"pg_catalog"."PG_READ_FILE"` and `pg_read_file` are one name.
"""

from __future__ import annotations

import re

from sqlglot import exp

from tools.sql.allowlist import (
    MYSQL_SECRET_SCHEMA,
    NAMED_FUNCTIONS,
    POSTGRES_FUNCTION_SCHEMA,
    SECRET_TABLES,
    TYPED_FUNCTIONS,
)
from tools.sql.lexical import Dialect

_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# Calls that carry the name the statement wrote rather than a known function.
_NAMED_CALLS = (exp.Anonymous, exp.AnonymousAggFunc, exp.ParameterizedAgg)
_FORBIDDEN_NODES: tuple[type[exp.Expr], ...] = (
    exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter,
    exp.TruncateTable, exp.Command, exp.Into, exp.Lock, exp.Set, exp.Transaction, exp.Commit,
    exp.Rollback, exp.Grant, exp.Revoke, exp.Copy, exp.LoadData, exp.Use, exp.Pragma,
    exp.Attach, exp.Detach, exp.Analyze, exp.Kill, exp.Cache, exp.Uncache, exp.Refresh,
    exp.Returning, exp.Placeholder, exp.Parameter,
)  # fmt: skip
_FUNCTION_SOURCES = (exp.Table, exp.Unnest, exp.Lateral)


def fold(name: str) -> str:
    """A name as the server compares it: ASCII letters lowered, nothing else touched."""
    return name.translate(_ASCII_LOWER)


def tree_refusal(root: exp.Expr, dialect: Dialect) -> str | None:
    """Why `root` may not run, or None when every node in it is a plain, allowlisted read."""
    function_aliases = _function_source_columns(root) if dialect == "postgres" else {}
    for node in root.walk():
        reason = _node_refusal(node, dialect, function_aliases)
        if reason:
            return reason
    return None


def _node_refusal(node: exp.Expr, dialect: Dialect, function_aliases: dict[str, set[str]]) -> str | None:
    if isinstance(node, _FORBIDDEN_NODES):
        return f"{node.key.upper()} is not allowed in a read-only query"
    if isinstance(node, exp.Func):
        return _call_refusal(node, dialect)
    if isinstance(node, exp.Dot):
        return _dot_refusal(node, dialect)
    if isinstance(node, exp.Table):
        return _table_refusal(node, dialect)
    if isinstance(node, exp.Column) and function_aliases:
        return _attribute_call_refusal(node, function_aliases)
    return None


def _call_refusal(node: exp.Func, dialect: Dialect) -> str | None:
    if isinstance(node, _NAMED_CALLS):
        name = node.name
        if _PLAIN_NAME.match(name) and fold(name) in NAMED_FUNCTIONS[dialect]:
            return None
        shown = fold(name) if _PLAIN_NAME.match(name) and len(name) <= 64 else "with this name"
        return f"function {shown} is not on the read-only allowlist"
    if type(node).__name__ in TYPED_FUNCTIONS:
        return None
    return f"function {node.sql_name().lower()} is not on the read-only allowlist"


def _dot_refusal(node: exp.Dot, dialect: Dialect) -> str | None:
    qualifier = node.this
    if not isinstance(qualifier, exp.Identifier | exp.Column | exp.Dot):
        # PostgreSQL reads `(expr).name` as a call of `name(expr)` when no field has that name.
        return "field selection on an expression is not allowed"
    if isinstance(node.expression, exp.Func):
        return _qualified_call_refusal([qualifier.name], dialect)
    return None


def _qualified_call_refusal(parts: list[str], dialect: Dialect) -> str | None:
    if dialect == "postgres" and [fold(part) for part in parts] == [POSTGRES_FUNCTION_SCHEMA]:
        return None
    # Any other schema holds user-defined (stored) functions, which may do anything.
    return "schema-qualified function calls are not allowed"


def _table_refusal(node: exp.Table, dialect: Dialect) -> str | None:
    schema_parts = [part.name for part in (node.args.get("catalog"), node.args.get("db")) if part]
    if isinstance(node.this, exp.Func) and schema_parts:
        return _qualified_call_refusal(schema_parts, dialect)
    name = fold(node.name)
    if name not in SECRET_TABLES[dialect]:
        return None
    if dialect == "mysql" and fold(node.db) != MYSQL_SECRET_SCHEMA:
        return None
    return f"the catalog {name} holds credentials and is not readable"


def _function_source_columns(root: exp.Expr) -> dict[str, set[str]]:
    """alias -> the column names a FROM-clause function declares (PostgreSQL)."""
    aliases: dict[str, set[str]] = {}
    for node in root.find_all(*_FUNCTION_SOURCES):
        if isinstance(node, exp.Table) and not (
            isinstance(node.this, exp.Func) or node.args.get("rows_from")
        ):
            continue
        alias = node.args.get("alias")
        if isinstance(alias, exp.TableAlias) and alias.name:
            columns = {fold(column.name) for column in alias.columns}
            aliases[fold(alias.name)] = columns | ({fold(alias.name)} if not columns else set())
    return aliases


def _attribute_call_refusal(node: exp.Column, function_aliases: dict[str, set[str]]) -> str | None:
    # PostgreSQL reads `alias.name` as the call `name(alias)` when `alias` is a function's scalar
    # result and has no column `name`: only the columns the function declares may follow it.
    columns = function_aliases.get(fold(node.table)) if node.table else None
    if columns is None or fold(node.name) in columns:
        return None
    return "a function result's alias may only name its declared columns"
