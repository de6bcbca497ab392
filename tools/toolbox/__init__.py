"""The tool boundary: `Toolbox` runs every evidence tool bounded, cached and recorded per run."""

from tools.toolbox.boundary import Toolbox
from tools.toolbox.spec import ToolSpec

__all__ = ["ToolSpec", "Toolbox"]
