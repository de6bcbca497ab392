"""The SqlSource the service uses: SqlDatasources serving a datasource only while its role audit passes.

A datasource is used for statements only once an audit found its role a mere reader, or found it
privileged with the lab opt-out on. One not audited yet (unreachable at start-up) is audited on first
use; one found privileged is refused until an audit passes again. Audits older than `max_age_s` are
redone by /readyz, so a role granted more rights after start-up is caught there.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from tools.base import EvidenceStatus, SourceError, SourceHealth, SqlResult
from tools.sql import failures
from tools.sql.client import SqlDatasources
from tools.sql.roles import RoleAudit, audit_role

logger = logging.getLogger(__name__)

RoleState = Literal["ok", "refused", "allowed", "unchecked"]
Auditor = Callable[[str], Awaitable[RoleAudit]]


@dataclass(frozen=True, slots=True)
class DatasourceRole:
    """The latest audit of one datasource: `state` and a public `detail`."""

    name: str
    state: RoleState
    detail: str
    checked_at: float = 0.0

    @property
    def usable(self) -> bool:
        return self.state in ("ok", "allowed")


class AuditedDatasources:
    """SqlSource over SqlDatasources that refuses statements on a datasource whose role is privileged."""

    def __init__(
        self,
        inner: SqlDatasources,
        urls: Mapping[str, str],
        *,
        allow_privileged: bool,
        auditor: Auditor = audit_role,
    ) -> None:
        self._inner = inner
        self._urls = dict(urls)
        self._allow_privileged = allow_privileged
        self._auditor = auditor
        self._roles = {name: DatasourceRole(name, "unchecked", "not audited yet") for name in self._urls}
        self._lock = asyncio.Lock()

    def roles(self) -> dict[str, DatasourceRole]:
        return dict(self._roles)

    async def audit(self, *, max_age_s: float = 0.0) -> dict[str, DatasourceRole]:
        """Audit every datasource whose last audit is older than `max_age_s`; return all states."""
        async with self._lock:
            now = time.monotonic()
            stale = [name for name, role in self._roles.items() if now - role.checked_at >= max_age_s]
            for name, role in zip(
                stale, await asyncio.gather(*(self._audit_one(n) for n in stale)), strict=True
            ):
                self._roles[name] = role
        return self.roles()

    async def _audit_one(self, name: str) -> DatasourceRole:
        try:
            audit = await self._auditor(self._urls[name])
        except SourceError as error:
            logger.warning("SQL datasource %r: role audit failed: %s", name, error.public)
            return DatasourceRole(name, "unchecked", "role audit failed: datasource unreachable")
        now = time.monotonic()
        if not audit.privileged:
            return DatasourceRole(name, "ok", "read-only role", now)
        problems = "; ".join(audit.problems)
        logger.warning(
            "SQL datasource %r: role %r is not read-only: %s (%s)", name, audit.role, problems,
            ", ".join(audit.examples) or "no object named",
        )  # fmt: skip
        if self._allow_privileged:
            return DatasourceRole(
                name, "allowed", f"privileged role allowed by the lab opt-out: {problems}", now
            )
        return DatasourceRole(name, "refused", f"role is not read-only: {problems}", now)

    async def _require_usable(self, datasource: str) -> None:
        role = self._roles.get(datasource)
        if role is None:
            raise failures.unknown_datasource(datasource)
        if role.state == "unchecked":
            async with self._lock:
                role = self._roles[datasource] = await self._audit_one(datasource)
        if role.state == "unchecked":
            raise failures.failed(failures.UNREACHABLE)
        if not role.usable:
            raise SourceError(
                f"Datasource {datasource[:64]!r} is disabled: its role is not read-only.",
                status=EvidenceStatus.REJECTED,
            )

    # --- SqlSource ------------------------------------------------------------------------------

    async def health(self) -> SourceHealth:
        disabled = [name for name, role in self._roles.items() if role.state == "refused"]
        if disabled:
            return SourceHealth(ok=False, reason=f"disabled (privileged role): {', '.join(disabled)}")
        return await self._inner.health()

    def datasources(self) -> list[str]:
        return self._inner.datasources()

    def dialect(self, datasource: str) -> str:
        return self._inner.dialect(datasource)

    async def list_tables(self, *, datasource: str, limit: int) -> list[str]:
        await self._require_usable(datasource)
        return await self._inner.list_tables(datasource=datasource, limit=limit)

    async def query(self, *, datasource: str, statement: str, max_rows: int, timeout_ms: int) -> SqlResult:
        await self._require_usable(datasource)
        return await self._inner.query(
            datasource=datasource, statement=statement, max_rows=max_rows, timeout_ms=timeout_ms
        )
