"""A person at the table (`wizard-sim play`): one game of the engine in which one seat's
decisions come from a person and the others from built-in policies or Python policies (the
bid hint, an estimate of the situation, is sim.estimation.hints).

The game runs on the state API (sim.env.WizardState, the same transitions as every driver);
a built-in seat is asked exactly as run_games asks it (sim.env.state_api.policy_action: the
kernels' own kernels.game_state.policy_answer on the round's DECISIONS stream), a Python policy with its observation
and mask as in run_games (its delegated decisions by its fallback, seated in the kernels'
arrays). A game is therefore a pure function of its configuration (rules, seat, opponents,
seed, game index) and the person's answers (for deterministic bots), which is all a save file
holds (`PlaySession.to_json`).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.cards import FIRST_JESTER, FIRST_WIZARD
from kernels.observation import answer_of
from kernels.records import DECIDE_BID, DECIDE_CARD, DECIDE_TRUMP
from sim.config.actions import check_action
from sim.config.cards import SUIT_NAMES, format_card, mask_to_cards, parse_card, parse_suit
from sim.config.errors import ConfigError, echo
from sim.config.limits import MAX_GAMES, check_count
from sim.policies.registry import Policy, check_policy_texts, is_external, parse_policy, split_policy_list
from sim.policies.python_protocol import DELEGATE, Decisions
from sim.config.rules import Rules, is_whole_number
from sim.config.seeds import check_seed
from sim.env.layout import ACTION_BID0, ACTION_CARD0, ACTION_SUIT0, N_ACTIONS
from sim.env.state_api import WizardGame, WizardState, policy_action
from sim.engine.bot_caller import BotTable
from sim.engine.seating import Seating
from sim.storage import write_json
from sim.storage.files import BadJSON, read_json

SAVE_FORMAT = "wizard-sim play"
SAVE_FORMAT_VERSION = 1
# The person's seat needs an entry in the kernels' arrays (it is never asked).
HEURISTIC = parse_policy("heuristic")


# --- the configuration ------------------------------------------------------------------


def builtin_policy(text: str) -> Policy:
    """A built-in policy (the card hint's); `module:Object` is refused before anything is
    imported."""
    if is_external(text) and ":" in text:
        raise ConfigError(f"the hint policy must be a built-in policy (random, heuristic, mc, learned), not {echo(text.strip())}")
    return parse_policy(text)


def opponent_policy(text: str) -> Policy:
    """A built-in policy or a Python policy (`module:Object`); a numba bot is refused (the
    state API runs the built-in engine)."""
    policy = parse_policy(text)
    if policy.kind.bot is not None:
        raise ConfigError(
            f"wizard-sim play seats built-in and Python policies, not the numba bot {echo(text.strip())}"
        )
    return policy


def opponent_names(opponents: str | Sequence[str], players: int) -> list[str]:
    """One policy text per other seat: `opponents` is one for all of them, or one per seat."""
    names = split_policy_list(opponents) if isinstance(opponents, str) else list(opponents)
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise ConfigError(f"got {len(names)} opponent policies for {players - 1} opponents: give one, or one per other seat")
    return names


@dataclass(frozen=True)
class PlayConfig:
    """What a game of `wizard-sim play` is a function of (besides the person's answers):
    the rules, the person's seat, the policy of every other seat, the run seed and the game
    index (game `game` of `simulate --seed seed` is dealt the same cards)."""

    rules: Rules
    seat: int
    opponents: tuple[Policy | None, ...]  # one per seat; None at the person's seat
    seed: int
    game: int

    @classmethod
    def build(cls, rules: Rules, seat: int, opponents: str | Sequence[str], seed: int, game: int) -> PlayConfig:
        """Validate the options: `opponents` is one policy for every other seat, or a comma
        list with one per other seat in seat order (the person's seat skipped)."""
        players = rules.players
        seat = check_count(seat, "seat", 0, players - 1)
        seed, game = check_seed(seed), check_count(game, "game", 0, MAX_GAMES - 1)
        names = opponent_names(opponents, players)
        check_policy_texts(names)
        policies = [opponent_policy(name) for name in names]  # imports Python policies: after every other check
        policies.insert(seat, None)
        return cls(rules, seat, tuple(policies), seed, game)

    def kernel_policies(self, hint_policy: Policy) -> Seating:
        """The seating of the policies, with `hint_policy` at the person's seat (it is asked
        only for hints); a Python policy's seat plays its fallback inside the kernels."""
        return Seating.of([hint_policy if policy is None else policy for policy in self.opponents])

    def label(self, seat: int) -> str:
        policy = self.opponents[seat]
        return "you" if policy is None else policy.label

    def to_json(self) -> dict:
        return {
            "rules": self.rules.to_dict(),
            "seat": self.seat,
            "opponents": [policy.label for policy in self.opponents if policy is not None],
            "seed": self.seed,
            "game": self.game,
        }

    @classmethod
    def from_json(cls, data: dict) -> PlayConfig:
        rules = Rules.from_dict(data["rules"])
        return cls.build(rules, data["seat"], list(data["opponents"]), data["seed"], data["game"])


# --- what happens at the table ------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """A decision made at the table: `answer` is a suit (trump), a bid or a card id."""

    seat: int
    decision: int
    answer: int


@dataclass(frozen=True)
class TrickEnd:
    """A finished trick: (seat, card) in play order, and the seat that took it."""

    plays: tuple[tuple[int, int], ...]
    winner: int


@dataclass(frozen=True)
class RoundEnd:
    """A finished round: its summary (WizardState.last_round)."""

    summary: dict


@dataclass(frozen=True)
class RoundStart:
    """A round is dealt (or, on resuming, in progress): its size, dealer, the turned-up card
    (NO_CARD: none) and trump (a suit, NO_SUIT, or DEALER_CHOOSES_TRUMP) at that moment."""

    round_size: int
    dealer: int
    trump_card: int
    trump: int


Event = Move | TrickEnd | RoundEnd | RoundStart


class PlaySession:
    """One game of `wizard-sim play`. `advance()` plays the built-in seats until the person
    must act (or the game ends); `answer(action)` applies the person's flat action (docs/env.md),
    which `action_of(text)` makes from the person's text. Both return the events that
    happened, in order."""

    def __init__(self, config: PlayConfig, answers: Iterable[int] = ()) -> None:
        self.config = config
        self.state: WizardState = WizardGame(config.rules).new_state(config.seed, config.game)
        self.answers: list[int] = []
        self._policies = config.kernel_policies(HEURISTIC)
        # One instance per distinct Python policy, as run_games makes them (the person's seat
        # is never one).
        listed = [HEURISTIC if policy is None else policy for policy in config.opponents]
        self._bots: BotTable | None = BotTable(Seating.of(listed))
        self._trick: list[tuple[int, int]] = []
        self._announce = True  # the next advance() starts with the round in progress
        for index, action in enumerate(answers):
            self.advance()
            legal = is_whole_number(action) and 0 <= action < N_ACTIONS and self.state.legal_action_mask()[action]
            if self.is_over() or not legal:
                raise ConfigError(f"answer {index} ({echo(action)}) of the saved game is not a legal move of this game")
            self.answer(int(action))
        self._announce = not self.is_over()

    # --- moving the game -------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.state.is_terminal()

    def person_to_act(self) -> bool:
        return not self.is_over() and self.state.current_player() == self.config.seat

    def advance(self) -> list[Event]:
        """Play the built-in seats until the person acts or the game is over."""
        events: list[Event] = self._round_start() if self._announce else []
        self._announce = False
        while not self.is_over() and not self.person_to_act():
            events += self._apply(self._opponent_action())
        if self.is_over():
            self._end_bots()
        return events

    def answer(self, action: int) -> list[Event]:
        """Apply the person's (legal) flat action and record it."""
        action = check_action(action)  # as every driver checks an action (sim.config.actions)
        if not self.person_to_act():
            raise ValueError("it is not the person's turn")
        events = self._apply(action)
        self.answers.append(action)
        return events

    def _round_start(self) -> list[Event]:
        table = self.state.records()[0]
        return [RoundStart(*(int(table[key]) for key in ("round_size", "dealer", "trump_card", "trump")))]

    def _opponent_action(self) -> int:
        """The flat action of the opponent to act: its Python policy's answer (unless it
        delegates, or does not take this decision), else its seated policy's."""
        state = self.state
        seat, decision = state.current_player(), state.decision()
        bot = None if self._bots is None else self._bots.caller_at(seat)
        if bot is not None and decision in bot.bot.decisions:
            context = Decisions(
                np.array([self.config.game]), np.array([seat]), np.array([decision]),
                np.array([int(state.records()[0]["round_size"])]),
            )  # fmt: skip
            answer = int(bot.ask(state.observation(seat)[None, :], state.legal_action_mask()[None, :], context)[0])
            if answer != DELEGATE:
                return answer
        return policy_action(state, self._policies)

    def _end_bots(self) -> None:
        """Tell each Python policy that the game ended (once), as run_games tells it."""
        if self._bots is None:
            return
        players = self.config.rules.players
        totals = np.array([self.state.history[-1]["totals"][:players]], dtype=np.int64)
        seats = np.arange(players, dtype=np.int64)
        self._bots.games_over(self._bots.bot_of_listed[:players], np.full(players, self.config.game), seats,
                              totals.repeat(players, axis=0))  # fmt: skip
        self._bots = None

    def _apply(self, action: int) -> list[Event]:
        state = self.state
        seat, decision = state.current_player(), state.decision()
        answer = int(answer_of(decision, action))
        tricks_before = state.records()[0]["tricks"].copy()
        rounds_before = len(state.history)
        state.apply_action(action)
        events: list[Event] = [Move(seat, decision, answer)]
        if decision != DECIDE_CARD:
            return events
        self._trick.append((seat, answer))
        round_ended = len(state.history) != rounds_before
        tricks_after = np.array(state.history[-1]["tricks"]) if round_ended else state.records()[0]["tricks"]
        players = self.config.rules.players
        won = np.flatnonzero(np.asarray(tricks_after[:players]) != tricks_before[:players])
        if won.size:
            events.append(TrickEnd(tuple(self._trick), int(won[0])))
            self._trick = []
        if round_ended:
            events.append(RoundEnd(state.history[-1]))
            if not self.is_over():
                events += self._round_start()
        return events

    def trick(self) -> tuple[tuple[int, int], ...]:
        """The current trick so far: (seat, card) in play order."""
        return tuple(self._trick)

    # --- the person's input ------------------------------------------------------------------

    def decision(self) -> int:
        return int(self.state.decision())

    def hand(self) -> list[int]:
        """The person's cards now, ascending ids."""
        return mask_to_cards(int(self.state.records()[1][self.config.seat]["hand"]))

    def legal_cards(self) -> list[int]:
        """The cards the person may play now (none unless a card is to be played)."""
        if self.decision() != DECIDE_CARD:
            return []
        return [action - ACTION_CARD0 for action in self.state.legal_actions()]

    def card_action(self, text: str) -> int:
        """The flat action of playing the card written `text`; ConfigError saying why not
        (an unknown card, one not in the hand, or one the rules forbid now)."""
        card = parse_card(text)
        hand = self.hand()
        if card >= FIRST_WIZARD:  # the four Wizards (Jesters) are interchangeable: any one held
            first = FIRST_WIZARD if card < FIRST_JESTER else FIRST_JESTER
            held = [c for c in hand if first <= c < first + 4]
            card = held[0] if held else card
        if card not in hand:
            raise ConfigError(f"{format_card(card)} is not in your hand")
        action = ACTION_CARD0 + card
        if not self.state.legal_action_mask()[action]:
            # Only a led suit restricts a card in hand (docs/rules.md §5).
            raise ConfigError(f"you must follow {SUIT_NAMES[int(self.state.records()[0]['led_suit'])]}")
        return action

    def bid_action(self, text: str) -> int:
        """The flat action of bidding `text`; ConfigError saying why not."""
        table = self.state.records()[0]
        round_size = int(table["round_size"])
        text = text.strip()
        if not (text.isascii() and text.isdigit() and int(text) <= round_size):
            raise ConfigError(f"bid a whole number 0..{round_size}, got {echo(text)}")
        bid = int(text)
        action = ACTION_BID0 + bid
        if not self.state.legal_action_mask()[action]:
            leader = self.config.rules.even_bids == "leader"
            why = "the dealer leads the score pad alone" if leader else "even bids are forbidden"
            raise ConfigError(f"you may not bid {bid}: the bids would add up to {round_size} tricks and {why}")
        return action

    def trump_action(self, text: str) -> int:
        return ACTION_SUIT0 + parse_suit(text)

    def action_of(self, text: str) -> int:
        """The flat action the person's text answers to the decision at hand."""
        decision = self.decision()
        if decision == DECIDE_TRUMP:
            return self.trump_action(text)
        if decision == DECIDE_BID:
            return self.bid_action(text)
        return self.card_action(text)

    # --- hints ---------------------------------------------------------------------------

    def policy_hint(self, policy: Policy) -> int:
        """The flat action `policy` would choose in the person's place (asked on a copy of the
        state, so the game's random streams are untouched)."""
        return policy_action(self.state.clone(), self.config.kernel_policies(policy))

    # --- results -----------------------------------------------------------------------------

    def results(self) -> list[dict]:
        """Per seat: its player, exact bids / rounds played, total, whether it won."""
        history = self.state.history
        totals = self.state.totals()
        best = max(totals)
        return [
            {
                "seat": seat,
                "player": self.config.label(seat),
                "exact": sum(r["bids"][seat] == r["tricks"][seat] for r in history),
                "rounds": len(history),
                "total": totals[seat],
                "winner": totals[seat] == best,
            }
            for seat in range(self.config.rules.players)
        ]

    # --- saving ------------------------------------------------------------------------------

    def to_json(self) -> dict:
        return {
            "format": SAVE_FORMAT,
            "format_version": SAVE_FORMAT_VERSION,
            "config": self.config.to_json(),
            "answers": list(self.answers),
        }

    def save(self, path: str | Path) -> None:
        """Write the save file atomically (a temporary file renamed over it)."""
        write_json(Path(path), self.to_json())


def read_save(path: str | Path) -> dict:
    """The save file at `path`, checked to be one (JSON with the save format marker); nothing
    it names is imported."""
    try:
        data = read_json(Path(path))
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    except BadJSON as error:
        problem = "not JSON" if error.problem.startswith("not JSON") else error.problem
        raise ConfigError(f"{path} is not a wizard-sim play save file ({problem})") from None
    if not (isinstance(data, dict) and data.get("format") == SAVE_FORMAT):
        raise ConfigError(f"{path} is not a wizard-sim play save file")
    if data.get("format_version") != SAVE_FORMAT_VERSION:
        version = data.get("format_version")
        raise ConfigError(f"{path} has save format version {echo(version)}, expected {SAVE_FORMAT_VERSION}")
    return data


def saved_opponents(path: str | Path) -> list[str]:
    """The opponents' policy labels in the save file at `path` (nothing is imported)."""
    config = read_save(path).get("config")
    opponents = config.get("opponents") if isinstance(config, dict) else None
    if not (isinstance(opponents, list) and all(isinstance(label, str) for label in opponents)):
        raise ConfigError(f"{path} is not a valid wizard-sim play save file (its opponents are not a list of policies)")
    return opponents


def load_session(path: str | Path) -> PlaySession:
    """The game saved in `path`, replayed up to the person's next decision. The Python policies
    it names are imported: the caller checks first that they were named again (saved_opponents)."""
    data = read_save(path)
    try:
        config = PlayConfig.from_json(data["config"])
        answers = list(data["answers"])
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, ConfigError):
            raise ConfigError(f"{path}: {error}") from None
        raise ConfigError(f"{path} is not a valid wizard-sim play save file ({error!r} missing or malformed)") from None
    return PlaySession(config, answers)
