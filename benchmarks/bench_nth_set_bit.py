"""The n-th set bit of a mask, BMI2's pdep against the portable loop, by the mask's set bits.

    python -m benchmarks.bench_nth_set_bit
    python -m benchmarks.bench_nth_set_bit --picks 3000000 --bits 5,15,40 --json

Random play picks its card (and a random seat its bid) as the n-th set bit of the legal mask,
and the posterior sampler draws each candidate hand card by card from the unseen cards
(kernels.search.posterior.draw_cards): masks of 2 to 15 set bits there, 20 to 55 here. pdep is
one fast instruction on Intel (Haswell on) and on AMD from Zen 3, but microcode on Zen 1 and
Zen 2 (and Excavator), slower the more bits the mask has. kernels.bits takes pdep only on the
CPUs where it is fast (FAST_PDEP); this measures both forms on this machine, each pick after
an unbiased random index (the engine's generator), in CPU time: the two forms in --repeats
alternating pairs after a warm-up (benchmarks.harness), each figure a range (docs/performance.md,
Engine).
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from llvmlite import binding as llvm

from benchmarks.harness import Rate, alternate, measure, parser, report, seconds
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


def ns_per_pick(use_pdep: bool, masks: np.ndarray, count: int, checksums: set[int]) -> Rate:
    """One timing of `count` picks in CPU nanoseconds a pick, each from the same generator
    state (so every timing picks the same bits); its checksum goes into `checksums`."""

    def side() -> float:
        generator = np.ones(1, dtype=np.uint64)
        elapsed = seconds(lambda: checksums.add(picks(use_pdep, masks, count, generator)), time.process_time)
        return 1e9 * elapsed / count

    return side


def main() -> None:
    arguments = parser(__doc__.split("\n\n")[0])
    arguments.add_argument("--picks", type=int, default=3_000_000, help="picks per timing")
    arguments.add_argument("--bits", default="2,5,10,15,25,40", help="set bits per mask (comma-separated, 1..60)")
    args = arguments.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    for bits in (int(b) for b in args.bits.split(",")):
        masks = np.array([sum(1 << int(c) for c in rng.choice(60, bits, replace=False)) for _ in range(1024)],
                         dtype=np.int64)  # fmt: skip
        checksums: set[int] = set()
        loop = ns_per_pick(False, masks, args.picks, checksums)
        row: dict[str, object] = {"bits": bits}
        if HAS_PDEP:  # both forms in alternating pairs, the loop's time over pdep's pair by pair
            row["loop_ns"], row["pdep_ns"], row["loop_over_pdep"] = alternate(
                loop, ns_per_pick(True, masks, args.picks, checksums), args.repeats, args.warmup, digits=1)
        else:
            row["loop_ns"] = measure(loop, args.repeats, args.warmup, digits=1)
        assert len(checksums) == 1, "the two forms picked different bits"
        row["checksum"] = checksums.pop()
        rows.append(row)
    cpu = llvm.get_host_cpu_name()
    lines = [f"CPU {cpu}: pdep {'available' if HAS_PDEP else 'absent'}; nth_set_bit uses {'pdep' if FAST_PDEP else 'the loop'}",
             "| set bits | loop, ns a pick | pdep, ns a pick |", "| --- | --- | --- |"]  # fmt: skip
    for row in rows:
        pdep = row["pdep_ns"].text(".1f") if "pdep_ns" in row else "-"
        lines.append(f"| {row['bits']} | {row['loop_ns'].text('.1f')} | {pdep} |")
    report({"cpu": cpu, "has_pdep": HAS_PDEP, "fast_pdep": FAST_PDEP, "picks": args.picks, "rows": rows}, lines, args.json)


if __name__ == "__main__":
    main()
