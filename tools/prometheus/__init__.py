"""Prometheus as an evidence source: the HTTP client, the world fixture, the selector parser."""

from tools.prometheus.client import PrometheusClient
from tools.prometheus.fixture import PrometheusFixture

__all__ = ["PrometheusClient", "PrometheusFixture"]
