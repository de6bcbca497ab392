"""OpenMetrics text for a fleet of hosts as real exporters label them, streamed to a file for promtool.

Every host runs node_exporter plus one service exporter (postgres, redis, mysqld or an instrumented
app); every exporter also exposes its own go_/process_/promhttp_ series. Hosts are added until the
requested number of series is reached. One host (`ALERT_INSTANCE`) carries a filesystem that is
almost full: the series the bench's alert rule points at.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

Labels = tuple[tuple[str, str], ...]

ALERT_HOST = 4  # a postgres host (hosts take services in turn)
ALERT_INSTANCE = "pg-0004:9100"
ALERT_MOUNTPOINT = "/var/lib/postgresql"
ALERT_RULE = "HostFilesystemAlmostFull"
# The rule the bench loads into Prometheus; it aggregates nothing away, as node-mixin's does not.
ALERT_EXPR = (
    'node_filesystem_avail_bytes{fstype!="tmpfs"} / node_filesystem_size_bytes{fstype!="tmpfs"} * 100 < 10'
)
_SERVICES = ("postgres", "redis", "mysqld", "app")
_HOST_PREFIX = {"postgres": "pg", "redis": "cache", "mysqld": "mysql", "app": "web"}
_EXPORTER_PORT = {"node": 9100, "postgres": 9187, "redis": 9121, "mysqld": 9104, "app": 8080}
_CPUS = 8
_MODES = ("idle", "user", "system", "iowait", "irq", "softirq", "steal", "nice")
_MOUNTS = (
    ("/", "vda1", "ext4"),
    ("/boot", "vda2", "ext4"),
    (ALERT_MOUNTPOINT, "vdb1", "xfs"),
    ("/run", "tmpfs", "tmpfs"),
)
_NICS, _DISKS = ("eth0", "eth1", "lo", "docker0"), ("vda", "vdb", "vdc", "nvme0n1")
_DATABASES = ("postgres", "orders", "payments", "inventory")
_PG_STATES = (
    "active",
    "idle",
    "idle in transaction",
    "idle in transaction (aborted)",
    "fastpath function call",
    "disabled",
)
_LOCK_MODES = (
    "AccessShareLock",
    "RowShareLock",
    "RowExclusiveLock",
    "ShareUpdateExclusiveLock",
    "ShareLock",
    "ShareRowExclusiveLock",
    "ExclusiveLock",
    "AccessExclusiveLock",
)
_REDIS_CMDS = (
    "get",
    "set",
    "del",
    "incr",
    "expire",
    "hget",
    "hset",
    "lpush",
    "rpop",
    "sadd",
    "smembers",
    "zadd",
    "zrange",
    "mget",
    "mset",
    "ping",
    "info",
    "scan",
    "ttl",
    "exists",
)
_MYSQL_CMDS = (
    "com_select",
    "com_insert",
    "com_update",
    "com_delete",
    "com_begin",
    "com_commit",
    "com_rollback",
    "com_replace",
    "com_show_status",
    "com_show_variables",
    "com_set_option",
    "com_change_db",
)
_HANDLERS = (
    "/checkout",
    "/cart",
    "/login",
    "/search",
    "/product",
    "/orders",
    "/payment",
    "/healthz",
    "/metrics",
    "/api/v1/stock",
)
_CODES = ("200", "404", "500", "503")
_BUCKETS = ("0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf")


@dataclass(frozen=True, slots=True)
class Family:
    """One metric family: its exporter job and the label sets one instance exposes."""

    name: str
    job: str  # "node", a service, or "*" for every exporter's own telemetry
    label_sets: tuple[Labels, ...]
    base: float  # values are drawn around this level


def _sets(**dimensions: tuple[str, ...]) -> tuple[Labels, ...]:
    names = tuple(dimensions)
    return tuple(tuple(zip(names, combo, strict=True)) for combo in itertools.product(*dimensions.values()))


_ONE: tuple[Labels, ...] = ((),)
_MOUNT_SETS = tuple((("device", f"/dev/{d}"), ("fstype", f), ("mountpoint", m)) for m, d, f in _MOUNTS)
FAMILIES: tuple[Family, ...] = (
    Family("node_cpu_seconds_total", "node", _sets(cpu=tuple(map(str, range(_CPUS))), mode=_MODES), 1e5),
    Family("node_filesystem_avail_bytes", "node", _MOUNT_SETS, 4e10),
    Family("node_filesystem_size_bytes", "node", _MOUNT_SETS, 1e11),
    Family("node_filesystem_free_bytes", "node", _MOUNT_SETS, 4.2e10),
    Family("node_network_receive_bytes_total", "node", _sets(device=_NICS), 1e12),
    Family("node_network_transmit_bytes_total", "node", _sets(device=_NICS), 1e12),
    Family("node_disk_io_time_seconds_total", "node", _sets(device=_DISKS), 1e4),
    Family("node_disk_read_bytes_total", "node", _sets(device=_DISKS), 1e11),
    Family("node_disk_written_bytes_total", "node", _sets(device=_DISKS), 1e11),
    Family("node_memory_MemAvailable_bytes", "node", _ONE, 8e9),
    Family("node_memory_MemTotal_bytes", "node", _ONE, 1.6e10),
    Family("node_load1", "node", _ONE, 1.0),
    Family("node_load5", "node", _ONE, 1.0),
    Family("pg_up", "postgres", _ONE, 1.0),
    Family("pg_settings_max_connections", "postgres", _ONE, 100.0),
    Family("pg_stat_activity_count", "postgres", _sets(datname=_DATABASES, state=_PG_STATES), 5.0),
    Family("pg_locks_count", "postgres", _sets(datname=_DATABASES, mode=_LOCK_MODES), 3.0),
    Family("redis_memory_used_bytes", "redis", _ONE, 1e9),
    Family("redis_connected_clients", "redis", _ONE, 40.0),
    Family("redis_db_keys", "redis", _sets(db=("db0", "db1", "db2", "db3")), 1e5),
    Family("redis_commands_total", "redis", _sets(cmd=_REDIS_CMDS), 1e7),
    Family("mysql_global_status_threads_connected", "mysqld", _ONE, 30.0),
    Family("mysql_global_variables_max_connections", "mysqld", _ONE, 151.0),
    Family("mysql_global_status_commands_total", "mysqld", _sets(command=_MYSQL_CMDS), 1e6),
    Family("http_requests_total", "app", _sets(handler=_HANDLERS, method=("GET",), code=_CODES), 1e6),
    Family("http_request_duration_seconds_bucket", "app", _sets(handler=_HANDLERS, le=_BUCKETS), 1e5),
    Family("http_request_duration_seconds_sum", "app", _sets(handler=_HANDLERS), 1e4),
    Family("http_request_duration_seconds_count", "app", _sets(handler=_HANDLERS), 1e5),
    Family("go_goroutines", "*", _ONE, 20.0),
    Family("go_memstats_alloc_bytes", "*", _ONE, 5e6),
    Family("go_gc_duration_seconds", "*", _sets(quantile=("0", "0.25", "0.5", "0.75", "1")), 1e-4),
    Family("process_cpu_seconds_total", "*", _ONE, 1e3),
    Family("process_resident_memory_bytes", "*", _ONE, 3e7),
    Family("promhttp_metric_handler_requests_total", "*", _sets(code=("200", "500", "503")), 1e4),
)
_SELF = sum(len(f.label_sets) for f in FAMILIES if f.job == "*")
_NODE = sum(len(f.label_sets) for f in FAMILIES if f.job == "node") + _SELF


def service_of(host: int) -> str:
    return _SERVICES[host % len(_SERVICES)]


def host_series(host: int) -> int:
    """Series one host exposes: node_exporter and its service's exporter, each with its own telemetry."""
    service = service_of(host)
    return _NODE + sum(len(f.label_sets) for f in FAMILIES if f.job == service) + _SELF


def hosts_for(series: int) -> int:
    """Hosts needed for at least `series` series (the fleet always includes the alerting host)."""
    total, host = 0, 0
    while total < series:
        total += host_series(host)
        host += 1
    return max(host, ALERT_HOST + 1)


def _instance(host: int, job: str) -> str:
    return f"{_HOST_PREFIX[service_of(host)]}-{host:04d}:{_EXPORTER_PORT[job]}"


def _targets(family: Family, hosts: int) -> Iterator[tuple[str, str, int]]:
    """(job, instance, host) of every exporter exposing `family`."""
    for host in range(hosts):
        service = service_of(host)
        if family.job in ("node", "*"):
            yield "node", _instance(host, "node"), host
        if family.job in (service, "*"):
            yield service, _instance(host, service), host


def _value(family: Family, labels: Labels, host: int, step: int) -> float:
    if (
        family.name == "node_filesystem_avail_bytes"
        and host == ALERT_HOST
        and (("mountpoint", ALERT_MOUNTPOINT) in labels)
    ):
        return family.base * 0.05 * (1 - step / 10)  # 2 GB of 100 GB left and shrinking
    return family.base * (1 + ((host * 31 + step * 7 + len(labels)) % 17) / 100)


def write_openmetrics(path: Path, *, series: int, timestamps: list[int]) -> int:
    """Write about `series` series (whole hosts), `len(timestamps)` samples each; returns the count."""
    hosts = hosts_for(series)
    written = 0
    with path.open("w", buffering=1 << 20) as out:
        for family in FAMILIES:
            written += _write_family(out, family, hosts, timestamps)
        out.write("# EOF\n")
    return written


def _write_family(out: TextIO, family: Family, hosts: int, timestamps: list[int]) -> int:
    out.write(f"# TYPE {family.name} gauge\n")
    count = 0
    for job, instance, host in _targets(family, hosts):
        for labels in family.label_sets:
            text = ",".join(f'{k}="{v}"' for k, v in (*labels, ("instance", instance), ("job", job)))
            out.writelines(
                f"{family.name}{{{text}}} {_value(family, labels, host, step):.6g} {ts}\n"
                for step, ts in enumerate(timestamps)
            )
            count += 1
    return count
