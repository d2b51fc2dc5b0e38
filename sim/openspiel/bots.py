"""OpenSpiel's search bot as a Python policy: `openspiel:ismcts` (docs/openspiel.md).

At each decision the bot rebuilds, from its observation alone, the round as a python_wizard
state (one round of the observed size, the same dealer, bids, score pad and cards played, in
order; the other seats' unseen cards and unshown bids drawn by kernels.chance_state.resample)
and asks open_spiel.python.algorithms.ismcts.ISMCTSBot (information-set MCTS, random
rollouts) for an action, each simulation on a fresh redraw of what the seat has not seen (our
resampler). (OpenSpiel's MCTSBot needs a game with terminal rewards only; python_wizard
scores every round, so a determinized `openspiel:mcts` is not offered.)

The search maximises the seat's score at the end of the round (the search game is the one
round). Every random number comes from a generator seeded by the bot's `seed` parameter, the
game index, the seat and the observation, so a run is a pure function of its configuration
and seed.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kernels import chance_state
from kernels.cards import N_CARDS, NO_CARD
from kernels.observation import ACTION_BID0, ACTION_SUIT0, N_BIDS
from kernels.records import MAX_PLAYERS, MIN_PLAYERS, PHASE_BID, PHASE_TRUMP
from sim.env.layout import BIDDING_NAMES, EVEN_BIDS_NAMES, field
from sim.openspiel.game import OpenSpielWizardState

def _one_hot(vector: np.ndarray, name: str) -> int:
    return int(np.flatnonzero(field(vector, name))[0])


def _mask(bits: np.ndarray) -> int:
    mask = 0
    for card in np.flatnonzero(bits):
        mask |= 1 << int(card)
    return mask


def round_from_observation(observation: np.ndarray, generator: np.ndarray) -> OpenSpielWizardState:
    """A python_wizard state of the observed round consistent with everything the observing
    seat knows (docs/env.md's observation), its hidden part drawn by chance_state.resample."""
    n = MIN_PLAYERS + _one_hot(observation, "players")
    me = _one_hot(observation, "seat")
    size = _one_hot(observation, "round_size") + 1

    def absolute(relative: int) -> int:
        return (me + relative) % n

    dealer = absolute(_one_hot(observation, "dealer"))
    game = pyspiel.load_game(
        "python_wizard",
        {
            "players": n,
            "rounds": size,
            "bidding": BIDDING_NAMES[_one_hot(observation, "bidding")],
            "even_bids": EVEN_BIDS_NAMES[_one_hot(observation, "even_bids")],
            "first_dealer": (dealer - size + 1) % n,  # the dealer of round `size` in a full game
        },
    )
    state = game.new_initial_state()
    storage = state.storage
    table = storage["workspace"]["table"]
    played_by = field(observation, "played_by").reshape(MAX_PLAYERS, N_CARDS)
    bids = field(observation, "bids").reshape(MAX_PLAYERS, N_BIDS)
    totals = field(observation, "totals")
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    shown_bids = [None] * n
    for relative in range(n):
        seat = absolute(relative)
        table["totals"][0][seat] = int(totals[relative])  # the score pad before the round (even_bids=leader)
        hands[seat] = _mask(played_by[relative])  # others: the cards they played (the rest drawn below)
        if bids[relative].any():
            shown_bids[seat] = int(np.flatnonzero(bids[relative])[0])
    hands[me] |= _mask(field(observation, "hand"))
    turned = np.flatnonzero(field(observation, "turned_up"))
    chance_state.set_deal(storage, hands, int(turned[0]) if turned.size else NO_CARD)
    own_bid = np.flatnonzero(field(observation, "own_bid"))
    trump = np.flatnonzero(field(observation, "trump"))
    card_trick = field(observation, "card_trick")
    n_played = int(np.count_nonzero(card_trick))
    replayed = 0
    while True:
        player = state.current_player()
        phase = int(table["phase"][0])
        if phase == PHASE_TRUMP:  # the dealer named trump after a Wizard (known once named)
            if trump.size == 0:
                break
            state.apply_action(ACTION_SUIT0 + int(trump[0]))
        elif phase == PHASE_BID:
            if player == me:
                if own_bid.size == 0:
                    break
                bid = int(own_bid[0])
            else:
                # A bid not shown (hidden, delayed) is made 0 here and redrawn by resample.
                bid = shown_bids[player] if shown_bids[player] is not None else 0
            state.apply_action(ACTION_BID0 + bid)
        else:
            if replayed == n_played:
                break
            trick = int(table["trick"][0]) + 1
            relative = (player - me) % n
            card = next(c for c in np.flatnonzero(played_by[relative]) if int(card_trick[c]) == trick)
            state.apply_action(int(card))
            replayed += 1
    chance_state.resample(storage, me, generator)
    return state


def _seed(seed: float, games: int, seat: int, observation: np.ndarray) -> int:
    digest = hashlib.blake2b(observation.tobytes(), digest_size=8, key=f"{seed!r}:{games}:{seat}".encode()).digest()
    return int.from_bytes(digest, "little") & ((1 << 63) - 1)


class ISMCTS:
    """OpenSpiel's information-set MCTS (Python ISMCTSBot) with our resampler."""

    PARAMETERS = (("simulations", 100.0), ("uct_c", 20.0), ("rollouts", 1.0), ("seed", 0.0))
    COUNTS = ("simulations", "rollouts")
    RANGES = {"simulations": (1, 1_000_000), "rollouts": (1, 10_000)}  # at least one: refused below, not clamped
    DECISIONS = ("trump", "bid", "card")
    FALLBACK = "random"

    def __init__(self, simulations: float = 100.0, uct_c: float = 20.0, rollouts: float = 1.0, seed: float = 0.0):
        self.simulations = int(simulations)
        self.uct_c = float(uct_c)
        self.rollouts = int(rollouts)
        self.seed = seed

    def act_one(self, observation: np.ndarray, mask: np.ndarray, context) -> int:
        legal = np.flatnonzero(mask)
        if legal.size == 1:
            return int(legal[0])
        random_state = np.random.RandomState(_seed(self.seed, context.games, context.seats, observation) % (1 << 32))
        generator = np.array([random_state.randint(1 << 62)], dtype=np.uint64)
        state = round_from_observation(observation, generator)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)
        bot = ismcts.ISMCTSBot(
            state.get_game(), evaluator, self.uct_c, self.simulations, random_state=random_state,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(lambda root, player: root.resample(player, generator))
        return int(bot.step(state))

