"""Loki as an evidence source: the real HTTP client (which speaks LogQL) and the world fixture."""

from tools.loki.client import LokiClient
from tools.loki.fixture import LokiFixture

__all__ = ["LokiClient", "LokiFixture"]
