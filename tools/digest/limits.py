"""How much of each kind of fact a digest keeps, and the thresholds that make a fact worth it."""

from __future__ import annotations

from dataclasses import dataclass

from tools.identity import DEFAULT_IDENTITY, IdentityLabels


@dataclass(frozen=True, slots=True)
class DigestLimits:
    """Top-N per fact kind, excerpt sizes and anomaly thresholds; defaults suit a chat diagnosis."""

    max_anomalies: int = 20
    # Several instances of one service usually move together: keep a few, leave room for others.
    max_anomalies_per_metric_service: int = 3
    max_log_patterns: int = 40
    max_patterns_per_evidence: int = 12
    max_alert_groups: int = 20
    max_instances: int = 10
    max_sql: int = 10
    max_highlights: int = 8
    max_runbooks: int = 8
    max_cases: int = 5
    max_gaps: int = 20
    excerpt_chars: int = 320
    example_chars: int = 240
    # A longer line keeps its last words too (after the head, see `clip_ends`).
    example_tail_chars: int = 160
    summary_chars: int = 200
    # A series needs this many finite samples before it can say anything.
    min_samples: int = 12
    # Robust z-score (in baseline MADs) a shift must reach, and the relative change it must make.
    min_score: float = 4.0
    min_relative_change: float = 0.2
    # A gradual drift must stand out much more than a jump: a daily curve drifts too.
    min_gradual_score: float = 12.0
    # The changed segment is at least this share of the series (and at least 3 samples), so that
    # one or two noisy points at the end never read as an incident.
    min_recent_share: float = 0.03
    # The baseline before a change is at least this share of the series.
    min_baseline_share: float = 0.3
    # Beyond this many MADs every shift is unmistakable; capping lets the earlier change rank first.
    max_score: float = 50.0
    # Which labels name a system and qualify it (the composition root passes the configured list).
    identity: IdentityLabels = DEFAULT_IDENTITY
