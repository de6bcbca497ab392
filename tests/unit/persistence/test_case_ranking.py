"""Token-overlap ranking of past cases."""

from __future__ import annotations

from persistence.case_ranking import overlap_score, tokens


def test_tokens_drop_stopwords_and_case() -> None:
    assert tokens("Why is Checkout-API slow?") == {"checkout-api", "slow"}


def test_overlap_is_the_share_of_question_words_found() -> None:
    question = tokens("checkout latency spike")
    assert overlap_score(question, tokens("checkout latency after deploy")) == 2 / 3
    assert overlap_score(question, tokens("payments down")) == 0.0


def test_empty_sides_score_zero() -> None:
    assert overlap_score(frozenset(), tokens("anything")) == 0.0
    assert overlap_score(tokens("why is it"), tokens("why is it")) == 0.0
