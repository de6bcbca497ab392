"""A query's fingerprint: its shape with every literal masked, so a blocker's statement can be shown
without the values it carried (customer ids, amounts, e-mail addresses) and two runs of it read alike."""

from __future__ import annotations

import re

MAX_FINGERPRINT_CHARS = 160
_COMMENT = re.compile(r"/\*.*?\*/|--[^\n]*", re.DOTALL)
# Quoted strings first (they may hold digits), PostgreSQL's E'' and dollar quotes included.
_STRING = re.compile(r"(?:\b[eEbBxXnN])?'(?:[^'\\]|\\.|'')*'|\$(\w*)\$.*?\$\1\$", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w$.])[-+]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\b")
# `IN (?, ?, ?)` and multi-row VALUES say one thing however many values they list.
_LIST = re.compile(r"\(\s*\?(?:\s*,\s*\?)+\s*\)")
_ROWS = re.compile(r"\(\?\+\)(?:\s*,\s*\(\?\+\))+")
_SPACE = re.compile(r"\s+")
_CUT_STRING = re.compile(r"(?:\b[eEbBxXnN])?'.*\Z", re.DOTALL)


def fingerprint(query: str | None) -> str:
    """`UPDATE orders SET status = ? WHERE id = ?` for `UPDATE orders SET status='x' WHERE id=42`;
    empty for no query. Cut to MAX_FINGERPRINT_CHARS; an unterminated string is masked to its end."""
    if not query:
        return ""
    text = _COMMENT.sub(" ", query)
    text = _STRING.sub("?", text)
    # A value cut mid-string (the server gives the first N characters) still hides its tail.
    text = _CUT_STRING.sub("?", text)
    text = _NUMBER.sub("?", text)
    text = _LIST.sub("(?+)", text)
    text = _ROWS.sub("(?+)", text)
    text = _SPACE.sub(" ", text).strip().rstrip(";").strip()
    if len(text) > MAX_FINGERPRINT_CHARS:
        text = text[:MAX_FINGERPRINT_CHARS].rsplit(" ", 1)[0] + " ..."
    return text
