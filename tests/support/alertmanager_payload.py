"""Alertmanager webhook bodies (version 4) as Alertmanager sends them, for the receiver's tests."""

from __future__ import annotations

from typing import Any


def notification(
    alerts: list[dict[str, Any]], *, group_key: str = '{}:{alertname="HighErrorRate"}', status: str = "firing"
) -> dict[str, Any]:
    return {
        "version": "4",
        "groupKey": group_key,
        "truncatedAlerts": 0,
        "status": status,
        "receiver": "superbiz",
        "groupLabels": {"alertname": alerts[0]["labels"]["alertname"]} if alerts else {},
        "commonLabels": {},
        "commonAnnotations": {},
        "externalURL": "http://alertmanager.example:9093",
        "alerts": alerts,
    }


def alert(name: str, service: str, *, status: str = "firing", fingerprint: str = "f1") -> dict[str, Any]:
    return {
        "status": status,
        "labels": {"alertname": name, "service": service, "severity": "critical"},
        "annotations": {"summary": f"{name} on {service}"},
        "startsAt": "2026-12-02T10:00:00Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "http://prometheus.example/graph",
        "fingerprint": fingerprint,
    }
