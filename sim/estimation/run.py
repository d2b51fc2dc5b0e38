"""What should I bid with this hand? Monte Carlo over the unseen cards (docs/estimate.md): the
driver of the posterior's samples and their rollouts.

`estimate(...)` returns a pandas DataFrame with one row per bid; `run_estimate(...)` returns
the `BidEstimate` behind it (per-sample tricks, the JSON form of the CLI).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, TypeAlias

import numpy as np

from kernels.blocks import NO_FAILURE
from kernels.estimate.rollouts import SampleResults, Samples, estimate_tricks
from kernels.estimate.situation import observed_seats
from sim.config.errors import BotError, ConfigError
from sim.engine.calls import call_kernel
from sim.engine.seating import Seating
from sim.engine.threads import set_threads
from sim.estimation.bot_rollouts import BotEstimate
from sim.estimation.request import CheckedRequest, EstimateRequest, HandLike
from sim.estimation.results import BidEstimate
from sim.estimation.situation import UNKNOWN_SPREAD
from sim.estimation.slices import estimate_in_slices

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: it slows every CLI start
    import pandas as pd

Progress: TypeAlias = "Callable[[int, int], None]"  # (samples done, samples): may raise to cancel


class StopSampling(Exception):
    """Raised by a progress callback to end the sampling early and keep the samples done so
    far (the server's time budget): the estimate is then of fewer samples, its intervals wider."""


def run_estimate(
    request: EstimateRequest | CheckedRequest | HandLike | None = None,
    /,
    *,
    progress: Progress | None = None,
    **options,
) -> BidEstimate:
    """Estimate every bid and return the full result: `request` is an EstimateRequest (options
    replace its fields), the hand, with the other fields as keywords, or a request already
    checked (EstimateRequest.checked: the server checks one before it queues it, and it is not
    checked again). progress(done, total) is called between the kernel's slices of samples
    (about every quarter second); an exception it raises stops the estimate (how the server
    cancels one)."""
    if isinstance(request, CheckedRequest):
        if options:
            raise TypeError("a checked request takes no options: give them to its EstimateRequest")
        checked = request
    else:
        checked = EstimateRequest.of(request, **options).checked()
    situation, samples, seed, model = checked.situation, checked.samples, checked.seed, checked.model
    set_threads(checked.threads)
    legal = situation.legal_bids()
    candidates = np.flatnonzero(legal).astype(np.int64)
    tricks = np.zeros((samples, candidates.shape[0]), dtype=np.int8)
    weights = np.zeros(samples, dtype=np.float64)
    proposals = np.zeros(samples, dtype=np.int64)
    rules_record, situation_record = situation.rules.to_record(), situation.to_record()
    seating = Seating.of(situation.policies)  # once: every slice's call shares its engine
    policies, arrays = list(seating.policies), seating.arrays
    bot_observed = 0
    if seating.python:
        # Python policies at the table: their bots are asked between kernel steps.
        inference = situation.bot_inference(seed, model)
        sampler_model = inference.sampler_model
        bot_observed = inference.evaluated_seats.shape[0]
        observed = (int(observed_seats(rules_record, situation_record, sampler_model)) if model.infer else 0)
        observed += bot_observed
        BotEstimate(seed, (rules_record, situation_record), policies, candidates, inference).run(
            (tricks, weights, proposals)
        )
    else:
        sampler_model = situation.opponent_model(model)
        observed = int(observed_seats(rules_record, situation_record, sampler_model)) if model.infer else 0

        completed = 0  # the samples whose every candidate is done, in order

        def estimate_piece(start: int, stop: int, low: int, high: int) -> None:
            nonlocal completed
            whole = (low, high) == (0, candidates.shape[0])
            piece = tricks[start:stop] if whole else np.zeros((stop - start, high - low), dtype=tricks.dtype)
            results = SampleResults(piece, weights[start:stop], proposals[start:stop])
            failed = call_kernel(estimate_tricks, seating, Samples(seed, start), (rules_record, situation_record),
                                 arrays, candidates[low:high], (sampler_model, bool(model.infer)), results)  # fmt: skip
            if failed != NO_FAILURE:
                labels = ", ".join(dict.fromkeys(policy.label for policy in policies))
                raise BotError(f"a policy failed in sample {start + failed} of the estimate (policies: {labels})")
            if not whole:
                tricks[start:stop, low:high] = piece
            if progress is not None and high == candidates.shape[0]:
                completed = stop
                progress(stop, samples)  # samples start..stop-1 complete

        # In slices of about a quarter second, so Ctrl-C stops it promptly (sim.estimation.slices).
        try:
            estimate_in_slices(samples, candidates.shape[0], estimate_piece)
        except StopSampling:
            if completed < 2:
                raise ConfigError(f"the estimate was stopped after {completed} samples: too few to estimate") from None
            tricks, weights, proposals = tricks[:completed], weights[:completed], proposals[:completed]
    if not weights.any():
        raise ConfigError(
            f"no deal of the unseen cards fits the earlier bids (or the dealer's trump choice) under the exact "
            f"heuristic model (every one of {samples:,} samples gave up after {int(proposals.max()):,} tries): "
            f"real players do not bid exactly like the heuristic; use the tolerant model (spread {UNKNOWN_SPREAD:g}: "
            "the model for players whose bidding you do not know)"
        )
    result = BidEstimate(situation, seed, candidates, tricks, weights, proposals, model, observed, bot_observed)
    if model.exact and observed:
        check = None if progress is None else (lambda done, total: progress(result.samples, result.samples))
        result = replace(result, model_certain=certain_under_exact_model_only(result, checked, check))
    return result


CERTAINTY_CHECK_SAMPLES = 2000  # uniform deals that test a 0% or 100% of the exact model


def certain_under_exact_model_only(
    result: BidEstimate, checked: CheckedRequest, progress: Progress | None = None
) -> tuple[int, ...]:
    """The bids whose P(make) is exactly 0 or 1 under the exact model but not on uniform deals
    of the same situation (CERTAINTY_CHECK_SAMPLES of them, same seed): a certainty that only
    the assumption "they bid exactly like the heuristic" makes, not the cards. `progress` is
    the estimate's (it may cancel this check too); the check's own counts are not reported."""
    certain = [s.bid for s in result.stats if s.legal and s.p_make in (0.0, 1.0)]
    if not certain:
        return ()
    samples = min(result.samples, CERTAINTY_CHECK_SAMPLES)
    uniform_request = replace(checked, model=replace(checked.model, infer=False), samples=samples)
    uniform = run_estimate(uniform_request, progress=progress)
    return tuple(bid for bid in certain if uniform.stats[bid].p_make != result.stats[bid].p_make)


def estimate(request: EstimateRequest | HandLike | None = None, /, **options) -> pd.DataFrame:
    """What should I bid? One row per bid 0..len(hand) (see BidEstimate.to_frame); the
    arguments as run_estimate's (the fields of EstimateRequest).

    hand: text (`"W AS KH 7H J"`), a card mask, or a list of card ids or tokens.
    trump: the turned-up card (a Wizard needs trump_suit, a Jester means no trump);
    trump_suit alone: a Wizard was turned up and the dealer chose this suit; no_trump: a
    Jester was turned up (nothing is needed in the last round). position: 0 = left of the
    dealer .. players-1 = the dealer; bids: the bids of positions 0..position-1 (open
    bidding only); totals: the score pad by bidding position (default all 0).
    opponents: one policy or one per opponent in bidding order; policy: the seat's play. A
    policy is text (`heuristic`, `module:Object`), a Policy, or a Python policy object.
    infer: deal the unseen cards from their posterior given the earlier bids and the
    dealer's trump choice (False: uniformly); spread and floor: the opponent model, 0 and 0
    their bids exactly the heuristic's, else the heuristic's with that much noise and that
    share of random bids (docs/estimate.md). Raises ConfigError on bad input."""
    return run_estimate(request, **options).to_frame()
