"""The state API (the OpenSpiel convention): one game, one decision at a time."""
from __future__ import annotations

import functools

import numpy as np

from kernels import game_state as kernel
from kernels.records import DEALER_CHOOSES_TRUMP, MAX_PLAYERS, NO_SEAT, PHASE_PLAY
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
    run_games' games (`new_state(seed, game_index)`)."""

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules if rules is not None else Rules()
        self.num_players = self.rules.players
        self.num_distinct_actions = N_ACTIONS
        self.observation_size = OBSERVATION_SIZE
        self.seating = caller_seating(self.rules.players)

    def new_state(self, seed: int = 0, game_index: int = 0) -> WizardState:
        seed = check_seed(seed)
        game_index = check_count(game_index, "game_index", 0, MAX_GAMES)
        storage = new_game_states(self.rules, 1, seed, policies=self.seating)
        kernel.start_single(storage, game_index)
        return WizardState(self, storage)

    def __repr__(self) -> str:
        return f"WizardGame({self.rules!r})"


class WizardState:
    """One game in progress. Every seat is chosen by the caller (current_player() says whose
    turn it is); the cards come from the game's DEAL/DRAW streams and each round's DECISIONS
    stream is seeded as in run_games, so built-in policies asked through records() draw the
    same random numbers."""

    def __init__(self, game: WizardGame, storage: np.ndarray) -> None:
        self.game = game
        self._storage = storage
        self.history: list[dict] = []  # one summary per finished round

    # --- records (for built-in policies and tests) ---------------------------------------

    @property
    def record(self) -> np.record:
        return self._storage[0]

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
        """What the player to act decides: kernels.records.DECIDE_TRUMP/BID/CARD (None at the end)."""
        return None if self.is_terminal() else int(self._storage["workspace"]["table"]["phase"][0])

    # --- the OpenSpiel-style API ---------------------------------------------------------

    def current_player(self) -> int:
        seat = int(kernel.to_act_single(self._storage))
        return TERMINAL_PLAYER if seat == NO_SEAT else seat

    def is_terminal(self) -> bool:
        return bool(self._storage["over"][0])

    def legal_action_mask(self) -> np.ndarray:
        """Bool [N_ACTIONS]: the legal actions of the player to act (all False at the end)."""
        if self.is_terminal():
            return np.zeros(N_ACTIONS, dtype=np.bool_)
        return self._observe(self.current_player())[1]

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def apply_action(self, action: int) -> None:
        """Apply `action` (sim.config.actions.check_action: ActionError if it is not an action;
        ValueError if the game is over or the action is not legal)."""
        action = check_action(action)
        if self.is_terminal():
            raise ValueError(f"the game is over; action {action} cannot be applied")
        rounds_before = int(self._storage["rounds_ended"][0])
        status = self.game.seating.kernel(kernel.apply_single)(self._storage, action)
        if status != kernel.APPLIED:
            legal = ", ".join(str(a) for a in self.legal_actions())
            raise ValueError(
                f"illegal action {action} ({action_name(action)}) for seat {self.current_player()}; legal: {legal}"
            )
        if int(self._storage["rounds_ended"][0]) != rounds_before:
            self.history.append(self.last_round())

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
        copy = WizardState(self.game, self._storage.copy())
        copy.history = [dict(round_) for round_ in self.history]
        return copy

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
        lines.append("  game over" if player == TERMINAL_PLAYER else f"  seat {player} to act")
        return "\n".join(lines)


def policy_action(state: WizardState, seating: Seating) -> int:
    """The flat action that the built-in policies of `seating` (one per seat; a Python
    policy's seat plays its fallback) seat at the player to act would choose
    in `state`, asked as run_games asks it (kernels.game_state.policy_answer, on the round's
    DECISIONS stream, which moves on: ask a clone to leave the game's stream as it is). Not
    applied. For `play` (sim.play.session); not part of the state API."""
    if state.is_terminal():
        raise ValueError("the game is over; no policy acts")
    return int(seating.kernel(kernel.policy_action_single)(state._storage, seating.arrays))
