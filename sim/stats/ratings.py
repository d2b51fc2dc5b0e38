"""A league's ratings: least squares over deal-and-table effects, intervals over deals.

Data. Deal d is played at table t(d) of the design (sim.stats.design) in its N rotations. The
value of table position j in deal d is y[d, j], the mean final score of the seat that
position's policy holds over the N rotations (it holds every seat once, on the same cards).

Model. y[d, j] = g[d] + r[p(t, j)] + e[d, j]: g[d] is the deal's effect (its cards and the
table that played it: absorbed, never estimated), r[P] the rating of policy P in points per
game, with sum(r) = 0 (relative to the pool's mean), e noise with mean 0, independent across
deals. So r[A] - r[B] is the points per game A makes more than B at the same table on the
same cards. Least squares with the g[d] eliminated (centring each deal's values: c = H y,
H = I - J/N) gives the normal equations C r = Q with

    q[d] = X[t]' c[d],   C = sum_d X[t]' H X[t] = sum_t n[t] C[t],   Q = sum_d q[d],

X[t] the [N, K] indicator of table t's policies; C has rank K-1 (the design is connected),
and r = C^+ Q (the pseudo-inverse picks the solution with sum(r) = 0).

Intervals. Deals are independent, so r is a sum of independent per-deal terms; its
covariance is the cluster-robust (sandwich) estimate with the deal as cluster,

    V = D/(D-1) C^+ [sum_d (q[d] - C[t] r)(q[d] - C[t] r)'] C^+,

which does not assume the model's noise is normal or equal across tables. Its middle term
expands into sums that add up chunk by chunk: sum_d q q', and per table n[t] and
sum_{d at t} c[d] (so a resumed run reports the same figures). A 95% interval is r +- 1.96
sd. Head to head, for each pair the mean of m[d, A] - m[d, B] over the deals they met at (m:
a policy's mean y at the table) with its normal interval.
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from sim.stats.sums import Z_95, normal_interval


@functools.lru_cache(maxsize=16)
def indicator(design: tuple[tuple[int, ...], ...], policies: int) -> np.ndarray:
    """X [tables, N, K]: X[t, j, P] = 1 when table t seats policy P at position j."""
    tables = np.array(design, dtype=np.int64)
    x = np.zeros((*tables.shape, policies))
    np.put_along_axis(x, tables[:, :, None], 1.0, axis=2)
    x.flags.writeable = False  # shared by every caller (cached)
    return x


def deal_stats(values: np.ndarray, table_of_deal: np.ndarray, design: tuple, policies: int) -> dict:
    """The additive sums of deals with table-position values `values` [deals, N] (y above) at
    tables `table_of_deal` [deals], table by table (a chunk's arrays stay [deals, N])."""
    x = indicator(design, policies)
    tables, n = x.shape[0], x.shape[1]
    centred = values - values.mean(axis=1, keepdims=True)
    slot_sums = np.zeros((tables, n))
    products = np.zeros((policies, policies))
    met, head_sums, head_squares = (np.zeros((policies, policies)) for _ in range(3))
    for table in np.unique(table_of_deal):
        here = table_of_deal == table
        q = centred[here] @ x[table]  # [deals at the table, K]
        slot_sums[table] = centred[here].sum(axis=0)
        products += q.T @ q
        # Head to head: each seated policy's mean value at the table, pair by pair.
        seated = np.flatnonzero(x[table].sum(axis=0))
        means = values[here] @ x[table][:, seated] / x[table][:, seated].sum(axis=0)
        for (i, a), (j, b) in itertools.combinations(enumerate(seated), 2):
            difference = means[:, i] - means[:, j]
            met[a, b] += difference.shape[0]
            head_sums[a, b] += difference.sum()
            head_squares[a, b] += (difference**2).sum()
    met += met.T
    head_sums -= head_sums.T
    head_squares += head_squares.T
    return {
        "deals": int(values.shape[0]),
        "table_deals": np.bincount(table_of_deal, minlength=tables).tolist(),
        "slot_sums": slot_sums.tolist(),
        "products": products.tolist(),
        "met": met.tolist(),
        "head_sums": head_sums.tolist(),
        "head_squares": head_squares.tolist(),
    }


@dataclass(frozen=True)
class Ratings:
    ratings: np.ndarray  # [K] points per game, relative to the pool's mean
    covariance: np.ndarray  # [K, K]
    deals: int

    def interval(self, policy: int) -> tuple[float, float]:
        half = Z_95 * math.sqrt(max(float(self.covariance[policy, policy]), 0.0))
        return float(self.ratings[policy]) - half, float(self.ratings[policy]) + half

    def difference(self, a: int, b: int) -> tuple[float, float]:
        """r[a] - r[b] and its variance."""
        contrast = np.zeros(self.ratings.shape[0])
        contrast[a], contrast[b] = 1.0, -1.0
        return float(contrast @ self.ratings), float(contrast @ self.covariance @ contrast)


class RatingSums:
    """The sums of deal_stats over a run's chunks, added in chunk order (so that the ratings
    are exact to the bit whatever executed the chunks), and the ratings they give."""

    def __init__(self, labels: list[str], design: tuple) -> None:
        self.labels = labels
        self.x = indicator(design, len(labels))
        tables, n, k = self.x.shape
        centring = np.eye(n) - 1.0 / n
        self.information = np.einsum("tjk,ji,til->tkl", self.x, centring, self.x)  # C[t]
        self.deals = 0
        self.table_deals = np.zeros(tables)
        self.slot_sums = np.zeros((tables, n))
        self.products = np.zeros((k, k))
        self.met = np.zeros((k, k))
        self.head_sums = np.zeros((k, k))
        self.head_squares = np.zeros((k, k))

    def add(self, stats: dict) -> None:
        """Add one chunk's statistics (its "ratings" entry, or the whole chunk's)."""
        sums = stats.get("ratings", stats)
        self.deals += sums["deals"]
        self.table_deals += np.array(sums["table_deals"], dtype=np.float64)
        self.slot_sums += np.array(sums["slot_sums"])
        self.products += np.array(sums["products"])
        self.met += np.array(sums["met"])
        self.head_sums += np.array(sums["head_sums"])
        self.head_squares += np.array(sums["head_squares"])

    def fit(self) -> Ratings:
        d = self.deals
        information = np.einsum("t,tkl->kl", self.table_deals, self.information)
        inverse = np.linalg.pinv(information)
        totals = np.einsum("tjk,tj->tk", self.x, self.slot_sums)  # Q[t] = X[t]' sum of c
        ratings = inverse @ totals.sum(axis=0)
        expected = self.information @ ratings  # C[t] r, [tables, K]
        cross = np.einsum("tk,tl->kl", totals, expected)
        meat = self.products - cross - cross.T + np.einsum("t,tk,tl->kl", self.table_deals, expected, expected)
        covariance = inverse @ meat @ inverse * (d / (d - 1)) if d > 1 else np.full_like(inverse, np.nan)
        return Ratings(ratings, covariance, d)

    def difference(self, first: str, second: str) -> tuple[int, float, float]:
        """(deals, r[first] - r[second], its variance): what the league's SPRT reads."""
        if self.deals < 2:
            return self.deals, math.nan, math.nan
        estimate, variance = self.fit().difference(self.labels.index(first), self.labels.index(second))
        return self.deals, estimate, variance

    def head_to_head(self, a: int, b: int) -> tuple[int, float, float, float]:
        """(deals met, mean of m[a] - m[b] over them, its 95% interval)."""
        met = int(self.met[a, b])
        if met == 0:
            return 0, math.nan, math.nan, math.nan
        return (met, *normal_interval(self.head_sums[a, b], self.head_squares[a, b], met))
