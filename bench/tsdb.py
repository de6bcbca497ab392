"""A real Prometheus over a backfilled TSDB: OpenMetrics text -> `promtool` blocks -> `prometheus`.

The backfill is the fleet's last hour. The alerting host's filesystem series are also served live
(a tiny exporter Prometheus scrapes every second), so the bench's rule really fires and the alert
is as fresh as a real one; everything else is history, as most of a large TSDB is.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from bench.openmetrics import ALERT_EXPR, ALERT_INSTANCE, ALERT_MOUNTPOINT, ALERT_RULE, write_openmetrics
from tests.support.live_server import free_port

PROMTOOL, PROMETHEUS = "promtool", "prometheus"
# A few points over the last hour: the TSDB's size is its series, which is what discovery must not scale with.
SAMPLE_OFFSETS_S = (3_600, 2_700, 1_800, 900, 0)
_READY_S, _FIRING_S = 120.0, 60.0


@dataclass(frozen=True, slots=True)
class Backfill:
    """One backfilled TSDB and what making it cost."""

    folder: Path
    series: int
    generate_s: float
    backfill_s: float
    openmetrics_bytes: int
    tsdb_bytes: int


def available() -> str | None:
    """Why the item cannot run here, or None (promtool and prometheus are Debian's `prometheus`)."""
    missing = [tool for tool in (PROMTOOL, PROMETHEUS) if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (apt-get install prometheus)" if missing else None


def backfill(folder: Path, *, series: int) -> Backfill:
    """Write the fleet's OpenMetrics text (streamed to a file), turn it into blocks, drop the text."""
    folder.mkdir(parents=True, exist_ok=True)
    text, data = folder / "fleet.om", folder / "data"
    now = int(time.time())
    started = time.monotonic()
    written = write_openmetrics(text, series=series, timestamps=[now - s for s in SAMPLE_OFFSETS_S])
    generated = time.monotonic()
    subprocess.run(
        [PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", str(text), str(data)],
        check=True,
        capture_output=True,
    )
    done = time.monotonic()
    size = text.stat().st_size
    text.unlink()
    return Backfill(data, written, generated - started, done - generated, size, _disk_bytes(data))


def _disk_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


_RULES = f"""groups:
- name: host
  interval: 1s
  rules:
  - alert: {ALERT_RULE}
    expr: {ALERT_EXPR}
    labels: {{severity: warning}}
    annotations:
      summary: "{{{{ $labels.mountpoint }}}} on {{{{ $labels.instance }}}} has {{{{ $value }}}}% left"
"""


def _config(exporter_port: int) -> str:
    # honor_labels: the live exporter speaks for the alerting host (its job and instance labels).
    return f"""global: {{scrape_interval: 1s, evaluation_interval: 1s}}
rule_files: [rules.yml]
scrape_configs:
- job_name: node
  honor_labels: true
  static_configs: [{{targets: ["127.0.0.1:{exporter_port}"]}}]
"""


def _live_text() -> bytes:
    labels = f'device="/dev/vdb1",fstype="xfs",instance="{ALERT_INSTANCE}",job="node",'
    labels += f'mountpoint="{ALERT_MOUNTPOINT}"'
    return (
        f"# TYPE node_filesystem_avail_bytes gauge\nnode_filesystem_avail_bytes{{{labels}}} 1.9e+09\n"
        f"# TYPE node_filesystem_size_bytes gauge\nnode_filesystem_size_bytes{{{labels}}} 1e+11\n"
    ).encode()


class _Exporter(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = _live_text()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:  # quiet: one scrape a second
        return None


@contextmanager
def _live_exporter() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Exporter)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@dataclass(frozen=True, slots=True)
class Served:
    url: str
    pid: int


@asynccontextmanager
async def prometheus_on(tsdb: Backfill) -> AsyncIterator[Served]:
    """Prometheus serving `tsdb` on its own port, its alert firing; stopped after."""
    home = tsdb.folder.parent
    (home / "rules.yml").write_text(_RULES)
    port = free_port()
    with _live_exporter() as exporter_port:
        (home / "prometheus.yml").write_text(_config(exporter_port))
        command = [
            PROMETHEUS,
            f"--config.file={home / 'prometheus.yml'}",
            f"--storage.tsdb.path={tsdb.folder}",
            # Backfilled blocks outside retention are deleted at start-up; ten years keeps them.
            "--storage.tsdb.retention.time=10y",
            f"--web.listen-address=127.0.0.1:{port}",
        ]
        with (home / "prometheus.log").open("ab") as log:
            process = await asyncio.create_subprocess_exec(
                *command, stdout=log, stderr=log, env=dict(os.environ)
            )
        url = f"http://127.0.0.1:{port}"
        try:
            await _wait_firing(url, process)
            yield Served(url, process.pid)
        finally:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()


async def settle(
    pid: int, *, idle_cpu_s: float = 0.02, window_s: float = 0.25, limit_s: float = 60.0
) -> None:
    """Wait until process `pid` uses under `idle_cpu_s` of CPU in `window_s` (its scrapes and rule
    evaluations only), at most `limit_s`."""
    deadline = time.monotonic() + limit_s
    before = cpu_seconds(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(window_s)
        now = cpu_seconds(pid)
        if now - before < idle_cpu_s:
            return
        before = now


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process `pid` has used."""
    # /proc/<pid>/stat fields 14 and 15: user and system time in clock ticks (after the command name).
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _wait_firing(url: str, process: asyncio.subprocess.Process) -> None:
    """Wait for readiness, then for the rule to fire (conditions, each bounded)."""
    async with httpx.AsyncClient(timeout=5) as http:
        await _until(
            lambda: _ok(http, f"{url}/-/ready"), _READY_S, process, "Prometheus did not become ready"
        )
        await _until(lambda: _firing(http, url), _FIRING_S, process, f"{ALERT_RULE} did not fire")


async def _until(
    check: Callable[[], Awaitable[bool]],
    limit_s: float,
    process: asyncio.subprocess.Process,
    message: str,
) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.returncode is not None:
            raise RuntimeError(f"prometheus exited with {process.returncode}")
        try:
            if await check():
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.2)
    raise RuntimeError(message)


async def _ok(http: httpx.AsyncClient, url: str) -> bool:
    return (await http.get(url)).status_code == 200


async def _firing(http: httpx.AsyncClient, url: str) -> bool:
    alerts = (await http.get(f"{url}/api/v1/alerts")).json()["data"]["alerts"]
    return any(a["labels"].get("alertname") == ALERT_RULE and a["state"] == "firing" for a in alerts)
