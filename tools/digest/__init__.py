"""The evidence digest: raw telemetry of one run turned into checkable facts that cite evidence ids.

Metric anomalies, log patterns, alert groups, SQL summaries, runbook passages, past-case clues and
source gaps; both analysts reason over a `Digest`, never over raw tool output.
"""

from tools.digest.build import build_digest
from tools.digest.limits import DigestLimits

__all__ = ["DigestLimits", "build_digest"]
