"""The kinds of secret masked in text, one table entry per family.

Every pattern starts with one of its `starts` (lowercase literals), so matching runs only where
they occur. Text is often JSON, or JSON inside a JSON string, so a match starts and ends outside
any escape sequence (`\\"`, `\\n`, `\\\\`): values stop at a backslash, a quoted value ends at its
unescaped closing quote, and every replacement keeps the literal it started with.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

REDACTED = "[REDACTED]"


@dataclass(frozen=True, slots=True)
class Secret:
    """One family: where its matches can start, what else the text must hold, how it is masked."""

    name: str
    pattern: re.Pattern[str]
    replacement: str | Callable[[re.Match[str]], str]
    starts: tuple[str, ...]  # lowercase literals; every match begins with one of them
    needs: tuple[str, ...] = ()  # and the text holds every one of these (single characters are cheapest)


# Key names that hold a secret. "tokenizer", "token_count", "author(ity)" and a number of "tokens"
# ("max_tokens=2048", "tokens": 12) are ordinary words; "API_TOKENS=..." is not.
KEY_STEMS = (
    r"pass(?:w(?:or)?d|phrase)|pwd|secret|token(?!i[sz]|_?counts?\b|s\w*(?:\\*[\"'])?[ \t]*[=:][ \t]*\d)"
    r"|credential|auth(?!or(?!i[sz]))"
    # A system named after what it does (`auth-gateway: AuthGatewayDown`, `authsvc-api: 3 errors`) is
    # no key unless a part of its name says it holds a secret (`x-auth-token`, `auth-key`) or is no
    # word (`auth-v2`).
    r"(?![a-z]{0,48}+-(?![\w.-]{0,48}?(?:token|key|secret|pass|pwd|cookie|cred|sig|hash|code|header|session|val|data))"
    r"[a-z]{3})"
    # api_key, access-key, privatekey: matched from "key" (one literal to look for instead of three).
    r"|(?:(?<=api)|(?<=api[_-])|(?<=access)|(?<=access[_-])|(?<=private)|(?<=private[_-]))key"
)
# Words after "password is" that describe it rather than spell it ("password is incorrect").
_PROSE_WORDS = (
    "not|too|in|on|invalid|incorrect|wrong|required|missing|empty|expired|set|unset|valid|correct|being|now"
    "|still|the|a|an|disabled|enabled|changed|reset|weak|strong|ok|null|none|blank|locked|rotated|revoked"
    "|present|absent|stored|hashed|encrypted|updated|provided|accepted|rejected|ignored|needed|mandatory"
    "|optional|used|shared|unknown|unavailable|refreshed|generated|issued|sent|saved|new|old"
)
# A quoted value: from its quote to the same quote. The quote carries one backslash per level of
# JSON around it, `e`; a backslash of the value's own level is `e` plus one, so escapes are read whole
# and the end is never half of one, and a bare `"` never belongs to the value. A value may not start
# with what follows a closing quote in JSON (`"m":"password:","n":1` holds no pair).
_QUOTED = (
    r"(?P<q>(?P<e>\\*)\")(?!(?P=q)|[,:}\]])"
    r"(?P<qv>(?>(?P=e)\\(?:(?P=e)[\\\"]|[^\"\\\n])|\\[^\"\\\n]|[^\"\\\n]){1,1024}?)(?P=q)"
    # Single quotes are never escaped by JSON: no form of `"` may sit inside.
    r"|(?P<sq>')(?![',:}\]])(?P<sv>(?>\\[^\"\n]|[^\"\\\n]){1,1024}?)'"
)
_UNQUOTED = (
    r"(?P<q2>\\*[\"'])?(?>(?P<scheme>(?:bearer|basic|token|digest|negotiate|bot)[ \t]+)?)"
    # Not a JSON literal, nor a placeholder without a letter or digit ("password=***", "token: ...").
    r"(?!(?:null|true|false|none)\b|[=:>])(?=[^\s,;\"'\\&(){}\[\]<>|]*[A-Za-z0-9])"
    r"(?P<uv>[^\s,;\"'\\&(){}\[\]<>|]+)"
)
# A host and its port (`authn-03:9100`, `auth-api:8080`): a name with a hyphen or a digit, a colon and
# a port number, never a key and its secret.
_HOST_PORT = r"(?![\w.-]{0,48}[-\d][\w.-]{0,48}:\d{1,5}(?![\w.:]))"
_KEY_VALUE = re.compile(
    # Key names are short: a bounded rest, never given back, keeps "pwdpwdpwd..." linear.
    rf"(?i)(?:{KEY_STEMS}){_HOST_PORT}[\w.-]{{0,48}}+\]?(?P<kq>\\*[\"'])?"
    rf"(?:[ \t]*(?::=|=>|==|!=|<>|[=:])[ \t]*|[ \t]+(?:is|was)[ \t]+(?!(?:{_PROSE_WORDS})\b))"
    rf"(?:{_QUOTED}|{_UNQUOTED})"
)


def _mask_value(match: re.Match[str]) -> str:
    start = match.start()
    if match["qv"] is not None:
        return match[0][: match.start("qv") - start] + REDACTED + match["q"]
    if match["sv"] is not None:
        return match[0][: match.start("sv") - start] + REDACTED + "'"
    head = match[0][: match.start("uv") - start]
    key_quote = match["kq"] or ""
    if key_quote.endswith('"') and match["q2"] is None and match["scheme"] is None:
        # A double-quoted key before an unquoted value is JSON (perhaps inside a JSON string): the
        # number becomes a string, quoted as the key is. A quote escaped for L levels has 2**L - 1
        # backslashes; those before them are the key's own (escaped) backslashes.
        backslashes = len(key_quote) - 1
        level = (backslashes ^ (backslashes + 1)).bit_length() - 1  # its trailing one bits
        quote = "\\" * (2**level - 1) + '"'
        return f"{head}{quote}{REDACTED}{quote}"
    return head + REDACTED


_PEM_BODY = r"(?:[A-Za-z0-9+/=:,\s-]|\\+[nrt])"


def _keep_prefix(match: re.Match[str]) -> str:
    """The family's prefix (the one group that took part), then the mask."""
    return next(group for group in match.groups() if group is not None) + REDACTED


SECRETS: tuple[Secret, ...] = (
    Secret(
        "pem_private_key",
        re.compile(
            r"(?P<begin>-----BEGIN [A-Z0-9 ]{0,32}PRIVATE KEY(?: BLOCK)?-----)"
            # The body is base64 lines and a few headers: looking for the end stops where it stops.
            rf"(?:{_PEM_BODY}*?(?P<end>-----END [A-Z0-9 ]{{0,32}}PRIVATE KEY(?: BLOCK)?-----)|{_PEM_BODY}+)"
        ),
        lambda m: m["begin"] + REDACTED + (m["end"] or ""),
        starts=("-----begin ",),
    ),
    # user:password@ in a URL; the password may itself hold "@" (the last one before the host counts).
    Secret(
        "url_userinfo",
        re.compile(r"(?<=[A-Za-z0-9+.-])(?P<head>://[^:/\s@\"'\\]*):[^\s/\"'\\]+@"),
        rf"\g<head>:{REDACTED}@",
        starts=("://",),
        needs=("@",),
    ),
    Secret(
        "key_value",
        _KEY_VALUE,
        _mask_value,
        starts=("pass", "pwd", "secret", "token", "key", "credential", "auth"),
    ),
    Secret(
        "bearer",
        re.compile(
            r"(?i)(?P<word>bearer)[ \t]+(?!(?:token|tokens|auth\w*|scheme|header|realm|is|was|missing|"
            r"required|invalid|expired)\b)[A-Za-z0-9._~+/=-]+"
        ),
        rf"\g<word> {REDACTED}",
        starts=("bearer",),
    ),
    # Tokens known by their shape: JWTs (header and claims are base64 of JSON objects), vendor prefixes.
    Secret(
        "token",
        re.compile(
            r"(eyJ)[A-Za-z0-9_-]{2,1024}\.eyJ[A-Za-z0-9_-]{2,}+\.[A-Za-z0-9_-]*"
            r"|\b(?:(sk-)[A-Za-z0-9_-]{8,}|(gh[pousr]_)[A-Za-z0-9]{20,}|(github_pat_)[A-Za-z0-9_]{20,}"
            r"|(xox[abposr]-)[A-Za-z0-9-]{8,}|(A[KS]IA)[0-9A-Z]{16}\b)"
        ),
        _keep_prefix,
        # `gh[pousr]_` spelled out: a bare "gh" starts "high" and "through" hundreds of times a report.
        starts=("eyj", "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "akia", "asia"),
    ),
    # Password hashes: PostgreSQL SCRAM and md5, MySQL native, crypt-style ($2b$, $argon2id$, $6$...).
    Secret(
        "password_hash",
        re.compile(
            r"(SCRAM-SHA-\d+\$)[A-Za-z0-9+/=:$]+|\b(md5)[0-9a-f]{32}\b|(\*)[0-9A-Fa-f]{40}(?![0-9A-Za-z])"
            r"|(\$(?:2[abxy]?|1|5|6|7|y|gy|sha1|md5|scrypt|argon2(?:id|i|d)|pbkdf2(?:-sha\d+)?)\$)"
            r"[A-Za-z0-9./+=,$:-]{8,}"
        ),
        _keep_prefix,
        starts=("scram-sha-", "md5", "*", "$"),
    ),
)
