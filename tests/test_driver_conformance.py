"""The conformance test every driver that steps a game from Python passes (pgx's api_test):
the state API (chance drawn from the seed, and explicit chance), OpenSpiel's python_wizard,
PettingZoo, Gymnasium, VectorEnv (every seat the caller's, and one seat against built-in
opponents) and `play`'s session.

Each driver is wrapped by a small adapter (below) that starts game `game` of run `seed` and
answers: the seat the caller decides for, its observation and legal mask, apply, clone, the
final totals and the rewards it paid. The checks:

- legal actions are nonempty, a bool mask over the 85 actions, at every decision;
- an action of the space that is not legal raises ValueError naming it, leaving the game as it
  was; what is not an action at all raises ActionError; a whole numpy integer is an action;
- clone gives an equal state that moves on independently (the drivers that have one);
- run_games' games, replayed: the caller answers every decision it is asked with run_games'
  bid, trump and card (random and heuristic seats), each legal when asked, the caller's cards
  in run_games' order (every card, for the drivers whose caller plays every seat, and for
  `play`, which shows every move), each bid asked once, terminal returns and the rewards paid
  equal to run_games' totals;
- the observation at every decision is the state API's at the same decision, byte for byte.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import sim
from helpers import cards_of
from kernels.cards import N_CARDS
from kernels.observation import ACTION_BID0, ACTION_CARD0, ACTION_SUIT0, N_ACTIONS, OBSERVATION_SIZE
from kernels.records import DECIDE_BID, DECIDE_CARD, DECIDE_TRUMP
from sim.config.actions import ActionError
from sim.play.session import Move, PlayConfig, PlaySession
from sim.env import VectorEnv, WizardGame, field

CALLER = 1  # the seat of the drivers whose caller plays one seat (built-in policies the others)
NOT_ACTIONS = [60.0, "60", 60.5, True, np.bool_(True), np.uint64(2**64 - 1), 2**70, -1, 85, None, [60]]


def table_policies(players: int) -> list[str]:
    """run_games' seats: random and heuristic alternating, heuristic at CALLER. heuristic draws
    no random number, so a caller answering in its place leaves the DECISIONS stream where
    run_games has it, and random seats inside a driver draw what they drew in run_games."""
    return ["random" if seat % 2 == 0 else "heuristic" for seat in range(players)]


# --- the adapters ----------------------------------------------------------------------------


class Driver:
    """A driver at one game. `seats`: the seats its caller decides (the others are played by
    built-in policies inside it). `paid`: rewards summed per seat it pays them to."""

    seats: tuple[int, ...]
    sees_every_move = False  # whether `moves` holds every seat's moves, not only the caller's

    def __init__(self, rules: sim.Rules, seed: int, game: int) -> None:
        self.rules = rules
        self.paid: dict[int, float] = {}
        self.moves: list[tuple[int, int]] = []  # (seat, flat action) shown (sees_every_move: every seat's)

    def to_act(self) -> int | None:
        raise NotImplementedError

    def observation(self) -> np.ndarray:
        raise NotImplementedError

    def legal(self) -> np.ndarray:
        raise NotImplementedError

    def apply(self, action) -> None:
        raise NotImplementedError

    def clone(self) -> Driver | None:
        return None  # the driver has no clone

    def returns(self) -> list[float]:
        raise NotImplementedError


class StateAPI(Driver):
    def __init__(self, rules, seed, game, state=None):
        super().__init__(rules, seed, game)
        self.seats = tuple(range(rules.players))
        self.state = state if state is not None else WizardGame(rules).new_state(seed, game)

    def to_act(self):
        return None if self.state.is_terminal() else self.state.current_player()

    def observation(self):
        return self.state.observation(self.state.current_player())

    def legal(self):
        return self.state.legal_action_mask()

    def apply(self, action):
        seat = self.state.current_player()
        self.state.apply_action(action)
        self.moves.append((seat, int(action)))

    def clone(self):
        copy = StateAPI(self.rules, 0, 0, self.state.clone())
        copy.moves = list(self.moves)
        return copy

    def returns(self):
        return self.state.returns()


class ExplicitChance(Driver):
    """The state API with explicit chance, its chance events given from run_games' deal of the
    game (the deal does not depend on the policies) as soon as the state is at one."""

    def __init__(self, rules, seed, game, state=None, chance=None):
        super().__init__(rules, seed, game)
        self.seats = tuple(range(rules.players))
        if state is not None:
            self.state, self._chance = state, chance
            return
        self._chance = iter(deal_as_chance_events(rules, seed, game))
        self.state = self.new_state(rules, seed, game)
        self._deal()

    def new_state(self, rules, seed, game):
        return WizardGame(rules, explicit_chance=True).new_state(seed, game)

    def _deal(self):
        while self.state.is_chance_node():
            outcome = next(self._chance)
            assert outcome in [action for action, _ in self.state.chance_outcomes()]
            self.state.apply_action(outcome)

    def to_act(self):
        return None if self.state.is_terminal() else self.state.current_player()

    def observation(self):
        return self.state.observation(self.state.current_player())

    def legal(self):
        mask = np.zeros(N_ACTIONS, dtype=np.bool_)
        mask[self.state.legal_actions()] = True
        return mask

    def apply(self, action):
        seat = self.state.current_player()
        self.state.apply_action(action)
        self.moves.append((seat, int(action)))
        self.pay()
        self._deal()

    def pay(self) -> None:
        pass  # the state API pays no rewards

    def clone(self):
        chance = list(self._chance)
        self._chance = iter(chance)
        copy = type(self)(self.rules, 0, 0, self.state.clone(), iter(chance))
        copy.moves, copy.paid = list(self.moves), dict(self.paid)
        return copy

    def returns(self):
        return self.state.returns()


class OpenSpiel(ExplicitChance):
    """python_wizard, dealt as the state API with explicit chance is."""

    def __init__(self, rules, seed, game, state=None, chance=None):
        pytest.importorskip("pyspiel")
        super().__init__(rules, seed, game, state, chance)

    def new_state(self, rules, seed, game):
        import pyspiel

        import sim.openspiel  # noqa: F401  (registers python_wizard)

        first = -1 if rules.first_dealer == "draw" else rules.first_dealer
        parameters = {"players": rules.players, "round_list": ";".join(map(str, rules.round_sizes)),
                      "bidding": rules.bidding, "even_bids": rules.even_bids, "first_dealer": first}  # fmt: skip
        return pyspiel.load_game("python_wizard", parameters).new_initial_state()

    def observation(self):
        return np.array(self.state.observation_tensor(self.state.current_player()), dtype=np.float32)

    def pay(self) -> None:
        for player, reward in enumerate(self.state.rewards()):
            self.paid[player] = self.paid.get(player, 0.0) + reward


@functools.lru_cache(maxsize=None)
def deal_as_chance_events(rules: sim.Rules, seed: int, game: int) -> tuple[int, ...]:
    """The chance outcomes of game `game` of run `seed`: the first dealer (when drawn), then
    per round the hands in seat order and the turned-up card (when one is left)."""
    batch = sim.run_games(rules, "random", seed=seed, game_ids=np.array([game]))
    n = rules.players
    events = []
    if rules.first_dealer == "draw":
        events.append(int((batch.rounds[0, 0]["dealer"] - rules.round_sizes[0] + 1) % n))
    for k, size in enumerate(rules.round_sizes):
        for seat in range(n):
            events += cards_of(batch.seats[0, k, seat]["hand"])
        if n * size < N_CARDS:
            events.append(int(batch.rounds[0, k]["trump_card"]))
    return tuple(events)


class PettingZoo(Driver):
    def __init__(self, rules, seed, game):
        super().__init__(rules, seed, game)
        pytest.importorskip("pettingzoo")
        from sim.env import aec_env

        self.seats = tuple(range(rules.players))
        self.env = aec_env(players=rules.players, rounds=rules.round_sizes, bidding=rules.bidding,
                           even_bids=rules.even_bids, first_dealer=rules.first_dealer, reward="round")  # fmt: skip
        self.env.reset(seed=seed)
        for _ in range(game):  # reset() plays the run's next game
            self.env.reset()

    def _agent(self) -> str:
        return self.env.agent_selection

    def to_act(self):
        if any(self.env.terminations.values()):
            return None
        return self.env.unwrapped.agent_name_mapping[self._agent()]

    def observation(self):
        return self.env.observe(self._agent())["observation"]

    def legal(self):
        return self.env.observe(self._agent())["action_mask"].astype(np.bool_)

    def apply(self, action):
        seat = self.to_act()
        self.env.step(action)
        self.moves.append((seat, int(action)))
        for agent, reward in self.env.rewards.items():
            seat_of = self.env.unwrapped.agent_name_mapping[agent]
            self.paid[seat_of] = self.paid.get(seat_of, 0.0) + reward

    def returns(self):
        return self.env.unwrapped.state_.returns()


class Gymnasium(Driver):
    """The learning seat CALLER against run_games' other seats, illegal actions raising."""

    def __init__(self, rules, seed, game):
        super().__init__(rules, seed, game)
        pytest.importorskip("gymnasium")
        from sim.env import gym_env

        self.seats = (CALLER,)
        self.env = gym_env(players=rules.players, rounds=rules.round_sizes, bidding=rules.bidding,
                           even_bids=rules.even_bids, first_dealer=rules.first_dealer, seat=CALLER,
                           opponents=table_policies(rules.players), reward="round", illegal_action="raise")  # fmt: skip
        self._observation, _ = self.env.reset(seed=seed)
        for _ in range(game):
            self._observation, _ = self.env.reset()
        self._over = False
        self._totals: list[float] = []

    def to_act(self):
        return None if self._over else CALLER

    def observation(self):
        return self._observation["observation"]

    def legal(self):
        return self._observation["action_mask"].astype(np.bool_)

    def apply(self, action):
        self._observation, reward, self._over, truncated, info = self.env.step(action)
        assert not truncated and not info["illegal_action"]
        self.moves.append((CALLER, int(action)))
        self.paid[CALLER] = self.paid.get(CALLER, 0.0) + reward
        if self._over:
            self._totals = [float(t) for t in info["final_totals"]]

    def returns(self):
        return self._totals


class Vector(Driver):
    """VectorEnv with one env at game `game`: the caller plays `seats`, run_games' policies the
    others. Rewards are paid to the seat that acted, so they add up to its total only when the
    caller plays one seat."""

    def __init__(self, rules, seed, game, seats=None):
        super().__init__(rules, seed, game)
        self.seats = seats if seats is not None else tuple(range(rules.players))
        self.env = VectorEnv(rules, 1, controlled_seats=self.seats, opponents=table_policies(rules.players),
                             seed=seed, first_game=game, reward="round", copy=True)  # fmt: skip
        self._observations, self._masks, self._info = self.env.reset()
        self._over = False
        self._totals: list[float] = []

    def to_act(self):
        return None if self._over else int(self._info["seat"][0])

    def observation(self):
        return self._observations[0]

    def legal(self):
        return self._masks[0]

    def apply(self, action):
        seat = self.to_act()
        self._observations, self._masks, rewards, terminated, _, self._info = self.env.step(np.array([action]))
        self.moves.append((seat, int(np.asarray(action))))
        if len(self.seats) == 1:
            self.paid[seat] = self.paid.get(seat, 0.0) + float(rewards[0])
        if terminated[0]:  # the env has started its next game: this one is over
            self._over = True
            self._totals = [float(t) for t in self._info["final_totals"][0]]

    def returns(self):
        return self._totals


class VectorOneSeat(Vector):
    def __init__(self, rules, seed, game):
        super().__init__(rules, seed, game, seats=(CALLER,))


class Session(Driver):
    """`play`'s session: the person at CALLER, run_games' policies at the other seats (asked
    by the session itself, every move shown)."""

    sees_every_move = True

    def __init__(self, rules, seed, game):
        super().__init__(rules, seed, game)
        self.seats = (CALLER,)
        others = [policy for seat, policy in enumerate(table_policies(rules.players)) if seat != CALLER]
        self.session = PlaySession(PlayConfig.build(rules, CALLER, others, seed, game))
        self._record(self.session.advance())

    def _record(self, events) -> None:
        first = {DECIDE_TRUMP: ACTION_SUIT0, DECIDE_BID: ACTION_BID0, DECIDE_CARD: ACTION_CARD0}
        self.moves += [(e.seat, first[e.decision] + e.answer) for e in events if isinstance(e, Move)]

    def to_act(self):
        return None if self.session.is_over() else CALLER

    def observation(self):
        return self.session.state.observation(CALLER)

    def legal(self):
        return self.session.state.legal_action_mask()

    def apply(self, action):
        self._record(self.session.answer(action))
        self._record(self.session.advance())

    def returns(self):
        return [float(t) for t in self.session.state.totals()]


DRIVERS = {
    "state_api": StateAPI,
    "state_api_explicit_chance": ExplicitChance,
    "openspiel": OpenSpiel,
    "pettingzoo": PettingZoo,
    "gymnasium": Gymnasium,
    "vector": Vector,
    "vector_one_seat": VectorOneSeat,
    "play_session": Session,
}
driver_names = pytest.mark.parametrize("name", DRIVERS)


# --- run_games' games, replayed ----------------------------------------------------------------

CONFIGS = [
    sim.Rules(4, (1, 2, 3, 5)),
    sim.Rules(3, (5, 20), bidding="hidden"),
    sim.Rules(5, (2, 4, 12), bidding="delayed", first_dealer=2),
    sim.Rules(6, (1, 10), even_bids="leader", first_dealer=5),
    sim.Rules(4, (3, 15), even_bids="forbidden"),  # 15 cards to 4 seats: no card turned up
]
SEED, GAMES = 11, 4


@functools.lru_cache(maxsize=None)
def run_games_of(rules: sim.Rules):
    return sim.run_games(rules, table_policies(rules.players), seed=SEED, games=GAMES, log_plays=True)


class RunGamesAnswers:
    """The caller answering as run_games' seats did in game g: asked for a decision it gives the
    seat's trump, bid or next card of that round (the round known from the observation)."""

    def __init__(self, rules: sim.Rules, g: int) -> None:
        self.rules, self.g = rules, g
        self.batch = run_games_of(rules)
        n = rules.players
        self.cards: dict[tuple[int, int], list[int]] = {}
        plays = list(zip(self.batch.plays["seat"][g].tolist(), self.batch.plays["card"][g].tolist()))
        start = 0
        for k, size in enumerate(rules.round_sizes):
            for seat, card in plays[start : start + n * size]:
                self.cards.setdefault((k, seat), []).append(card)
            start += n * size
        self.bids_asked: list[tuple[int, int]] = []

    def answer(self, seat: int, observation: np.ndarray, legal: np.ndarray) -> int:
        k = self.rules.round_sizes.index(int(np.flatnonzero(field(observation, "round_size"))[0]) + 1)
        first = int(np.flatnonzero(legal)[0])
        if first >= ACTION_SUIT0:
            return ACTION_SUIT0 + int(self.batch.rounds[self.g, k]["trump"])
        if first >= ACTION_BID0:
            self.bids_asked.append((k, seat))
            return ACTION_BID0 + int(self.batch.seats[self.g, k, seat]["bid"])
        return self.cards[(k, seat)].pop(0)


def replay(driver: Driver, answers: RunGamesAnswers) -> list[tuple[int, np.ndarray]]:
    """Play the driver's game to its end with run_games' answers; returns (seat, observation)
    of every decision it asked for. Checks the legal mask at each."""
    observed = []
    while (seat := driver.to_act()) is not None:
        assert seat in driver.seats
        observation, legal = np.array(driver.observation()), np.array(driver.legal())
        assert observation.shape == (OBSERVATION_SIZE,) and observation.dtype == np.float32
        assert legal.shape == (N_ACTIONS,) and legal.dtype == np.bool_ and legal.any()
        action = answers.answer(seat, observation, legal)
        assert legal[action], f"run_games' answer {action} of seat {seat} is not legal here"
        observed.append((seat, observation))
        driver.apply(action)
    return observed


@functools.lru_cache(maxsize=None)
def state_api_observations(rules: sim.Rules, g: int) -> tuple[tuple[int, bytes], ...]:
    """The state API's (seat, observation bytes) at every decision of game g: the reference."""
    observed = replay(StateAPI(rules, SEED, g), RunGamesAnswers(rules, g))
    return tuple((seat, observation.tobytes()) for seat, observation in observed)


@driver_names
@pytest.mark.parametrize("rules", CONFIGS, ids=lambda r: f"{r.players}p-{r.bidding}-{r.even_bids}-{r.first_dealer}")
def test_replays_run_games_bid_for_bid_and_card_for_card(name, rules):
    batch = run_games_of(rules)
    n = rules.players
    for g in range(GAMES):
        driver = DRIVERS[name](rules, SEED, g)
        answers = RunGamesAnswers(rules, g)
        observed = replay(driver, answers)
        seats = driver.seats
        every_card = list(zip(batch.plays["seat"][g].tolist(), batch.plays["card"][g].tolist()))
        shown = every_card if driver.sees_every_move else [(s, c) for s, c in every_card if s in seats]
        assert [(s, a) for s, a in driver.moves if a < ACTION_BID0] == shown
        assert sorted(answers.bids_asked) == sorted((k, s) for k in range(len(rules.round_sizes)) for s in seats)
        if driver.sees_every_move:
            bids = [[a - ACTION_BID0 for s2, a in driver.moves if s2 == s and ACTION_BID0 <= a < ACTION_SUIT0]
                    for s in range(n)]  # fmt: skip
            assert np.array_equal(np.array(bids).T, batch.seats["bid"][g])
        totals = batch.games["total"][g].astype(float).tolist()
        assert driver.returns() == totals
        assert driver.paid == {seat: totals[seat] for seat in driver.paid}
        reference = [(s, o) for s, o in state_api_observations(rules, g) if s in seats]
        assert [(s, o.tobytes()) for s, o in observed] == reference


# --- one decision's checks ---------------------------------------------------------------------

RULES = sim.Rules(3, (1, 4))


def some_decisions(driver: Driver, every: int = 3):
    """The driver at every `every`-th decision of a game played with the lowest legal action."""
    step = 0
    while driver.to_act() is not None:
        if step % every == 0:
            yield driver
        driver.apply(int(np.flatnonzero(driver.legal())[0]))
        step += 1


@driver_names
def test_an_illegal_action_raises_naming_it_and_changes_nothing(name):
    checked = 0
    for driver in some_decisions(DRIVERS[name](RULES, 2, 0)):
        seat, observation, legal = driver.to_act(), driver.observation().copy(), driver.legal().copy()
        illegal = int(np.flatnonzero(~legal)[checked % 5])
        with pytest.raises(ValueError, match=f"illegal action {illegal} "):
            driver.apply(illegal)
        assert driver.to_act() == seat
        assert np.array_equal(driver.observation(), observation) and np.array_equal(driver.legal(), legal)
        checked += 1
    assert checked >= 3


@driver_names
def test_what_is_not_an_action_is_refused_and_a_numpy_integer_is_one(name):
    driver = DRIVERS[name](RULES, 2, 0)
    for action in NOT_ACTIONS:
        with pytest.raises(ActionError):
            driver.apply(action)
    seat, action, moves = driver.to_act(), int(np.flatnonzero(driver.legal())[0]), len(driver.moves)
    driver.apply(np.int8(action))
    assert driver.moves[moves] == (seat, action)


@driver_names
def test_clone_is_equal_and_independent(name):
    driver = DRIVERS[name](RULES, 4, 1)
    if driver.clone() is None:
        pytest.skip(f"{name} has no clone")
    for original in some_decisions(driver, every=2):
        before = (original.to_act(), original.observation().copy(), original.legal().copy())
        copy = original.clone()
        assert (copy.to_act(), copy.observation().tobytes(), copy.legal().tobytes()) == (
            before[0], before[1].tobytes(), before[2].tobytes())  # fmt: skip
        copy.apply(int(np.flatnonzero(copy.legal())[-1]))
        while copy.to_act() is not None:  # the copy plays to the end
            copy.apply(int(np.flatnonzero(copy.legal())[-1]))
        assert (original.to_act(), original.observation().tobytes(), original.legal().tobytes()) == (
            before[0], before[1].tobytes(), before[2].tobytes())  # fmt: skip
