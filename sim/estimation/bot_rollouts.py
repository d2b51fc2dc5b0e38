"""estimate's samples with Python policies at the table (docs/estimate.md, "Python policies"):
the driver sim.estimation.run hands them to.

The samples are estimated a slice at a time, in two stages, both batched over the slice:

1. Deals. Each sample's deal comes from the posterior sampler (kernels.search.posterior) for the
   seats the kernels model and, when an earlier bidder (or the dealer's trump choice) is
   modelled by a Python policy, by rejection on that bot's own answer: a deal proposed by the
   sampler (which leaves that seat's hand uniform) is kept with probability
   l(bot's answer on the sampled hand), the acceptance the posterior gives the heuristic's
   answer in the same place (kernels.search.posterior: the exact model's 0/1, or the tolerant
   model's spread and trump_miss); otherwise the sample proposes again, from its own stream.
   A pass proposes deals for every pending sample; each such seat's bot is asked, in one
   call, about those the seats before it kept.
2. Rollouts. Every kept sample is played once per candidate bid (kernels.estimate.stepped): the
   built-in seats inside the kernels, a Python seat's decisions by its bot, one call per bot
   per step over every rollout waiting for it (their turns exchanged as the Python-seat pool
   exchanges its games': BotTable.ask_turns).

A sample is a pure function of the seed, its index and the bots' answers, so a deterministic
bot gives the same estimate whatever the threads and the slicing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from kernels.estimate import proposals as proposal_kernels
from kernels.estimate import stepped
from kernels import observation as obs
from kernels import game_state
from kernels.records import DECIDE_BID, DECIDE_TRUMP, MAX_PLAYERS, NO_SEAT
from sim.config.errors import BotError, ConfigError
from kernels.blocks import NO_FAILURE
from sim.policies.registry import Policy, fallback_of
from sim.policies.python_protocol import DECISION_NAMES, DELEGATE, Decisions
from sim.engine.bot_caller import BotTable, new_turns
from sim.engine.calls import call_kernel
from sim.engine.seating import Seating

ROLLOUTS_PER_BATCH = 4096  # rollouts stepped together (about 30 MB of states and observations)
PROPOSALS_PER_PASS = 8192  # deals proposed in one pass (a bot is asked about those still kept)
INFERENCE_GAME_STRIDE = 1 << 15  # > any sample's proposals (kernels.search.posterior's cap is 20,000)
# Below this many rollouts (or proposals) per thread a batch runs on the calling thread: waking
# the thread pool costs about a millisecond on a busy machine (as sim.env.VectorEnv).
PARALLEL_MIN_PER_THREAD = 64


def batch_kernel(parallel, serial, n: int):
    """The parallel kernel for a batch of n items, or its serial form for a small batch."""
    threads = numba.get_num_threads()
    return parallel if threads > 1 and n >= PARALLEL_MIN_PER_THREAD * threads else serial


def rollout_games(samples: np.ndarray, columns: np.ndarray, candidates: int) -> np.ndarray:
    """The game id a bot is told for the rollout of sample i bidding candidates[k]:
    i x (number of candidates) + k."""
    return samples * candidates + columns


def inference_games(samples: np.ndarray, attempts: np.ndarray) -> np.ndarray:
    """The game id a bot is told for the a-th deal proposed for sample i (inference):
    -1 - (i x 2^15 + a), negative so that it never names a rollout."""
    return -1 - (samples * INFERENCE_GAME_STRIDE + attempts)


@dataclass(frozen=True)
class BotInference:
    """How the deals are drawn. sampler_model: the posterior's model of the seats (the
    evaluated ones uninformative); likelihood: a POSTERIOR_WORK_DTYPE storage whose tables
    give the acceptance of each answer of the evaluated seats; fallback: (policy ids,
    parameter rows) answering for an evaluated seat when its bot delegates; evaluated: the
    seats whose observed decision (DECIDE_BID or DECIDE_TRUMP) a bot answers."""

    infer: bool
    sampler_model: np.ndarray
    likelihood: np.ndarray
    fallback: tuple[np.ndarray, np.ndarray]
    evaluated_seats: np.ndarray
    evaluated_decisions: np.ndarray
    max_proposals: int

    def acceptance_table(self) -> np.ndarray:
        """float [m, N_ACTIONS]: the acceptance of each flat answer of evaluated seat j."""
        work = self.likelihood[0]
        table = np.zeros((self.evaluated_seats.shape[0], obs.N_ACTIONS))
        for j, (seat, decision) in enumerate(zip(self.evaluated_seats, self.evaluated_decisions)):
            if decision == DECIDE_BID:
                table[j, obs.ACTION_BID0 : obs.ACTION_BID0 + obs.N_BIDS] = work["bid_weight"][seat]
            else:
                table[j, obs.ACTION_SUIT0 : obs.ACTION_SUIT0 + 4] = work["trump_weight"][seat]
        return table


@dataclass
class SampleDeals:
    hands: np.ndarray  # int64 [n, MAX_PLAYERS]
    weights: np.ndarray
    proposals: np.ndarray


class BotEstimate:
    """Fills estimate's results (tricks, weights, proposals) for samples in slices."""

    def __init__(self, seed: int, records: tuple[np.ndarray, np.ndarray], policies: list[Policy],
                 candidates: np.ndarray, inference: BotInference) -> None:  # fmt: skip
        self.seed = seed
        self.rules_record, self.situation_record = records
        self.policies = policies
        self.seating = Seating.of(policies)  # once: every kernel call shares its engine
        self.candidates = candidates
        self.inference = inference
        self.seat = int(self.situation_record["seat"][0])
        self.round_size = int(self.situation_record["round_size"][0])
        self.players = int(self.rules_record["n_players"][0])
        # Here a listed policy is a seat: bots.bot_of_listed[seat] is the seat's bot (-1: none).
        self.bots = BotTable(self.seating)
        self.asks = self.seating.asked  # per seat: the decision kinds its bot is asked (DECIDE_* bits)
        self.acceptance = inference.acceptance_table()
        m = inference.evaluated_seats.shape[0]
        self.asked = np.zeros(m, dtype=np.int64)  # per evaluated seat: deals it was asked about
        self.kept_by_seat = np.zeros(m, dtype=np.int64)  # and kept (they order the seats)
        self.accepted = 0  # deals kept, over the run (they size the passes)
        self.attempted = 0  # deals proposed before each settled, over the run
        self.proposed = 0  # the sampler's proposals (incl. the bots' answers), over the run
        self.states = np.zeros(0, dtype=game_state.GAME_STATE_DTYPE)

    @property
    def samples_per_slice(self) -> int:
        return max(1, ROLLOUTS_PER_BATCH // self.candidates.shape[0])

    def run(self, results: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        tricks, weights, proposals = results
        total = weights.shape[0]
        for start in range(0, total, self.samples_per_slice):
            stop = min(total, start + self.samples_per_slice)
            deals = self.deal(np.arange(start, stop, dtype=np.int64))
            weights[start:stop] = deals.weights
            proposals[start:stop] = deals.proposals
            kept = np.flatnonzero(deals.weights > 0)
            if kept.size:
                tricks[start + kept] = self.play(start + kept, deals.hands[kept])

    # --- deals ---------------------------------------------------------------------------

    def deal(self, samples: np.ndarray) -> SampleDeals:
        """Each sample's deal, its weight and the proposals it took."""
        n = samples.shape[0]
        m = self.inference.evaluated_seats.shape[0]
        deals = SampleDeals(np.zeros((n, MAX_PLAYERS), np.int64), np.zeros(n), np.zeros(n, np.int64))
        attempts = np.zeros(n, dtype=np.int64)  # deals proposed so far
        spent = np.zeros(n, dtype=np.int64)  # their proposals
        generators = np.zeros(n, dtype=np.uint64)
        pending = np.arange(n)
        while pending.size:
            p = pending.size
            k = 1 if m == 0 else self.proposals_per_sample(p)
            hands, weights, drawn, uniforms, fallback_states = self.propose(
                samples[pending], attempts[pending], generators, pending, k
            )
            if m == 0:  # nothing for a bot to answer: the sampler's deal is the sample's
                deals.hands[pending], deals.weights[pending] = hands[:, 0], weights[:, 0]
                deals.proposals[pending] = drawn[:, 0]
                break
            games = inference_games(samples[pending][:, None], attempts[pending][:, None] + np.arange(k))
            accepted = self.accepted_by_bots(
                games.ravel(), hands.reshape(p * k, MAX_PLAYERS), weights.ravel() > 0,
                uniforms.reshape(p * k, m), fallback_states.reshape(p * k, m),
            ).reshape(p, k)  # fmt: skip
            cumulative = spent[pending][:, None] + np.cumsum(drawn + m, axis=1)
            settled = accepted | (weights == 0) | (cumulative >= self.inference.max_proposals)
            first = settled.argmax(axis=1)
            done = settled.any(axis=1)
            rows, where = pending[done], first[done]
            chosen = np.flatnonzero(done)
            deals.hands[rows] = hands[chosen, where]
            deals.weights[rows] = np.where(accepted[chosen, where], weights[chosen, where], 0.0)
            deals.proposals[rows] = cumulative[chosen, where]
            used = np.where(done, cumulative[np.arange(p), first], cumulative[:, -1])
            self.proposed += int((used - spent[pending]).sum())
            self.accepted += int(accepted[chosen, where].sum())
            self.attempted += int(np.where(done, first + 1, k).sum())
            attempts[pending] += k
            spent[pending] = cumulative[:, -1]
            pending = pending[~done]
            self.give_up_if_hopeless()
        return deals

    def accepted_by_bots(self, games, hands, alive, uniforms, fallback_states) -> np.ndarray:
        """Whether each proposed deal (row) is kept: every evaluated seat's bot (or, where it
        delegates, its fallback) answers, on the seat's sampled hand, something whose
        acceptance exceeds the row's uniform number. Seat by seat, the least accepting
        first, only on the rows still kept (whatever the order, a row's verdict is the same)."""
        inference = self.inference
        records = (self.rules_record, self.situation_record)
        kept = alive.copy()
        for j in np.argsort(self.seat_acceptance, kind="stable"):
            rows = np.flatnonzero(kept)
            if not rows.size:
                break
            seat, decision = int(inference.evaluated_seats[j]), int(inference.evaluated_decisions[j])
            r = rows.size
            answers = proposal_kernels.Answers(
                observations=np.zeros((r, obs.OBSERVATION_SIZE), np.float32),
                masks=np.zeros((r, obs.N_ACTIONS), np.bool_),
                fallback=np.zeros(r, np.int64),
            )
            questions = proposal_kernels.Questions(hands[rows], np.ascontiguousarray(fallback_states[rows, j]))
            evaluated = proposal_kernels.Evaluated(seat, decision)
            kernel = batch_kernel(proposal_kernels.observe_decisions, proposal_kernels.observe_decisions_serial, r)
            failed = call_kernel(kernel, self.seating, records, inference.likelihood, inference.fallback, evaluated,
                                 questions, answers)  # fmt: skip
            if failed != NO_FAILURE:
                raise self.failure(seat, decision, f"a question of inference (game {int(games[rows[failed]])})")
            observations, masks, fallback = answers
            context = Decisions(games[rows], np.full(r, seat), np.full(r, decision), np.full(r, self.round_size))
            bot_of_row = np.full(r, self.bots.bot_of_listed[seat])
            answers = np.empty(r, dtype=np.int64)
            self.bots.ask(bot_of_row, (observations, masks, context), answers)
            # Each question is a game of one decision: over once answered (the pad unchanged).
            pad = np.tile(self.situation_record["totals"][0, : self.players].astype(np.int64), (r, 1))
            self.bots.games_over(bot_of_row, context.games, context.seats, pad)
            answers = np.where(answers == DELEGATE, fallback, answers)
            keep = uniforms[rows, j] < self.acceptance[j, answers]
            kept[rows] = keep
            self.asked[j] += r
            self.kept_by_seat[j] += int(keep.sum())
        return kept

    @property
    def seat_acceptance(self) -> np.ndarray:
        return (self.kept_by_seat + 1) / (self.asked + 2)

    def proposals_per_sample(self, pending: int) -> int:
        """Deals to propose at once for each pending sample: about twice the deals a sample
        needs at the acceptance seen so far, within PROPOSALS_PER_PASS deals (how many are
        proposed at once never changes which deal a sample keeps: the first one accepted)."""
        acceptance = (self.accepted + 1) / (self.attempted + 1)
        return int(np.clip(math.ceil(2 / acceptance), 1, max(1, PROPOSALS_PER_PASS // pending)))

    def propose(self, samples, attempts, generators, pending, k):
        """k proposals of each pending sample (kernels.estimate.proposals.propose_deals)."""
        inference = self.inference
        p, m = samples.shape[0], inference.evaluated_seats.shape[0]
        out = proposal_kernels.Proposals(
            hands=np.zeros((p, k, MAX_PLAYERS), np.int64),
            weights=np.zeros((p, k)),
            proposals=np.zeros((p, k), np.int64),
            uniforms=np.zeros((p, k, m)),
            fallback_states=np.zeros((p, k, m), np.uint64),
        )
        states = generators[pending]
        policy_ids, params = inference.fallback
        proposing = proposal_kernels.Proposing(inference.sampler_model, inference.infer, policy_ids, params, m)
        kernel = batch_kernel(proposal_kernels.propose_deals, proposal_kernels.propose_deals_serial, p * k)
        call_kernel(kernel, self.seating, self.seed, (self.rules_record, self.situation_record), proposing,
                    proposal_kernels.Pending(samples, attempts, states), out)  # fmt: skip
        generators[pending] = states
        return out

    def give_up_if_hopeless(self) -> None:
        """The exact model with a bid the bots never make on any deal: stop after the
        sampler's cap of proposals has been spent without one deal kept."""
        if not self.accepted and self.proposed >= self.inference.max_proposals:
            raise ConfigError(
                f"no deal of the unseen cards fits the earlier bids (or the dealer's trump choice) under the "
                f"opponent model: {self.proposed:,} deals proposed, none kept (a Python policy's answers on the "
                "sampled hands never matched what was shown); use the tolerant model (spread > 0; docs/estimate.md, "
                '"Unknown opponents")'
            )

    # --- rollouts --------------------------------------------------------------------------

    def rollout_states(self, n: int) -> np.ndarray:
        """n GAME_STATE records set up for the rules and the seated (fallback) policies."""
        if self.states.shape[0] < n:
            self.states = np.zeros(n, dtype=game_state.GAME_STATE_DTYPE)
            round_sizes = np.array([self.round_size], dtype=np.int64)
            # The caller answers the decision kinds asks[seat] has: the states' controlled bits.
            game_state.init_states(self.states, self.rules_record, self.seating.arrays, self.seed,
                                   round_sizes, self.asks, 0)  # fmt: skip
        return self.states[:n]

    def play(self, samples: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """int8 [len(samples), candidates]: the seat's tricks in each rollout."""
        k = self.candidates.shape[0]
        n = samples.shape[0] * k
        states = self.rollout_states(n)
        rollout_samples = np.repeat(samples, k)
        columns = np.tile(np.arange(k, dtype=np.int64), samples.shape[0])
        games = rollout_games(rollout_samples, columns, k)
        turns = new_turns(n)
        rollouts = stepped.Rollouts(self.seed, rollout_samples, games, self.candidates[columns], np.repeat(hands, k, axis=0))
        start = batch_kernel(stepped.start_rollouts, stepped.start_rollouts_serial, n)
        failed = call_kernel(start, self.seating, states, rollouts, self.situation_record, turns)
        self.check_rollouts(failed, states, rollout_samples, games)
        while True:
            waiting = turns.seats != NO_SEAT
            if not waiting.any():
                break
            # A rollout that is over is not asked (-1); the kernel applies the others' answers
            # (DELEGATE included: the seated fallback decides).
            bot_of_row = np.where(waiting, self.bots.bot_of_listed[turns.seats], -1)
            # The context's seats and kinds are copies: a bot may keep them (the answers are
            # still written to turns.answers).
            asked = turns._replace(seats=turns.seats.copy(), kinds=turns.kinds.copy())
            self.bots.ask_turns(bot_of_row, games, asked)
            step = batch_kernel(stepped.step_rollouts, stepped.step_rollouts_serial, n)
            failed = call_kernel(step, self.seating, states, turns)
            self.check_rollouts(failed, states, rollout_samples, games)
        summary = states["last_round"]
        bot_seats = np.flatnonzero(self.asks)
        self.bots.games_over(
            self.bots.bot_of_listed[np.tile(bot_seats, n)],
            np.repeat(games, bot_seats.size),
            np.tile(bot_seats, n),
            np.repeat(summary["seats"]["total"][:, : self.players].astype(np.int64), bot_seats.size, axis=0),
        )
        return summary["seats"]["tricks"][:, self.seat].reshape(samples.shape[0], k).astype(np.int8)

    def check_rollouts(self, failed: int, states: np.ndarray, samples: np.ndarray, games: np.ndarray) -> None:
        """A seated policy failed in rollout `failed` (NO_FAILURE: none), which stays at the
        failing decision: one BotError line naming it."""
        if failed == NO_FAILURE:
            return
        state = states[failed : failed + 1]
        seat = int(game_state.to_act_single(state))
        decision = int(state["workspace"]["table"]["phase"][0])
        where = f"sample {int(samples[failed])} of the estimate (game {int(games[failed])})"
        raise self.failure(seat, decision, where)

    def failure(self, seat: int, decision: int, where: str) -> BotError:
        """A built-in policy (a Python policy's fallback) or a numba bot failed at `seat`."""
        policy = self.policies[seat]
        who = policy.label
        if policy.kind.python is not None:
            who = f"{policy.label}'s fallback {fallback_of(policy).label}"
        labels = ", ".join(dict.fromkeys(p.label for p in self.policies))
        return BotError(
            f"a policy failed: {who} (seat {seat}, {DECISION_NAMES[decision]} decision) in {where}, round of "
            f"{self.round_size} card{'s' if self.round_size != 1 else ''} (policies: {labels})"
        )


def evaluated_decisions(policies: list[Policy], position: int, bids_seen: bool, wizard_turned: bool):
    """(seats, decisions): the other seats whose decision the seat saw (an earlier bid when
    bids are shown, the dealer's trump choice after a turned-up Wizard) and a Python policy
    answers (it takes that kind of decision). In estimate's layout seat = bidding position
    and the dealer is the last seat."""
    dealer = len(policies) - 1
    seats, decisions = [], []
    for seat, policy in enumerate(policies):
        bot = policy.kind.python
        if bot is None or seat == position:
            continue
        if bids_seen and seat < position and DECIDE_BID in bot.decisions:
            seats.append(seat)
            decisions.append(DECIDE_BID)
        elif wizard_turned and seat == dealer and DECIDE_TRUMP in bot.decisions:
            seats.append(seat)
            decisions.append(DECIDE_TRUMP)
    return np.array(seats, dtype=np.int64), np.array(decisions, dtype=np.int64)
