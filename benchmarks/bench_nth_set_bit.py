"""The n-th set bit of a mask, BMI2's pdep against the portable loop, by the mask's set bits.

    python -m benchmarks.bench_nth_set_bit
    python -m benchmarks.bench_nth_set_bit --picks 3000000 --bits 5,15,40 --json

Random play picks its card (and a random seat its bid) as the n-th set bit of the legal mask,
and the posterior sampler draws each candidate hand card by card from the unseen cards
(kernels.search.posterior.draw_cards): masks of 2 to 15 set bits there, 20 to 55 here. pdep is
one fast instruction on Intel (Haswell on) and on AMD from Zen 3, but microcode on Zen 1 and
Zen 2 (and Excavator), slower the more bits the mask has. kernels.bits takes pdep only on the
CPUs where it is fast (FAST_PDEP); this measures both forms on this machine, each pick after
an unbiased random index (the engine's generator), the best of three timings
(docs/performance.md, Engine).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from llvmlite import binding as llvm

from kernels.bits import FAST_PDEP, HAS_PDEP, nth_set_bit_by_loop, nth_set_bit_by_pdep, popcount
from kernels.rng import below


@njit(cache=True)
def picks(use_pdep, masks, count, generator):
    """`count` picks of a uniformly random set bit of masks[i % len(masks)]; a checksum."""
    total = 0
    for i in range(count):
        mask = masks[i % masks.shape[0]]
        n = below(generator, popcount(mask))
        total += nth_set_bit_by_pdep(mask, n) if use_pdep else nth_set_bit_by_loop(mask, n)
    return total


def time_form(use_pdep: bool, masks: np.ndarray, count: int) -> tuple[float, int]:
    best = float("inf")
    for _ in range(3):
        generator = np.ones(1, dtype=np.uint64)
        start = time.process_time()
        checksum = picks(use_pdep, masks, count, generator)
        best = min(best, time.process_time() - start)
    return 1e9 * best / count, checksum


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--picks", type=int, default=3_000_000, help="picks per timing")
    parser.add_argument("--bits", default="2,5,10,15,25,40", help="set bits per mask (comma-separated, 1..60)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    for bits in (int(b) for b in args.bits.split(",")):
        masks = np.array([sum(1 << int(c) for c in rng.choice(60, bits, replace=False)) for _ in range(1024)],
                         dtype=np.int64)  # fmt: skip
        row = {"bits": bits}
        for name, use_pdep in (("loop", False), ("pdep", True)):
            if use_pdep and not HAS_PDEP:
                continue
            picks(use_pdep, masks[:2], 10, np.ones(1, dtype=np.uint64))  # compiled or loaded
            row[name + "_ns"], checksum = time_form(use_pdep, masks, args.picks)
            row.setdefault("checksum", checksum)
            assert row["checksum"] == checksum, "the two forms picked different bits"
        rows.append(row)
    cpu = llvm.get_host_cpu_name()
    if args.json:
        print(json.dumps({"cpu": cpu, "has_pdep": HAS_PDEP, "fast_pdep": FAST_PDEP, "picks": args.picks, "rows": rows}))
        return
    print(f"CPU {cpu}: pdep {'available' if HAS_PDEP else 'absent'}; nth_set_bit uses {'pdep' if FAST_PDEP else 'the loop'}")
    print("| set bits | loop, ns a pick | pdep, ns a pick |")
    print("| --- | --- | --- |")
    for row in rows:
        pdep = f"{row['pdep_ns']:.1f}" if "pdep_ns" in row else "-"
        print(f"| {row['bits']} | {row['loop_ns']:.1f} | {pdep} |")


if __name__ == "__main__":
    main()
