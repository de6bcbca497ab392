"""Real Prometheus and Alertmanager processes serving a world, for the contract suites.

Metric history is converted to OpenMetrics and loaded with `promtool tsdb create-blocks-from
openmetrics`; every world alert becomes an alerting rule: on its own `expr` when it has one (the
world must make it fire exactly when the alert is active), else on `vector(1)` that really fires
(an inactive one a rule that never does). Optional scrape targets are scraped every second, and
`serving_metrics` stands up a tiny exporter (scrapes are what give Prometheus metadata).
Alertmanager receives the world's alerts by POST.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import IN_CI
from tests.support.live_server import free_port
from tools.world import World, WorldSeries

STARTUP_TIMEOUT_S = 30.0


def require_binary(name: str) -> str:
    """The path of a Debian-packaged binary; skip locally, fail in CI when it is missing."""
    path = shutil.which(name)
    if path:
        return path
    message = f"{name} is not installed (.ci/run installs it with apt-get)"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def openmetrics_text(series: Sequence[WorldSeries]) -> str:
    """The series as OpenMetrics text, grouped by metric name as the format requires."""
    lines: list[str] = []
    for name in sorted({item.metric for item in series}):
        lines.append(f"# TYPE {name} gauge")
        for item in series:
            if item.metric != name:
                continue
            labels = ",".join(f'{key}="{_escape(value)}"' for key, value in item.labels.items())
            selector = f"{name}{{{labels}}}" if labels else name
            lines.extend(f"{selector} {value!r} {ts:.3f}" for ts, value in item.samples)
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def alert_rules(world: World) -> dict[str, Any]:
    """One alerting rule per world alert: active ones fire at once, inactive ones never."""
    rules = []
    for alert in world.alerts:
        labels = {key: value for key, value in alert.labels.items() if key != "alertname"}
        rules.append(
            {
                "alert": alert.labels["alertname"],
                "expr": alert.expr or ("vector(1)" if alert.active_at(world.now) else "vector(1) < 0"),
                "for": "0s",
                "labels": labels,
                "annotations": dict(alert.annotations),
            }
        )
    return {"groups": [{"name": "world", "interval": "1s", "rules": rules}]}


@contextmanager
def serving_metrics(text: str, port: int) -> Iterator[str]:
    """Serve `text` as a Prometheus exposition at 127.0.0.1:`port`/metrics; yield host:port."""

    class _Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def running_prometheus(
    world: World, workdir: Path, *, scrape: Sequence[tuple[str, str]] = ()
) -> Iterator[str]:
    """Start Prometheus on the world's history and rules, scraping `scrape` ((job, host:port) pairs)
    every second; yield its base URL once alerts fire and every target was scraped once."""
    promtool, prometheus = require_binary("promtool"), require_binary("prometheus")
    data = workdir / "data"
    history = workdir / "history.om"
    history.write_text(openmetrics_text(world.series), encoding="utf-8")
    subprocess.run(
        [promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet", str(history), str(data)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (workdir / "rules.yml").write_text(yaml.safe_dump(alert_rules(world)), encoding="utf-8")
    config: dict[str, Any] = {
        "global": {"evaluation_interval": "1s", "scrape_interval": "1s", "scrape_timeout": "1s"},
        "rule_files": [str(workdir / "rules.yml")],
        "scrape_configs": [
            {"job_name": job, "static_configs": [{"targets": [address]}]} for job, address in scrape
        ],
    }
    (workdir / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    port = free_port()
    command = [
        prometheus,
        f"--config.file={workdir / 'prometheus.yml'}",
        f"--storage.tsdb.path={data}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--storage.tsdb.retention.time=3650d",  # the history is recent, but never drop it mid-run
        "--query.lookback-delta=5m",
        "--log.level=warn",
    ]
    url = f"http://127.0.0.1:{port}"
    expected = sum(1 for alert in world.alerts if alert.active_at(world.now))
    with _process(command, workdir / "prometheus.log"):
        _wait_for(lambda: _get(url + "/-/ready") is not None, "Prometheus ready", workdir)
        _wait_for(lambda: _firing_rule_alerts(url) >= expected, "alerts firing", workdir)
        _wait_for(lambda: _scraped_targets(url) >= len(scrape), "targets scraped", workdir)
        yield url


@contextmanager
def running_alertmanager(
    world: World, workdir: Path, *, inhibit_rules: Sequence[dict[str, Any]] = ()
) -> Iterator[str]:
    """Start Alertmanager, POST every world alert to it, yield its base URL once they are listed."""
    binary = require_binary("prometheus-alertmanager")
    config: dict[str, Any] = {"route": {"receiver": "void"}, "receivers": [{"name": "void"}]}
    if inhibit_rules:
        config["inhibit_rules"] = list(inhibit_rules)
    (workdir / "alertmanager.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    port = free_port()
    command = [
        binary,
        f"--config.file={workdir / 'alertmanager.yml'}",
        f"--storage.path={workdir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--cluster.listen-address=",  # no gossip port: one standalone instance
        "--log.level=warn",
    ]
    url = f"http://127.0.0.1:{port}"
    expected = sum(1 for alert in world.alerts if alert.active_at(world.now))
    with _process(command, workdir / "alertmanager.log"):
        _wait_for(lambda: _get(url + "/-/ready") is not None, "Alertmanager ready", workdir)
        _post(
            url + "/api/v2/alerts",
            [_postable(alert.model_dump(by_alias=True, mode="json")) for alert in world.alerts],
        )
        _wait_for(
            lambda: len(_get_json(url + "/api/v2/alerts?active=true")) >= expected,
            "alerts listed",
            workdir,
        )
        yield url


@contextmanager
def _process(command: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def _wait_for(condition: Callable[[], bool], what: str, workdir: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    logs = "\n".join(path.read_text(errors="replace")[-2000:] for path in workdir.glob("*.log"))
    raise RuntimeError(f"timed out waiting for {what}; logs:\n{logs}")


def _firing_rule_alerts(url: str) -> int:
    body = _get_json(url + "/api/v1/alerts")
    alerts = body.get("data", {}).get("alerts", []) if isinstance(body, dict) else []
    return sum(1 for alert in alerts if alert.get("state") == "firing")


def _scraped_targets(url: str) -> int:
    body = _get_json(url + "/api/v1/targets?state=active")
    targets = body.get("data", {}).get("activeTargets", []) if isinstance(body, dict) else []
    return sum(1 for target in targets if target.get("health") in ("up", "down"))


def _postable(alert: dict[str, Any]) -> dict[str, Any]:
    keys = ("labels", "annotations", "startsAt", "endsAt")
    return {key: alert[key] for key in keys if alert.get(key) is not None}


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            body: bytes = response.read()
            return body
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _get_json(url: str) -> Any:
    body = _get(url)
    return json.loads(body) if body else {}


def _post(url: str, payload: Any) -> None:
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        response.read()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
