"""A name lookup that failed is the resolver's trouble, not the looked-up system's.

"dial tcp: lookup x.internal on 127.0.0.1:53: server misbehaving" names `x` as what was
looked up, not as what failed: the caller never reached it. What failed is the resolver that answered
(or did not): the system at the server address the line names, or, asked on the loopback (a resolver on
each caller's machine), the one system whose own signals say its answers fail (SERVFAIL lines, a
response-code series), as a DNS server's do.
"""

from __future__ import annotations

import re

from graph.analysts.rules.addresses import EVERY_MACHINE, address_owners
from graph.analysts.rules.suspect import Suspect, troubling

# A caller's words for a lookup that failed: Go's resolver, glibc's, Java's, curl's.
_LOOKUP_FAILED = re.compile(
    r"\blookup [\w.-]+(?: on (?P<server>[\w.:\[\]-]+?)(?::53)?)?: (?:server misbehaving|no such host|"
    r"i/o timeout|read udp|connection refused)|temporary failure in name resolution|"
    r"name or service not known|unknownhostexception|could not resolve host",
    re.IGNORECASE,
)
# What a resolver says of its own answers: response codes and failed resolution.
_RESOLVER_WORDS = re.compile(r"servfail|nxdomain|rcode|dns|resolv|recursion", re.IGNORECASE)


def named_as_looked_up(text: str, name: str) -> bool:
    """Whether lower-cased `text` names `name` only as what a failed lookup looked up."""
    if _LOOKUP_FAILED.search(text) is None:
        return False
    return re.search(rf"\blookup {re.escape(name.lower())}(?![\w-])", text) is not None


def blame_resolvers(suspects: dict[str, Suspect]) -> None:
    """Each system whose errors say its lookups failed points to the resolver that answered them."""
    owners = address_owners(suspects)
    resolvers = [s for s in suspects.values() if _resolves(s)]
    for caller in suspects.values():
        for pattern in caller.errors:
            found = _LOOKUP_FAILED.search(f"{pattern.template} {pattern.example}")
            if found is None:
                continue
            server = (found.group("server") or "").lower()
            named = owners.get(server) if server and server not in EVERY_MACHINE else None
            candidates = [named] if named else [s.service for s in resolvers if s is not caller]
            if len(candidates) != 1 or candidates[0] == caller.service:
                continue
            suspects[candidates[0]].blamed_by.setdefault(caller.service, pattern)
            caller.blames.add(candidates[0])


def _resolves(suspect: Suspect) -> bool:
    """Whether its own trouble is in a resolver's words (its answers fail) and it is no caller whose
    lookups fail."""
    texts = [f"{p.template} {p.example}" for p in suspect.errors]
    if any(_LOOKUP_FAILED.search(text) for text in texts):
        return False
    moving = [a.metric for a in suspect.anomalies if troubling(a)]
    return any(_RESOLVER_WORDS.search(text) for text in [*texts, *moving])
