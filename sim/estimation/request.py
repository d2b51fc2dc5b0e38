"""What an estimate is asked: `EstimateRequest`, the one definition of its options (the command
line's, the server's JSON body's, the Python API's keywords), their parsing and checks, and
the `CheckedRequest` they are checked into once (ConfigError with one clear message, tagged
with the option it is about)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from typing import Optional, TypeAlias

import numpy as np

from kernels.cards import FIRST_JESTER, FIRST_WIZARD, N_CARDS, NO_CARD, NO_SUIT, RANKS_PER_SUIT
from kernels.search import posterior
from sim.config.cards import cards_to_mask, format_card, mask_to_cards, parse_card, parse_cards, parse_suit
from sim.config.errors import ConfigError, echo
from sim.config.limits import check_totals
from sim.config.rules import Rules, is_whole_number, max_round
from sim.config.seeds import check_seed
from sim.engine.threads import check_threads
from sim.estimation.situation import UNKNOWN_SPREAD, OpponentModel, Situation
from sim.policies.registry import (
    POLICY_FORMS,
    Policy,
    as_policy,
    check_policy_text,
    check_policy_texts,
    split_policy_list,
)

MAX_SAMPLES = 10_000_000  # the per-sample tricks take samples x (round size + 1) bytes
MAX_SPREAD = 10.0  # the tolerant model's bid noise, in tricks (10: nearly uninformative)


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
