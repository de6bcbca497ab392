"""The lab's own processes: a throwaway PostgreSQL cluster, MariaDB, Redis, the four exporters, the
storefront, Prometheus and Alertmanager, all on free loopback ports under one temporary directory.

Nothing here touches the machine's shared services: every server is started from a fresh data
directory and stopped (and the directory removed) on close.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pymysql
import yaml

from tests.lab.app import RunningStorefront
from tests.lab.monitoring import POSTGRES_QUERIES, alertmanager_config, prometheus_config, rules_file
from tests.lab.probes import reachable, value, wait_until
from tests.support.live_server import free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")
BINARIES = (
    "prometheus",
    "prometheus-alertmanager",
    "prometheus-node-exporter",
    "prometheus-postgres-exporter",
    "prometheus-redis-exporter",
    "prometheus-mysqld-exporter",
    "stress-ng",
    "redis-server",
    "mariadb-install-db",
    "mariadbd",
)
START_BOUND_S = 60.0
PG_DATABASE, MYSQL_DATABASE = "payments", "inventory"
RO_USER, RO_PASSWORD = "lab_ro", "lab-ro-pw"
SPOOL_BYTES = 64 * 1024 * 1024


def missing_requirements() -> list[str]:
    """What this machine lacks to run the lab (binaries, root); empty when it can run."""
    missing = [name for name in BINARIES if shutil.which(name) is None]
    if not (PG_BIN / "initdb").exists():
        missing.append(str(PG_BIN / "initdb"))
    if os.geteuid() != 0:
        missing.append("root (tmpfs mount, server users)")
    return missing


@dataclass
class _Process:
    command: list[str]
    log: Path
    env: dict[str, str] | None = None
    user: str | None = None
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.command, stdout=out, stderr=subprocess.STDOUT, env=self.env, user=self.user
            )

    def stop(self) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        self.popen.terminate()
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout=5)


@dataclass
class LabStack:
    """Start with `start()`, always `close()`; exposes the URLs the service and the faults need."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="sb-lab-")))
    ports: dict[str, int] = field(default_factory=dict)
    processes: dict[str, _Process] = field(default_factory=dict)
    storefront: RunningStorefront | None = None
    # The token Alertmanager's receiver sends to the service's webhook (a fresh one per lab).
    webhook_token: str = field(default_factory=lambda: secrets.token_hex(16))
    _cleanup: ExitStack = field(default_factory=ExitStack)

    @property
    def spool(self) -> Path:
        """The tmpfs the filesystem fault fills (mounted for the whole lab, so it has a history)."""
        return self.root / "spool"

    @property
    def storefront_log(self) -> Path:
        """The storefront's JSON-lines log."""
        return self.root / "storefront" / "app.jsonl"

    def log_files(self) -> dict[str, str]:
        """The lab's log files by identity, as the service's file logs source is configured.

        Not MariaDB's (its error log goes to mysql.log: mariadbd, as mysql, cannot create --log-error in
        the root-owned lab directory): mysqld_exporter's scrapes fill it with steady "[Warning] Aborted
        connection" lines, which the rules analyst takes for the root cause of every question, the
        healthy ones included (a background warning, present before any fault, is not yet discounted).
        """
        return {
            "storefront": str(self.storefront_log),
            "postgres": str(self.root / "postgres.log"),
            "redis": str(self.root / "redis.log"),
        }

    @property
    def prometheus_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['prometheus']}"

    @property
    def alertmanager_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['alertmanager']}"

    @property
    def service_url(self) -> str:
        """Where the service under test listens: Alertmanager's receiver posts to its webhook there."""
        return f"http://127.0.0.1:{self.ports['service']}"

    def pg_dsn(self, database: str = PG_DATABASE) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.ports['postgres']}/{database}"

    def sql_datasources(self) -> dict[str, str]:
        """The read-only datasources the service is given (the role README's SQL section describes)."""
        return {
            PG_DATABASE: f"postgresql://{RO_USER}:{RO_PASSWORD}@127.0.0.1:{self.ports['postgres']}/{PG_DATABASE}",
            MYSQL_DATABASE: f"mysql://{RO_USER}:{RO_PASSWORD}@127.0.0.1:{self.ports['mysql']}/{MYSQL_DATABASE}",
        }

    def start(self) -> None:
        self.root.chmod(0o755)
        for name in (
            "postgres",
            "mysql",
            "redis",
            "node",
            "pg_exporter",
            "redis_exporter",
            "mysqld_exporter",
            "storefront",
            "prometheus",
            "alertmanager",
            "service",
        ):
            self.ports[name] = free_port()
        self._mount_spool()
        self._start_postgres()
        self._start_mariadb()
        self._spawn(
            "redis",
            [
                "redis-server",
                "--port",
                str(self.ports["redis"]),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
            ],
        )
        self._start_exporters()
        self.storefront_log.parent.mkdir()
        self.storefront = RunningStorefront(self.ports["storefront"], self.storefront_log)
        self._cleanup.callback(self.storefront.stop)
        self._start_monitoring()

    def close(self) -> None:
        for process in reversed(list(self.processes.values())):
            process.stop()
        self._cleanup.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def stop_process(self, name: str) -> None:
        self.processes[name].stop()

    def restart_process(self, name: str) -> None:
        self.processes[name].start()

    def running(self, name: str) -> bool:
        popen = self.processes[name].popen
        return popen is not None and popen.poll() is None

    def log_tail(self, chars: int = 1500) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-chars:]}" for p in self.root.glob("*.log")
        )

    def _spawn(
        self, name: str, command: list[str], *, env: dict[str, str] | None = None, user: str | None = None
    ) -> None:
        process = _Process(command, self.root / f"{name}.log", env=env, user=user)
        self.processes[name] = process
        process.start()

    def _mount_spool(self) -> None:
        self.spool.mkdir()
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={SPOOL_BYTES}", "tmpfs", str(self.spool)], check=True
        )
        # ExitStack runs callbacks last-in first-out: this unmount runs after every process has stopped.
        self._cleanup.callback(subprocess.run, ["umount", "-l", str(self.spool)], check=False)

    def _start_postgres(self) -> None:
        data = self.root / "pg"
        data.mkdir()
        shutil.chown(data, "postgres")
        subprocess.run(
            [str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
            check=True,
            capture_output=True,
            user="postgres",
        )
        self._spawn(
            "postgres",
            [
                str(PG_BIN / "postgres"),
                "-D",
                str(data),
                "-p",
                str(self.ports["postgres"]),
                "-k",
                str(data),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "max_connections=50",
                "-c",
                "log_lock_waits=on",
                "-c",
                "deadlock_timeout=500ms",
            ],
            user="postgres",
        )
        wait_until(lambda: _pg_ready(self.pg_dsn("postgres")), bound_s=START_BOUND_S, what="PostgreSQL up")
        with psycopg.connect(self.pg_dsn("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {PG_DATABASE}")
            conn.execute(f"CREATE ROLE {RO_USER} LOGIN PASSWORD '{RO_PASSWORD}'")
            conn.execute(f"GRANT pg_monitor TO {RO_USER}")
            conn.execute(f"ALTER ROLE {RO_USER} SET default_transaction_read_only = on")
        with psycopg.connect(self.pg_dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL, amount numeric)")
            conn.execute("INSERT INTO orders SELECT g, 'paid', g * 1.5 FROM generate_series(1, 200) g")
            conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {RO_USER}")

    def _start_mariadb(self) -> None:
        data = self.root / "mysql"
        data.mkdir()
        shutil.chown(data, "mysql")
        subprocess.run(
            [
                "mariadb-install-db",
                "--no-defaults",
                f"--datadir={data}",
                "--user=mysql",
                "--auth-root-authentication-method=normal",
            ],
            check=True,
            capture_output=True,
        )
        self._spawn(
            "mysql",
            [
                "mariadbd",
                "--no-defaults",
                "--user=mysql",
                f"--datadir={data}",
                f"--port={self.ports['mysql']}",
                f"--socket={data / 'sock'}",
                "--bind-address=127.0.0.1",
                f"--log-error={self.root / 'mariadb-err.log'}",
                "--max-connections=60",
            ],
        )
        wait_until(lambda: _mysql_ready(self.ports["mysql"]), bound_s=START_BOUND_S, what="MariaDB up")
        conn = pymysql.connect(host="127.0.0.1", port=self.ports["mysql"], user="root", autocommit=True)
        try:
            with conn.cursor() as cursor:
                cursor.execute(f"CREATE DATABASE {MYSQL_DATABASE}")
                cursor.execute(
                    f"CREATE TABLE {MYSQL_DATABASE}.stock (sku VARCHAR(32) PRIMARY KEY, units INT)"
                )
                cursor.execute(f"INSERT INTO {MYSQL_DATABASE}.stock VALUES ('sku-1', 10), ('sku-2', 0)")
                # 127.0.0.1 resolves to localhost, where the anonymous user of mariadb-install-db
                # would win over '%'.
                for host in ("localhost", "%"):
                    cursor.execute(f"CREATE USER '{RO_USER}'@'{host}' IDENTIFIED BY '{RO_PASSWORD}'")
                    cursor.execute(f"GRANT SELECT, PROCESS, SHOW VIEW ON *.* TO '{RO_USER}'@'{host}'")
        finally:
            conn.close()

    def _start_exporters(self) -> None:
        ports = self.ports
        queries = self.root / "pg-queries.yml"
        queries.write_text(yaml.safe_dump(POSTGRES_QUERIES), encoding="utf-8")
        base = dict(os.environ)
        self._spawn(
            "node_exporter", ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{ports['node']}"]
        )
        pg_dsn = f"postgresql://postgres@127.0.0.1:{ports['postgres']}/postgres?sslmode=disable"
        self._spawn(
            "postgres_exporter",
            [
                "prometheus-postgres-exporter",
                f"--extend.query-path={queries}",
                f"--web.listen-address=127.0.0.1:{ports['pg_exporter']}",
            ],
            env={**base, "DATA_SOURCE_NAME": pg_dsn},
        )
        self._spawn(
            "redis_exporter",
            [
                "prometheus-redis-exporter",
                f"-redis.addr=redis://127.0.0.1:{ports['redis']}",
                f"-web.listen-address=127.0.0.1:{ports['redis_exporter']}",
            ],
        )
        self._spawn(
            "mysqld_exporter",
            ["prometheus-mysqld-exporter", f"--web.listen-address=127.0.0.1:{ports['mysqld_exporter']}"],
            env={**base, "DATA_SOURCE_NAME": f"root@(127.0.0.1:{ports['mysql']})/"},
        )

    def _start_monitoring(self) -> None:
        ports = self.ports
        rules = self.root / "rules.yml"
        rules.write_text(yaml.safe_dump(rules_file(), sort_keys=False), encoding="utf-8")
        targets = {
            "node": ports["node"],
            "postgres": ports["pg_exporter"],
            "redis": ports["redis_exporter"],
            "mysqld": ports["mysqld_exporter"],
            "storefront": ports["storefront"],
        }
        config = prometheus_config(
            targets,
            prometheus_port=ports["prometheus"],
            alertmanager_port=ports["alertmanager"],
            rules_path=str(rules),
        )
        (self.root / "prometheus.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        (self.root / "alertmanager.yml").write_text(
            yaml.safe_dump(
                alertmanager_config(f"{self.service_url}/api/alertmanager/webhook", self.webhook_token)
            ),
            encoding="utf-8",
        )
        self._spawn(
            "alertmanager",
            [
                "prometheus-alertmanager",
                f"--config.file={self.root / 'alertmanager.yml'}",
                f"--storage.path={self.root / 'am'}",
                "--cluster.listen-address=",
                f"--web.listen-address=127.0.0.1:{ports['alertmanager']}",
                "--log.level=warn",
            ],
        )
        self._spawn(
            "prometheus",
            [
                "prometheus",
                f"--config.file={self.root / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.root / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{ports['prometheus']}",
                "--rules.alert.resend-delay=1s",
                "--log.level=warn",
            ],
        )
        wait_until(
            lambda: reachable(self.alertmanager_url + "/-/ready"),
            bound_s=START_BOUND_S,
            what="Alertmanager ready",
        )
        wait_until(
            lambda: reachable(self.prometheus_url + "/-/ready"),
            bound_s=START_BOUND_S,
            what="Prometheus ready",
        )
        expected = len(config["scrape_configs"])
        wait_until(
            lambda: value(self.prometheus_url, "count(up == 1)") == expected,
            bound_s=START_BOUND_S,
            what=f"all {expected} scrape targets up",
        )


def _pg_ready(dsn: str) -> bool:
    try:
        psycopg.connect(dsn, connect_timeout=1).close()
        return True
    except psycopg.OperationalError:
        return False


def _mysql_ready(port: int) -> bool:
    try:
        pymysql.connect(host="127.0.0.1", port=port, user="root", connect_timeout=1).close()
        return True
    except pymysql.err.OperationalError:
        return False
