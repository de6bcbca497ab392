"""A dialect-aware scan of a SQL statement's text: where strings, identifiers and comments are.

The guard needs to look at the code outside string literals (for `INTO`, locking clauses and
denied function names) and to refuse anything a server could read differently from the parser:
comments (MySQL runs `/*! ... */`), stacked statements, dollar quoting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Dialect = Literal["mysql", "postgres", "sqlite"]


class LexicalRefusal(Exception):
    """The statement's text is refused before parsing; the message is public."""


@dataclass(frozen=True, slots=True)
class ScannedText:
    """`code` is the statement with string contents blanked and identifier quotes removed."""

    code: str
    body: str  # the statement without a single trailing semicolon


def scan(statement: str, dialect: Dialect) -> ScannedText:
    """Scan `statement`; raise `LexicalRefusal` for comments, stacked statements or odd quoting."""
    body = statement.strip()
    if "\x00" in body:
        raise LexicalRefusal("NUL bytes are not allowed")
    if body.endswith(";"):
        body = body[:-1].rstrip()
    code: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        pair = body[index : index + 2]
        if pair in ("--", "/*") or char == "#":
            raise LexicalRefusal("comments are not allowed")
        if char == ";":
            raise LexicalRefusal("only one statement is allowed")
        if char == "$" and dialect == "postgres":
            raise LexicalRefusal("dollar-quoted strings and parameters are not allowed")
        if char in "'\"`":
            end = _closing_quote(body, index, dialect)
            code.append(_quoted_code(body[index : end + 1], dialect))
            index = end + 1
            continue
        code.append(char)
        index += 1
    return ScannedText(code="".join(code), body=body)


def _is_string_quote(quote: str, dialect: Dialect) -> bool:
    # MySQL reads "..." as a string; PostgreSQL and SQLite read it as an identifier.
    return quote == "'" or (quote == '"' and dialect == "mysql")


def _backslash_escapes(body: str, start: int, dialect: Dialect) -> bool:
    if dialect == "mysql":
        return body[start] in "'\""
    if dialect == "postgres":
        # Only E'...' strings treat a backslash as an escape (standard_conforming_strings).
        return body[start] == "'" and start > 0 and body[start - 1] in "eE"
    return False


def _closing_quote(body: str, start: int, dialect: Dialect) -> int:
    quote = body[start]
    escapes = _backslash_escapes(body, start, dialect)
    index = start + 1
    while index < len(body):
        char = body[index]
        if escapes and char == "\\":
            index += 2
            continue
        if char == quote:
            if body[index + 1 : index + 2] == quote:  # a doubled quote stays inside
                index += 2
                continue
            return index
        index += 1
    raise LexicalRefusal("unterminated quoted text")


def _quoted_code(quoted: str, dialect: Dialect) -> str:
    if _is_string_quote(quoted[0], dialect):
        return "''"
    # An identifier keeps its name visible so that `"pg_sleep"(1)` is still seen as a call.
    return " " + quoted[1:-1].replace(quoted[0] * 2, quoted[0]) + " "
