"""Systems their callers know only by address: a client's "Connection to node 2 (10.20.4.12:9092)
could not be established" names no service, but the host part of the instance a system's series are
scraped at (`instance="10.20.4.12:9308"`) is that system's address, whatever the port."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from graph.analysts.rules.suspect import Suspect

# Hosts every machine has: naming one says nothing about which system is meant.
EVERY_MACHINE = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"})
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
# An IPv4 or IPv6 address, bracketed or not, with or without a port.
_BRACKETED = re.compile(r"^\[([^\]]+)\](?::\d+)?$")
_HOST_AND_PORT = re.compile(r"^([^:]+):\d+$")
_ADDRESS = re.compile(r"^(?=.*\d)(?=.*[.:])[\d.:a-fA-F]+$")


def is_address(value: str) -> bool:
    """Whether a name or label value is a bare network address (`10.40.0.2`, `10.4.1.9:9100`, `[::1]`),
    digits and separators in it: no word of hex letters (`cafe`, `beef:9100`)."""
    match = _BRACKETED.match(value) or _HOST_AND_PORT.match(value)
    return _ADDRESS.match(match.group(1) if match else value) is not None


def address_owners(suspects: Mapping[str, Suspect]) -> dict[str, str]:
    """Address -> the one system whose series or alerts carry it as their instance's host. An
    address two systems carry (an app and the node exporter on one machine) names neither."""
    owners: dict[str, set[str]] = {}
    for suspect in suspects.values():
        for address in _addresses(suspect):
            owners.setdefault(address, set()).add(suspect.service)
    # A host named like a system (`cache:6379` in a compose file) is that system's name, not an address.
    names = {name.lower() for name in suspects}
    return {
        address: next(iter(found))
        for address, found in owners.items()
        if len(found) == 1 and address not in names
    }


def names_address(text: str, address: str) -> bool:
    """Whether lower-cased `text` names `address` as a whole (10.2.0.1 is not 10.2.0.15)."""
    return _address_pattern(address).search(text) is not None


def carrying(suspect: Suspect, address: str) -> list[str]:
    """The evidence of `suspect`'s own that carries `address`: what ties the address to its name."""
    found = {a.evidence_id for a in suspect.anomalies if address in _hosts(a.labels.values())}
    found |= {g.evidence_id for g in suspect.alerts if address in _hosts([*g.labels.values(), *g.instances])}
    return sorted(found)


def scraped_as(suspect: Suspect, job: str) -> list[str]:
    """The evidence of `suspect`'s own scraped under `job`: what ties the job's name to it."""
    found = {a.evidence_id for a in suspect.anomalies if a.labels.get("job") == job}
    found |= {g.evidence_id for g in suspect.alerts if g.labels.get("job") == job}
    return sorted(found)


def _addresses(suspect: Suspect) -> set[str]:
    hosts = _hosts(value for a in suspect.anomalies for key, value in a.labels.items() if key == "instance")
    hosts |= _hosts(value for g in suspect.alerts for value in [g.labels.get("instance", ""), *g.instances])
    return hosts


def _hosts(values: Iterable[str]) -> set[str]:
    return {host for value in values if (host := _host_of(value)) is not None}


def _host_of(value: str) -> str | None:
    """The host of an `instance` value: an IPv4 address, or a host with a port (a host name
    without a port is a name, not an address)."""
    host, colon, port = value.lower().rpartition(":")
    if not (colon and port.isdigit()):
        host = value.lower()
        if not _IPV4.fullmatch(host):
            return None
    # A plain word (`cache`) is a name; an address holds a digit, a domain or a machine's hyphenated
    # name (`db-node-a:9216`, whose clients' drivers say "server db-node-a:27017").
    if host in EVERY_MACHINE or len(host) < 4 or not re.search(r"[\d.-]", host):
        return None
    return host


@lru_cache(maxsize=1024)
def _address_pattern(address: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(address)}(?![\w-]|\.\d)")
