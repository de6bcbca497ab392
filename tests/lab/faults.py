"""The faults the lab induces: each starts in `induce()`, is undone by `undo()` (always called, even
after a failure), and names the alert that shows it in Alertmanager."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Protocol

import psycopg
import redis

from tests.lab.app import Release
from tests.lab.probes import value, wait_until
from tests.lab.stack import SPOOL_BYTES, LabStack

ORDER_ID = 42
BLOCKER_APP, WAITER_APP, LEAK_APP = "billing-batch", "checkout-api", "report-worker"
SPIKE_PREFIX = "lab:spike:"


class Fault(Protocol):
    kind: str
    alert: str  # the alert that fires while the fault holds

    def induce(self, stack: LabStack) -> None: ...

    def undo(self, stack: LabStack) -> None: ...


@dataclass
class LockContention:
    """An idle-in-transaction session holds a row lock; `waiters` sessions queue behind it."""

    waiters: int = 3
    kind: str = "database"
    alert: str = "PostgresLockContention"
    _blocker: psycopg.Connection[tuple[object, ...]] | None = None
    _threads: list[threading.Thread] = field(default_factory=list)

    def induce(self, stack: LabStack) -> None:
        self._blocker = psycopg.connect(stack.pg_dsn(), application_name=BLOCKER_APP)
        self._blocker.execute("UPDATE orders SET status = 'held' WHERE id = %s", (ORDER_ID,))
        # No commit: the blocker sits "idle in transaction" holding the row lock, as a stuck batch job does.
        for _ in range(self.waiters):
            thread = threading.Thread(target=self._wait_for_row, args=(stack.pg_dsn(),), daemon=True)
            thread.start()
            self._threads.append(thread)

    @staticmethod
    def _wait_for_row(dsn: str) -> None:
        # The bound: a waiter gives up after 120 s even if undo() never ran.
        options = "-c statement_timeout=120000"
        with (
            psycopg.connect(dsn, application_name=WAITER_APP, options=options) as conn,
            contextlib.suppress(psycopg.errors.QueryCanceled),
        ):
            conn.execute("UPDATE orders SET status = 'paid' WHERE id = %s", (ORDER_ID,))

    def undo(self, stack: LabStack) -> None:
        if self._blocker is not None:
            self._blocker.rollback()
            self._blocker.close()
        for thread in self._threads:
            thread.join(timeout=30)


@dataclass
class ConnectionLeak:
    """A worker opens connections and never closes them (idle, well below max_connections=50)."""

    connections: int = 34
    kind: str = "database"
    alert: str = "PostgresTooManyConnections"
    _open: list[psycopg.Connection[tuple[object, ...]]] = field(default_factory=list)

    def induce(self, stack: LabStack) -> None:
        for _ in range(self.connections):
            self._open.append(psycopg.connect(stack.pg_dsn(), application_name=LEAK_APP, autocommit=True))

    def undo(self, stack: LabStack) -> None:
        for conn in self._open:
            conn.close()
        self._open.clear()


# Seconds of the node exporter's CPU series Prometheus holds before the CPU fault starts: with reads at
# a 15 s step, enough points before the fault for the move to be seen against them.
CPU_HISTORY_S = 150
_CPU_HISTORY_S = (
    f'time() - min(min_over_time(timestamp(node_cpu_seconds_total{{mode="idle"}})[{CPU_HISTORY_S + 60}s:5s]))'
)


@dataclass
class CpuSaturation:
    """stress-ng on every core, bounded by its own timeout as well as by undo()."""

    kind: str = "host"
    alert: str = "HostHighCpuLoad"
    _process: subprocess.Popen[bytes] | None = None

    def induce(self, stack: LabStack) -> None:
        # A real host has hours of CPU history before it saturates; the lab's Prometheus may be a minute
        # old. Wait (bounded) until it holds enough of the host's quiet CPU for a read to show the move
        # from it, as on a real host: the service is judged on a fault, not on a TSDB younger than one.
        wait_until(
            lambda: (value(stack.prometheus_url, _CPU_HISTORY_S) or 0.0) >= CPU_HISTORY_S,
            bound_s=CPU_HISTORY_S + 30,
            what=f"{CPU_HISTORY_S} s of CPU history",
            every_s=2.0,
        )
        self._process = subprocess.Popen(
            ["stress-ng", "--cpu", "0", "--timeout", "120s", "--quiet"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def undo(self, stack: LabStack) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=15)


@dataclass
class FilesystemFill:
    """Fill the lab's 64 MiB tmpfs to about 94 %."""

    kind: str = "host"
    alert: str = "HostFilesystemAlmostFull"

    def induce(self, stack: LabStack) -> None:
        with (stack.spool / "upload-cache.bin").open("wb") as out:
            out.write(b"\0" * (SPOOL_BYTES * 94 // 100))

    def undo(self, stack: LabStack) -> None:
        (stack.spool / "upload-cache.bin").unlink(missing_ok=True)


@dataclass
class RedisKeySpike:
    """A runaway job writes 20,000 keys into the lab's Redis; undo deletes exactly those keys."""

    keys: int = 20_000
    kind: str = "redis"
    alert: str = "RedisKeySpike"

    def _client(self, stack: LabStack) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=stack.ports["redis"], db=0)

    def induce(self, stack: LabStack) -> None:
        with self._client(stack) as client:
            pipe = client.pipeline(transaction=False)
            for index in range(self.keys):
                pipe.set(f"{SPIKE_PREFIX}{index}", "x")
            pipe.execute()

    def undo(self, stack: LabStack) -> None:
        with self._client(stack) as client:
            batch = list(client.scan_iter(match=f"{SPIKE_PREFIX}*", count=2_000))
            for start in range(0, len(batch), 2_000):
                client.delete(*batch[start : start + 2_000])


@dataclass
class ExporterStopped:
    """A scrape target goes away: the exporter process is stopped, then started again."""

    process: str = "mysqld_exporter"
    kind: str = "scrape target"
    alert: str = "TargetDown"

    def induce(self, stack: LabStack) -> None:
        stack.stop_process(self.process)

    def undo(self, stack: LabStack) -> None:
        if not stack.running(self.process):
            stack.restart_process(self.process)


@dataclass
class BadDeploy:
    """A deploy makes /checkout slow or failing; undo rolls back to v1."""

    release: Release
    alert: str
    kind: str = "application"

    def induce(self, stack: LabStack) -> None:
        assert stack.storefront is not None
        stack.storefront.app.deploy(self.release)

    def undo(self, stack: LabStack) -> None:
        assert stack.storefront is not None
        stack.storefront.app.deploy(Release(version="v1"))


def slow_checkout() -> BadDeploy:
    return BadDeploy(Release(version="v2", checkout_delay_s=0.6), alert="HighRequestLatency")


def failing_checkout() -> BadDeploy:
    return BadDeploy(Release(version="v3", checkout_error_ratio=0.5), alert="HighErrorRate")


# What the storefront logs for each failed checkout while the gateway's certificate is expired.
GATEWAY_CERT_ERROR = (
    "payment gateway TLS handshake failed: certificate expired (notAfter=2026-11-30T23:59:59Z) "
    "for gateway.payments.example:443"
)


@dataclass
class ExpiredGatewayCertificate:
    """No deploy and no new metric: checkouts fail, and only the app's log says why (the gateway's
    certificate expired). The error-rate alert fires on the generic 5xx counter."""

    error_ratio: float = 0.5
    kind: str = "application log"
    alert: str = "HighErrorRate"

    def induce(self, stack: LabStack) -> None:
        assert stack.storefront is not None
        stack.storefront.app.break_checkout(self.error_ratio, GATEWAY_CERT_ERROR)

    def undo(self, stack: LabStack) -> None:
        assert stack.storefront is not None
        stack.storefront.app.restore_checkout()
