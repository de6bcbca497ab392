"""Regenerates every evaluation scenario world (not `streaming`, see generate.py) from fixed seeds.

Run `python -m tests.data.worlds.generate_scenarios`; the output is identical for the same code.
"""

from __future__ import annotations

from tests.data.worlds.edge_worlds import write_edge_worlds
from tests.data.worlds.service_worlds import write_service_worlds
from tests.data.worlds.storage_worlds import write_storage_worlds

if __name__ == "__main__":
    write_storage_worlds()
    write_service_worlds()
    write_edge_worlds()
