"""Endpoints outside the evidence: a third party known only by the host its callers' failing calls name.

A card processor, a carrier's rate API or a SaaS endpoint has no series, alert or log stream here;
its callers' lines are all the evidence says of it ("Read timed out ... host='api.carrier.example',
port=443"). A host named that way, in a domain's spelling, on a call that failed at the far side
(timed out, refused, reset, 5xx), and owned by no system the evidence knows, is a system of its own:
its callers' lines then blame it like any named dependency. A caller whose own credentials were
refused is not failed by the endpoint (the endpoint did its job), so those lines name no suspect.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from graph.analysts.rules.addresses import EVERY_MACHINE
from graph.analysts.rules.suspect import MIN_PATTERN_COUNT
from graph.analysts.rules.vocabulary import ERROR_LEVELS, WARN_LEVELS, own_credentials_refused
from tools.facts import LogPattern

# A host in the places a client writes one: a URL, `host='...'`, or `host:port`. A URL after "+" is a
# crawler's page in its user agent ("(compatible; XBot/2.1; +https://x.example/bot)"), no far side.
_DOMAIN = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+"
_HOST = re.compile(
    rf"(?:(?<!\+)https?://|\bhost\s*[=:]\s*['\"]?)(?P<named>{_DOMAIN})|(?<![\w.@/-])(?P<ported>{_DOMAIN}):\d{{2,5}}\b"
)
# A call that failed on the far side, in a client's or its library's words.
_FAILED_CALL = re.compile(
    r"time[sd]?[ _-]?out|timed out|refused|reset by peer|unreachable|no route to host|unavailable|"
    r"\b5\d\d\b|bad gateway|broken pipe|remote end closed|connection (?:aborted|closed|error)|"
    # The far side refusing more work from its caller: its quota is what limits the caller now.
    r"\b429\b|too many requests|rate[ _-]?limit(?:ed|ing)?\b|quota exceeded",
    re.IGNORECASE,
)
_TOP_LEVEL = re.compile(r"\.[a-z]{2,24}$")  # a domain ends in letters: not an address or a version
# Names a cluster or a private network resolves for itself (`db.ns.svc.cluster.local`, `x.internal`):
# its own systems, not a third party's.
_PRIVATE_DOMAIN = re.compile(r"\.(?:svc|cluster\.local|local|internal|lan|home\.arpa|corp)$")
# A name the caller could not resolve ("lookup db.x on 10.96.0.10:53: i/o timeout"): the resolver failed.
_RESOLVING = re.compile(r"(?:lookup|resolv\w*|resolution of|getaddrinfo\w*)\s+(?:host\s+)?['\"]?$")
# A proxy's error line names the virtual server that took the request ("client: 10.0.0.7, server:
# site.example, ..., host: "site.example"): its own site, whatever failed behind it.
_SERVED = re.compile(r"\bserver:\s*['\"]?([a-z0-9.-]+)")
# A source file and its line (`client.go:142`, `Worker.java:88`) is spelled like `host:port`.
_SOURCE_FILE = re.compile(
    r"\.(?:go|py|java|kt|scala|js|mjs|ts|rb|rs|php|cs|cc|cpp|hpp|ex|exs|erl|clj|swift)$"
)


def external_hosts(patterns: Iterable[LogPattern], known: Iterable[str]) -> set[str]:
    """Hosts in a domain's spelling that error or warning lines name on a failed call, that no known
    system is called by (as a whole, or as the first label of the host: `db-1.internal`)."""
    names = {name.lower() for name in known}
    counts: dict[str, int] = {}
    for pattern in patterns:
        level = (pattern.level or "").lower()
        if level not in ERROR_LEVELS | WARN_LEVELS or pattern.origin:
            continue
        text = pattern.example.lower()
        if own_credentials_refused(text) or not _FAILED_CALL.search(text):
            continue
        served = set(_SERVED.findall(text))
        for match in _HOST.finditer(text):
            host = match.group("named") or match.group("ported")
            if not _TOP_LEVEL.search(host) or _SOURCE_FILE.search(host) or host in EVERY_MACHINE:
                continue
            if host in served:
                continue  # the site the proxy serves (its request's own Host), not where a call went
            if _PRIVATE_DOMAIN.search(host) or _RESOLVING.search(text[: match.start()]):
                continue
            if not _known(host, names):
                counts[host] = counts.get(host, 0) + pattern.count
    return {host for host, count in counts.items() if count >= MIN_PATTERN_COUNT}


def _known(host: str, names: set[str]) -> bool:
    labels = host.split(".")
    return (
        host in names
        or labels[0] in names
        or any(name.startswith(f"{host}:") for name in names)
        or _generated_from(labels[0], names)
    )


def _generated_from(label: str, names: set[str]) -> bool:
    """Whether a host's first label is a known system's name with a generated tail (a serverless
    service's URL `ledger-writer-5nq3zq7xja-ew.a.run.app`, a pod's `api-7f9c4-x2k4q`): that system."""
    return any(label.startswith(f"{name}-") and re.search(r"\d", label[len(name) + 1 :]) for name in names)


# Labels of a host that say where on a vendor's site a call goes, not whose site it is.
_ROLE_LABELS = frozenset({"api", "apis", "www", "app", "web", "gateway", "rest", "edge", "cdn"})


def vendor_name(host: str, patterns: Iterable[LogPattern]) -> str:
    """The name a third party goes by: the one label of its host (`sendgrid` of `api.sendgrid.com`)
    that its callers' lines also say as a word of their own ("sendgrid: POST ...", "sendgrid rate
    limit exhausted"), else its whole host."""
    labels = [label for label in host.split(".")[:-1] if len(label) >= 4 and label not in _ROLE_LABELS]
    said = " ".join(p.example.lower().replace(host, " ") for p in patterns if host in p.example.lower())
    words = [label for label in labels if re.search(rf"(?<![\w.-]){re.escape(label)}(?![\w.-])", said)]
    return words[0] if len(words) == 1 else host
