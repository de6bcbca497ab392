"""A dialect-aware scan of a SQL statement's text: where strings, identifiers and comments are.

The guard looks at the code outside string literals (for `INTO` and locking clauses) and refuses
anything a server could read differently from the parser: comments (MySQL runs `/*! ... */`),
stacked statements, dollar quoting, Unicode escapes (`U&"..."`), non-ASCII text outside quotes,
and every form whose reading depends on a server setting (MySQL's sql_mode, PostgreSQL's
standard_conforming_strings), so the scan holds whatever the server was configured with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Dialect = Literal["mysql", "postgres", "sqlite"]

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_LAYOUT = frozenset(" \t\r\n")


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
        _refuse_outside_quotes(body, index, dialect)
        if char in "'\"`":
            end = _closing_quote(body, index, dialect)
            code.append(_quoted_code(body[index : end + 1]))
            index = end + 1
            continue
        code.append(char)
        index += 1
    return ScannedText(code="".join(code), body=body)


def _refuse_outside_quotes(body: str, index: int, dialect: Dialect) -> None:
    char = body[index]
    pair = body[index : index + 2]
    if pair in ("--", "/*") or (char == "#" and dialect == "mysql"):
        raise LexicalRefusal("comments are not allowed")
    if char == ";":
        raise LexicalRefusal("only one statement is allowed")
    if char == "$" and dialect == "postgres":
        raise LexicalRefusal("dollar-quoted strings and parameters are not allowed")
    if pair.lower() == "u&" and (index == 0 or body[index - 1] not in _WORD):
        # PostgreSQL's U&"..." / U&'...' spell any name or text with escapes: refused outright.
        raise LexicalRefusal("Unicode escape (U&) strings and identifiers are not allowed")
    if char in "uU" and body[index : index + 7].lower() == "uescape" and _starts_word(body, index):
        raise LexicalRefusal("UESCAPE is not allowed")
    if char == "`" and dialect == "postgres":
        raise LexicalRefusal("backquotes are not allowed")
    if char == '"' and dialect == "mysql":
        # A string by default, an identifier under ANSI_QUOTES: the server's sql_mode decides.
        raise LexicalRefusal("double-quoted text is not allowed (use '...' for text, `...` for names)")
    if not (char.isascii() and (char.isprintable() or char in _LAYOUT)):
        # Servers and the parser disagree on what non-ASCII and control characters are.
        raise LexicalRefusal("only printable ASCII is allowed outside quotes")


def _starts_word(body: str, index: int) -> bool:
    return index == 0 or body[index - 1] not in _WORD


def _closing_quote(body: str, start: int, dialect: Dialect) -> int:
    quote = body[start]
    index = start + 1
    while index < len(body):
        char = body[index]
        if char == "\\" and quote == "'" and dialect != "sqlite":
            # MySQL reads a backslash as an escape unless NO_BACKSLASH_ESCAPES is set; PostgreSQL
            # does in E'...' and when standard_conforming_strings is off. Either way where the
            # string ends would depend on the server, so no backslash is accepted in a string.
            raise LexicalRefusal("a backslash inside a quoted string is not allowed")
        if char == quote:
            if body[index + 1 : index + 2] == quote:  # a doubled quote stays inside
                index += 2
                continue
            return index
        index += 1
    raise LexicalRefusal("unterminated quoted text")


def _quoted_code(quoted: str) -> str:
    # MySQL's "..." would be a string, but the scan refuses it there before this is reached.
    if quoted[0] == "'":
        return "''"
    # An identifier keeps its name visible so that `"pg_sleep"(1)` is still seen as a call.
    return " " + quoted[1:-1].replace(quoted[0] * 2, quoted[0]) + " "
