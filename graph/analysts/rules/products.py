"""A caller's errors naming the software it failed at: `Cachedb::CommandError (ERR max number of
clients reached)` names no system, but it names the cache's software. When exactly one system in the
incident runs that software (most of its series are named after it: `cachedb_connected_clients`), it
is where the call failed, and the caller's errors point to it.

Only callers that point nowhere yet, only words long enough to be a product's name, and never the
generic prefixes every exporter shares (`process_`, `http_`, `node_`...), which name no product a
caller talks to.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from graph.analysts.rules.machines import family
from graph.analysts.rules.suspect import MIN_PATTERN_COUNT, Suspect

_MIN_WORD = 5
# Metric prefixes of runtimes, hosts and protocols: no product a caller's error would name.
_GENERIC_WORDS = """
process http https grpc node jvm system container kube probe scrape python nodejs golang dotnet
net disk memory cpu network tomcat jetty undertow executor logback hikaricp application service server
client request requests
"""
_GENERIC = frozenset(_GENERIC_WORDS.split())


def link_product_errors(involved: Sequence[Suspect]) -> None:
    """Point each caller whose errors name one system's software, and blame nothing yet, at it."""
    software = {s.service: word for s in involved if (word := _software(s))}
    for caller in involved:
        errors = [p for p in caller.errors if p.count >= MIN_PATTERN_COUNT and not p.origin]
        if caller.blames or not errors:
            continue
        own = software.get(caller.service)
        for pattern in errors:
            words = set(_words(f"{pattern.template} {pattern.example}"))
            runs = [
                name
                for name, word in software.items()
                if name != caller.service and word != own and word in words
            ]
            if len(runs) == 1 and len([n for n, w in software.items() if w == software[runs[0]]]) == 1:
                server = next(s for s in involved if s.service == runs[0])
                server.blamed_by.setdefault(caller.service, pattern)
                caller.blames.add(server.service)
                break


def _software(suspect: Suspect) -> str | None:
    """The word most of a system's series are named after (`cachedb` of `cachedb_connected_clients`)."""
    words = Counter(family(a.metric).split("_", 1)[0].lower() for a in suspect.anomalies)
    if not words:
        return None
    word, count = words.most_common(1)[0]
    if len(word) < _MIN_WORD or word in _GENERIC or count * 2 <= sum(words.values()):
        return None
    return word


def _words(text: str) -> list[str]:
    """Lower-cased words, a CamelCase or `::` name split into its parts (`Cachedb::CommandError`)."""
    opened = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return [w.lower() for w in re.findall(r"[A-Za-z]+", opened)]
