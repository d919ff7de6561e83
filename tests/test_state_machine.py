"""Random sequences of curation operations keep every invariant of SPEC §1 and lose no body text."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from vault_builders import VaultBuilder
from workbench import RefusedError, Vault
from workbench.core.services.gate import Draft

STRUCTURAL = {
    "supersession-one-sided",
    "supersession-cycle",
    "superseded-without-successor",
    "active-with-successor",
    "supersedes-link-mismatch",
    "link-dangling",
    "supersession-dangling",
    "id-duplicate",
    "link-duplicate",
}
STATUSES = ["draft", "active", "deprecated", "archived"]


class CurationMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.folder = Path(tempfile.mkdtemp())
        builder = VaultBuilder(self.folder / "vault")
        builder.add("mem-entity-hub", body="hub body line\n")
        for n in range(4):
            builder.add(
                f"mem-decision-d{n}", links="[{type: depends_on, target: mem-entity-hub}]", body=f"decision body {n}\n"
            )
        for n in range(4):
            builder.add(
                f"mem-note-n{n}",
                tags="[shared]",
                links="[{type: explains, target: mem-entity-hub}]",
                body=f"note body {n}\n",
            )
        self.vault = Vault.open(builder.root)
        # Every body line that must survive, except the ones of forgotten documents.
        self.lines = {d.id: d.body.strip() for d in self.vault.documents}
        self.forgotten: set[str] = set()

    def teardown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def ids(self, prefix=""):
        return sorted(i for i in self.vault.ids() if i.startswith(prefix))

    @rule(data=st.data(), status=st.sampled_from(STATUSES))
    def change_status(self, data, status):
        doc_id = data.draw(st.sampled_from(self.ids()))
        try:
            self.vault.set_status(doc_id, status)
        except RefusedError:
            pass

    @rule(data=st.data())
    def supersede(self, data):
        decisions = self.ids("mem-decision")
        if len(decisions) < 2:
            return
        old, new = data.draw(st.sampled_from(decisions)), data.draw(st.sampled_from(decisions))
        try:
            self.vault.supersede(old, new)
        except RefusedError:
            pass

    @rule(data=st.data(), text=st.text(alphabet="abcdefghij ", min_size=1, max_size=20))
    def gate_merge_or_create(self, data, text):
        draft = Draft(
            "note",
            "merged " + text.strip() + "x",
            ["shared"],
            [("explains", "mem-entity-hub")] if "mem-entity-hub" in self.vault else [],
            f"merged text {text}\n",
        )
        targets = [i for i in self.ids("mem-entity")]
        try:
            if targets and data.draw(st.booleans()):
                self.vault.merge_into(targets[0], draft)
                self.lines[f"merge-{text}"] = f"merged text {text}".strip()
            else:
                plan = self.vault.create(draft)
                self.lines[plan.created_id] = f"merged text {text}".strip()
        except RefusedError:
            pass

    @rule(data=st.data(), suffix=st.sampled_from(["x", "y", "renamed"]))
    def rename(self, data, suffix):
        doc_id = data.draw(st.sampled_from(self.ids()))
        new_id = f"{doc_id}-{suffix}"
        try:
            self.vault.rename(doc_id, new_id)
        except RefusedError:
            return
        self.lines[new_id] = self.lines.pop(doc_id, "")

    @rule()
    def consolidate(self):
        groups = self.vault.consolidation_groups()
        if groups and groups[0].suggested_into:
            try:
                self.vault.consolidate(groups[0].suggested_into, groups[0].notes)
            except RefusedError:
                pass

    @precondition(lambda self: len(self.vault.ids()) > 3)
    @rule(data=st.data())
    def forget(self, data):
        doc_id = data.draw(st.sampled_from(self.ids("mem-note")) if self.ids("mem-note") else st.nothing())
        self.vault.forget(doc_id, confirm=doc_id)
        self.forgotten.add(self.lines.pop(doc_id, ""))

    @rule()
    def undo(self):
        try:
            self.vault.undo()
        except RefusedError:
            pass

    @invariant()
    def invariants_hold(self):
        fresh = Vault.open(self.vault.root)
        bad = [p for p in fresh.problems if p.code in STRUCTURAL]
        assert not bad, bad
        assert all(r.document.valid for r in fresh.records)
        everything = "\n".join(d.body for d in fresh.documents)
        for key, line in self.lines.items():
            if line and not any(line in gone for gone in self.forgotten if gone):
                # An undone merge or create takes its text away again, which is not a loss.
                if key.startswith("merge-") or key not in fresh:
                    continue
                assert line in everything, f"lost: {line!r}"
        for doc_id in fresh.ids():
            assert fresh.get(doc_id).path.endswith(f"{doc_id}.md")


CurationMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_random_curation_keeps_the_invariants = CurationMachine.TestCase
