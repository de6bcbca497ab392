"""Static checks on the frontend source: one chat consumer, no legacy endpoints, no markup sinks."""

from __future__ import annotations

import re
from pathlib import Path

import frontend

FRONTEND_DIR = Path(frontend.__file__).parent
SOURCES = {path.name: path.read_text(encoding="utf-8") for path in FRONTEND_DIR.glob("*.js")}
PAGES = {path.name: path.read_text(encoding="utf-8") for path in FRONTEND_DIR.glob("*.html")}


def test_exactly_one_chat_request_in_the_source() -> None:
    consumers = [name for name, text in SOURCES.items() for _ in re.finditer(r'"/api/chat"', text)]
    assert consumers == ["api.js"]
    assert all("fetch(" not in text for name, text in SOURCES.items() if name != "api.js")


def test_no_legacy_chat_paths_or_modes() -> None:
    for text in [*SOURCES.values(), *PAGES.values()]:
        assert "chat_stream" not in text
        assert "quick" not in text.lower()


def test_no_markup_sinks() -> None:
    for name, text in SOURCES.items():
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{name} uses {sink}"


def test_no_network_dependencies() -> None:
    for text in [*SOURCES.values(), *PAGES.values()]:
        assert not re.search(r"(src|href)=\"(https?:)?//", text)
        assert "@import" not in text
