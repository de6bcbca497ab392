"""Asked whether a web tier is fine, its records of clients' own mistakes (401s and 404s logged at warning
level) are no trouble of it; asked why it fails, they are still read."""

from __future__ import annotations

from graph.analysts.rules.diagnose import diagnose_digest
from graph.analysts.rules.vocabulary import HEALTH_CHECK
from tests.unit.graph.digest_facts import lines
from tests.unit.graph.test_rules_verdict import ANSWERED, _request
from tools.facts import Digest

# IIS's W3C fields end `sc-status sc-substatus sc-win32-status time-taken`.
_DENIED = "2026-03-01 10:40:12 10.30.4.12 GET /portal/home.aspx - 443 - 10.30.91.44 Mozilla/5.0 - 401 2 5 0"


def _digest() -> Digest:
    return Digest(log_patterns=[lines("web-farm", _DENIED, "2026-03-01T10:05:00Z", count=160, level="warn")])


def test_clients_mistakes_are_no_trouble_of_a_web_tier_asked_whether_it_is_fine() -> None:
    asked = "Is the broker portal on the web farm OK right now? Anything I should worry about?"
    assert HEALTH_CHECK.search(asked)
    draft = diagnose_digest(_request(_digest(), ANSWERED, asked))
    assert draft.verdict == "healthy" and draft.root_cause is None


def test_asked_why_it_fails_the_same_records_are_still_read() -> None:
    draft = diagnose_digest(_request(_digest(), ANSWERED, "Why is the web farm failing?"))
    assert draft.verdict == "incident"


def test_asked_whether_a_change_broke_anything_the_records_are_no_trouble_either() -> None:
    asked = "We deployed the web farm 2.14.0 about two hours ago. Did the deploy break anything?"
    assert HEALTH_CHECK.search(asked)
    assert HEALTH_CHECK.search("did the config change cause any problems?")
    assert not HEALTH_CHECK.search("what did the deploy change?")
    draft = diagnose_digest(_request(_digest(), ANSWERED, asked))
    assert draft.verdict == "healthy" and draft.root_cause is None
