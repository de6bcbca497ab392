"""What every tool's arguments share: strict models (extra fields refused), bounded names and windows.

Each source declares its own argument models beside its handlers. Bounds that depend on settings
(PromQL length, window, step, SQL length) are checked by the tool itself against `ToolLimits`, so
the models stay static and usable as function-calling schemas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

Name = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:\-/]+$")]
Window = Annotated[int, Field(ge=1, le=7 * 24 * 60, description="minutes back from now")]
LabelName = Annotated[str, Field(pattern=r"^[a-zA-Z_][a-zA-Z0-9_]*$", max_length=128)]
MinutesAgo = Annotated[int, Field(ge=0, le=7 * 24 * 60, description="minutes before now")]


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


def mappings(value: Any) -> Sequence[Mapping[str, Any]]:
    """The mapping entries of a list in a tool's bounded (decoded JSON) data."""
    return [entry for entry in value or [] if isinstance(entry, Mapping)]


def text_labels(labels: Any) -> dict[str, str]:
    """The label set with text keys and values. Bounded tool data is decoded JSON, so the usual set
    already is and is shared, not copied: a run holds its discovery for the whole planning round."""
    if not isinstance(labels, dict):
        return {}
    if all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        return labels
    return {str(k): str(v) for k, v in labels.items()}
