"""The bundled demo world: a small shop at a frozen time with one real incident and a red herring.

Package data in the world format of `tools.world`; `DEMO_WORLD_DIR` is the directory to load it from.
"""

from pathlib import Path

DEMO_WORLD_DIR: Path = Path(__file__).resolve().parent

__all__ = ["DEMO_WORLD_DIR"]
