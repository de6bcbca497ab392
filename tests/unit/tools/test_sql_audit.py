"""The pieces of the SQL role audit and the row budget that work on plain data: SHOW GRANTS lines, the
datasource gate with a scripted auditor, and when a stream of rows stops."""

from __future__ import annotations

import pytest

from tools.base import EvidenceStatus, SourceError
from tools.sql import failures
from tools.sql.audited import AuditedDatasources
from tools.sql.client import SqlDatasources
from tools.sql.roles import RoleAudit, _mysql_grant
from tools.sql.session import RowBudget

# Nothing listens on port 1: a statement that reaches the datasource fails as unreachable.
_NOWHERE = "postgresql://reader@127.0.0.1:1/shop"


def _problems(*lines: str) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    roles: list[str] = []
    for line in lines:
        roles += _mysql_grant(line, problems, [])
    return problems, roles


def test_reader_grants_have_no_problem() -> None:
    problems, roles = _problems(
        "GRANT SELECT, SHOW VIEW, PROCESS ON *.* TO `ro`@`%` IDENTIFIED BY PASSWORD '*ABC'",
        "GRANT SELECT (`a`, `b`) ON `shop`.`orders` TO `ro`@`%`",
        "GRANT USAGE ON *.* TO `ro`@`%`",
    )
    assert (problems, roles) == ([], [])


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION",
            "holds ALL PRIVILEGES (root)",
        ),
        ("GRANT SELECT, FILE ON *.* TO `u`@`%`", "holds FILE"),
        ("GRANT SUPER ON *.* TO `u`@`%`", "holds SUPER"),
        (
            "GRANT SELECT, UPDATE (`a`, `b`) ON `shop`.`t` TO `u`@`%`",
            "holds write or administrative privileges",
        ),
        ("GRANT BINLOG_ADMIN,CONNECTION_ADMIN ON *.* TO `u`@`%`", "holds write or administrative privileges"),
        ("GRANT SELECT ON *.* TO `u`@`%` WITH GRANT OPTION", "may grant privileges"),
    ],
)
def test_more_than_reading_is_a_problem(line: str, problem: str) -> None:
    assert problem in _problems(line)[0]


def test_granted_roles_are_returned_for_auditing() -> None:
    assert _problems("GRANT `writer`,`other` TO `u`@`%`") == ([], ["`writer`", "`other`"])


def _gate(audit: RoleAudit | None, *, allow: bool = False) -> tuple[AuditedDatasources, list[str]]:
    calls: list[str] = []

    async def auditor(url: str) -> RoleAudit:
        calls.append(url)
        if audit is None:
            raise failures.failed(failures.UNREACHABLE)
        return audit

    urls = {"shop": _NOWHERE}
    return AuditedDatasources(SqlDatasources(urls), urls, allow_privileged=allow, auditor=auditor), calls


async def _status_of_query(gate: AuditedDatasources) -> SourceError:
    with pytest.raises(SourceError) as caught:
        await gate.query(datasource="shop", statement="SELECT 1", max_rows=1, timeout_ms=500)
    return caught.value


async def test_a_privileged_role_is_refused_before_any_statement() -> None:
    gate, _ = _gate(RoleAudit("postgres", problems=("superuser",)))
    assert (await gate.audit())["shop"].state == "refused"
    assert (await _status_of_query(gate)).status is EvidenceStatus.REJECTED


async def test_the_lab_opt_out_serves_a_privileged_role() -> None:
    gate, _ = _gate(RoleAudit("postgres", problems=("superuser",)), allow=True)
    assert (await gate.audit())["shop"].state == "allowed"
    # It reached the (unreachable) datasource: nothing refused it.
    assert (await _status_of_query(gate)).public == failures.UNREACHABLE


async def test_a_datasource_not_audited_yet_is_audited_on_first_use() -> None:
    gate, calls = _gate(RoleAudit("reader"))
    assert gate.roles()["shop"].state == "unchecked"
    assert (await _status_of_query(gate)).public == failures.UNREACHABLE
    assert calls == [_NOWHERE] and gate.roles()["shop"].state == "ok"


async def test_an_unauditable_datasource_stays_disabled() -> None:
    gate, calls = _gate(None)
    assert (await gate.audit())["shop"].state == "unchecked"
    assert (await _status_of_query(gate)).public == failures.UNREACHABLE
    assert len(calls) == 2  # audited again on use; never run unaudited


async def test_recent_audits_are_not_repeated() -> None:
    gate, calls = _gate(RoleAudit("reader"))
    await gate.audit()
    await gate.audit(max_age_s=60)
    assert len(calls) == 1


def test_row_budget_stops_at_rows_or_bytes_and_says_truncated() -> None:
    by_rows = RowBudget(max_rows=2, max_bytes=1_000, value_chars=100)
    assert [by_rows.offer([i]) for i in range(3)] == [True, True, False]
    assert by_rows.truncated
    by_bytes = RowBudget(max_rows=10, max_bytes=100, value_chars=60)
    assert [by_bytes.offer(["x" * 500]), by_bytes.offer(["y" * 50])] == [True, False]
    assert by_bytes.rows == [["x" * 60]] and by_bytes.truncated


def test_row_budget_counts_non_ascii_text_at_four_bytes_a_character() -> None:
    budget = RowBudget(max_rows=10, max_bytes=100, value_chars=100)
    assert budget.offer(["é" * 20]) and not budget.offer(["é" * 10])
