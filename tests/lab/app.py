"""The lab's storefront: a small HTTP app instrumented with prometheus-client, whose latency and error
rate on /checkout switch at runtime with a "deploy", plus a load generator so its metrics move. It
writes its own JSON-lines log (a deploy, and each failed checkout with its cause when it has one), the
one place where a cause that no metric names shows."""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info, generate_latest

HANDLERS = ("/checkout", "/cart", "/search")


@dataclass
class Release:
    """What the running version does to /checkout."""

    version: str = "v1"
    checkout_delay_s: float = 0.0
    checkout_error_ratio: float = 0.0


class Storefront:
    """The app's state and its metrics, in a registry of its own (never the process default)."""

    def __init__(self, log_path: Path | None = None) -> None:
        self.registry = CollectorRegistry()
        self.release = Release()
        self._lock = threading.Lock()
        self._log_path = log_path
        # What a failing /checkout logs, set by an outage rather than a deploy: no metric names it.
        self._outage: tuple[float, str] | None = None
        self.requests = Counter(
            "http_requests_total",
            "HTTP requests served",
            ["handler", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "http_request_duration_seconds",
            "HTTP request latency",
            ["handler"],
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
            registry=self.registry,
        )
        self.build = Info("storefront_build", "The deployed version", registry=self.registry)
        self.deployed_at = Gauge(
            "storefront_deploy_timestamp_seconds",
            "When the running version was deployed",
            registry=self.registry,
        )
        self.deploy(Release())

    def deploy(self, release: Release) -> None:
        with self._lock:
            self.release = release
        self.build.info({"version": release.version})
        self.deployed_at.set(time.time())
        self.log("info", f"deployed version {release.version}")

    def break_checkout(self, error_ratio: float, cause: str) -> None:
        """An outage with no deploy: `error_ratio` of checkouts fail, each logging `cause`."""
        with self._lock:
            self._outage = (error_ratio, cause)

    def restore_checkout(self) -> None:
        with self._lock:
            self._outage = None
        self.log("info", "checkout recovered")

    def log(self, level: str, message: str, **fields: object) -> None:
        if self._log_path is None:
            return
        line = {
            "ts": datetime.now(UTC).isoformat(),
            "level": level,
            "logger": "storefront",
            "message": message,
        }
        with self._lock, self._log_path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({**line, **fields}) + "\n")

    def serve(self, handler: str) -> int:
        """Handle one request; returns the status code."""
        with self._lock:
            release, outage = self.release, self._outage
        started = time.monotonic()
        status = 200
        if handler == "/checkout":
            if release.checkout_delay_s:
                time.sleep(release.checkout_delay_s)
            if random.random() < release.checkout_error_ratio:
                status = 500
            elif outage is not None and random.random() < outage[0]:
                status = 500
                self.log("error", outage[1], handler=handler)
        self.latency.labels(handler).observe(time.monotonic() - started)
        self.requests.labels(handler, "GET", str(status)).inc()
        return status


def _handler_class(app: Storefront) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/metrics":
                self._reply(200, generate_latest(app.registry), "text/plain; version=0.0.4")
            elif self.path in HANDLERS:
                status = app.serve(self.path)
                self._reply(status, b"ok\n" if status == 200 else b"error\n", "text/plain")
            else:
                self._reply(404, b"not found\n", "text/plain")

        def _reply(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # one line per request would drown the lab's output

    return _Handler


class RunningStorefront:
    """The storefront served on a loopback port with two load threads; `stop()` ends both."""

    def __init__(self, port: int, log_path: Path | None = None) -> None:
        self.app = Storefront(log_path)
        self.port = port
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_class(self.app))
        self._server.daemon_threads = True
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._server.serve_forever, daemon=True)]
        self._threads += [threading.Thread(target=self._load, daemon=True) for _ in range(2)]
        for thread in self._threads:
            thread.start()

    def _load(self) -> None:
        # About 10 requests a second per thread: enough for rate() over a few seconds to move.
        while not self._stop.is_set():
            for handler in HANDLERS:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{handler}", timeout=5):
                        pass
                except (urllib.error.URLError, OSError):
                    pass  # a 500 raises HTTPError: the app counted it, which is all the load is for
            self._stop.wait(0.1)

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
