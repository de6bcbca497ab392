"""Which service a label set belongs to, and how instants are written in facts.

Services are identities (`tools.identity`, one ordered list of labels); nothing here knows a world's names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache

from tools.identity import DEFAULT_IDENTITY, IdentityLabels, name_of

# The identity labels whose value alone names a service (no scope, no scrape target, no pod name).
SERVICE_LABEL_KEYS: tuple[str, ...] = tuple(
    k for k in DEFAULT_IDENTITY.labels if k not in ("namespace", "pod", "instance")
)

# Labels that name the machine a log line came from (a kernel's or syslog's stream is about it).
HOST_LABEL_KEYS: tuple[str, ...] = ("host", "hostname", "nodename")

# Where an instance-like identity lives, for alert instance lists.
INSTANCE_LABEL_KEYS: tuple[str, ...] = ("instance", "pod", "host", "hostname", "node", "container")


def service_of(labels: Mapping[str, str], identity: IdentityLabels = DEFAULT_IDENTITY) -> str | None:
    """The short name of the system a label set is about (`tools.identity`), or None.

    The first identity label present names it (a pod by its workload); a label set with only an
    `instance` (a rule that aggregates `by (instance)`) is named by that instance.
    """
    return name_of(labels, identity)


# A deployment's environment after its name (`argocd/order-router-prod`) is still that system.
ENVIRONMENT = r"(?:prod|production|staging|stage|stg|dev|canary|live)"


@lru_cache(maxsize=1024)
def name_pattern(name: str) -> re.Pattern[str]:
    """`name` as a whole word, where a hyphen counts as part of a word ("api" is not in "api-gateway")
    except before an environment's name ("x-prod" is x).

    Compiled once per name: the analyst and EvidenceGuard test every name against many lines.
    """
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?!\w)(?!-(?!{ENVIRONMENT}(?![\w-])))")


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


# Between the head and the tail of a long line; no log line holds it, so a quote never spans it.
ELIDED = " […] "


def clip_ends(text: str, limit: int, tail: int) -> str:
    """A long line's first `limit` characters and its last `tail` ones (from a word), whitespace collapsed.

    The end of a long error line often names what failed (the resource path after "permission
    denied on", the key after "Duplicate entry"): a head-only clip would lose exactly that.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit + tail:
        return flat
    end = flat[-tail:]
    end = end.split(" ", 1)[1] if " " in end[:-1] else end
    return f"{flat[:limit]}{ELIDED}{end}"


def clip(text: str, limit: int) -> str:
    """Text cut to `limit` characters with an ellipsis when it was longer; whitespace collapsed."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
