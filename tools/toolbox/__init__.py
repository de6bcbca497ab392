"""The tool boundary: `Toolbox` runs every evidence tool bounded, cached and recorded per run.

`Toolbox` is loaded on first use: the sources' tool modules import this package's handler kit
(`spec`, `args`, `bounds`), and the boundary imports their catalog, so an eager import here would
make importing any source's tools first a cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.toolbox.spec import ToolSpec

if TYPE_CHECKING:
    from tools.toolbox.boundary import Toolbox

__all__ = ["ToolSpec", "Toolbox"]


def __getattr__(name: str) -> object:
    if name == "Toolbox":
        from tools.toolbox.boundary import Toolbox

        return Toolbox
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
