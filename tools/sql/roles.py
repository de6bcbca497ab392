"""Audit of the database role behind a datasource URL: what makes it more than a reader.

A role is refused when it is a superuser/root, can write or create anything, or holds file or signal
rights. `problems` are short public phrases (shown by /readyz); `examples` name objects (logs only).
The audit reads catalogs through the same read-only session as any statement (client.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tools.base import SourceError
from tools.sql.client import SqlDatasources, dialect_of_url
from tools.sql.session import SessionBounds

_AUDIT_TIMEOUT_MS = 5_000
# Predefined roles that read or write server files, run programs, signal backends or write everything.
_PG_RISKY_ROLES = (
    "pg_read_server_files", "pg_write_server_files", "pg_execute_server_program", "pg_signal_backend",
    "pg_write_all_data", "pg_checkpoint", "pg_create_subscription",
)  # fmt: skip
_PG_NOT_USER = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp)'"
_PG_AUDIT = f"""
SELECT current_user::text, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication,
  ARRAY(SELECT g.rolname::text FROM pg_roles g
        WHERE g.rolname IN ({", ".join(f"'{name}'" for name in _PG_RISKY_ROLES)})
          AND pg_has_role(current_user, g.oid, 'MEMBER') ORDER BY 1),
  ARRAY(SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND {_PG_NOT_USER}
          AND CASE WHEN pg_has_role(c.relowner, 'MEMBER') THEN true
                   WHEN c.relkind = 'S' THEN has_sequence_privilege(c.oid, 'UPDATE')
                   ELSE has_any_column_privilege(c.oid, 'INSERT') OR has_any_column_privilege(c.oid, 'UPDATE')
                        OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE') END
        ORDER BY 1 LIMIT 5),
  ARRAY(SELECT n.nspname::text FROM pg_namespace n
        WHERE {_PG_NOT_USER} AND (has_schema_privilege(n.oid, 'CREATE') OR pg_has_role(n.nspowner, 'MEMBER'))
        ORDER BY 1 LIMIT 5),
  ARRAY(SELECT d.datname::text FROM pg_database d
        WHERE has_database_privilege(d.oid, 'CREATE') OR pg_has_role(d.datdba, 'MEMBER') ORDER BY 1 LIMIT 5)
FROM pg_roles r WHERE r.rolname = current_user
"""
# What a reader may hold on MariaDB/MySQL; any other privilege (write, DDL, FILE, SUPER, ...) is refused.
_MYSQL_READER_PRIVILEGES = frozenset(
    {"SELECT", "SHOW VIEW", "PROCESS", "USAGE", "SHOW DATABASES", "REPLICATION CLIENT", "BINLOG MONITOR",
     "SLAVE MONITOR", "REPLICA MONITOR"}
)  # fmt: skip
_MYSQL_GRANT = re.compile(r"^GRANT (?P<privileges>.+?) ON (?P<object>.+?) TO ", re.IGNORECASE)
_MYSQL_ROLE_GRANT = re.compile(r"^GRANT (?P<roles>.+?) TO ", re.IGNORECASE)
_COLUMN_LIST = re.compile(r"\s*\(.*?\)")
_MAX_ROLE_DEPTH = 3


@dataclass(frozen=True, slots=True)
class RoleAudit:
    """What the role behind one URL may do beyond reading; no problems means a reader."""

    role: str
    problems: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()

    @property
    def privileged(self) -> bool:
        return bool(self.problems)


async def audit_role(url: str, *, connect_timeout_s: float = 5.0) -> RoleAudit:
    """Audit the role `url` connects as; raises SourceError when the datasource cannot be reached."""
    source = SqlDatasources({"audit": url}, bounds=SessionBounds(connect_timeout_s=connect_timeout_s))
    if dialect_of_url(url) == "postgres":
        result = await source.run_unchecked(
            "audit", _PG_AUDIT, max_rows=1, timeout_ms=_AUDIT_TIMEOUT_MS, kind="show"
        )
        if not result.rows:
            raise SourceError("The datasource role could not be audited.")
        return _postgres_audit(list(result.rows[0]))
    return await _mysql_audit(source)


def _postgres_audit(row: list[Any]) -> RoleAudit:
    role, superuser, create_role, create_db, replication, risky, writable, schemas, databases = row
    flags = [
        (superuser, "superuser"),
        (create_role, "may create roles"),
        (create_db, "may create databases"),
        (replication, "may replicate"),
        (writable, "can write or owns tables"),
        (schemas, "may create objects in a schema"),
        (databases, "may create schemas in a database"),
    ]
    problems = [phrase for flag, phrase in flags if flag]
    problems += [f"member of {name}" for name in risky]
    examples = [
        *(f"table {t}" for t in writable),
        *(f"schema {s}" for s in schemas),
        *(f"database {d}" for d in databases),
    ]
    return RoleAudit(role=str(role), problems=tuple(problems), examples=tuple(examples))


async def _mysql_audit(source: SqlDatasources) -> RoleAudit:
    user = await source.run_unchecked(
        "audit", "SELECT CURRENT_USER()", max_rows=1, timeout_ms=_AUDIT_TIMEOUT_MS
    )
    problems: list[str] = []
    examples: list[str] = []
    pending, seen = [("CURRENT_USER()", 0)], set()
    while pending:
        grantee, depth = pending.pop()
        if grantee in seen:
            continue
        seen.add(grantee)
        grants = await source.run_unchecked(
            "audit", f"SHOW GRANTS FOR {grantee}", max_rows=200, timeout_ms=_AUDIT_TIMEOUT_MS
        )
        for (line,) in grants.rows:
            roles = _mysql_grant(str(line), problems, examples)
            if roles and depth >= _MAX_ROLE_DEPTH:
                problems.append("roles nested too deep to audit")
            pending += [(role, depth + 1) for role in roles if depth < _MAX_ROLE_DEPTH]
    return RoleAudit(
        role=str(user.rows[0][0]) if user.rows else "?",
        problems=tuple(dict.fromkeys(problems)),
        examples=tuple(dict.fromkeys(examples)),
    )


def _mysql_grant(line: str, problems: list[str], examples: list[str]) -> list[str]:
    """Record the problems of one SHOW GRANTS line; return the roles it grants (to audit next)."""
    if line.upper().startswith("REVOKE"):
        return []
    if re.search(r"WITH (ADMIN|GRANT) OPTION\s*$", line, re.IGNORECASE):
        problems.append("may grant privileges")
    grant = _MYSQL_GRANT.match(line)
    if grant is None:
        role_grant = _MYSQL_ROLE_GRANT.match(line)
        return [name.strip() for name in role_grant["roles"].split(",")] if role_grant else []
    for privilege in _split_privileges(grant["privileges"]):
        if privilege in _MYSQL_READER_PRIVILEGES:
            continue
        problems.append(_mysql_phrase(privilege))
        examples.append(f"{privilege} ON {grant['object']}")
    return []


def _split_privileges(text: str) -> list[str]:
    # Column lists ("UPDATE (`a`, `b`)") contain commas: drop them before splitting.
    return [" ".join(part.split()).upper() for part in _COLUMN_LIST.sub("", text).split(",") if part.strip()]


def _mysql_phrase(privilege: str) -> str:
    if privilege in {"ALL", "ALL PRIVILEGES"}:
        return "holds ALL PRIVILEGES (root)"
    if privilege in {"FILE", "SUPER"}:
        return f"holds {privilege}"
    return "holds write or administrative privileges"
