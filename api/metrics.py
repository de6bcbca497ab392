"""Prometheus metrics of the service itself, on a registry owned by one app (not the global one)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class ServiceMetrics:
    """Runs, tools, model use, admission and streams; exposed at `/metrics`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.runs = Counter(
            "superbiz_runs", "Finished runs", ["flow", "status", "outcome"], registry=self.registry
        )
        self.run_latency = Histogram(
            "superbiz_run_duration_seconds",
            "Wall time of a run",
            ["flow"],
            buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
            registry=self.registry,
        )
        self.tool_calls = Counter(
            "superbiz_tool_calls", "Evidence tool calls", ["tool", "status"], registry=self.registry
        )
        self.model_calls = Counter("superbiz_model_calls", "Model calls", registry=self.registry)
        self.model_tokens = Counter("superbiz_model_tokens", "Model tokens", registry=self.registry)
        self.admission_rejections = Counter(
            "superbiz_admission_rejections", "Requests refused with 503", registry=self.registry
        )
        self.active_streams = Gauge("superbiz_active_streams", "Open SSE streams", registry=self.registry)

    def render(self) -> bytes:
        return generate_latest(self.registry)
