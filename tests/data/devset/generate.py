"""Regenerates every development-set world (issue 22): `python -m tests.data.devset.generate`.

Each world is a function in worlds_*.py returning a `DevWorld`; the output is identical for the same code.
"""

from __future__ import annotations

from tests.data.devset import (
    worlds_cloud,
    worlds_cluster,
    worlds_datadog,
    worlds_engines,
    worlds_exporters,
    worlds_k8s,
    worlds_restarts,
)

BUILDERS = (
    *worlds_cloud.WORLDS,
    *worlds_k8s.WORLDS,
    *worlds_cluster.WORLDS,
    *worlds_exporters.WORLDS,
    *worlds_engines.WORLDS,
    *worlds_datadog.WORLDS,
    *worlds_restarts.WORLDS,
)


def main() -> None:
    for build in BUILDERS:
        folder = build().write()
        print(folder.name)


if __name__ == "__main__":
    main()
