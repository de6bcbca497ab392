"""The one service (or host, or alert) a question is about, and the systems it names that no evidence
knows. "Alert X is firing on S" asks about S's trouble, not about whatever else is burning: the ranking
seen from S is `rules.upstream`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from graph.analysts.rules.links import pointed_at_by
from graph.analysts.rules.machines import without_port
from graph.analysts.rules.route import question_terms
from graph.analysts.rules.suspect import NOT_IDENTITY, Suspect, troubling
from graph.analysts.rules.vocabulary import ALERT_FOCUS
from tools.digest.labels import ENVIRONMENT
from tools.facts import AlertGroup, Digest
from tools.identity import workload_of_pod

# A question that asks whether something caused the trouble ("did X break the site?", "is X why Y
# fails?", "is that because of X?"): X is a suspect to confirm or rule out, not what is diagnosed.
HYPOTHESIS = re.compile(
    r"(?:^|[.!?;,:]\s*|\s[-\u2013\u2014]+\s*|\b(?:and|so|but|or)\s+)"
    r"(?:did|does|do|could|can|would|might|is|was|are|were)\b"
    r"[^?.!]{0,80}?\b(?:break|broke|broken|breaking|(?<!root )cause[sd]?|causing|behind|responsible|"
    r"the reason|why)\b"
    r"|\bbecause of\b[^?.!]{0,60}\?"
    # "... ctk-batch-01 is pegged at 100% cpu, related??", "is that connected?"
    r"|\b(?:related|connected|linked|relevant)\b\s*\?",
    re.IGNORECASE,
)


def doubted(question: str, ranked: Sequence[Suspect], focus: Sequence[str]) -> list[Suspect]:
    """What a question asking whether something caused the trouble named, when the evidence says it
    did not: a system below the root, asked about, that the root's trouble does not reach (its errors
    name no one of it, and nothing of it points to the root) and whose own trouble began later."""
    if not ranked or not HYPOTHESIS.search(question):
        return []
    terms = {term.lower() for term in focus}
    root = ranked[0]
    named = root.blamed_by or root.relayed_by or root.held_by_sql or root.blames
    if _asked(root, terms, question) and not named and len(ranked) > 1:
        # Ranked first by its own signals and by time alone (a loud alert, an early start; others'
        # trouble only followed it) while no one's errors name it: what the question doubts is not
        # shown, and the trouble is someone else's.
        others = ranked[1:]
        if any(pointed_at_by(s) or s.errors or s.changes for s in others):
            return [root, *doubted(question, others, focus)]
    return [
        s
        for s in ranked[1:]
        if _asked(s, terms, question)
        and s.service not in pointed_at_by(root)
        and root.service not in s.blames
        and s.onset is not None
        and root.onset is not None
        and s.onset > root.onset
    ]


def _asked(suspect: Suspect, terms: set[str], question: str) -> bool:
    """Named by the question: by its name, or by the name of an alert firing on it."""
    lowered = question.lower()
    return suspect.service.lower() in terms or any(g.alertname.lower() in lowered for g in suspect.alerts)


def separate_incidents(ranked: Sequence[Suspect]) -> list[Suspect]:
    """Systems below the root with trouble of their own that others' errors point to, sharing nothing
    with the root's: neither names the other, no caller of one is a caller of the other, and neither
    began the other's trouble. A second cause happening at the same time ("the export failed too"),
    listed beside the root, never folded into it."""
    if len(ranked) < 2:
        return []
    root = ranked[0]
    said = pointed_at_by(root) | root.blames  # what errors say of the root: its callers, its upstream
    near = said | {root.service} | root.precedes
    found = []
    for s in ranked[1:]:
        # Others' errors point to it, or its own alert fires on its own moving series.
        if not (s.blamed_by or (s.alerts and any(map(troubling, s.anomalies)))) or s.service in near:
            continue
        own = pointed_at_by(s) | s.blames
        if said and own:
            # Both chains are told by errors (its callers name it, the root's name the root): two
            # chains that share no system are two incidents, however close in time they began.
            if not own & (said | {root.service}) and s.service not in said:
                found.append(s)
        elif not (own | s.precedes) & (near | pointed_at_by(root)):
            found.append(s)
    return found


def scoped_service(
    question: str, services: Sequence[str], known: Iterable[str], digest: Digest | None = None
) -> str | None:
    """The one known service (or host) a question names, or whose alert or metric it names; None when
    it names none, or several ("is the alert on A why B fails?" asks about their relation, so it is
    left to the unscoped ranking). A question without an alert word scopes only by a name it spells
    in full, so a symptom question still follows the chain upstream of what it names."""
    question = _without_asides(question)
    services = [service for service in services if service.lower() in question.lower()]
    terms = set(question_terms(question)) | {service.lower() for service in services}
    named = [name for name in dict.fromkeys(known) if name.lower() in terms]
    if digest is not None:
        named += _owners_named(question, digest)
    named = list(dict.fromkeys(named))
    if len(named) > 1 and digest is not None:
        # The alert named and the system it is about, named beside it ("the SSLCertExpiringSoon alert
        # for statements.example"): one thing, known by what the alert is about, not its job.
        about = _alerts_about(question, digest, named)
        named = [name for name in named if name not in about] or named
    if len(named) > 1 and (asked := _ASKED_ABOUT.search(question)):
        # "Kafka brokers lose their sessions: what is wrong with the ZooKeeper side?" asks about one.
        named = [name for name in named if name.lower() == asked.group(1).lower()] or named
    if len(named) == 1 and HYPOTHESIS.search(question):
        # "Did X break the site?" asks what broke the site, X a suspect like any other.
        return None
    told = _told_in_passing(question)
    if len(named) > 1:
        # "we rolled out X yesterday fwiw, but why is Y failing?" asks about Y: X is context, and
        # evidence that ties Y's trouble to X still makes X the cause (`scope_ranking`).
        named = [name for name in named if name.lower() not in told] or named
    elif named and named[0].lower() in told:
        # "Riders get no drivers since 09:20. X was deployed at 09:15, did that break it?" asks about
        # the trouble, whatever it is: the change is a suspect the evidence confirms or rules out.
        return None
    return named[0] if len(named) == 1 else None


# A question's clauses: what it asks sits in one, what it mentions in passing in another.
_CLAUSE_BREAK = re.compile(
    r"[,;:.!?()]|\s[-\u2013\u2014]\s|\s(?:but|and|so|though|although|since|after|because|fwiw|btw)\s",
    re.IGNORECASE,
)
# A change told in passing: "we shipped X", "I just upgraded X", "X was deployed".
_CHANGE_TOLD = re.compile(
    r"\b(?:shipped|deployed|rolled (?:out|back)|released|pushed|upgraded|updated|merged|migrated|"
    r"bumped|restarted|redeployed|patched)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ASIDE = re.compile(r"\b(?:also|too|as well|fwiw|btw|by the way)\b", re.IGNORECASE)
_ASKING = re.compile(r"\b(?:why|what|how|which|who|where|is|are|does|do|can|could)\b|\?", re.IGNORECASE)


def _without_asides(question: str) -> str:
    """The question without its asides: a later sentence that tells of something else too ("There is
    also a CPU alarm on batch-7.") beside the ones that say and ask what the question is about."""
    sentences = [part for part in _SENTENCE_END.split(question.strip()) if part]
    # The first sentence says what it is about; a later one that tells, with "also", is an aside.
    kept = [s for i, s in enumerate(sentences) if i == 0 or s.rstrip().endswith("?") or not _ASIDE.search(s)]
    return " ".join(kept) if kept and len(kept) < len(sentences) else question


def _told_in_passing(question: str) -> set[str]:
    """Names that appear only in clauses telling of a change, never in a clause that asks."""
    told: set[str] = set()
    asked: set[str] = set()
    for clause in _CLAUSE_BREAK.split(question):
        terms = set(question_terms(clause))
        if _CHANGE_TOLD.search(clause) and not _ASKING.search(clause):
            told |= terms
        else:
            asked |= terms
    return told - asked


def unseen_systems(question: str, known: Iterable[str], digest: Digest) -> list[str]:
    """Systems the question names that no evidence knows: a hyphenated name of a known family (its
    first part begins a known system's name: `<f>-billing` beside `<f>-web` or `<f>`) that is not
    itself a known name, a family or member of one, or a label value of a fact. Their health cannot
    be read."""
    names = {name.lower() for name in known}
    names |= {v.lower() for g in digest.alert_groups for v in g.labels.values()}
    names |= {v.lower() for a in digest.anomalies for v in a.labels.values()}
    names |= {(p.service or "").lower() for p in digest.log_patterns}
    families = {name.split("-", 1)[0] for name in names if name}
    # Any label value read names a system the evidence knows (not a family: a region or a path is
    # no system whose siblings a question could name).
    names |= {name.lower() for name in digest.names}
    asked = _SUBJECT.findall(question)
    said = [*asked, *_OWNER.findall(question), *_OPENS.findall(question), *_LEADS.findall(question)]
    subjects = {term.lower() for term in said if _NAME_LIKE.search(term)}
    # A product's name spelled as one ("is Keycloak down?", "why is PgBouncer slow?") is a system's
    # name too, though a plain word; it is unseen only when no telemetry says it at all.
    proper = {term.lower() for term in asked if _PROPER_NOUN.fullmatch(term)}
    # So is a program asked about on a machine ("is cachedb on hp-mc-01 ok?").
    proper |= {term.lower() for term in _ON_MACHINE.findall(question)}
    if proper:
        telemetry = _telemetry_text(digest)  # read once: it joins every fact the digest holds
        subjects |= {term for term in proper if term not in telemetry}
    unseen: list[str] = []
    for term in question_terms(question):
        family, dash, _ = term.partition("-")
        # A name of a known family, or the name-like subject of a health question ("is
        # quillmate-search healthy?"), however new its family is.
        if not ((dash and family in families) or term in subjects) or term in names:
            continue
        if dash and family in families and _ENVIRONMENT_SUFFIX.fullmatch(term.partition("-")[2]):
            continue  # the family's environment ("kubectl against fw-prod hangs" beside fw-cp-2): a place
        if "." in term and term.split(".", 1)[0] in names:
            continue  # a DNS name of a known system (`x-api.service.consul`, `x.ns.svc`)
        if any(
            name.startswith(f"{term}-")
            or name.endswith(f"-{term}")
            or _member_of(term, name)
            or term in name.split(":")
            for name in names
        ):
            # A family (`db` of `db-3`), a short name (`master-1` of `<cluster>-master-1`), a member
            # (`web-2` of `web`), or a path's part.
            continue
        if any(_flat(name).startswith(_flat(term)) for name in names if name):
            continue  # spelled apart: `shelf-scan` of `shelfscan-api`
        unseen.append(term)
    return unseen


_ENVIRONMENT_SUFFIX = re.compile(ENVIRONMENT)


def _telemetry_text(digest: Digest) -> str:
    """Every word the telemetry read holds (alerts, series, log lines; not runbooks or past cases,
    which may name a system this deployment does not run), lower-cased."""
    said = [*digest.names, *digest.measured]
    said += [f"{g.alertname} {g.summary} {' '.join(g.labels.values())}" for g in digest.alert_groups]
    said += [f"{a.metric} {' '.join(a.labels.values())}" for a in digest.anomalies]
    said += [f"{p.service or ''} {p.template} {p.example}" for p in digest.log_patterns]
    return " ".join(said).lower()


def _flat(name: str) -> str:
    return re.sub(r"[-_.]", "", name)


def _member_of(term: str, name: str) -> bool:
    """`web-2` of `web`, a pod of its workload: a numbered or generated member, not a sibling."""
    return workload_of_pod(term) == name or (term.startswith(f"{name}-") and term[len(name) + 1 :].isdigit())


# "what is wrong with X", "the issue with our X": a question about X.
_WRONG_WITH = r"(?:wrong|going on|happening|the (?:issue|problem|matter)) with (?:the |our |my )?"

# What a question asks the health of: "is X healthy", "what is wrong with X", "why is X slow",
# "the status of X". Only a name-like X (a hyphen, underscore, dot or digit: `quillmate-search`) is
# read as a system's name; a plain word ("is the database slow") may be a generic noun.
_SUBJECT = re.compile(
    r"\b(?:(?:why|how) (?:is|are|does|do|did|has|was) (?:the |our |my )?"
    r"|(?:^|[.?!;,]\s*)(?:is|are|was|has) (?:the |our |my )?"
    rf"|{_WRONG_WITH}"
    r"|(?:health|status|state) of (?:the |our |my )?)([a-z][\w.-]*[a-z0-9])"
    # ...as the subject, not an adjective ("why are long-running queries piling up?"): the end of
    # the sentence or a state follows it, after a word for what it is ("is the x-cache cluster ok?").
    # ("the poi-indexer nightly job failing": a word may say which kind first.)
    r"(?=(?:(?:\s+[a-z]+)?\s+(?:cluster|service|server|host|node|instance|database|db|queue|job|pod|app|api|system|"
    r"broker|replica|deployment))?(?:\s*(?:[?.!,;:]|$)|\s+(?:\w+(?:ing|ed)|healthy|ok|okay|up|down|"
    r"slow|broken|fine|alive|fail|fails|crash|crashes|unhealthy|unavailable|unreachable|not|so|still|"
    r"now)\b))",
    re.IGNORECASE,
)
_NAME_LIKE = re.compile(r"[-_.\d]")
# A program on a named machine, asked how it is: "is cachedb on hp-mc-01 ok?".
_ON_MACHINE = re.compile(
    r"(?:^|[.?!;,]\s*)(?:is|are|how(?:'s| is))\s+(?:the\s+)?([a-z][a-z0-9]+)\s+on\s+[a-z][\w.-]*\d[\w.-]*"
    r"(?=\s*(?:[?.!,;:]|$)|\s+(?:ok|okay|up|down|healthy|fine|alive|running|working|slow|broken)\b)",
    re.IGNORECASE,
)
# Capitalised and mixed-case like a product ("Keycloak", "PgBouncer"), not an acronym ("DB") or a word.
_PROPER_NOUN = re.compile(r"[A-Z][a-z]+(?:[A-Z][A-Za-z]*)?")
# A sentence that begins with what it is about: "kiln-scheduler's nightly job failed at 02:00".
_OWNER = re.compile(r"(?:^|[.?!;]\s+)([a-z][\w.-]*[a-z0-9])'s\s", re.IGNORECASE)

# A sentence whose subject comes first: "seatmap-svc is showing blank maps since lunch, can you check?".
_OPENS = re.compile(
    r"(?:^|[.?!;]\s+)([a-z][\w.-]*[a-z0-9])\s+(?:is|are|was|has been|keeps|seems|looks|started|stopped)\b",
    re.IGNORECASE,
)

# A question headed by what it is about: "ledger-archiver stuck?", "x-connect s3 sink lagging?",
# "loyalty-svc: points not credited since lunch".
_LEADS = re.compile(
    r"^\s*([a-z][\w.-]*[-_.\d][\w.-]*[a-z0-9])(?=\s*:\s|\s+(?:[\w-]+\s+){0,3}?(?:stuck|down|broken|slow|dead|"
    r"lagging|failing|hanging|hung|erroring|timing out|behind|late|ok|okay|healthy)\b[^.!]*\?)",
    re.IGNORECASE,
)

_ASKED_ABOUT = re.compile(rf"\b{_WRONG_WITH}([\w.-]+)", re.IGNORECASE)


def _alerts_about(question: str, digest: Digest, named: Sequence[str]) -> set[str]:
    """The systems of named alerts whose labels hold another name the question names (its host)."""
    jobs: set[str] = set()
    for group in named_alert_groups(question, digest):
        values = {v.lower() for v in group.labels.values()} | {
            without_port(v).lower() for v in group.labels.values()
        }
        if group.service and any(n != group.service and n.lower() in values for n in named):
            jobs.add(group.service)
    return jobs


def _owners_named(question: str, digest: Digest) -> list[str]:
    """Services whose firing alert or moving metric the question names by its exact name, or whose
    firing alert is about what the question names ("why is search slow?" and an alert on
    `handler="/search"`)."""
    words = {word.lower() for word in question_terms(question)}
    owners = [g.service for g in named_alert_groups(question, digest) if g.service]
    # An alert that fired and has resolved, asked about by name ("X fired earlier, what happened?"), is
    # about its system too: the answer is that alert's story, not another system's firing one.
    owners += [g.service for g in _resolved_named(question, digest) if g.service]
    about = [g.service for g in _alert_groups_about(words, digest) if g.service]
    # Nothing firing is about what the question names: an alert about it that fired and resolved
    # ("is search still returning 500s?" and a resolved `handler="/search"` alert) names its system.
    owners += about or [g.service for g in _alert_groups_about(words, digest, resolved=True) if g.service]
    owners += [g.service for g in _alert_names_holding(words, digest) if g.service]
    owners += [a.service for a in digest.anomalies if a.metric.lower() in words and a.service]
    return [owner for owner in owners if owner]


def _alert_groups_about(words: set[str], digest: Digest, *, resolved: bool = False) -> list[AlertGroup]:
    """Firing groups (or, with `resolved`, groups that fired and resolved) one of whose identity label
    values is a word of the question, read as a word (`/search` is search; a plural asks about the
    same thing)."""
    words = words | {word[:-1] for word in words if word.endswith("s") and len(word) > 4}
    return [
        g
        for g in digest.alert_groups
        if (g.status != "firing") == resolved
        and any(
            _as_word(value) in words
            for key, value in g.labels.items()
            if key not in NOT_IDENTITY and len(_as_word(value)) >= 3
        )
    ]


def _alert_names_holding(words: set[str], digest: Digest) -> list[AlertGroup]:
    """Firing groups whose CamelCase alert name holds a word of the question ("card checkouts are
    slow" and `PaymentsCheckoutLatencyHigh`): the alert is about what the question is."""
    words = words | {word[:-1] for word in words if word.endswith("s") and len(word) > 4}
    return [
        g
        for g in digest.alert_groups
        if g.status == "firing"
        and words & {w.lower() for w in _CAMEL_WORD.findall(g.alertname) if len(w) >= 4}
    ]


_CAMEL_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _as_word(value: str) -> str:
    """A label value as a question spells it: `/search` is search, `runner-4:9100` is runner-4."""
    return without_port(value).strip(" /.:").lower()


def named_alert_groups(question: str, digest: Digest) -> list[AlertGroup]:
    """Firing groups whose alert name the question spells (names may hold spaces or brackets)."""
    text = question.lower()
    return [
        g
        for g in digest.alert_groups
        if g.status == "firing" and len(g.alertname) >= 3 and g.alertname.lower() in text
    ]


def _resolved_named(question: str, digest: Digest) -> list[AlertGroup]:
    """Groups no longer firing whose alert name the question spells."""
    text = question.lower()
    return [
        g
        for g in digest.alert_groups
        if g.status != "firing" and len(g.alertname) >= 3 and g.alertname.lower() in text
    ]


def alert_scoped(question: str) -> bool:
    """Whether the question is about an alert ("Alert X is firing on S")."""
    return bool(ALERT_FOCUS.search(question))
