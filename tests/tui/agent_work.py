"""What agents leave in a copy of the sample vault before the curator opens the TUI: requests in
the inbox (a draft, a merge, a request to forget) and verdicts on pairs of decisions."""

from __future__ import annotations

from pathlib import Path

from workbench import Vault
from workbench.core.services.gate import Draft
from workbench.core.services.inbox import Agent
from workbench.core.services.verdicts import Verdict

CLAUDE = Agent("claude-code", "agent-claude")

CENTS, DECIMAL = "mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal"
REDUX, FASTAPI = "mem-decision-frontend-redux-toolkit", "mem-decision-api-fastapi"
EMAIL, PDF = "mem-decision-sendgrid-dynamic-templates", "mem-decision-pdf-weasyprint"
INVOICES, WEBHOOKS = "mem-decision-gapless-invoice-numbers", "mem-decision-stripe-webhook-dedup"


def leave_requests(root: Path) -> dict[str, str]:
    """An agent's draft, a merge and a request to forget, oldest first; the draft's id as "create"."""
    vault = Vault.open(root)
    note = Draft(
        "note", "Stripe retries webhooks for three days", ["stripe"], [("related_to", "mem-entity-stripe")], "Seen.\n"
    )
    created = vault.agent_create(note, CLAUDE).created_id
    vault.agent_merge_into(
        "mem-entity-stripe", Draft("entity", "Retry window", [], [], "Three days.\n"), Agent("codex-cli", "agent-codex")
    )
    vault.request_forget("mem-note-sentry-healthcheck-noise", CLAUDE, "fixed upstream")
    return {"create": created}


def leave_verdicts(root: Path) -> list[Verdict]:
    """Four verdicts as two agents give them over MCP (`memory_judge` records through the same
    core call): two replacements and a companion from one, an unsure from another."""
    vault = Vault.open(root)
    return [
        vault.judge(CENTS, DECIMAL, "replaces", "The newer switches the same columns to NUMERIC(12,2).", "claude"),
        vault.judge(EMAIL, PDF, "companion", "Email templates and PDF rendering are different subjects.", "claude"),
        vault.judge(REDUX, FASTAPI, "replaces", "Server data now goes through the generated API client.", "claude"),
        vault.judge(INVOICES, WEBHOOKS, "unsure", "Both use ON CONFLICT; the subjects differ.", "gpt-judge"),
    ]
