"""The balanced design of a league: which tables of N policies, out of K, play its deals.

Deal d is played at table d mod T of the design, in all N seat rotations (sim.runs.table_engine), so
within every table each of its policies holds each seat once per deal. The design makes the
run balanced over every T deals:

- every policy sits at the same number of tables (so, with the rotations, in each seat
  equally often), and
- every pair of policies meets at (nearly) the same number of tables: the counts differ by
  at most one where no exactly balanced design of this kind exists.

Construction (cyclic, as difference families in design theory): a base block is a set of N
offsets in Z_K containing 0; its K shifts t + block (t = 0..K-1, each table in offset order)
put each policy at each table position exactly once. Two policies i, j meet at the tables of
a block once per ordered pair of its offsets whose difference is j - i mod K, so the pair
counts depend only on that difference. Base blocks are chosen greedily, each the first (in
lexicographic order) that makes the counts most even, until every pair meets and the counts
are as even as the search finds. With fewer policies than seats (K < N) a table holds every
policy, some twice: the one base "block" of offsets 0..N-1 mod K (one table when K divides N).
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from sim.config.errors import ConfigError

MIN_POLICIES = 2
MAX_POLICIES = 32  # the design search and the per-chunk statistics grow with K^2


@functools.lru_cache(maxsize=64)
def league_design(policies: int, players: int) -> tuple[tuple[int, ...], ...]:
    """The tables of the design: for each, the index of the listed policy at each table position."""
    if not MIN_POLICIES <= policies <= MAX_POLICIES:
        raise ConfigError(f"a league takes {MIN_POLICIES}..{MAX_POLICIES} policies, got {policies}")
    if policies <= players:
        shifts = 1 if players % policies == 0 else policies
        return tuple(tuple((shift + position) % policies for position in range(players)) for shift in range(shifts))
    blocks = base_blocks(policies, players)
    return tuple(tuple((shift + offset) % policies for offset in block) for block in blocks for shift in range(policies))


def deals_to_seat_everyone(policies: int, players: int) -> int:
    """The fewest deals after which every listed policy has sat (deal d plays table d mod T):
    fewer leave a policy without a game, and nothing to rate."""
    seated: set[int] = set()
    for index, table in enumerate(league_design(policies, players)):
        seated.update(table)
        if len(seated) == policies:
            return index + 1
    raise AssertionError("a league design seats every policy")  # each policy is at some table


def difference_counts(blocks: np.ndarray, k: int) -> np.ndarray:
    """[blocks, k]: per block, how many ordered pairs of its offsets differ by each residue mod k."""
    differences = (blocks[:, :, None] - blocks[:, None, :]) % k  # [blocks, n, n]
    counts = np.zeros((blocks.shape[0], k), dtype=np.int64)
    rows = np.repeat(np.arange(blocks.shape[0]), differences.shape[1] * differences.shape[2])
    np.add.at(counts, (rows, differences.ravel()), 1)
    counts[:, 0] = 0  # an offset with itself
    return counts


def base_blocks(k: int, n: int) -> list[tuple[int, ...]]:
    """Base blocks for K > N policies (see the module's description)."""
    candidates = np.array([(0, *rest) for rest in itertools.combinations(range(1, k), n - 1)], dtype=np.int64)
    counts = difference_counts(candidates, k)[:, 1:]  # residues 1..k-1: the pairs' differences
    needed = math.ceil((k - 1) / (n * (n - 1)))  # fewest blocks that can cover every difference
    best: tuple | None = None
    for blocks in range(needed, needed + EXTRA_BLOCKS + 1):
        chosen = even_blocks(counts, blocks)
        total = counts[chosen].sum(axis=0)
        score = (int((total == 0).sum()), int(total.max() - total.min()), blocks)
        if best is None or score < best[0]:
            best = (score, chosen)
        # Exact balance is worth a few more tables only while the search is cheap.
        if score[:2] == (0, 0) or (score[0] == 0 and score[1] <= 1 and len(candidates) > CHEAP_SEARCH):
            break
    return [tuple(int(offset) for offset in candidates[index]) for index in best[1]]


EXTRA_BLOCKS = 3  # designs tried beyond the fewest blocks that could cover every pair
CHEAP_SEARCH = 5000  # candidate blocks below which exact balance is searched for
SWEEPS = 4  # passes of replacing one block at a time


def even_blocks(counts: np.ndarray, blocks: int) -> list[int]:
    """`blocks` candidates (rows of counts: their difference counts) whose summed counts are
    as even as a greedy start and a few sweeps of single replacements find: fewest pairs that
    never meet, then the smallest spread, then the smallest sum of squares (argmin and lexsort
    take the first candidate in lexicographic order, so the design is fixed)."""
    squares = (counts**2).sum(axis=1)
    chosen: list[int] = []
    total = np.zeros(counts.shape[1], dtype=np.int64)
    for _ in range(blocks):  # greedy on the sum of squares, which favours uncovered pairs
        pick = int(np.argmin(2 * counts @ total + squares))
        chosen.append(pick)
        total = total + counts[pick]
    for _ in range(SWEEPS):
        changed = False
        for position in range(blocks):
            rest = total - counts[chosen[position]]
            after = rest[None, :] + counts
            order = np.lexsort(((after**2).sum(axis=1), after.max(axis=1) - after.min(axis=1), (after == 0).sum(axis=1)))
            pick = int(order[0])
            current = rest + counts[chosen[position]]
            if _evenness(after[pick]) < _evenness(current):
                chosen[position] = pick
                total = after[pick]
                changed = True
        if not changed:
            break
    return chosen


def _evenness(total: np.ndarray) -> tuple[int, int, int]:
    return int((total == 0).sum()), int(total.max() - total.min()), int((total**2).sum())


def design_balance(tables: tuple[tuple[int, ...], ...], policies: int) -> tuple[np.ndarray, np.ndarray]:
    """(seats per policy [K], pair meetings [K, K]) over one pass of the design: how many table
    positions each policy holds, and for each pair the sum over tables of the product of their
    positions there."""
    per_table = np.zeros((len(tables), policies), dtype=np.int64)
    for index, table in enumerate(tables):
        for policy in table:
            per_table[index, policy] += 1
    return per_table.sum(axis=0), per_table.T @ per_table
