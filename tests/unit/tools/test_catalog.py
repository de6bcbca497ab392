"""The catalog is the one declaration of every tool: what sorts tools is read from it."""

from __future__ import annotations

from dataclasses import fields

from tools.base import EvidenceSource, Sources
from tools.toolbox.catalog import DISCOVERY_TOOLS, KEY_SOURCES, LANE_OF_TOOL, SOURCES, TOOLS, TOOLS_BY_NAME


def test_every_tool_is_declared_once_with_a_lane_and_a_configured_source() -> None:
    names = [spec.name for spec in TOOLS]
    source_fields = {field.name for field in fields(Sources)}

    assert len(names) == len(set(names)) == len(TOOLS_BY_NAME)
    assert set(LANE_OF_TOOL) == set(names)
    assert all(spec.source.value in source_fields for spec in TOOLS)
    assert set(SOURCES) == set(EvidenceSource)


def test_lanes_follow_the_sources() -> None:
    assert {name for name, lane in LANE_OF_TOOL.items() if lane == "signals"} == {
        "list_alerts",
        "alert_history",
        "list_metrics",
        "search_metrics",
        "read_metric",
        "list_rules",
        "list_targets",
        "query_metric",
        "query_promql",
        "query_promql_instant",
    }
    assert {name for name, lane in LANE_OF_TOOL.items() if lane == "logs"} == {
        "list_log_streams",
        "query_logs",
        "count_logs",
    }


def test_discovery_tools_list_names_and_say_how_to_read_them() -> None:
    assert {"list_metrics", "list_log_streams", "list_tables", "list_runbooks"} == DISCOVERY_TOOLS
    assert all(TOOLS_BY_NAME[name].finds is not None for name in DISCOVERY_TOOLS)
    assert TOOLS_BY_NAME["list_alerts"].finds is not None  # evidence that also names services


def test_key_sources_are_the_live_telemetry() -> None:
    assert KEY_SOURCES == (EvidenceSource.ALERTS, EvidenceSource.METRICS, EvidenceSource.LOGS)
