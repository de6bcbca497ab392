"""Each family of secret is masked in every spelling it comes in, in plain text and inside JSON.

Every secret value starts with `Zq9`, which no surrounding text or replacement contains: a masked
text that still holds any of the value fails.
"""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from tools.redaction import redact

_MARK = "Zq9"
_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
# What an unquoted value may hold (the separators around it end it); quoted values may hold anything.
_UNQUOTED = _ALNUM + "!#$%*+-./:=?@^_~"


def _value(alphabet: str, min_size: int = 4) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=min_size, max_size=24).map(lambda tail: _MARK + tail)


def _assert_masked(text: str, secret: str) -> None:
    """`secret` is gone from `text` redacted, and from `text` carried in JSON (which stays JSON)."""
    assert secret not in redact(text), redact(text)
    carried = json.loads(redact(json.dumps({"message": text})))["message"]
    assert secret not in carried, carried
    twice = json.dumps({"line": json.dumps({"message": text})})  # a JSON log line inside a result
    assert secret not in json.loads(json.loads(redact(twice))["line"])["message"]


def _spelled(word: str) -> st.SearchStrategy[str]:
    return st.sampled_from([word, word.upper(), word.capitalize()])


_STEMS = [
    *("password", "passwd", "pwd", "passphrase", "secret", "token", "api_key", "apikey", "api-key"),
    *("access_key", "accesskey", "private_key", "privateKey", "credential", "credentials", "auth"),
    *("authorization", "auth_token", "client_secret", "secret_key", "access_token", "refresh_token"),
    *("api_tokens", "x-auth-tokens"),
]
_KEYS = st.tuples(
    st.sampled_from(["", "DB_", "PG", "MYSQL_", "AWS_", "client_", "x-", "app.", "REDIS_", "my"]),
    st.sampled_from(_STEMS).flatmap(_spelled),
    st.sampled_from(["", "_FILE", "_value", "Id", "-v2"]),
).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    key=_KEYS,
    separator=st.sampled_from(["=", ": ", " = ", ":", "=>", " := ", " <> ", "!="]),
    secret=_value(_UNQUOTED),
    before=st.sampled_from(["", "export ", "connect with ", "env: ", "+ ", "?x=1&", "cfg{"]),
    after=st.sampled_from(["", " next", ", user=svc", "; host=db", "&state=x", "}", "\n"]),
)
def test_key_value_pairs_lose_their_value(
    key: str, separator: str, secret: str, before: str, after: str
) -> None:
    _assert_masked(f"{before}{key}{separator}{secret}{after}", secret)


# Quoted values may hold spaces, both quotes and backslashes (escaped as the quoting needs).
_QUOTED = st.text(_ALNUM + " !#$%&*+,-./:;<=>?@[]^_{|}~\"'\\", min_size=1, max_size=24).map(
    lambda tail: _MARK + tail
)


@settings(max_examples=400, deadline=None)
@given(key=_KEYS, secret=_QUOTED, spaced=st.booleans(), form=st.sampled_from(["json", "python", "shell"]))
def test_quoted_values_lose_all_of_their_value(key: str, secret: str, spaced: bool, form: str) -> None:
    if form == "json":
        text = json.dumps({key: secret, "user": "svc"}, separators=(", ", ": ") if spaced else (",", ":"))
    elif form == "python":
        text = repr({key: secret, "user": "svc"})
    else:
        escaped = secret.replace("\\", "\\\\").replace('"', '\\"')
        text = f'{key}{" = " if spaced else "="}"{escaped}" user=svc'
    _assert_masked(text, secret)
    _assert_masked(text, secret.replace("\\", "\\\\").replace('"', '\\"'))


@settings(max_examples=200, deadline=None)
@given(
    key=st.sampled_from(["password", "Password", "token", "secret", "passphrase"]), secret=_value(_UNQUOTED)
)
def test_prose_that_spells_a_password_loses_it(key: str, secret: str) -> None:
    _assert_masked(f"user reports the {key} is {secret} since monday", secret)
    _assert_masked(f"old {key} was {secret}", secret)


@settings(max_examples=300, deadline=None)
@given(
    scheme=st.sampled_from(["postgresql", "postgresql+psycopg", "mysql", "redis", "rediss", "https", "amqp"]),
    user=st.text(_ALNUM + "._-", max_size=10),
    secret=_value(_ALNUM + "!$&()*+,;=:@%~-._"),
    host=st.sampled_from(["db", "db.internal:5432", "10.0.0.7", "cache:6379"]),
    path=st.sampled_from(["", "/orders", "/0", "/db?sslmode=require"]),
)
def test_url_userinfo_loses_its_password_even_with_at_signs(
    scheme: str, user: str, secret: str, host: str, path: str
) -> None:
    url = f"{scheme}://{user}:{secret}@{host}{path}"
    _assert_masked(f"connecting to {url} failed", secret)
    assert f"@{host}{path}" in redact(url)  # where it connects stays readable


@settings(max_examples=200, deadline=None)
@given(
    header=st.sampled_from(["Authorization", "authorization", "Proxy-Authorization", "X-Auth-Token"]),
    scheme=st.sampled_from(["Basic ", "Bearer ", "Token ", "Digest ", ""]),
    secret=_value(_B64 + "=._~-"),
    form=st.sampled_from(["header", "json", "curl"]),
)
def test_authorization_headers_lose_their_credentials(
    header: str, scheme: str, secret: str, form: str
) -> None:
    if form == "json":
        text = json.dumps({"headers": {header: scheme + secret, "Accept": "*/*"}})
    elif form == "curl":
        text = f"curl -H '{header}: {scheme}{secret}' https://api/"
    else:
        text = f"{header}: {scheme}{secret}"
    _assert_masked(text, secret)


_VENDOR = st.one_of(
    st.tuples(
        st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]), st.text(_ALNUM, min_size=36, max_size=36)
    ),
    st.tuples(st.just("github_pat_"), st.text(_ALNUM + "_", min_size=82, max_size=82)),
    st.tuples(
        st.sampled_from([f"xox{c}-" for c in "abposr"]), st.text(_ALNUM + "-", min_size=10, max_size=50)
    ),
    st.tuples(st.sampled_from(["sk-", "sk-proj-"]), st.text(_ALNUM + "_-", min_size=20, max_size=48)),
    st.tuples(
        st.sampled_from(["AKIA", "ASIA"]),
        st.text(string.ascii_uppercase + string.digits, min_size=16, max_size=16),
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    token=_VENDOR, around=st.sampled_from(["{}", "use {} now", "x={}", "https://{}@github.com/o/r", "'{}'"])
)
def test_vendor_tokens_are_masked_anywhere_by_their_prefix(token: tuple[str, str], around: str) -> None:
    prefix, body = token
    masked = redact(around.format(prefix + body))
    assert body not in masked and body[-12:] not in masked
    _assert_masked(around.format(prefix + body), body)


_JWT = st.tuples(
    st.text(_B64URL, min_size=8, max_size=40),
    st.text(_B64URL, min_size=8, max_size=80),
    st.text(_B64URL, max_size=43),
).map(lambda parts: f"eyJ{parts[0]}.eyJ{parts[1]}.{parts[2]}")


@settings(max_examples=300, deadline=None)
@given(
    jwt=_JWT, around=st.sampled_from(["{}", "token: Bearer {}", "jwt={}", "cookie session {} set", "[{}]"])
)
def test_jwts_are_masked_anywhere(jwt: str, around: str) -> None:
    masked = redact(around.format(jwt))
    assert jwt[3:] not in masked
    assert jwt.split(".")[1] not in masked  # the claims
    carried = json.loads(redact(json.dumps([around.format(jwt)])))[0]
    assert jwt.split(".")[1] not in carried


@settings(max_examples=150, deadline=None)
@given(
    label=st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA "]),
    lines=st.lists(st.text(_B64, min_size=16, max_size=64), min_size=1, max_size=6),
    ended=st.booleans(),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_pem_private_keys_lose_their_body(label: str, lines: list[str], ended: bool, newline: str) -> None:
    body = newline.join(lines)
    end = f"{newline}-----END {label}PRIVATE KEY-----" if ended else ""
    pem = f"-----BEGIN {label}PRIVATE KEY-----{newline}{body}{end}"
    for text in (f"key loaded:\n{pem}\nnext line", json.dumps({"file": pem})):
        masked = redact(text)
        assert all(line not in masked for line in lines), masked
    assert "next line" in redact(f"{pem}\nnext line") or not ended


_HASHES = st.one_of(
    st.tuples(
        st.just("SCRAM-SHA-256$"),
        st.tuples(st.text(_B64, min_size=24, max_size=24), st.text(_B64, min_size=43, max_size=43)).map(
            lambda p: f"4096:{p[0]}==${p[1]}=:{p[1][::-1]}="
        ),
    ),
    st.tuples(st.just("md5"), st.text("0123456789abcdef", min_size=32, max_size=32)),
    st.tuples(st.just("*"), st.text("0123456789ABCDEF", min_size=40, max_size=40)),
    st.tuples(
        st.sampled_from(["$2a$", "$2b$", "$2y$"]),
        st.text(_ALNUM + "./", min_size=53, max_size=53).map(lambda s: "12$" + s),
    ),
    st.tuples(
        st.just("$argon2id$"),
        st.text(_B64, min_size=22, max_size=43).map(lambda s: f"v=19$m=65536,t=3,p=4${s}${s[::-1]}"),
    ),
    st.tuples(
        st.sampled_from(["$6$", "$5$", "$1$", "$y$"]),
        st.text(_ALNUM + "./", min_size=16, max_size=86).map(lambda s: f"rounds=5000${s[:8]}${s}"),
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    hashed=_HASHES, around=st.sampled_from(["{}", "rolname=app, hash {}", "('alice', '{}')", "user:{}:1000"])
)
def test_password_hashes_are_masked(hashed: tuple[str, str], around: str) -> None:
    prefix, body = hashed
    text = around.format(prefix + body)
    masked = redact(text)
    assert body not in masked and body[-16:] not in masked, masked
    assert prefix in masked  # which kind of hash it was stays readable
    carried = json.loads(redact(json.dumps({"rows": [["app", prefix + body]]})))
    assert body[-16:] not in json.dumps(carried)
