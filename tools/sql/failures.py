"""The public outcomes of a SQL statement that did not answer: refused, timed out or failed.

Database messages can carry hosts, users and data; only these fixed categories leave a datasource.
"""

from __future__ import annotations

from tools.base import EvidenceStatus, SourceError
from tools.sql.guard import GuardVerdict

UNKNOWN_TABLE = "The statement names a table that does not exist."
UNKNOWN_COLUMN = "The statement names a column that does not exist."
SYNTAX = "The statement has a syntax error."
READ_ONLY = "The datasource refused the statement: it is read-only."
DENIED = "The datasource denied access to an object the statement uses."
FAILED = "The statement failed on the datasource."
UNREACHABLE = "The datasource could not be reached."


def refused(verdict: GuardVerdict) -> SourceError:
    return SourceError(verdict.reason, status=EvidenceStatus.REJECTED)


def unknown_datasource(name: str) -> SourceError:
    # Fail closed: the name is echoed (the caller chose it) but nothing about what exists.
    return SourceError(f"Unknown datasource {name[:64]!r}.", status=EvidenceStatus.REJECTED)


def timed_out(timeout_ms: int) -> SourceError:
    return SourceError(
        f"The statement exceeded the {timeout_ms} ms statement timeout.",
        status=EvidenceStatus.TIMEOUT,
    )


def failed(message: str) -> SourceError:
    return SourceError(message, status=EvidenceStatus.ERROR)
