"""The credential warning: each kind of secret is found on its line, and a secret's prefix glued
to the end of a word is not one. The patterns are written to start with their literal (fast to
scan for); they must find exactly what the plainly written patterns below find."""

from __future__ import annotations

import random
import re
import sys

import pytest

from workbench.core.records.validate import _MATCHED_AS_ASCII, find_credentials

# The patterns as one would write them plainly, each starting at a word boundary.
PLAIN = [
    ("a private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ("an AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}\b"),
    ("a Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    ("an API secret key", r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}\b"),
    ("a Stripe key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("a JSON web token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    (
        "a password or secret assignment",
        r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
        r"\s*[:=]\s*['\"]?(?=[^\s'\"]*[0-9])(?=[^\s'\"]*[A-Za-z])[^\s'\"<>{}$]{8,}",
    ),
    ("credentials in a URL", r"://[^\s/:@]+:[^\s/@]{3,}@[^\s/]+"),
]


def plainly_found(text: str) -> list[tuple[int, str]]:
    found: dict[int, str] = {}
    for what, pattern in PLAIN:
        for match in re.finditer(pattern, text):
            found.setdefault(text.count("\n", 0, match.start()) + 1, what)
    return sorted(found.items())


@pytest.mark.parametrize(
    "secret, what",
    [
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"),
        ("AKIAIOSFODNN7EXAMPLE", "an AWS access key"),
        ("ASIAIOSFODNN7EXAMPLE", "an AWS access key"),
        ("ghp_" + "a1" * 18, "a GitHub token"),
        ("github_pat_" + "B2_" * 14, "a GitHub token"),
        ("xoxb-1234567890-abc", "a Slack token"),
        ("sk-ant-" + "x9" * 12, "an API secret key"),
        ("rk_live_" + "Z8" * 9, "a Stripe key"),
        ("sk_test_" + "Z8" * 9, "a Stripe key"),
        ("AIza" + "c3" * 17 + "d", "a Google API key"),
        ("eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKK", "a JSON web token"),
        ("Client_Secret = 'p4ssw0rd-long'", "a password or secret assignment"),
        ("https://deploy:hunter22@example.com/", "credentials in a URL"),
    ],
)
def test_each_kind_is_found_on_its_line(secret, what):
    assert find_credentials(f"Intro line.\n\nThe value is {secret} here.\n") == [(3, what)]


@pytest.mark.parametrize(
    "glued", ["xAKIAIOSFODNN7EXAMPLE", "highghp_" + "a1" * 18, "risk-" + "x9" * 12, "task_live_" + "Z8" * 9]
)
def test_a_prefix_inside_a_word_is_not_a_secret(glued):
    assert find_credentials(f"The value is {glued} here.\n") == []


def test_the_patterns_find_what_the_plainly_written_ones_find():
    pieces = [
        "AKIA",
        "ASIA",
        "ghp_",
        "gho_",
        "github_pat_",
        "xoxb-",
        "sk-",
        "sk-ant-",
        "rk_live_",
        "sk_test_",
        "AIza",
        "eyJ",
        ".eyJ",
        "password",
        "passwd=",
        "API_KEY:",
        "access-token =",
        "auth_token=",
        "client_secret:",
        "pwd:",
        "Secret=",
        "apikey=",
        "AccessToken:",
        "authtoken ",
        "api",
        "token",
        "://",
        "user:pw@host",
        "-----BEGIN RSA PRIVATE KEY-----",
        " ",
        "\n",
        "x",
        "_",
        "-",
        "é",
        "ABCDEFGH12345678",
        "abcdefghij0123456789",
        "'",
        '"',
        "=",
        ":",
        "9",
        "Z",
        "\t",
        "\x0b",
        "\x1c",
        " : ",
        "PASSWORD",
        "Client Secret",
        "client-secret",
        "xpwd",
        "secret\n=",
        "K",
        "J",
        "@",
        "\u0130",  # İ, lower-cased to two characters
        "\u0131",  # ı, matched as i by a case-blind pattern
        "\u017f",  # ſ, matched as s
        "\u212a",  # the Kelvin sign, matched as k
        "\u00a0",  # white space beyond ASCII
        "\u2003",
        "\u2019",
        "?",
    ]
    rng = random.Random(7)
    for _ in range(40000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        assert find_credentials(text) == plainly_found(text), text


@pytest.mark.parametrize(
    "text",
    ["\u017fecret = abcd12345678", "\u00e9 pa\u017f\u017fword: hunter2222", "api_\u212aey = abc123456789 \u00e9"],
)
def test_a_secret_spelt_with_a_letter_a_case_blind_pattern_takes_for_ascii_is_found(text):
    assert find_credentials(text) == plainly_found(text) == [(1, "a password or secret assignment")]


def test_the_characters_beyond_ascii_a_case_blind_pattern_takes_for_ascii_letters():
    """The credential check looks at a text's ASCII image (each other character a `?`): the case-blind
    assignment's words can hold only these characters beyond ASCII, where the check scans the text
    itself. Python's own rules, asked of every character."""
    letter = re.compile("[a-z]", re.I)
    taken = {chr(c) for c in range(0x80, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000 and letter.fullmatch(chr(c))}
    assert taken == set(_MATCHED_AS_ASCII)
