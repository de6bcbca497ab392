"""The world format: a directory of telemetry at a frozen time, loaded and validated."""

from tools.world.loader import World, WorldError, WorldLimits, load_world
from tools.world.models import (
    CATEGORY_TAGS,
    Scenario,
    ScenarioExpectation,
    WorldAlert,
    WorldInfo,
    WorldLogLine,
    WorldMetricMetadata,
    WorldSeries,
)

__all__ = [
    "CATEGORY_TAGS",
    "Scenario",
    "ScenarioExpectation",
    "World",
    "WorldAlert",
    "WorldError",
    "WorldInfo",
    "WorldLimits",
    "WorldLogLine",
    "WorldMetricMetadata",
    "WorldSeries",
    "load_world",
]
