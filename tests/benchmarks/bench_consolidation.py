"""Consolidation's proposals (`o` in the TUI, `workbench consolidate`) on a vault and on samples of it.

Run: python -m tests.benchmarks.bench_consolidation VAULT [--every K ...]
     (default: every document, then every 2nd and every 5th)

Opens VAULT (copy it first: an open may write its derived store) and times
`consolidation_groups` on every K-th document, in CPU seconds of this process, so that the
growth with the vault's size shows in one run. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import time

from workbench import Vault
from workbench.core.services.consolidate import consolidation_groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault")
    parser.add_argument("--every", type=int, nargs="+", default=[5, 2, 1])
    parser.add_argument("--flavour")
    args = parser.parse_args()
    documents = list(Vault.open(args.vault, args.flavour).documents)
    print(f"{'docs':>7} {'groups':>7} {'cpu':>8}")
    for step in args.every:
        sample = documents[::step]
        start = time.process_time()
        groups = consolidation_groups(sample)
        print(f"{len(sample):>7} {len(groups):>7} {time.process_time() - start:>7.2f}s")


if __name__ == "__main__":
    main()
