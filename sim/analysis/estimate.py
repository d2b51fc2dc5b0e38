"""What should I bid with this hand? Monte Carlo over the unseen cards (docs/estimate.md).

`estimate(...)` returns a pandas DataFrame with one row per bid; `run_estimate(...)` returns
the `BidEstimate` behind it (per-sample tricks, the JSON form of the CLI).
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Optional, TypeAlias

import numpy as np

from kernels.search import posterior
from kernels.cards import FIRST_JESTER, FIRST_WIZARD, N_CARDS, NO_CARD, NO_SUIT, RANKS_PER_SUIT
from kernels.estimate.proposals import likelihood_work
from kernels.estimate.rollouts import SampleResults, Samples, estimate_tricks
from kernels.estimate.situation import SITUATION_DTYPE, observed_seats, seat_legal_bids
from kernels.blocks import NO_FAILURE
from kernels.policies import heuristic
from kernels.rules import round_scores
from kernels.records import MAX_PLAYERS, NO_BID
from sim.config.cards import (
    SUIT_NAMES,
    cards_to_mask,
    format_card,
    format_hand,
    mask_to_cards,
    parse_card,
    parse_cards,
    parse_suit,
)
from sim.config.errors import BotError, ConfigError, echo
from sim.config.limits import check_totals
from sim.drivers.estimate_rollouts import BotEstimate, BotInference, evaluated_decisions
from sim.policies.registry import (
    Policy,
    as_policy,
    check_policy_text,
    check_policy_texts,
    fallback_of,
    POLICY_FORMS,
    parse_policy,
    policy_arrays,
    split_policy_list,
)
from sim.config.rules import Rules, is_whole_number, max_round
from sim.config.seeds import check_seed
from sim.analysis.estimate_slices import estimate_in_slices
from sim.engine.seating import Seating
from sim.engine.calls import call_kernel
from sim.engine.threads import check_threads, set_threads
from sim.stats.sums import Z_95

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: it slows every CLI start
    import pandas as pd

MAX_SAMPLES = 10_000_000  # the per-sample tricks take samples x (round size + 1) bytes
MAX_SPREAD = 10.0  # the tolerant model's bid noise, in tricks (10: nearly uninformative)
# The opponent model for players whose bidding is unknown, chosen by calibration against
# self-play of other bidders (experiments/calibrate_opponents.py, docs/estimate.md).
UNKNOWN_SPREAD = 0.5
UNKNOWN_FLOOR = 0.0
UNKNOWN_WIDE = 0.0
UNKNOWN_WIDE_SPREAD = posterior.DEFAULT_WIDE_SPREAD
UNKNOWN_MODEL = {"spread": UNKNOWN_SPREAD, "floor": UNKNOWN_FLOOR, "wide": UNKNOWN_WIDE,
                 "wide_spread": UNKNOWN_WIDE_SPREAD}  # fmt: skip
FEW_EFFECTIVE_SAMPLES = 400  # below this the printed percentages are off by 5 points or more


# --- validation -------------------------------------------------------------------------


def parse_hand(hand: str | int | Sequence[str] | Sequence[int]) -> list[int]:
    """Card ids of a hand given as text (`W AS KH 7H J`), a mask, or a list of ids or tokens."""
    if is_whole_number(hand):
        if not 0 < int(hand) < 1 << N_CARDS:
            raise ConfigError(f"hand mask {hand} is not a non-empty mask of card ids 0..{N_CARDS - 1}")
        return mask_to_cards(int(hand))
    if not isinstance(hand, (str, Sequence, np.ndarray)):
        raise ConfigError(f"hand must be text, a card mask or a list of cards, got {echo(hand)}")
    if isinstance(hand, str) or all(isinstance(card, str) for card in hand):
        return parse_cards(hand)
    cards = []
    for card in hand:
        if not is_whole_number(card) or not 0 <= card < N_CARDS:
            raise ConfigError(f"a card id is a whole number 0..{N_CARDS - 1}, got {echo(card)}")
        if card in cards:
            raise ConfigError(f"card {format_card(int(card))} (id {card}) appears twice in the hand")
        cards.append(int(card))
    return cards


def free_special(hand_mask: int, first: int, what: str, why: str) -> int:
    """Lowest Wizard (or Jester) id the hand does not hold: the one turned up."""
    for card in range(first, first + 4):
        if not hand_mask >> card & 1:
            return card
    raise ConfigError(f"{why}, but the hand holds all four {what}s")


def resolve_trump(
    hand_mask: int, round_size: int, players: int, trump: str | int | None, trump_suit: str | int | None, no_trump: bool
) -> tuple[int, int]:
    """(turned-up card id or NO_CARD, trump suit or NO_SUIT) from the trump options."""
    if round_size * players == N_CARDS:
        if trump is not None or trump_suit is not None:
            raise ConfigError(
                f"{round_size} cards x {players} players is the last round: nothing is turned up and there is "
                "no trump, so give no --trump or --trump-suit"
            )
        return NO_CARD, NO_SUIT
    if no_trump and (trump is not None or trump_suit is not None):
        raise ConfigError("--no-trump (a Jester turned up) conflicts with --trump/--trump-suit: give one of them")
    if trump is None and trump_suit is None and not no_trump:
        raise ConfigError(
            "say what was turned up: --trump CARD, --trump-suit SUIT (a Wizard, the dealer chose the suit) "
            "or --no-trump (a Jester)"
        )
    card = NO_CARD
    if trump is not None:
        card = parse_card(trump) if isinstance(trump, str) else trump
        if not is_whole_number(card) or not 0 <= card < N_CARDS:
            raise ConfigError(f"trump card id {trump} is outside 0..{N_CARDS - 1}")
    if no_trump or card >= FIRST_JESTER:
        if trump_suit is not None:
            raise ConfigError("a turned-up Jester means no trump; --trump-suit is only for a turned-up Wizard")
        return free_special(hand_mask, FIRST_JESTER, "Jester", "a Jester was turned up (no trump)"), NO_SUIT
    if card == NO_CARD or card >= FIRST_WIZARD:
        if trump_suit is None:
            raise ConfigError("a Wizard was turned up: give the suit the dealer chose with --trump-suit")
        suit = parse_suit(trump_suit) if isinstance(trump_suit, str) else trump_suit
        if not is_whole_number(suit) or not 0 <= suit < 4:
            raise ConfigError(f"trump suit {trump_suit} is outside 0..3")
        return free_special(hand_mask, FIRST_WIZARD, "Wizard", "a Wizard was turned up"), int(suit)
    if trump_suit is not None:
        raise ConfigError(
            f"--trump-suit is only for a turned-up Wizard; {format_card(card)} sets the trump suit itself"
        )
    if hand_mask >> card & 1:
        raise ConfigError(f"the trump card {format_card(card)} is also in the hand")
    return int(card), int(card) // RANKS_PER_SUIT


def parse_int_list(text: str | Sequence[int], what: str) -> list[int]:
    """Whole numbers from `1,0` (or a sequence of them); `what` names the option in errors."""
    items = [item for item in text.replace(" ", "").split(",") if item] if isinstance(text, str) else list(text)
    values = []
    for item in items:
        try:
            value = int(item) if isinstance(item, str) else item
        except ValueError:
            raise ConfigError(f"{what} must be whole numbers separated by commas, got {echo(item)}") from None
        if not is_whole_number(value):
            raise ConfigError(f"{what} must be whole numbers, got {echo(item)}")
        values.append(int(value))
    return values


def check_earlier_bids(bids: list[int], position: int, round_size: int, bidding: str) -> None:
    if bidding != "open":
        if bids:
            raise ConfigError(f"with {bidding} bidding no earlier bid is seen before bidding: give no bids")
        return
    if len(bids) != position:
        raise ConfigError(
            f"bidding position {position} follows {position} earlier bid(s) (positions 0..{position - 1}), "
            f"got {len(bids)} bid(s)"
            if position
            else f"bidding position 0 bids first: give no earlier bids, got {len(bids)}"
        )
    for index, bid in enumerate(bids):
        if not 0 <= bid <= round_size:
            raise ConfigError(f"earlier bid {bid} (position {index}) is outside 0..{round_size}")


PolicyLike: TypeAlias = "str | Policy | object"  # text, a Policy, or a Python policy object (class or instance)


def parse_opponents(opponents: str | Sequence[PolicyLike] | object, players: int) -> list[Policy]:
    """One policy for every opponent, or one per opponent in bidding order: text (a comma
    list), or a policy or a sequence of them (text, Policy, Python policy objects)."""
    if isinstance(opponents, str):
        items = split_policy_list(opponents)
    elif isinstance(opponents, Sequence):
        items = list(opponents)
    else:
        items = [opponents]
    if len(items) == 1:
        items = items * (players - 1)
    if len(items) != players - 1:
        raise ConfigError(
            f"got {len(items)} opponent policies for {players - 1} opponents: give one, or one per opponent"
        )
    check_policy_texts(items)
    return [as_policy(item) for item in items]


# --- the situation ----------------------------------------------------------------------


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
        """The deals with Python policies at the table (sim.drivers.estimate_rollouts): the
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


HandLike: TypeAlias = "str | int | Sequence[str] | Sequence[int]"


def option(help: str, cli: object, flags: tuple[str, ...] = (), **field_options) -> dict:
    """A field of EstimateRequest: `help` and `cli` (the type the command line parses; flags:
    its option names when they are not --field-name) serve sim.cli.estimate, which builds the
    command's options from these fields."""
    return field(metadata={"help": help, "cli": cli, "flags": flags}, **field_options)


@dataclass(frozen=True)
class EstimateRequest:
    """Everything an estimate is asked, named as `wizard-sim estimate`'s options (and as the
    fields of the server's JSON body): the one definition of the options, used by
    `run_estimate`/`estimate`, the command line and `wizard-sim serve`. Construction does not
    validate; `situation()` and `checked()` do (ConfigError with one clear message)."""

    hand: HandLike = option('The hand, e.g. "W AS KH 7H J" (any order; its size is the round size).', str)
    trump: str | int | None = option(
        "The turned-up card, e.g. 3H (W needs --trump-suit; J means no trump).", Optional[str], default=None
    )
    trump_suit: str | int | None = option(
        "A Wizard was turned up and the dealer chose this suit (C, D, H, S).", Optional[str], default=None
    )
    no_trump: bool = option("No trump: a Jester was turned up (or the last round).", bool, ("--no-trump",),
                            default=False)  # fmt: skip
    players: int = option("Players at the table, 3..6.", int, default=4)
    position: int = option("Bidding position: 0 = left of the dealer, players-1 = the dealer.", int, default=0)
    bids: str | Sequence[int] = option("Bids already made by positions 0..position-1, e.g. 1,0.", str, default=())
    bidding: str = option("Bidding variant: open, hidden or delayed.", str, default="open")
    even_bids: str = option("Even-bids variant: allowed, forbidden or leader.", str, default="allowed")
    totals: str | Sequence[int] = option(
        "Score pad by bidding position, e.g. 40,-10,0,20 (default 0s; for --even-bids leader).", str, default=()
    )
    opponents: str | Sequence[PolicyLike] | object = option(
        f"Opponents' policy, or one per opponent in bidding order: each {POLICY_FORMS}.", str, default="heuristic"
    )
    policy: PolicyLike = option(
        f"The policy this seat plays with (it plays to make each bid): {POLICY_FORMS}.", str, default="heuristic"
    )
    spread: float = option(
        "Opponent model: 0 = they bid exactly like the heuristic (self-play); > 0 = the heuristic's bid with "
        f"that much noise, in tricks (players whose bidding you do not know: --spread {UNKNOWN_SPREAD:g}, measured).",
        float,
        default=0.0,
    )
    floor: float = option(
        "Opponent model: the share of bids modelled as uniformly random over the legal bids, 0..1 (a bid the "
        "heuristic would not make then never rules a deal out).",
        float,
        default=0.0,
    )
    wide: float = option(
        "Opponent model: the share of bids modelled around the heuristic's estimated tricks before rounding, "
        "0..1 (the robust likelihood: a hand near a bid's edge may bid either side).",
        float,
        default=0.0,
    )
    wide_spread: float = option(
        "Opponent model: the spread of those bids around the estimated tricks, in tricks (> 0).",
        float,
        default=posterior.DEFAULT_WIDE_SPREAD,
    )
    infer: bool = option(
        "Deal the unseen cards from what the earlier bids and the dealer's trump choice say (--no-infer: uniformly).",
        bool,
        ("--infer/--no-infer",),
        default=True,
    )
    samples: int = option("Sampled deals of the unseen cards.", int, default=100_000)
    seed: int = option("Seed of the sampled deals and random decisions.", int, default=0)
    threads: int | None = option(
        "Kernel threads (default all; results do not depend on it).", Optional[int], default=None
    )

    @classmethod
    def of(cls, request: EstimateRequest | HandLike | None = None, **options) -> EstimateRequest:
        """A request from a request (options replace its fields), or from a hand and options."""
        if isinstance(request, EstimateRequest):
            return replace(request, **options)
        if request is not None:
            options["hand"] = request
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise ConfigError(f"unknown estimate option(s) {', '.join(unknown)}; the options: {', '.join(names)}")
        if "hand" not in options:
            raise ConfigError("give the hand")
        return cls(**options)

    def situation(self) -> Situation:
        """The validated bidding situation. A ConfigError carries `field`: the option it is about."""
        players, position, bidding = self.players, self.position, self.bidding
        with about("players"):
            Rules(players=players)
        with about("bidding"):  # each rule checked under its own name, for the page's mark
            Rules(players=players, bidding=bidding)
        with about("even_bids"):
            rules = Rules(players=players, bidding=bidding, even_bids=self.even_bids)
        with about("hand"):
            cards = parse_hand(self.hand)
            round_size = len(cards)
            if not 1 <= round_size <= max_round(players):
                raise ConfigError(
                    f"a hand of {round_size} cards is impossible with {players} players: 1..{max_round(players)} cards"
                )
        hand_mask = cards_to_mask(cards)
        with about("trump"):
            trump_card, trump_suit_id = resolve_trump(hand_mask, round_size, players, self.trump, self.trump_suit,
                                                      self.no_trump)  # fmt: skip
        with about("position"):
            if not is_whole_number(position) or not 0 <= position < players:
                raise ConfigError(
                    f"bidding position {position} is outside 0..{players - 1} "
                    f"(0 = left of the dealer, {players - 1} = the dealer)"
                )
        with about("bids"):
            earlier_bids = parse_int_list(self.bids, "bids")
            check_earlier_bids(earlier_bids, position, round_size, bidding)
        with about("totals"):
            pad = check_totals(parse_int_list(self.totals, "totals")) or [0] * players
            if len(pad) != players:
                raise ConfigError(f"totals: give one per bidding position ({players}), got {len(pad)}")
        with about("policy"):  # before the opponents' modules are imported
            check_policy_text(self.policy)
        with about("opponents"):
            opponent_policies = parse_opponents(self.opponents, players)
        with about("policy"):
            seat_policy = as_policy(self.policy)
        return Situation(
            rules,
            tuple(sorted(cards)),
            trump_card,
            trump_suit_id,
            int(position),
            tuple(earlier_bids),
            tuple(pad),
            tuple(opponent_policies[:position] + [seat_policy] + opponent_policies[position:]),
        )

    def checked(self) -> CheckedRequest:
        """Every option validated (ConfigError with one clear message and its `field`)."""
        with about("infer"):
            if not isinstance(self.infer, bool):
                raise ConfigError(f"infer must be true or false, got {echo(self.infer)}")
        with about("threads"):
            if self.threads is not None and not is_whole_number(self.threads):
                raise ConfigError(f"threads must be a whole number, got {echo(self.threads)}")
            check_threads(self.threads)
        with about("samples"):
            samples = check_samples(self.samples)
        with about("seed"):
            seed = check_seed(self.seed)
        with about("spread"):
            spread = check_spread(self.spread)
        with about("floor"):
            floor = check_floor(self.floor)
        with about("wide"):
            wide = check_share(self.wide, "wide", "0: no bids modelled around the estimated tricks")
        with about("wide_spread"):
            wide_spread = check_spread(self.wide_spread, "wide_spread", 0.01)
        situation = self.situation()  # last: it imports the Python bots it names (#22 item 3)
        model = OpponentModel(self.infer, spread, floor, wide, wide_spread)
        return CheckedRequest(situation, samples, seed, model, self.threads)


@contextmanager
def about(name: str) -> Iterator[None]:
    """Tag a ConfigError raised inside with the option it is about (error.field), for the
    server's answer and the page's mark."""
    try:
        yield
    except ConfigError as error:
        if getattr(error, "field", None) is None:
            error.field = name
        raise


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


@dataclass(frozen=True)
class CheckedRequest:
    """An EstimateRequest validated once (EstimateRequest.checked), as run_estimate takes it."""

    situation: Situation
    samples: int
    seed: int
    model: OpponentModel
    threads: int | None


def make_situation(hand: HandLike, **options) -> Situation:
    """Validate the situation options of `estimate` (ConfigError with one clear message)."""
    return EstimateRequest.of(hand, **options).situation()


# --- results ----------------------------------------------------------------------------


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


# --- entry points -----------------------------------------------------------------------


def check_samples(samples: int) -> int:
    if not is_whole_number(samples) or not 2 <= samples <= MAX_SAMPLES:
        raise ConfigError(f"samples must be a whole number in 2..{MAX_SAMPLES:,}, got {echo(samples)}")
    return int(samples)


def check_spread(spread: float, name: str = "spread", least: float = 0.0) -> float:
    if not isinstance(spread, (int, float)) or isinstance(spread, bool) or not least <= spread <= MAX_SPREAD:
        meaning = " (0: the exact model)" if least == 0.0 else ""
        raise ConfigError(f"{name} must be a number in {least:g}..{MAX_SPREAD:g}{meaning}, got {echo(spread)}")
    return float(spread)


def check_share(share: float, name: str, meaning: str) -> float:
    if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 <= share <= 1:
        raise ConfigError(f"{name} must be a number in 0..1 ({meaning}), got {echo(share)}")
    return float(share)


def check_floor(floor: float) -> float:
    return check_share(floor, "floor", "0: no random bids in the model")


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

        # In slices of about a quarter second, so Ctrl-C stops it promptly (sim.analysis.estimate_slices).
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
