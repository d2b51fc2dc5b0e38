"""The bidding situation an estimate is of, validated, and how the other seats' bids are read
(the opponent model): the records the kernels take (the situation, the posterior sampler's
model, the acceptance tables of a Python policy's answers)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.cards import FIRST_JESTER, FIRST_WIZARD, NO_CARD
from kernels.estimate.proposals import likelihood_work
from kernels.estimate.situation import SITUATION_DTYPE, seat_legal_bids
from kernels.policies import heuristic
from kernels.records import MAX_PLAYERS, NO_BID
from kernels.search import posterior
from sim.config.cards import cards_to_mask
from sim.config.rules import Rules
from sim.estimation.bot_rollouts import BotInference, evaluated_decisions
from sim.policies.registry import Policy, fallback_of, parse_policy, policy_arrays

# The opponent model for players whose bidding is unknown, chosen by calibration against
# self-play of other bidders (experiments/calibrate_opponents.py, docs/estimate.md).
UNKNOWN_SPREAD = 0.5
UNKNOWN_FLOOR = 0.0
UNKNOWN_WIDE = 0.0
UNKNOWN_WIDE_SPREAD = posterior.DEFAULT_WIDE_SPREAD
UNKNOWN_MODEL = {"spread": UNKNOWN_SPREAD, "floor": UNKNOWN_FLOOR, "wide": UNKNOWN_WIDE,
                 "wide_spread": UNKNOWN_WIDE_SPREAD}  # fmt: skip


@dataclass(frozen=True)
class Situation:
    """A validated bidding situation: the seat at bidding `position` (seat `position`, the
    dealer being seat players-1) holds `hand`; `trump_card` was turned up (NO_CARD in the last
    round); `trump` is the trump suit or NO_SUIT; `earlier_bids` are the bids of positions
    0..position-1 (open bidding); `totals` the score pad by bidding position."""

    rules: Rules
    hand: tuple[int, ...]
    trump_card: int
    trump: int
    position: int
    earlier_bids: tuple[int, ...]
    totals: tuple[int, ...]
    policies: tuple[Policy, ...]  # one per seat, the estimating seat's at `position`

    @property
    def round_size(self) -> int:
        return len(self.hand)

    def to_record(self) -> np.ndarray:
        """The one-record SITUATION_DTYPE array the kernels take."""
        record = np.zeros(1, dtype=SITUATION_DTYPE)
        record["round_size"] = self.round_size
        record["seat"] = self.position
        record["hand"] = cards_to_mask(self.hand)
        record["trump_card"] = self.trump_card
        record["trump"] = self.trump
        bids = np.full(MAX_PLAYERS, NO_BID, dtype=np.int64)
        bids[: len(self.earlier_bids)] = self.earlier_bids
        record["bids"] = bids
        record["totals"][0, : len(self.totals)] = self.totals
        return record

    def opponent_model(self, model: OpponentModel) -> np.ndarray:
        """The posterior sampler's model of the other seats (kernels.search.posterior.MODEL_DTYPE):
        a `heuristic` opponent bids like the heuristic with its parameters, an `mc` opponent
        is modelled by the heuristic with its defaults (mc bids from heuristic rollouts), and
        any other (`random`, an external bot) says nothing by its bid. A Python policy is
        modelled by its fallback here: the seats whose observed decision its bot answers are
        made uninformative by bot_inference. spread 0 and floor 0 are the exact model, else the
        tolerant one (docs/estimate.md)."""
        kinds, rows = [], []
        defaults = list(heuristic.DEFAULT_PARAMS)
        for policy in map(fallback_of, self.policies):
            informative = policy.name in ("heuristic", "mc")
            kinds.append(posterior.OPPONENT_HEURISTIC if informative else posterior.OPPONENT_UNINFORMATIVE)
            rows.append(list(policy.params) if policy.name == "heuristic" else defaults)
        padding = MAX_PLAYERS - len(rows)
        kinds += [posterior.OPPONENT_UNINFORMATIVE] * padding
        rows += [defaults] * padding
        record = posterior.new_model(self.rules.players, kinds=kinds, params=rows, spread=model.spread,
                                     wide=model.wide, wide_spread=model.wide_spread)  # fmt: skip
        record["floor"] = model.floor
        return record

    def wizard_turned(self) -> bool:
        return self.trump_card != NO_CARD and FIRST_WIZARD <= self.trump_card < FIRST_JESTER

    def bot_inference(self, seed: int, model: OpponentModel) -> BotInference:
        """The deals with Python policies at the table (sim.estimation.bot_rollouts): the
        posterior sampler's model with the seats whose observed decision a bot answers made
        uninformative, the acceptance tables of those answers, and the built-in policies that
        answer when such a bot delegates (its fallback; mc's bid modelled by the heuristic)."""
        policies, infer = list(self.policies), model.infer
        seats, decisions = evaluated_decisions(
            policies, self.position, infer and self.rules.bidding == "open", infer and self.wizard_turned()
        )
        sampler_model = self.opponent_model(model)
        likelihood_model = sampler_model.copy()
        sampler_model["kind"][0, seats] = posterior.OPPONENT_UNINFORMATIVE
        likelihood_model["kind"][0, seats] = posterior.OPPONENT_HEURISTIC
        likelihood_model["wide"][0, seats] = 0.0  # a bot's own answers: no model of the heuristic's to widen
        # Seated as in play (policy_arrays seats a Python policy's fallback), except that an
        # evaluated seat's mc fallback answers as the heuristic, which models mc's bids.
        answering = [
            parse_policy("heuristic") if seat in seats and fallback_of(policy).name == "mc" else policy
            for seat, policy in enumerate(policies)
        ]
        records = (self.rules.to_record(), self.to_record())
        return BotInference(
            bool(infer),
            sampler_model,
            likelihood_work(seed, *records, likelihood_model),
            policy_arrays(answering),
            seats,
            decisions,
            int(sampler_model["max_proposals"][0]),
        )

    def legal_bids(self) -> np.ndarray:
        """Bool per bid 0..round_size: whether the seat may make it (docs/rules.md §4)."""
        mask = int(seat_legal_bids(self.rules.to_record()[0], self.to_record()[0]))
        return np.array([bool(mask >> bid & 1) for bid in range(self.round_size + 1)])


@dataclass(frozen=True)
class OpponentModel:
    """How the other seats' bids are read: not at all (infer False: uniform deals), exactly as
    the heuristic's (spread 0, floor 0), or tolerantly (docs/estimate.md)."""

    infer: bool
    spread: float = 0.0
    floor: float = 0.0
    wide: float = 0.0  # share of bids modelled around the heuristic's estimated tricks (robust)
    wide_spread: float = posterior.DEFAULT_WIDE_SPREAD

    @property
    def exact(self) -> bool:
        return self.infer and self.spread == 0.0 and self.floor == 0.0 and self.wide == 0.0

    def describe(self) -> str:
        """The model's name: `uniform`, `exact heuristic`, `tolerant heuristic (spread 1, 20% random bids)`,
        `robust heuristic (40% around the estimated tricks, wide spread 0.5, 5% random bids)`."""
        if not self.infer:
            return "uniform"
        if self.exact:
            return "exact heuristic"
        words = [f"{100 * self.wide:g}% around the estimated tricks, wide spread {self.wide_spread:g}"] if self.wide else []
        words += [f"spread {self.spread:g}"] if self.spread else []
        words += [f"{100 * self.floor:g}% random bids"] if self.floor else []
        return f"{'robust' if self.wide else 'tolerant'} heuristic ({', '.join(words)})"

    def sentence(self) -> str:
        """What the model assumes of the other players, in words."""
        if not self.infer:
            return "the unseen cards are dealt uniformly (the earlier bids are not read)"
        if self.exact:
            return "the other players bid exactly like the heuristic (exact model)"
        noise = [f"{self.spread:g} tricks of noise"] if self.spread else []
        noise += [f"{100 * self.floor:g}% of bids at random"] if self.floor else []
        if not self.wide:
            return f"the other players bid like the heuristic with {' and '.join(noise)} (tolerant model)"
        around = f"near the heuristic's estimated tricks before rounding ({self.wide_spread:g} tricks of spread)"
        if self.wide < 1.0:
            exact = f"with {self.spread:g} tricks of noise " if self.spread else ""
            around = (f"like the heuristic {exact}{100 * (1 - self.wide):g}% of the time and "
                      f"{100 * self.wide:g}% {around}")
        random = f", {100 * self.floor:g}% of bids at random" if self.floor else ""
        return f"the other players bid {around}{random} (robust model)"
