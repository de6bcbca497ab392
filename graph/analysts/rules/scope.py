"""Scopes the ranking to the one service an alert-focused question is about.

"Alert X is firing on S" asks about S's trouble, not about whatever else is burning: the root cause is
S itself unless evidence ties S's symptoms to another service (S's errors name it, or S talks to it
and its trouble began first). Anything the ranking put first without such a link is an unrelated
incident: named and set aside, never blamed for S's alert.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from graph.analysts.rules.dependencies import mentions
from graph.analysts.rules.links import link_same_machine
from graph.analysts.rules.machines import without_port
from graph.analysts.rules.route import question_terms
from graph.analysts.rules.suspect import NOT_IDENTITY, Ranking, Suspect
from graph.analysts.rules.suspects import CHANGE_LEAD
from graph.analysts.rules.vocabulary import ALERT_FOCUS, ERROR_LEVELS
from tools.digest.labels import parse_instant
from tools.facts import AlertGroup, Digest
from tools.identity import DEFAULT_IDENTITY, workload_of_pod


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
    subjects = {term.lower() for term in _SUBJECT.findall(question) if _NAME_LIKE.search(term)}
    unseen: list[str] = []
    for term in question_terms(question):
        family, dash, _ = term.partition("-")
        # A name of a known family, or the name-like subject of a health question ("is
        # quillmate-search healthy?"), however new its family is.
        if not ((dash and family in families) or term in subjects) or term in names:
            continue
        if "." in term and term.split(".", 1)[0] in names:
            continue  # a DNS name of a known system (`x-api.service.consul`, `x.ns.svc`)
        if any(
            name.startswith(f"{term}-") or _member_of(term, name) or term in name.split(":") for name in names
        ):
            continue  # a family (`db` of `db-3`), a member (`web-2` of `web`), or a path's part
        if any(_flat(name).startswith(_flat(term)) for name in names if name):
            continue  # spelled apart: `shelf-scan` of `shelfscan-api`
        unseen.append(term)
    return unseen


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
    owners += [g.service for g in _alert_groups_about(words, digest) if g.service]
    owners += [g.service for g in _alert_names_holding(words, digest) if g.service]
    owners += [a.service for a in digest.anomalies if a.metric.lower() in words and a.service]
    return [owner for owner in owners if owner]


def _alert_groups_about(words: set[str], digest: Digest) -> list[AlertGroup]:
    """Firing groups one of whose identity label values is a word of the question, read as a word
    (`/search` is search; a plural asks about the same thing)."""
    words = words | {word[:-1] for word in words if word.endswith("s") and len(word) > 4}
    return [
        g
        for g in digest.alert_groups
        if g.status == "firing"
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


def alert_scoped(question: str) -> bool:
    """Whether the question is about an alert ("Alert X is firing on S")."""
    return bool(ALERT_FOCUS.search(question))


def scope_ranking(ranking: Ranking, target: str, digest: Digest) -> Ranking:
    """The ranking seen from `target`: its own trouble first unless evidence points past it."""
    everyone = {s.service: s for s in [*ranking.ranked, *ranking.herrings, *ranking.quiet]}
    name = ranking.aliases.get(target, target)  # `vault` asked, `qv-vault` logging
    scoped = everyone.get(name) or _carrier(target, everyone.values())
    if scoped is None:
        # What the question names shows no trouble to rank: other problems are listed, never
        # substituted. Errors of its own too rare to rank (one failed export) are still its trouble
        # when the question is about it.
        own = _own_errors(target, digest)
        return Ranking([own] if own else [], [], own.onset if own else None, unrelated=ranking.ranked[:3])
    if not (scoped.anomalies or scoped.errors):
        link_same_machine(scoped, list(everyone.values()))  # others' errors on its alert's machine
    depth = _causes(scoped, everyone, digest)
    if ranking.ranked and ranking.ranked[0].service in depth:
        return ranking
    root = _furthest(depth, everyone)
    if (began := _began(scoped)) is not None and (changed := _change_before(root, began)) is not None:
        root.onset = changed  # its trouble began with the change that began the target's
    unrelated = ranking.ranked[:1]
    linked = [s for s in ranking.ranked if s.service in depth and s is not root]
    if any(s is root for s in ranking.ranked):
        herrings = [s for s in ranking.herrings if s.service not in depth]
        return replace(ranking, ranked=[root, *linked], herrings=herrings, unrelated=unrelated)
    # The root's trouble lies outside the incident window (or was too quiet to rank): judge it in its
    # own time.
    root.onset = _began(root)
    return Ranking([root, *linked], [], root.onset, unrelated)


def _own_errors(target: str, digest: Digest) -> Suspect | None:
    """`target` with the error lines it logged, however few; None when it logged none."""
    errors = [
        p for p in digest.log_patterns if p.service == target and (p.level or "").lower() in ERROR_LEVELS
    ]
    if not errors:
        return None
    starts = sorted(t for p in errors if (t := parse_instant(p.first_seen)) is not None)
    return Suspect(target, errors=errors, onset=starts[0] if starts else None)


def _carrier(target: str, suspects: Iterable[Suspect]) -> Suspect | None:
    """The one troubled system whose alerts or series carry `target` as a label value (the exporter's
    job on the alert's instance): a question naming the job asks about that instance."""
    name = target.lower()
    carriers = [
        suspect
        for suspect in suspects
        if any(name in {v.lower() for v in g.labels.values()} for g in suspect.alerts)
        or any(name in {v.lower() for v in a.labels.values()} for a in suspect.anomalies)
    ]
    if len(carriers) > 1:
        # Several members of what the question names (an exporter job's instances): the one in the
        # most trouble, when one stands out.
        carriers.sort(key=lambda s: -s.score)
        return carriers[0] if carriers[0].score > carriers[1].score else None
    return carriers[0] if carriers else None


def _causes(scoped: Suspect, everyone: dict[str, Suspect], digest: Digest) -> dict[str, int]:
    """The scoped service and every service its symptoms lead to, with how many links away each is."""
    depth = {scoped.service: 0}
    frontier = [scoped]
    while frontier:
        current = frontier.pop(0)
        for name in sorted(_upstream(current, everyone, digest)):
            if name not in depth:
                depth[name] = depth[current.service] + 1
                frontier.append(everyone[name])
    return depth


def _furthest(depth: dict[str, int], everyone: dict[str, Suspect]) -> Suspect:
    """The furthest link upstream explains the rest of the chain; the earlier start breaks ties."""
    never = datetime.max.replace(tzinfo=UTC)

    def order(name: str) -> tuple[int, float]:
        return (-depth[name], (_began(everyone[name]) or never).timestamp())

    return everyone[min(depth, key=order)]


def _upstream(suspect: Suspect, everyone: dict[str, Suspect], digest: Digest) -> set[str]:
    """Services `suspect`'s errors name, services it calls whose trouble began before its own,
    services whose signals began before its errors (cause before effect), and the failing consumers
    of a queue it backs up."""
    named = {name for name in suspect.blames if name in everyone}
    named |= {name for name, other in everyone.items() if suspect.service in other.precedes}
    began = _began(suspect)
    if began is not None:
        named |= _changed_clients(suspect, began, everyone, digest)
    named |= _failing_consumers(suspect, everyone, digest)
    for name in _callees(suspect.service, everyone, digest):
        other = _began(everyone[name])
        if began is not None and other is not None and other < began:
            named.add(name)
    return named


_RESOURCES = frozenset(DEFAULT_IDENTITY.resources)
# Naming labels that say what kind of thing a series is about (`queue_name`, `topic`, `stream_arn`).
_KIND = re.compile(r"_?(?:name|names|id|arn|url)$", re.IGNORECASE)
_KINDS = frozenset({"queue", "topic", "stream", "bucket", "table", "database"})
STEP_SLACK = timedelta(minutes=2)


def _changed_clients(
    suspect: Suspect, began: datetime, everyone: dict[str, Suspect], digest: Digest
) -> set[str]:
    """Systems whose lines name `suspect` (or the queue, topic or database its series are about) and
    that changed or restarted just before its trouble began: a consumer deployed a minute before its
    queue's backlog grew is that backlog's cause, though the backlog is where the alert fires."""
    marks = {
        suspect.service,
        *(v for labels in suspect.label_sets() for k, v in labels.items() if k in _RESOURCES),
    }
    # What it is, by its series' naming label (`queue_name` -> "queue"): a consumer's "returning all
    # 25 records to queue" speaks of it without its name. Only one changed system may say so.
    kinds = {k for labels in suspect.label_sets() for key in labels if (k := _KIND.sub("", key)) in _KINDS}
    found: set[str] = set()
    kind_only: set[str] = set()
    for name, other in everyone.items():
        if name == suspect.service or _change_before(other, began) is None:
            continue
        said = " ".join(f"{p.template} {p.example}" for p in digest.log_patterns if p.service == name)
        if any(len(mark) >= 4 and mentions(said, mark) for mark in marks):
            found.add(name)
        elif any(mentions(said.lower(), kind) for kind in kinds):
            kind_only.add(name)
    return found or (kind_only if len(kind_only) == 1 else set())


def _failing_consumers(suspect: Suspect, everyone: dict[str, Suspect], digest: Digest) -> set[str]:
    """Failing systems whose lines or series name a queue or topic that backs up with no errors of
    its broker's own (`queue=origin-sync` and `origin_sync_uploads_total`): a backlog grows because
    its consumer fails (its lines may come later, as its retries give up), so the consumer is
    upstream of it. A database's failing clients are its effects, not its causes: only queues and
    topics are read so; a broker that fails itself is not a backlog."""
    marks = {_spaced(v) for labels in suspect.label_sets() for k, v in labels.items() if k in _CONSUMED}
    found: set[str] = set()
    for name, other in everyone.items():
        failing = any(p.count >= 3 for p in other.errors)
        if name == suspect.service or not marks or suspect.errors or not failing:
            continue
        said = [f"{p.template} {p.example}" for p in digest.log_patterns if p.service == name]
        said += [a.metric for a in digest.anomalies if a.service == name]
        text = f" {_spaced(' '.join(said))} "
        if any(len(mark) >= 4 and f" {mark} " in text for mark in marks):
            found.add(name)
    return found


_CONSUMED = frozenset({"queue", "queue_name", "topic", "topic_name", "stream", "stream_name"})


def _spaced(text: str) -> str:
    """`origin_sync_uploads_total` and `origin-sync` as words: "origin sync uploads total"."""
    return " ".join(re.split(r"[\W_]+", text.lower())).strip()


def _change_before(suspect: Suspect, began: datetime) -> datetime | None:
    """The first change or restart of `suspect` up to CHANGE_LEAD before `began` (or within a step of
    a minute-resolution series after it: a cloud metric's 13:11 point covers up to 13:12), if any."""
    return next((t for t in suspect.change_times() if began - CHANGE_LEAD <= t <= began + STEP_SLACK), None)


def _callees(service: str, everyone: dict[str, Suspect], digest: Digest) -> set[str]:
    """Other services `service`'s own log lines or metric labels mention: what it talks to."""
    texts = [f"{p.template} {p.example}" for p in digest.log_patterns if p.service == service]
    texts += [
        " ".join(value for key, value in a.labels.items() if key != "service")
        for a in digest.anomalies
        if a.service == service
    ]
    text = " ".join(texts).lower()
    return {name for name in everyone if name != service and mentions(text, name)}


def _began(suspect: Suspect) -> datetime | None:
    if suspect.onset is not None:
        return suspect.onset
    events = suspect.events()
    return events[0] if events else None
