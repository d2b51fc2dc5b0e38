"""What an estimate found: `BidEstimate`, the per-sample tricks of every candidate bid, and
its figures per bid (P(make) and E(score) with their intervals, the distribution of tricks)
as a table, JSON and the sentences that say what they assume."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from kernels.cards import NO_CARD, NO_SUIT
from kernels.rules import round_scores
from kernels.search import posterior
from sim.config.cards import SUIT_NAMES, cards_to_mask, format_card, format_hand
from sim.estimation.situation import OpponentModel, Situation
from sim.policies.registry import fallback_of
from sim.stats.sums import Z_95

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: it slows every CLI start
    import pandas as pd

FEW_EFFECTIVE_SAMPLES = 400  # below this the printed percentages are off by 5 points or more


def wilson_interval(share: float, n: float) -> tuple[float, float]:
    """95% Wilson score interval of a proportion `share` observed over n trials (sound near 0
    and 1); n may be an effective sample size."""
    if share in (0.0, 1.0):  # the closed form below leaves rounding noise at the ends
        bound = 1 / (1 + Z_95**2 / n)
        return (0.0, 1 - bound) if share == 0.0 else (bound, 1.0)
    scale = 1 + Z_95**2 / n
    centre = (share + Z_95**2 / (2 * n)) / scale
    half = Z_95 * math.sqrt(share * (1 - share) / n + Z_95**2 / (4 * n * n)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class BidStats:
    bid: int
    legal: bool
    p_make: float
    p_make_ci: tuple[float, float]
    expected_score: float
    expected_score_ci: tuple[float, float]
    tricks_distribution: tuple[float, ...]  # P(tricks = k), k = 0..round size


def bid_stats(bid: int, tricks: np.ndarray, weights: np.ndarray, round_size: int) -> BidStats:
    """The figures of one bid from the samples with a positive weight: weighted shares and
    means (self-normalised importance sampling); P(make) with a Wilson interval over the
    effective sample size; E(score) with the delta-method standard error
    sqrt(sum w^2 (s - mean)^2) / sum w, times sqrt(ESS / (ESS - 1)) (with equal weights: the
    sample standard deviation over sqrt(n))."""
    total = float(weights.sum())
    effective = float(posterior.effective_samples(weights))
    made = float(weights[tricks == bid].sum()) / total
    scores = round_scores(bid, tricks)
    mean = float(np.dot(weights, scores)) / total
    deviations = weights * (scores - mean)
    if effective > 1:
        half = Z_95 * math.sqrt(float(np.dot(deviations, deviations)) * effective / (effective - 1)) / total
    else:  # one effective sample: no spread to measure
        half = float("nan")
    distribution = np.bincount(tricks.astype(np.int64), weights=weights, minlength=round_size + 1) / total
    return BidStats(
        bid, True, made, wilson_interval(made, effective), mean, (mean - half, mean + half), tuple(distribution.tolist())
    )


def illegal_stats(bid: int, round_size: int) -> BidStats:
    """An illegal bid is listed, never simulated: its figures are NaN (null in JSON)."""
    nan = float("nan")
    return BidStats(bid, False, nan, (nan, nan), nan, (nan, nan), (nan,) * (round_size + 1))


@dataclass(frozen=True)
class BidEstimate:
    """The estimate for every bid 0..round_size. tricks[i, k] is the seat's tricks in sample
    i when it bids candidates[k] (the legal bids); every candidate saw the same deals.
    weights[i] is sample i's importance weight (all 1 without inference; 0: the sampler gave
    up on it and it was not played) and proposals[i] the candidate hands the sampler tried
    for it; `observed_seats` is how many seats' bids or trump choice it conditioned on, of
    which `bot_observed_seats` through a Python policy's own answers."""

    situation: Situation
    seed: int
    candidates: np.ndarray
    tricks: np.ndarray
    weights: np.ndarray
    proposals: np.ndarray
    model: OpponentModel
    observed_seats: int
    bot_observed_seats: int = 0
    model_certain: tuple[int, ...] = ()  # bids whose 0% or 100% only the exact model makes certain

    @property
    def infer(self) -> bool:
        return self.model.infer

    @property
    def spread(self) -> float:
        return self.model.spread

    @property
    def samples(self) -> int:
        return self.tricks.shape[0]

    @cached_property
    def effective_samples(self) -> float:
        """Kish's effective sample size of the weights (= samples without inference)."""
        return float(posterior.effective_samples(self.weights))

    @cached_property
    def acceptance(self) -> float:
        """Hands accepted per hand proposed by the posterior sampler: kept samples x observed
        seats / proposals (1.0 when nothing is conditioned on)."""
        proposed = int(self.proposals.sum())
        if self.observed_seats == 0 or proposed == 0:
            return 1.0
        return int(np.count_nonzero(self.weights)) * self.observed_seats / proposed

    @property
    def few_effective_samples(self) -> bool:
        """Whether the printed intervals rest on too few effective samples."""
        return self.effective_samples < FEW_EFFECTIVE_SAMPLES

    @cached_property
    def stats(self) -> list[BidStats]:
        """One BidStats per bid 0..round_size."""
        round_size = self.situation.round_size
        column = {int(bid): k for k, bid in enumerate(self.candidates)}
        kept = self.weights > 0
        weights = self.weights[kept]
        return [
            bid_stats(bid, self.tricks[kept, column[bid]], weights, round_size)
            if bid in column
            else illegal_stats(bid, round_size)
            for bid in range(round_size + 1)
        ]

    @cached_property
    def recommended_bid(self) -> int:
        """The legal bid with the highest expected score (the lowest such bid on a tie)."""
        legal = [s for s in self.stats if s.legal]
        return max(legal, key=lambda s: (s.expected_score, -s.bid)).bid

    def to_frame(self) -> pd.DataFrame:
        """One row per bid: bid, legal, recommended, p_make(_lo/_hi), expected_score(_lo/_hi),
        effective_samples and acceptance (of the whole estimate, on every row), tricks_0..tricks_r
        (P(tricks = k) when bidding that bid)."""
        import pandas as pd

        recommended = self.recommended_bid
        rows = []
        for s in self.stats:
            row = {
                "bid": s.bid,
                "legal": s.legal,
                "recommended": s.bid == recommended,
                "p_make": s.p_make,
                "p_make_lo": s.p_make_ci[0],
                "p_make_hi": s.p_make_ci[1],
                "expected_score": s.expected_score,
                "expected_score_lo": s.expected_score_ci[0],
                "expected_score_hi": s.expected_score_ci[1],
                "effective_samples": self.effective_samples,
                "acceptance": self.acceptance,
            }
            row.update({f"tricks_{k}": p for k, p in enumerate(s.tricks_distribution)})
            rows.append(row)
        frame = pd.DataFrame(rows)
        frame.attrs.update(self.context())
        return frame

    def context(self) -> dict:
        """What was estimated: the inputs, in the notation of the CLI."""
        situation = self.situation
        rules = situation.rules
        policies = situation.policies
        return {
            "hand": format_hand(cards_to_mask(situation.hand)),
            "round_size": situation.round_size,
            "players": rules.players,
            "position": situation.position,
            "trump_card": format_card(situation.trump_card) if situation.trump_card != NO_CARD else None,
            "trump": SUIT_NAMES[situation.trump] if situation.trump != NO_SUIT else None,
            "earlier_bids": list(situation.earlier_bids),
            "totals": list(situation.totals),
            "policy": policies[situation.position].label,
            "opponents": [p.label for seat, p in enumerate(policies) if seat != situation.position],
            "bidding": rules.bidding,
            "even_bids": rules.even_bids,
            "seed": self.seed,
            "samples": self.samples,
            "infer": self.infer,
            "spread": self.spread,
            "floor": self.model.floor,
            "wide": self.model.wide,
            "wide_spread": self.model.wide_spread,
            "effective_samples": self.effective_samples,
            "acceptance": self.acceptance,
        }

    def opponent_readings(self) -> list[str]:
        """How each opponent's shown bid (or trump choice) is read, in bidding order."""
        situation, model = self.situation, self.model
        readings = []
        for seat, policy in enumerate(situation.policies):
            if seat == situation.position:
                continue
            if not model.infer:
                readings.append(f"{policy.label}: not read")
            elif policy.kind.python is not None and seat < situation.position:
                readings.append(f"{policy.label}: read by its own answers")
            elif fallback_of(policy).name in ("heuristic", "mc"):
                name = "the heuristic" if fallback_of(policy).name == "heuristic" else "the default heuristic"
                readings.append(f"{policy.label}: read as {name}")
            else:
                readings.append(f"{policy.label}: uninformative (dealt uniformly)")
        return readings

    def assumptions(self) -> dict:
        """What the figures assume: the opponent model, the bidding rules, the samples, and the
        0%/100% figures that only the exact model makes certain (docs/estimate.md)."""
        rules, model = self.situation.rules, self.model
        sentence = f"Assumes: {model.sentence()}"
        sentence += (f"; {rules.bidding} bidding, even bids {rules.even_bids}; {self.samples:,} samples, "
                     f"{self.effective_samples:,.0f} effective.")
        if self.model_certain:
            shown = ", ".join(f"bid {bid} ({100 * self.stats[bid].p_make:.0f}%)" for bid in self.model_certain)
            sentence += (f" Certain only under the exact model: {shown}; players who do not bid exactly like the "
                         "heuristic make it uncertain.")
        return {
            "opponent_model": model.describe(),
            "exact_model": model.exact,
            "opponents": self.opponent_readings(),
            "bidding": rules.bidding,
            "even_bids": rules.even_bids,
            "samples": self.samples,
            "effective_samples": self.effective_samples,
            "certain_under_exact_model_only": list(self.model_certain),
            "summary": sentence,
        }

    def to_json(self) -> dict:
        """The CLI's JSON object; NaN figures of illegal bids become null."""

        def number(value: float) -> float | None:
            return None if math.isnan(value) else value

        stats = self.stats
        recommended = self.recommended_bid
        bids = [
            {
                "bid": s.bid,
                "legal": s.legal,
                "p_make": number(s.p_make),
                "p_make_ci": [number(v) for v in s.p_make_ci],
                "expected_score": number(s.expected_score),
                "expected_score_ci": [number(v) for v in s.expected_score_ci],
                "tricks_distribution": [number(v) for v in s.tricks_distribution],
                "certain_under_exact_model_only": s.bid in self.model_certain,
            }
            for s in stats
        ]
        return {
            "bids": bids,
            "tricks_distribution": list(stats[recommended].tricks_distribution),
            "recommended_bid": recommended,
            **self.context(),
            "observed_seats": self.observed_seats,
            "bot_observed_seats": self.bot_observed_seats,
            "few_effective_samples": self.few_effective_samples,
            "assumptions": self.assumptions(),
        }


def result_json(result: BidEstimate) -> str:
    """The answer as strict JSON text (allow_nan=False: illegal bids carry null, never NaN):
    what `wizard-sim estimate --json` prints and `POST /api/estimate` returns."""
    return json.dumps(result.to_json(), allow_nan=False)
