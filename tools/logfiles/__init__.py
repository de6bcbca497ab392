"""A host's own logs as an evidence source, without Loki: configured files by identity and the
systemd journal, behind the same LogsSource as Loki and the world fixture."""

from tools.logfiles.client import LogFiles
from tools.logfiles.journal import Journal

__all__ = ["Journal", "LogFiles"]
