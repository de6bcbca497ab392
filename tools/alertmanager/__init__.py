"""Alerts as an evidence source: the Alertmanager v2 client and the world fixture."""

from tools.alertmanager.client import AlertmanagerClient
from tools.alertmanager.fixture import AlertmanagerFixture

__all__ = ["AlertmanagerClient", "AlertmanagerFixture"]
