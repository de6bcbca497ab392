"""Questions asking for the cause of trouble in the past ("what caused the pages last night?", "why did X
fail at 02:30?"). When that trouble is over, its cause is still the answer: the verdict says nothing is
wrong now (healthy) and the root cause names what was. Both analysts and the evidence guard read it.
"""

from __future__ import annotations

import re

PAST_CAUSE = re.compile(
    r"\bwhat\s+(?:caused|triggered|set\s+off|broke)\b|\bwhy\s+(?:did|was|were)\b|"
    # "What happened at 02:13?" about trouble the question says has cleared: its cause is asked for.
    r"\bwhat\s+happened\s+(?:at|around|between|last|yesterday|overnight|this\s+morning)\b|"
    r"\b(?:root\s+)?cause\s+of\s+(?:the|that|those|last|yesterday|this\s+morning)",
    re.IGNORECASE,
)


def asks_past_cause(question: str) -> bool:
    """Whether the question asks what caused trouble, in the past tense."""
    return bool(PAST_CAUSE.search(question))
