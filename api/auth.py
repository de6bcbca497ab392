"""Optional bearer tokens: `SUPERBIZ_API_TOKENS=name:token,...`; unset means no authentication."""

from __future__ import annotations

import hmac


class TokenTable:
    """Principals and their tokens, compared in constant time."""

    def __init__(self, pairs: dict[str, str]) -> None:
        self._pairs = [(name, token.encode()) for name, token in pairs.items()]

    @property
    def enabled(self) -> bool:
        return bool(self._pairs)

    @classmethod
    def parse(cls, spec: str | None) -> TokenTable:
        """`alice:t1,bob:t2` → a table; a malformed entry stops start-up (ValueError)."""
        pairs: dict[str, str] = {}
        for entry in (spec or "").split(","):
            entry = entry.strip()
            if not entry:
                continue
            name, sep, token = entry.partition(":")
            if not sep or not name.strip() or len(token.strip()) < 8:
                raise ValueError("SUPERBIZ_API_TOKENS entries are name:token (token >= 8 chars)")
            pairs[name.strip()] = token.strip()
        return cls(pairs)

    def principal_for(self, token: str) -> str | None:
        """The principal owning `token`; every entry is compared so timing reveals nothing."""
        candidate = token.encode()
        found: str | None = None
        for name, expected in self._pairs:
            if hmac.compare_digest(candidate, expected):
                found = name
        return found
