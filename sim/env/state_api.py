"""The state API (the OpenSpiel convention): one game, one decision at a time. Its state is the
one Python state over a game record, its chance events (the first dealer, the deal) drawn from
the seed as run_games draws them or, as an option, given one at a time by the caller
(explicit chance, kernels.chance_state). OpenSpiel's game (sim.openspiel, on explicit
chance), PettingZoo and `play`'s session (sim.play.session) are adapters over it."""
from __future__ import annotations

import functools

import numpy as np

from kernels import chance_state
from kernels import game_state as kernel
from kernels.cards import N_CARDS
from kernels.records import (
    DEALER_CHOOSES_TRUMP,
    FIRST_DEALER_DRAW,
    MAX_PLAYERS,
    NO_SEAT,
    PHASE_DEAL,
    PHASE_DONE,
    PHASE_PLAY,
)
from sim.config.actions import check_action
from sim.config.cards import format_card, format_hand
from sim.config.errors import ConfigError, echo
from sim.config.limits import MAX_GAMES, check_count
from sim.policies.registry import Policy, parse_policies
from sim.config.rules import Rules, is_whole_number
from sim.config.seeds import check_seed
from sim.engine.seating import Seating
from sim.engine.startup import start
from sim.env.layout import N_ACTIONS, OBSERVATION_SIZE, SUIT_NAMES, action_name, decode_observation

TERMINAL_PLAYER = -4
CHANCE_PLAYER = -1  # current_player() at a chance event of explicit chance (OpenSpiel's kChancePlayerId)
# last_round()'s per-seat lists: the fields of the round's seat result records.
SUMMARY_FIELDS = {"hands": "hand", "bids": "bid", "tricks": "tricks", "scores": "score", "totals": "total"}  # current_player() of a finished game (OpenSpiel's kTerminalPlayerId)


def environment_seating(policies: str | list[str] | list[Policy] | Seating, players: int) -> Seating:
    """The seating of an environment's built-in policies and learned models, whose engine its
    kernels are called through (Seating.kernel). Numba bots and Python policies are not
    supported by the environments."""
    if isinstance(policies, Seating):
        return policies
    if not (policies and isinstance(policies, list) and isinstance(policies[0], Policy)):
        policies = parse_policies(policies, players)
    if len(policies) != players:
        raise ConfigError(f"got {len(policies)} policies for {players} players")
    for policy in policies:
        if policy.kind.bot is not None or policy.kind.python is not None:
            raise ConfigError(f"the environments run built-in policies only, not the external bot {policy.label}")
    return Seating.of(policies)


@functools.lru_cache(maxsize=None)
def caller_seating(players: int) -> Seating:
    """The seating of a game whose caller plays every seat (the state API, OpenSpiel): its
    engine compiles only the cheap policies, which no seat is left to."""
    return environment_seating("random", players)


def new_game_states(
    rules: Rules,
    count: int,
    seed: int,
    *,
    policies: str | list[str] | list[Policy] | Seating = "random",
    controlled: tuple[int, ...] | None = None,
    game_stride: int = 1,
) -> np.ndarray:
    """`count` GAME_STATE_DTYPE records set up for `rules` (games not started yet), with
    `policies` seated (a seat the caller does not control is played by its policy: call the
    kernels through environment_seating(policies).kernel)."""
    start()  # every environment's states are made here, before its first kernel
    flags = np.zeros(MAX_PLAYERS, dtype=np.int64)
    flags[list(range(rules.players) if controlled is None else controlled)] = kernel.ALL_DECISIONS
    states = np.zeros(count, dtype=kernel.GAME_STATE_DTYPE)
    records = environment_seating(policies, rules.players).arrays
    kernel.init_states(states, rules.to_record(), records, seed, rules.round_sizes_array(), flags, game_stride)
    return states


class WizardGame:
    """A game of Wizard under `rules`; its states are games of run `seed`, indexed like
    run_games' games (`new_state(seed, game_index)`). With `explicit_chance` the caller gives
    the chance events instead: the first dealer (when the rules draw it), then before every
    round its cards one at a time, round_size to seat 0, then seat 1, ..., then the turned-up
    card when one is left (chance_outcomes() says which may come)."""

    def __init__(self, rules: Rules | None = None, explicit_chance: bool = False) -> None:
        self.rules = rules if rules is not None else Rules()
        self.explicit_chance = bool(explicit_chance)
        self.num_players = self.rules.players
        self.num_distinct_actions = N_ACTIONS
        self.observation_size = OBSERVATION_SIZE
        self.seating = caller_seating(self.rules.players)
        self.first_dealer = int(self.rules.to_record()["first_dealer"][0])
        if self.explicit_chance:
            # Every explicit-chance state starts from a copy of this record (OpenSpiel makes a
            # new state for every clone). A finished round waits at PHASE_DONE (`records`) for
            # the state to keep its summary and begin the next one, not dealt.
            self._chance_start = new_game_states(self.rules, 1, 0, policies=self.seating)
            self._chance_start["records"] = 1
            if self.first_dealer != FIRST_DEALER_DRAW:
                chance_state.open_game(self._chance_start, self.first_dealer)

    def new_state(self, seed: int = 0, game_index: int = 0) -> WizardState:
        """Game `game_index` of run `seed`; with explicit chance, a game not dealt yet (its
        seed and index name the game's DECISIONS streams only)."""
        seed = check_seed(seed)
        game_index = check_count(game_index, "game_index", 0, MAX_GAMES)
        if self.explicit_chance:
            storage = self._chance_start.copy()
            storage["seed"], storage["game"] = seed, game_index
            return WizardState(self, storage, dealer_drawn=self.first_dealer != FIRST_DEALER_DRAW)
        storage = new_game_states(self.rules, 1, seed, policies=self.seating)
        kernel.start_single(storage, game_index)
        return WizardState(self, storage)

    def __repr__(self) -> str:
        return f"WizardGame({self.rules!r}, explicit_chance={self.explicit_chance})"

    # A game is its rules and chance mode (the seating follows from them), never changed:
    # pickled as them and shared by a deep copy, with the state that holds it (OpenSpiel
    # pickles and clones its state's attributes).
    def __reduce__(self):
        return (WizardGame, (self.rules, self.explicit_chance))

    def __deepcopy__(self, memo: dict) -> WizardGame:
        return self


class WizardState:
    """One game in progress. Every seat is chosen by the caller (current_player() says whose
    turn it is); the cards come from the game's DEAL/DRAW streams and each round's DECISIONS
    stream is seeded as in run_games, so built-in policies asked through records() draw the
    same random numbers."""

    def __init__(self, game: WizardGame, storage: np.ndarray, dealer_drawn: bool = True) -> None:
        self.game = game
        self._storage = storage
        self.dealer_drawn = dealer_drawn  # whether the first dealer is known (explicit chance: once drawn)
        self.history: list[dict] = []  # one summary per finished round

    # --- records (for built-in policies and tests) ---------------------------------------

    @property
    def record(self) -> np.record:
        return self._storage[0]

    @property
    def storage(self) -> np.ndarray:
        """The one-record GAME_STATE_DTYPE array the kernels take (kernels.game_state's
        *_single functions, kernels.chance_state's)."""
        return self._storage

    def records(self) -> tuple[np.record, np.ndarray, np.ndarray]:
        """(public table record, seat records, the round's DECISIONS generator): views of the
        state, as a policy's decide takes them (pass seats[current_player()])."""
        workspace = self._storage["workspace"]
        return workspace["table"][0], workspace["seats"][0], workspace["scratch"]["generator"][0]

    @property
    def seed(self) -> int:
        return int(self._storage["seed"][0])

    @property
    def game_index(self) -> int:
        return int(self._storage["game"][0])

    def decision(self) -> int | None:
        """What the player to act decides: kernels.records.DECIDE_TRUMP/BID/CARD (None at the
        end and at a chance event)."""
        if self.is_terminal() or self.is_chance_node():
            return None
        return int(self._storage["workspace"]["table"]["phase"][0])

    # --- the OpenSpiel-style API ---------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act; CHANCE_PLAYER at a chance event, TERMINAL_PLAYER at the end."""
        if self.is_chance_node():
            return CHANCE_PLAYER
        seat = int(kernel.to_act_single(self._storage))
        return TERMINAL_PLAYER if seat == NO_SEAT else seat

    def is_terminal(self) -> bool:
        return bool(self._storage["over"][0])

    def is_chance_node(self) -> bool:
        """Whether a chance event is due (explicit chance only): the first dealer, or a card of
        the deal."""
        if not self.game.explicit_chance:
            return False
        storage = self._storage
        dealing = storage["workspace"]["table"]["phase"][0] == PHASE_DEAL
        return not storage["over"][0] and (not self.dealer_drawn or dealing)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) of the chance event due: the first dealer's seat (each seat
        with 1/players: every seat draws a card and the highest deals, ties drawing again,
        docs/rules.md §2), or the deal's next card, uniform over the cards not dealt yet."""
        if not self.is_chance_node():
            raise ValueError("no chance event is due")
        if not self.dealer_drawn:
            return [(seat, 1.0 / self.game.num_players) for seat in range(self.game.num_players)]
        mask = int(chance_state.deal_outcomes(self._storage))
        cards = [card for card in range(N_CARDS) if (mask >> card) & 1]
        return [(card, 1.0 / len(cards)) for card in cards]

    def legal_action_mask(self) -> np.ndarray:
        """Bool [N_ACTIONS]: the legal actions of the player to act (all False at the end; at a
        chance event, its outcomes)."""
        player = self.current_player()
        if player == TERMINAL_PLAYER:
            return np.zeros(N_ACTIONS, dtype=np.bool_)
        if player == CHANCE_PLAYER:
            mask = np.zeros(N_ACTIONS, dtype=np.bool_)
            mask[[outcome for outcome, _ in self.chance_outcomes()]] = True
            return mask
        return self._observe(player)[1]

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def apply_action(self, action: int) -> None:
        """Apply `action`, or at a chance event its outcome (sim.config.actions.check_action:
        ActionError if it is not an action; ValueError if the game is over or the action is
        not legal)."""
        action = check_action(action)
        if self.is_terminal():
            raise ValueError(f"the game is over; action {action} cannot be applied")
        if self.is_chance_node():
            self._apply_chance(action)
            return
        rounds_before = int(self._storage["rounds_ended"][0])
        status = self.game.seating.kernel(kernel.apply_single)(self._storage, action)
        if status != kernel.APPLIED:
            legal = ", ".join(str(a) for a in self.legal_actions())
            raise ValueError(
                f"illegal action {action} ({action_name(action)}) for seat {self.current_player()}; legal: {legal}"
            )
        if self.game.explicit_chance and self._storage["workspace"]["table"]["phase"][0] == PHASE_DONE:
            # The round is held (records): keep its summary, then begin the next one, not dealt.
            self.history.append(self.last_round())
            chance_state.end_round(self._storage)
        elif int(self._storage["rounds_ended"][0]) != rounds_before:
            self.history.append(self.last_round())

    def _apply_chance(self, outcome: int) -> None:
        if not self.dealer_drawn:
            if not outcome < self.game.num_players:
                raise ValueError(f"first dealer {outcome} is not a seat 0..{self.game.num_players - 1}")
            chance_state.open_game(self._storage, outcome)
            self.dealer_drawn = True
        elif chance_state.deal_card(self._storage, outcome) != 0:
            raise ValueError(f"card {outcome} is not in the deck")

    def last_round(self) -> dict:
        """The last finished round: size, dealer, turned-up card, trump, per seat dealt hand
        (a mask), bid, tricks, score and total after it."""
        summary = self._storage["last_round"][0]
        n = self.game.num_players
        seats = summary["seats"][:n]
        return {
            "round_size": int(summary["round_size"]),
            **{key: int(summary["round"][key]) for key in ("dealer", "trump_card", "trump")},
            **{key: [int(v) for v in seats[field]] for key, field in SUMMARY_FIELDS.items()},
        }

    def _observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        if not (is_whole_number(seat) and 0 <= seat < self.game.num_players):
            raise ValueError(f"seat must be 0..{self.game.num_players - 1}, got {echo(seat)}")
        observation = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        mask = np.empty(N_ACTIONS, dtype=np.bool_)
        kernel.observe_single(self._storage, int(seat), observation, mask)
        return observation, mask

    def observation(self, seat: int) -> np.ndarray:
        """Float32 [OBSERVATION_SIZE]: what `seat` may know (docs/env.md), seats relative to it."""
        return self._observe(seat)[0]

    def observation_dict(self, seat: int) -> dict:
        """The same observation in readable form (sim.env.decode_observation)."""
        return decode_observation(self.observation(seat))

    def totals(self) -> list[int]:
        return [int(t) for t in self._storage["workspace"]["table"]["totals"][0][: self.game.num_players]]

    def returns(self) -> list[float]:
        """Per seat: the score pad total (the final totals once the game is over)."""
        return [float(t) for t in self.totals()]

    def clone(self) -> WizardState:
        copy = WizardState(self.game, self._storage.copy(), self.dealer_drawn)
        copy.history = [dict(round_) for round_ in self.history]
        return copy

    def __deepcopy__(self, memo: dict) -> WizardState:
        # A clone is a deep copy (OpenSpiel deep-copies a state's attributes), without copy's
        # walk through every list of the history.
        return self.clone()

    def __str__(self) -> str:
        table, seats, _ = self.records()
        n = self.game.num_players
        trump_card = int(table["trump_card"])
        trump = int(table["trump"])
        trump_text = "dealer chooses" if trump == DEALER_CHOOSES_TRUMP else "none"
        trump_text = SUIT_NAMES[trump] if trump >= 0 else trump_text
        lines = [
            f"game {self.game_index} of seed {self.seed}: round of {int(table['round_size'])} cards, "
            f"dealer {int(table['dealer'])}, turned up {format_card(trump_card) if trump_card >= 0 else '-'}, "
            f"trump {trump_text}",
        ]
        for seat in range(n):
            bid = int(table["bids"][seat])
            lines.append(
                f"  seat {seat}: hand [{format_hand(int(seats[seat]['hand']))}] "
                f"bid {bid if bid >= 0 else '?'} tricks {int(table['tricks'][seat])} total {int(table['totals'][seat])}"
            )
        if int(table["phase"]) == PHASE_PLAY:
            cards = " ".join(format_card(int(c)) for c in table["trick_cards"][: int(table["n_in_trick"])])
            lines.append(f"  trick {int(table['trick'])} led by seat {int(table['leader'])}: [{cards}]")
        player = self.current_player()
        to_act = {TERMINAL_PLAYER: "game over", CHANCE_PLAYER: "chance to act"}.get(player, f"seat {player} to act")
        lines.append(f"  {to_act}")
        return "\n".join(lines)


def policy_action(state: WizardState, seating: Seating) -> int:
    """The flat action that the built-in policies of `seating` (one per seat; a Python
    policy's seat plays its fallback) seat at the player to act would choose
    in `state`, asked as run_games asks it (kernels.game_state.policy_answer, on the round's
    DECISIONS stream, which moves on: ask a clone to leave the game's stream as it is). Not
    applied. For `play` (sim.play.session); not part of the state API."""
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("no policy acts at the end of the game or at a chance event")
    return int(seating.kernel(kernel.policy_action_single)(state.storage, seating.arrays))
