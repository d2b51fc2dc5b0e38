"""Wizard as an OpenSpiel game, `python_wizard` (docs/openspiel.md).

A Python game in the style of open_spiel/python/games/*.py, and a thin adapter over the
state API with explicit chance (sim.env.WizardState, the one Python state over a game
record): the players' decisions, the chance events (the deal arriving card by card,
kernels.chance_state.deal_card), legal actions, returns and observations are the state
API's; what this module adds is OpenSpiel's: rewards, information states and resampling. No
rule is written here. Actions are the flat action space of docs/env.md: 0..59 play that
card, 60 + b bids b, 81 + s names trump suit s. Chance outcomes: the first dealer's seat
(when the rules draw it), then for every round the cards dealt one at a time (round_size to
seat 0, then seat 1, ...) and the turned-up card.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from kernels import chance_state
from kernels.cards import N_CARDS
from kernels.observation import N_ACTIONS, OBSERVATION_FIELDS, OBSERVATION_OFFSETS, OBSERVATION_SIZE
from kernels.records import MAX_PLAYERS, MIN_PLAYERS
from kernels.rules import EXACT_BID_BONUS, POINTS_PER_TRICK
from sim.config.cards import format_card, format_hand
from sim.config.actions import action_name, check_action
from sim.config.errors import ConfigError, echo
from sim.config.rules import Rules, is_whole_number, parse_rounds
from sim.env.state_api import WizardGame, WizardState

SHORT_NAME = "python_wizard"
DEFAULT_PARAMETERS = {
    "players": 4,
    "bidding": "open",
    "even_bids": "allowed",
    "rounds": 0,  # one round of this many cards, as --rounds 7; 0: the rounds of round_list
    "round_list": "all",  # several rounds in --rounds notation (1-5, 1,3,5; or 1;3;5); all: a full game
    "first_dealer": -1,  # the seat dealing the first round; -1: drawn (a chance event)
}
# OpenSpiel checks a parameter's type against its default's, and reads `rounds=1` and
# `first_dealer=2` as integers: hence integer defaults, and a second parameter for round lists.

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Wizard (wizard-sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)


def rules_of(params: dict) -> Rules:
    """The Rules of a parameter dict (OpenSpiel's: missing keys take DEFAULT_PARAMETERS)."""
    values = {**DEFAULT_PARAMETERS, **(params or {})}
    unknown = sorted(set(values) - set(DEFAULT_PARAMETERS))
    if unknown:
        raise ConfigError(f"{SHORT_NAME} has no parameter {', '.join(unknown)}; its parameters: {', '.join(DEFAULT_PARAMETERS)}")
    players = values["players"]
    if not isinstance(players, int) or isinstance(players, bool):
        raise ConfigError(f"players must be 3..6, got {players!r}")
    rounds, round_list = values["rounds"], str(values["round_list"]).strip()
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
        raise ConfigError(f"rounds must be a round size >= 1 (or 0: round_list), got {rounds!r}")
    if rounds and round_list != "all":
        raise ConfigError(f"give rounds ({rounds}) or round_list ({round_list}), not both")
    table = players if isinstance(players, int) and MIN_PLAYERS <= players <= MAX_PLAYERS else MIN_PLAYERS
    sizes = (rounds,) if rounds else None if round_list == "all" else parse_rounds(round_list.replace(";", ","), table)
    first = values["first_dealer"]
    if not isinstance(first, int) or isinstance(first, bool):
        raise ConfigError(f"first_dealer must be a seat, or -1 to draw, got {first!r}")
    return Rules(players, sizes, str(values["bidding"]), str(values["even_bids"]), "draw" if first == -1 else first)


def canonical_parameters(rules: Rules, params: dict) -> dict:
    """The parameters as the game's string shows them, in a form OpenSpiel reads back
    (serialization): it reads a value of digits and dashes (1-5) as a number and splits at
    commas, so a round list is written 1;2;3;4;5 and a single round as rounds."""
    full = rules.round_sizes == Rules(rules.players).round_sizes
    single = len(rules.round_sizes) == 1 and not full
    return {
        **params,
        "rounds": rules.round_sizes[0] if single else 0,
        "round_list": "all" if full or single else ";".join(str(size) for size in rules.round_sizes),
    }


def game_info(rules: Rules) -> pyspiel.GameInfo:
    n = rules.players
    chance_steps = sum(n * size + (1 if n * size < N_CARDS else 0) for size in rules.round_sizes)
    decisions = sum(1 + n + n * size for size in rules.round_sizes)  # trump, bids, cards
    return pyspiel.GameInfo(
        num_distinct_actions=N_ACTIONS,
        max_chance_outcomes=N_CARDS,
        num_players=n,
        min_utility=float(-POINTS_PER_TRICK * sum(rules.round_sizes)),
        max_utility=float(sum(EXACT_BID_BONUS + POINTS_PER_TRICK * size for size in rules.round_sizes)),
        utility_sum=None,
        max_game_length=chance_steps + decisions + 1,  # + the first-dealer draw
    )


class OpenSpielWizardGame(pyspiel.Game):
    """python_wizard: players 3..6, bidding, even_bids, rounds, first_dealer (docs/openspiel.md)."""

    def __init__(self, params: dict | None = None) -> None:
        params = {**DEFAULT_PARAMETERS, **(params or {})}
        try:
            self.rules = rules_of(params)
        except ConfigError as error:
            raise ValueError(f"{SHORT_NAME}: {error}") from None
        super().__init__(_GAME_TYPE, game_info(self.rules), canonical_parameters(self.rules, params))
        self.state_api_game = WizardGame(self.rules, explicit_chance=True)

    def new_initial_state(self) -> OpenSpielWizardState:
        return OpenSpielWizardState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> WizardObserver:
        return WizardObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class OpenSpielWizardState(pyspiel.State):
    """One game of python_wizard: `state_api`, the state API's state of the game (explicit
    chance). `record` is the kernels' GAME_STATE_DTYPE state."""

    def __init__(self, game: OpenSpielWizardGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self._rounds_text: tuple[str, ...] = ()  # the finished rounds, public once over (information states)
        self.state_api: WizardState = game.state_api_game.new_state()
        # Since the last player action (OpenSpiel reads rewards at decision nodes, so the
        # deal's chance events keep them): a round's scores once it is over.
        self._rewards = [0.0] * self.rules.players

    @property
    def record(self) -> np.record:
        return self.state_api.record

    @property
    def storage(self) -> np.ndarray:
        """The one-record GAME_STATE_DTYPE array that kernels.chance_state's functions take."""
        return self.state_api.storage

    # --- OpenSpiel's state API ------------------------------------------------------------

    def current_player(self) -> int:
        return self.state_api.current_player()  # CHANCE_PLAYER and TERMINAL_PLAYER are OpenSpiel's ids

    def _legal_actions(self, player: int) -> list[int]:
        return self.state_api.legal_actions()  # OpenSpiel asks for the player to act only

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.state_api.chance_outcomes()

    def apply_action(self, action: int) -> None:
        """OpenSpiel's apply_action, the action checked first as every driver checks it
        (sim.config.actions: the same inputs refused with the same error as the state API's)."""
        super().apply_action(check_action(action))

    def _apply_action(self, action: int) -> None:
        chance = self.state_api.is_chance_node()
        rounds = len(self.state_api.history)
        self.state_api.apply_action(action)  # an illegal action or outcome raises ValueError naming it
        if chance:
            return
        self._rewards = [0.0] * self.rules.players
        if len(self.state_api.history) != rounds:  # the action ended a round
            self._rounds_text = self._rounds_text + (finished_round_text(self.storage),)
            self._rewards = [float(score) for score in self.state_api.history[-1]["scores"]]

    def _action_to_string(self, player: int, action: int) -> str:
        # The card id too: the four Wizards (and Jesters) share their name.
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {format_card(action)} #{action}" if self.state_api.dealer_drawn else f"first dealer {action}"
        return f"{action_name(action)} #{action}"

    def is_terminal(self) -> bool:
        return self.state_api.is_terminal()

    def rewards(self) -> list[float]:
        """The points scored since the last player action: a round's scores after its last card."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        """The score pad's totals so far: the final scores once the game is over."""
        return self.state_api.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> OpenSpielWizardState:
        """A state with the same information state for `player_id` (the other seats' hands,
        and bids not shown to it, redrawn by kernels.chance_state.resample); the seed of our
        generator comes from `probability_sampler` (a callable returning a float in [0, 1))."""
        self._check_player(player_id)
        sampled = probability_sampler()
        if isinstance(sampled, (bool, np.bool_)) or not isinstance(sampled, (int, float, np.integer, np.floating)) \
                or not 0 <= sampled < 1:
            raise ValueError(f"probability_sampler must return a number in [0, 1), got {echo(sampled)}")
        return self.resample(player_id, np.array([int(sampled * 2.0**53)], dtype=np.uint64))

    def resample(self, player: int, generator: np.ndarray) -> OpenSpielWizardState:
        """resample_from_infostate with our generator (a one-element uint64 array, advanced).
        Both are checked here: the kernel indexes the seats by `player` and writes the generator."""
        self._check_player(player)
        if not (isinstance(generator, np.ndarray) and generator.dtype == np.uint64 and generator.shape == (1,)
                and generator.flags.writeable):
            shape = getattr(generator, "shape", None)
            raise ValueError(f"generator must be a one-element uint64 array (written to), got {echo(generator)}"
                             + (f" of {generator.dtype} and shape {shape}" if shape is not None else ""))
        state = self.clone()
        if self.is_chance_node() or self.is_terminal():
            return state  # between the deal's chance events the hands are the chance node's
        chance_state.resample(state.storage, int(player), generator)
        return state

    def _check_player(self, player: object) -> None:
        if not (is_whole_number(player) and 0 <= player < self.rules.players):
            raise ValueError(f"player must be a seat 0..{self.rules.players - 1}, got {echo(player)}")

    def __str__(self) -> str:
        table = self.record["workspace"]["table"]
        seats = self.record["workspace"]["seats"]
        if self.is_terminal():
            totals = " ".join(str(int(t)) for t in table["totals"][: self.rules.players])
            return f"game over after {len(self.rules.round_sizes)} rounds; totals {totals}"
        lines = [f"round {int(self.record['round_index']) + 1} of {len(self.rules.round_sizes)}: "
                 f"{int(table['round_size'])} cards, dealer {int(table['dealer'])}"]
        for seat in range(self.rules.players):
            lines.append(f"seat {seat}: [{format_hand(int(seats[seat]['hand']))}] bid {int(seats[seat]['bid'])} "
                         f"tricks {int(table['tricks'][seat])} total {int(table['totals'][seat])}")
        return "\n".join(lines)


def finished_round_text(storage: np.ndarray) -> str:
    """A finished round as every seat knows it once it is over (every dealt card is played and
    every bid shown): its size, dealer, turned-up card, trump, bids, and the cards in order
    (the round's summary and play log, which beginning the next round leaves as they are)."""
    summary = storage["last_round"][0]
    plays = storage["workspace"]["plays"][0]
    n = int(storage["rules"]["n_players"][0])
    size = int(summary["round_size"])
    turned = int(summary["round"]["trump_card"])
    bids = " ".join(str(int(b)) for b in summary["seats"]["bid"][:n])
    cards = " ".join(f"{int(p['seat'])}:{format_card(int(p['card']))}" for p in plays[: n * size])
    return (f"round of {size}, dealer {int(summary['round']['dealer'])}, turned "
            f"{format_card(turned) if turned >= 0 else '-'}, trump {int(summary['round']['trump'])}, bids {bids}, "
            f"cards {cards}")


class WizardObserver:
    """The PyObserver of python_wizard: the tensor is the seat's observation vector
    (kernels/observation.py, docs/env.md), the same for the observation and the information
    state; the information state string adds the finished rounds (public once over) to it."""

    def __init__(self, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"{SHORT_NAME} observations take no parameters; got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(f"{SHORT_NAME} provides a seat's own observation only (public and private information)")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {
            name: self.tensor[OBSERVATION_OFFSETS[name] : OBSERVATION_OFFSETS[name] + size]
            for name, size, *_ in OBSERVATION_FIELDS
        }

    def set_from(self, state: OpenSpielWizardState, player: int) -> None:
        np.copyto(self.tensor, state.state_api.observation(player))

    def string_from(self, state: OpenSpielWizardState, player: int) -> str:
        self.set_from(state, player)
        text = observation_text(self.tensor)
        if self.perfect_recall and state._rounds_text:
            return " | ".join(state._rounds_text) + " | " + text
        return text


def observation_text(vector: np.ndarray) -> str:
    """One line of an observation vector, field by field (docs/env.md's layout): the entries
    that are not zero, a card as its name and id (the four Wizards and four Jesters share a
    name), a count as index:value; two observations have the same text only if equal."""
    parts = []
    for name, size, _, high, _ in OBSERVATION_FIELDS:
        values = vector[OBSERVATION_OFFSETS[name] : OBSERVATION_OFFSETS[name] + size]
        hot = np.flatnonzero(values)
        if name in CARD_FIELDS:
            items = [f"{format_card(int(i) % N_CARDS)}#{int(i)}" for i in hot]
        elif high == 1:
            items = [str(int(i)) for i in hot]
        else:
            items = [f"{int(i)}:{int(values[i])}" for i in hot]
        parts.append(f"{name}={','.join(items)}")
    return " ".join(parts)


# Fields indexed by card id (per seat: seat * 60 + card).
CARD_FIELDS = frozenset({"hand", "turned_up", "current_trick", "played_by", "card_trick"})


pyspiel.register_game(_GAME_TYPE, OpenSpielWizardGame)
