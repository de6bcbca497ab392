"""No name of a world's service, host, alert, metric or table appears anywhere in graph/.

The analyst must read what the evidence says; a name from the worlds we wrote in its code (or in a
comment that shapes the next edit) is a rule fitted to those worlds. Names are collected from every
world under tests/data, the demo world and the live lab, and grepped for as whole words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# Label keys whose values name a thing (a service, host, workload, database...), not a state.
_NAMING_KEYS = frozenset(
    {"alertname", "service", "app", "job", "instance", "deployment", "container", "pod", "namespace",
     "datname", "host", "hostname", "node", "workload", "statefulset", "daemonset", "db", "database"}
)  # fmt: skip
# Plain English words some world happens to use as a name, and Prometheus's own series and job names
# (`ALERTS`, `up`, the node exporter's `node`): graph/ may use them in their ordinary sense.
GENERIC_WORDS = frozenset({"live", "gateway", "node", "ALERTS", "up"})
# Lab literals: hyphenated names (hosts, apps), CamelCase alert names, snake_case metric names.
_TABLE = re.compile(r"create table (?:if not exists )?[\"`]?(\w+)", re.IGNORECASE)
_LAB_NAME = re.compile(r"[a-z]+(?:-[a-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z0-9]+){2,}")


def _world_dirs() -> list[Path]:
    worlds = ROOT / "tests" / "data"
    found = [p for p in worlds.rglob("world.yaml")]
    return sorted({p.parent for p in found} | {ROOT / "tools" / "demo_world"})


def _labels(mapping: object) -> Iterator[str]:
    if isinstance(mapping, dict):
        yield from (str(v) for k, v in mapping.items() if k in _NAMING_KEYS)


def _world_names(world: Path) -> Iterator[str]:
    if (alerts := world / "alerts.json").exists():
        for alert in json.loads(alerts.read_text()):
            yield from _labels(alert.get("labels"))
    if (metrics := world / "metrics.json").exists():
        for series in json.loads(metrics.read_text()):
            yield str(series.get("metric") or "")
            yield from _labels(series.get("labels"))
    if (logs := world / "logs.jsonl").exists():
        for line in logs.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                yield from _labels(record)
                yield from _labels(record.get("labels"))
    for script in sorted((world / "sql").glob("*.sql")):
        yield script.stem
        yield from _TABLE.findall(script.read_text())


def _lab_names() -> Iterator[str]:
    for module in sorted((ROOT / "tests" / "lab").glob("*.py")):
        for literal in re.findall(r"\"([A-Za-z][\w:.-]{2,})\"", module.read_text()):
            if _LAB_NAME.fullmatch(literal):
                yield literal


def world_names() -> set[str]:
    names = {n for world in _world_dirs() for n in _world_names(world)} | set(_lab_names())
    return {n for n in names if len(n) >= 3 and n not in GENERIC_WORDS}


def test_the_worlds_give_names_to_look_for() -> None:
    names = world_names()
    # The collection itself works: a broken reader would make the next test pass vacuously.
    assert len(names) > 150
    assert len(_world_dirs()) > 15


def test_graph_names_no_service_metric_table_or_host_of_any_world() -> None:
    sources = {path: path.read_text() for path in sorted((ROOT / "graph").rglob("*.py"))}
    found: list[str] = []
    for name in sorted(world_names()):
        # As spelled: `ALERTS` is a series name, "alerts" a word; `payments` a service in any case.
        flags = 0 if any(c.isupper() for c in name) else re.IGNORECASE
        pattern = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", flags)
        found += [f"{name} in {path.relative_to(ROOT)}" for path, t in sources.items() if pattern.search(t)]
    assert not found, "world names in graph/: " + "; ".join(found)
