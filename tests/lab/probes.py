"""Reading the lab's Prometheus and Alertmanager, and the one bounded wait every step uses."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any


class LabTimeout(RuntimeError):
    """A condition the lab waited for did not hold within its bound."""


def wait_until(condition: Callable[[], bool], *, bound_s: float, what: str, every_s: float = 0.5) -> float:
    """Poll `condition` until it holds; returns the seconds it took, raises LabTimeout past `bound_s`."""
    started = time.monotonic()
    while True:
        try:
            if condition():
                return time.monotonic() - started
        except (urllib.error.URLError, OSError, ValueError):
            pass  # a process still starting: poll again until the bound
        if time.monotonic() - started > bound_s:
            raise LabTimeout(f"{what}: not within {bound_s:.0f}s")
        time.sleep(every_s)


def get_json(url: str, timeout_s: float = 3.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        return json.loads(response.read())


def reachable(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def instant(prometheus: str, expr: str) -> list[tuple[dict[str, str], float]]:
    """An instant query: each series' labels and value."""
    body = get_json(f"{prometheus}/api/v1/query?{urllib.parse.urlencode({'query': expr})}")
    return [(item["metric"], float(item["value"][1])) for item in body["data"]["result"]]


def value(prometheus: str, expr: str) -> float | None:
    """The first value of an instant query, None when it returned nothing."""
    result = instant(prometheus, expr)
    return result[0][1] if result else None


def active_alerts(alertmanager: str) -> list[dict[str, str]]:
    """Labels of every active (not silenced, not resolved) alert Alertmanager holds."""
    alerts = get_json(f"{alertmanager}/api/v2/alerts?active=true&silenced=false&inhibited=false")
    return [dict(alert["labels"]) for alert in alerts if alert.get("status", {}).get("state") == "active"]


def alert_active(alertmanager: str, name: str) -> bool:
    return any(labels.get("alertname") == name for labels in active_alerts(alertmanager))
