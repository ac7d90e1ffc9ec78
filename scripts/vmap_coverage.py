"""Inventory of vmap's batch rules: how the Vmap layer serves each registered op.

    PYTHONPATH=build/python /usr/bin/python3 scripts/vmap_coverage.py [--rows] [--all]

Static part (ember._C._vmap_op_coverage): each defined op is served by a batch rule ("rule";
a rule may still hand some argument combinations to the loop), the randomness policy
("random"), its composite ("composite": it decomposes into ops batched one by one), the
generic pointwise rule ("pointwise"), or the per-sample loop ("loop"). Prints the counts and
the ops left to the loop (--all: every op with its kind).

--rows runs every op-table row through vmap as tests/python/test_vmap.py does and lists the
ops the loop fallback actually ran (ember._C._vmap_fallback_counts), with the rows that reached
it: that includes ops whose rule declined a case (batched indices, masks, ...).
"""
import argparse
import collections
import os
import sys
import warnings

import ember
from ember import _C


def static_report(show_all):
    cov = _C._vmap_op_coverage()
    counts = collections.Counter(cov.values())
    print("ops by how vmap serves them: " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)))
    if show_all:
        for name, kind in sorted(cov.items()):
            print(f"  {kind:9s} {name}")
    else:
        loop = sorted(n for n, k in cov.items() if k == "loop")
        print(f"ops without a rule (per-sample loop), {len(loop)}:")
        for n in loop:
            print("  " + n)


def rows_report():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "tests", "python"))
    import test_vmap  # noqa: E402  the op-table driver of tests/python/test_vmap.py

    reached = collections.defaultdict(list)
    failed = []
    for param in test_vmap._cases():
        row = param.values[0]
        before = _C._vmap_fallback_counts()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                test_vmap._check_row(row, last=False)
                test_vmap._check_row(row, last=True)
        except Exception as e:  # noqa: BLE001 - reported, not fatal: this is an inventory
            failed.append(f"{row.name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        after = _C._vmap_fallback_counts()
        for op, n in after.items():
            if n > before.get(op, 0):
                reached[op].append(row.name)
    print(f"ops the loop fallback ran over the op-table rows, {len(reached)}:")
    for op in sorted(reached):
        rows = reached[op]
        print(f"  {op}  ({len(rows)} rows: {', '.join(rows[:6])}{', ...' if len(rows) > 6 else ''})")
    if failed:
        print(f"rows that raised, {len(failed)}:")
        for f in failed:
            print("  " + f)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", action="store_true", help="run the op-table rows and list the ops that looped")
    p.add_argument("--all", action="store_true", help="list every op with its kind")
    a = p.parse_args()
    ember.manual_seed(0)
    static_report(a.all)
    if a.rows:
        rows_report()


if __name__ == "__main__":
    main()
