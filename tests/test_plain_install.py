"""A plain install, as a newcomer has it: no optional package can be imported, and nothing breaks.

The test extras install numpy, so the suite would never see a core that imports it too early. Each
run here starts a fresh interpreter whose import system refuses the optional packages, the way an
install without the extras would, and runs the real command line (or the notebook reprs) in it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

OPTIONAL = ("numpy", "tokenizers", "wordllama", "pandas")

BLOCKER = textwrap.dedent(f"""
    import sys

    class _NotInstalled:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {OPTIONAL!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, _NotInstalled())
    for name in list(sys.modules):
        if name.partition(".")[0] in {OPTIONAL!r}:
            del sys.modules[name]
""")

SIX_WORDS = "how do we handle stripe webhooks"


def plain(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter where the optional packages cannot be imported."""
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def plain_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return plain(f"from workbench.cli import main\nsys.exit(main({list(args)!r}))")


def test_the_blocker_really_blocks():
    result = plain("import numpy")
    assert result.returncode != 0 and "No module named 'numpy'" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("search", SIX_WORDS),
        ("search", "why did we choose postgres over mysql for billing"),
        ("search", "--json", SIX_WORDS),
        ("check",),
        ("graph", "--format", "json"),
        ("graph", "--format", "mermaid"),
        ("conflicts",),
        ("context", "mem-decision-stripe-webhook-dedup"),
    ],
    ids=lambda args: " ".join(args),
)
def test_every_command_answers_without_the_optional_packages(sample_copy, args):
    result = plain_cli("--vault", str(sample_copy), *args)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stdout + result.stderr  # check exits 1 only on errors
    assert result.stdout.strip()


def test_a_long_question_finds_its_answer_without_the_optional_packages(sample_copy):
    result = plain_cli("--vault", str(sample_copy), "search", "--json", SIX_WORDS)
    assert result.returncode == 0, result.stderr
    assert "stripe" in result.stdout.lower()


def test_the_notebook_reprs_without_the_optional_packages(sample_copy):
    result = plain(f"""
        from workbench import Vault
        vault = Vault.open({str(sample_copy)!r})
        doc = vault.documents[0]
        shown = [vault._repr_html_(), doc._repr_html_(), doc._repr_markdown_(),
                 vault.search({SIX_WORDS!r})._repr_html_(), vault.problems._repr_html_()]
        assert all(isinstance(text, str) and text for text in shown)
        try:
            vault.to_pandas()
        except ImportError as exc:
            assert "pip install pandas" in str(exc), exc
        else:
            raise AssertionError("to_pandas answered without pandas")
        print("ok")
    """)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr
