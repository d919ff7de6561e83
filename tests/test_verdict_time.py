"""A verdict's time: written in UTC with its offset, so that it means the same on every machine the
vault goes to; a line written before times carried an offset is read as it always was (local)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time

import pytest

from helpers import run_cli
from workbench import Vault
from workbench.core.services.verdicts import VERDICT_FILE

CENTS, DECIMAL = "mem-decision-money-integer-cents", "mem-decision-money-numeric-decimal"


@pytest.fixture
def far_east():
    """This process (and the ones it starts) in a zone five and a half hours ahead of UTC, so that
    local time is not UTC; the zone it had is put back after."""
    if not hasattr(time, "tzset"):
        pytest.skip("the time zone of a running process is set with time.tzset, which Windows lacks")
    had = os.environ.get("TZ")
    os.environ["TZ"] = "IST-5:30"  # POSIX spelling: no time zone database needed
    time.tzset()
    try:
        yield
    finally:
        if had is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = had
        time.tzset()


def test_a_verdict_is_timed_in_utc_with_its_offset(sample_copy, far_east):
    before = dt.datetime.now(dt.timezone.utc)
    verdict = Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "the newer decides it again", "scripted")
    after = dt.datetime.now(dt.timezone.utc)
    written = json.loads((sample_copy / VERDICT_FILE).read_text().splitlines()[-1])["at"]
    assert written.endswith("+00:00"), written
    moment = dt.datetime.fromisoformat(written)
    assert before - dt.timedelta(milliseconds=1) <= moment <= after
    assert verdict.at == written and verdict.when == moment
    # Shown to a person in the zone they are in: 5 h 30 ahead here.
    assert verdict.local_at == (moment + dt.timedelta(hours=5, minutes=30)).replace(tzinfo=None).isoformat(
        timespec="milliseconds"
    )


def test_a_verdict_written_without_a_zone_is_read_as_before(sample_copy, far_east):
    vault = Vault.open(sample_copy)
    digests = {doc_id: vault.get(doc_id).digest for doc_id in (CENTS, DECIMAL)}
    line = {
        "id": "v-0123456789",
        "older": CENTS,
        "newer": DECIMAL,
        "verdict": "replaces",
        "reason": "judged before verdicts carried a time zone",
        "agent": "older-agent",
        "at": "2026-12-01T10:57:34.512",
        "older_digest": digests[CENTS],
        "newer_digest": digests[DECIMAL],
    }
    (sample_copy / VERDICT_FILE).write_text(json.dumps(line) + "\n")
    [verdict] = Vault.open(sample_copy).verdicts()
    assert (verdict.id, verdict.state, verdict.at) == ("v-0123456789", "open", "2026-12-01T10:57:34.512")
    assert verdict.when == dt.datetime(2026, 12, 1, 5, 27, 34, 512000, tzinfo=dt.timezone.utc), "local time"
    assert verdict.local_at == "2026-12-01T10:57:34.512", "shown as it was"
    result = run_cli("--vault", str(sample_copy), "inbox")
    assert "verdict v-0123456789  2026-12-01 10:57:34.512  older-agent" in result.stdout


def test_a_time_edited_into_no_time_is_shown_as_written(sample_copy):
    Vault.open(sample_copy).judge(CENTS, DECIMAL, "replaces", "the newer decides it again", "scripted")
    path = sample_copy / VERDICT_FILE
    line = json.loads(path.read_text())
    line["at"] = "yesterday"
    path.write_text(json.dumps(line) + "\n")
    [verdict] = Vault.open(sample_copy).verdicts()
    assert verdict.when is None and verdict.local_at == "yesterday"
