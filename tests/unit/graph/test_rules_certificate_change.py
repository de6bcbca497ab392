"""A certificate swapped in on a server (its chain, its issuer) that its callers no longer trust is a TLS
fault, not a setting: the change is named, the tag is the certificate's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graph.analysts.rules.diagnose import diagnose_digest
from tests.unit.graph.digest_facts import ask, lines
from tools.facts import Digest

_REFUSED = (
    'Get "https://vault.internal:8200/v1/secret/data/billing": x509: certificate signed by unknown authority'
)


def _diagnosed(change: str) -> tuple[str, str, str]:
    swapped = lines("vault", change, "2026-03-01T10:30:00Z", count=1, level="info")
    swapped = replace(swapped, last_seen="2026-03-01T10:30:00Z")
    digest = Digest(log_patterns=[lines("billing-api", _REFUSED, "2026-03-01T10:31:00Z"), swapped])
    draft = diagnose_digest(ask("why is billing-api failing?", digest))
    assert draft.root_cause is not None
    return draft.root_cause.service, draft.root_cause.category, draft.root_cause.statement


@pytest.mark.parametrize(
    "change",
    [
        'core: reloading certificate: path=/vault/tls/tls.crt issuer="Corp Intermediate CA 2"',
        "deployed new TLS certificate bundle to vault (ca_chain=intermediate-2026.pem)",
    ],
)
def test_a_certificate_reloaded_before_its_callers_distrust_it_is_tagged_tls(change: str) -> None:
    service, category, statement = _diagnosed(change)
    assert (service, category) == ("vault", "tls")
    assert "change" in statement


def test_a_setting_reloaded_before_the_same_errors_is_still_configuration() -> None:
    """The tag follows what changed: a reload of settings that say nothing of certificates."""
    service, category, _ = _diagnosed("core: reloading configuration: path=/vault/config/listener.hcl")
    assert (service, category) == ("vault", "configuration_error")
