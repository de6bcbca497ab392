"""The table of tools the boundary serves, gathered from the sources' folders, and what derives from it.

Each source declares its tools once, beside its backend (`tools/<source>/tools.py`); the lane map,
the discovery tools, the key sources, and the clock and health lists are read from these specs.
"""

from __future__ import annotations

from collections.abc import Mapping

from tools.alertmanager import tools as alertmanager
from tools.base import EvidenceSource
from tools.cases import tools as cases
from tools.loki import tools as loki
from tools.prometheus import tools as prometheus
from tools.runbooks import tools as runbooks
from tools.sql import introspection
from tools.sql import tools as sql
from tools.toolbox.spec import Lane, ToolSpec

TOOLS: tuple[ToolSpec, ...] = (
    *alertmanager.TOOLS,
    *prometheus.TOOLS,
    *loki.TOOLS,
    *sql.TOOLS,
    *introspection.TOOLS,
    *runbooks.TOOLS,
    *cases.TOOLS,
)

TOOLS_BY_NAME: Mapping[str, ToolSpec] = {spec.name: spec for spec in TOOLS}
LANE_OF_TOOL: Mapping[str, Lane] = {spec.name: spec.lane for spec in TOOLS}
DISCOVERY_TOOLS = frozenset(spec.name for spec in TOOLS if spec.role == "discovery")
# Every source with a tool, in catalog order; each is a `Sources` field.
SOURCES: tuple[EvidenceSource, ...] = tuple(dict.fromkeys(spec.source for spec in TOOLS))
KEY_SOURCES: tuple[EvidenceSource, ...] = tuple(dict.fromkeys(s.source for s in TOOLS if s.key_source))
