"""Query fingerprints: a statement's shape without the values it carried."""

from __future__ import annotations

from tools.sql.fingerprint import MAX_FINGERPRINT_CHARS, fingerprint


def test_literals_of_every_kind_are_masked() -> None:
    assert (
        fingerprint("UPDATE orders SET status = 'held' WHERE id = 42")
        == "UPDATE orders SET status = ? WHERE id = ?"
    )
    assert fingerprint(
        "SELECT * FROM t WHERE a IN (1, 2, 3) AND b = 'it''s' AND c = $$x$$ AND d = -1.5e3"
    ) == ("SELECT * FROM t WHERE a IN (?+) AND b = ? AND c = ? AND d = ?")
    assert fingerprint("INSERT INTO t VALUES (1, 'a'), (2, 'b') -- from job 7") == "INSERT INTO t VALUES (?+)"
    assert fingerprint("SELECT x2 FROM t2 WHERE note = E'secret\\'s") == "SELECT x2 FROM t2 WHERE note = ?"


def test_a_cut_value_is_masked_to_its_end_and_long_shapes_are_bounded() -> None:
    assert fingerprint("SELECT 1 FROM t WHERE email = 'someone@exa") == "SELECT ? FROM t WHERE email = ?"
    long = fingerprint("SELECT " + ", ".join(f"column_{n}" for n in range(100)) + " FROM t")
    assert len(long) <= MAX_FINGERPRINT_CHARS + 4 and long.endswith(" ...")
    assert fingerprint(None) == "" and fingerprint("") == ""
