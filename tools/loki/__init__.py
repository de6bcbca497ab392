"""Loki as an evidence source: the real HTTP client, the world fixture and the LogQL subset."""

from tools.loki.client import LokiClient
from tools.loki.fixture import LokiFixture

__all__ = ["LokiClient", "LokiFixture"]
