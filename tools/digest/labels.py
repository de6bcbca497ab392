"""Which service a label set belongs to, and how instants are written in facts.

Services come from generic label keys in a fixed priority order; nothing here knows a world's names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache

# Most specific first: an explicit service label beats an app label, which beats the scrape job
# (often a generic name such as "kubernetes-pods") and the container or workload names.
SERVICE_LABEL_KEYS: tuple[str, ...] = (
    "service",
    "service_name",
    "app",
    "app_kubernetes_io_name",
    "application",
    "component",
    "job",
    "container",
    "deployment",
    "statefulset",
    "daemonset",
    "k8s_app",
)

# Where an instance-like identity lives, for alert instance lists.
INSTANCE_LABEL_KEYS: tuple[str, ...] = ("instance", "pod", "host", "hostname", "node", "container")


# Kubernetes pod names: <workload>-<pod-template-hash>-<5 chars> (Deployments) or <workload>-<ordinal>
# (StatefulSets). The hash must hold a digit, so "cache-redis" is never cut to "cache".
_DEPLOYMENT_POD = re.compile(r"^(?P<workload>[a-z0-9][a-z0-9-]*?)-(?=[a-z0-9]*\d)[a-z0-9]{5,10}-[a-z0-9]{5}$")
_STATEFUL_POD = re.compile(r"^(?P<workload>[a-z0-9][a-z0-9-]*?)-\d{1,3}$")


def service_of(labels: Mapping[str, str]) -> str | None:
    """The first non-blank value among the service label keys; else the workload a `pod` label names."""
    for key in SERVICE_LABEL_KEYS:
        value = labels.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    pod = labels.get("pod")
    if isinstance(pod, str):
        match = _DEPLOYMENT_POD.match(pod.strip()) or _STATEFUL_POD.match(pod.strip())
        if match:
            return match.group("workload")
    return None


@lru_cache(maxsize=1024)
def name_pattern(name: str) -> re.Pattern[str]:
    """`name` as a whole word, where a hyphen counts as part of a word ("api" is not in "api-gateway").

    Compiled once per name: the analyst and EvidenceGuard test every name against many lines.
    """
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def instance_of(labels: Mapping[str, str]) -> str | None:
    """The first non-blank value among the instance label keys, or None."""
    for key in INSTANCE_LABEL_KEYS:
        value = labels.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def iso_utc(moment: datetime) -> str:
    """ISO-8601 UTC with a trailing Z, second precision (the spelling every fact uses)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_from_unix(seconds: float) -> str:
    """ISO-8601 UTC for a unix timestamp in seconds."""
    return iso_utc(datetime.fromtimestamp(seconds, tz=UTC))


def parse_instant(value: object) -> datetime | None:
    """An aware UTC datetime from an ISO string or unix seconds; None when unreadable."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value), tz=UTC)
    if isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def clip(text: str, limit: int) -> str:
    """Text cut to `limit` characters with an ellipsis when it was longer; whitespace collapsed."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
