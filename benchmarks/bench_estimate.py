"""Bid estimation speed, and its calibration against self-play (docs/estimate.md, "Figures").

    python -m benchmarks.bench_estimate                 # speed tables
    python -m benchmarks.bench_estimate --json          # the same as one JSON object
    python -m benchmarks.bench_estimate --calibration   # estimate vs 4M games of self-play
    python -m benchmarks.bench_estimate --calibration --json

Every timed figure is a range (benchmarks/harness.py): --repeats estimates after --warmup, each
on new deals (seeds 0, 1, ...), their wall seconds and their CPU seconds on all threads (which
tell how much of the wall time other processes took on a shared box), effective samples (Kish),
acceptance and rates.

Speed, three parts:

1. Uniform deals (no earlier bids): 100k samples of a 10-card, 4-player hand on the warm
   kernels. Every sample deals the unseen cards once and plays the round for each of the 11
   candidate bids (0..10), so 100k samples are 1.1M rounds and 44M card plays. The seat bids
   first (position 0), the costliest position: all three opponents bid after it, again for
   every candidate. Target (issue): under 2 s warm on this 2-core machine.
2. Informative earlier bids: real situations taken from heuristic self-play (the deal of game
   0 of a 4-player game of one round of 1, 5 or 10 cards: the hand of the seat at bidding
   position 1, 2 or 3 and the bids the heuristic made before it), estimated with inference
   under the exact model (spread 0) and the tolerant one (spread 1), on all threads.
3. The headline figure: 100,000 effective samples of the 10-card hand after 3 earlier bids
   (exact model). A pilot run measures the ESS fraction; samples = 100,000 / fraction (+2%).
   Target: under 5 s warm on 2 cores.

--python: estimate with a numpy Python policy (NumpyModel below: a fixed linear score of the
observation per action, as a learned model would run, and a rule for its bids) next to the
built-in heuristic, on the same real deals (4 players, the seat bidding last after 3 earlier
bids, rounds of 1, 5 and 10 cards): the model as the opponents (its own bids on the deal,
inferred on under the exact and the tolerant model), and as the seat's own play. Samples/s
and effective samples/s, all threads.

--calibration: estimate's P(make 1) against the frequency of taking the trick in 4-player
round-1 heuristic self-play, per situation class (sim.estimation.calibration, which says what
it measures and how z is defined; experiments/regenerate_results.py publishes it as
results/calibration.json and .png). Not timed: --repeats and --warmup do not apply.
"""
from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numba
import numpy as np

import sim
from benchmarks.harness import Range, measure, parser, report, seconds
from kernels import observation as obs
from sim.config.cards import format_card, format_hand
from sim.env import WizardGame
from sim.engine.startup import start
from sim.estimation.calibration import calibration
from sim.estimation.results import BidEstimate
from sim.estimation.run import run_estimate

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

HAND = "W AS KH 7H JD 10D 4C 9S 2S J"
SITUATION = dict(trump="3H", players=4, position=0)
PLAYERS = 4
ROUND_SIZES = (1, 5, 10)
POSITIONS = (1, 2, 3)
SPREADS = (0.0, 1.0)
SITUATION_SEED = 5  # the self-play run whose game 0 gives the informative situations
HEADLINE_EFFECTIVE = 100_000


def timed_estimates(arguments: dict[str, Any], samples: int, repeats: int, warmup: int) -> dict[str, Any]:
    """`repeats` estimates of `arguments` with `samples` samples after `warmup`, seeds 0, 1, ...:
    the ranges of their wall and CPU seconds, ESS, acceptance and effective samples per second."""
    seeds = itertools.count()
    results: list[BidEstimate] = []
    cpu: list[float] = []

    def wall_seconds() -> float:
        began = time.process_time()  # CPU of the same call as the wall clock's figure
        wall = seconds(lambda: results.append(run_estimate(**arguments, samples=samples, seed=next(seeds))))
        cpu.append(time.process_time() - began)
        return wall

    wall = measure(wall_seconds, repeats, warmup, digits=4)
    measured = results[warmup:]
    return {"samples": samples, "seconds": wall, "cpu_seconds": Range(tuple(cpu[warmup:]), 4),
            "effective_samples": Range(tuple(result.effective_samples for result in measured), 1),
            "acceptance": Range(tuple(result.acceptance for result in measured), 4),
            "observed_seats": measured[-1].observed_seats,
            "effective_per_s": Range(tuple(result.effective_samples / time_taken
                                           for result, time_taken in zip(measured, wall.samples)))}  # fmt: skip


def per_second(units: float, wall: Range) -> Range:
    """units / seconds of each repeat of `wall`."""
    return Range(tuple(units / time_taken for time_taken in wall.samples))


def low_high(figure: Range, form: str) -> str:
    """min–max of a range, for a table's narrow column."""
    return f"{figure.low:{form}}–{figure.high:{form}}"


# -- 1. uniform deals (what the benchmark measured before inference) ------------------------------
def uniform_figures(samples: int, repeats: int, warmup: int, all_threads: int) -> dict[str, Any]:
    round_size = len(HAND.split())
    rounds = samples * (round_size + 1)
    figures: dict[str, Any] = {"samples": samples, "threads": all_threads, "rounds": rounds,
                               "card_plays": rounds * round_size * PLAYERS}  # fmt: skip
    for name in ("heuristic", "random"):
        for threads, suffix in ((1, "_1_thread"), (all_threads, "")):
            arguments = {"hand": HAND, **SITUATION, "threads": threads, "opponents": name, "policy": name}
            timed = timed_estimates(arguments, samples, repeats, warmup)
            figures[f"{name}_seconds{suffix}"] = timed["seconds"]
            figures[f"{name}_cpu_seconds{suffix}"] = timed["cpu_seconds"]
            figures[f"{name}_card_plays_per_s{suffix}"] = per_second(figures["card_plays"], timed["seconds"])
    return figures


# -- 2. informative earlier bids from real deals --------------------------------------------------
def real_situation(round_size: int, position: int, seed: int = SITUATION_SEED, game: int = 0) -> dict:
    """estimate's keyword arguments for the seat at bidding `position` in game `game` of a
    4-player heuristic self-play round of `round_size` cards: its hand, the turned-up card
    (and the dealer's suit after a Wizard) and the bids the heuristic made before it."""
    batch = sim.run_games(sim.Rules(players=PLAYERS, rounds=[round_size]), "heuristic", seed=seed, games=game + 1)
    dealer = int(batch.rounds["dealer"][game, 0])
    seats = [(dealer + 1 + p) % PLAYERS for p in range(PLAYERS)]  # position p is seat (dealer+1+p) % N
    turned = int(batch.rounds["trump_card"][game, 0])
    trump: dict = {"trump": format_card(turned)}
    if trump["trump"] == "W":
        trump["trump_suit"] = "CDHS"[int(batch.rounds["trump"][game, 0])]
    return {"hand": format_hand(int(batch.seats["hand"][game, 0, seats[position]])), **trump, "players": PLAYERS,
            "position": position, "bids": tuple(int(batch.seats["bid"][game, 0, s]) for s in seats[:position])}


def informative_figures(samples: dict[int, int], repeats: int, warmup: int) -> list[dict[str, Any]]:
    rows = []
    for round_size in ROUND_SIZES:
        for position in POSITIONS:
            situation = real_situation(round_size, position)
            for spread in SPREADS:
                timed = timed_estimates({**situation, "spread": spread}, samples[round_size], repeats, warmup)
                rows.append({"round_size": round_size, "position": position, "hand": situation["hand"],
                             "trump": situation["trump"], "bids": list(situation["bids"]), "spread": spread, **timed})
    return rows


# -- 3. the headline figure -----------------------------------------------------------------------
def headline_figures(repeats: int, warmup: int, pilot: int = 10_000) -> dict[str, Any]:
    situation = real_situation(10, 3)
    trial = run_estimate(**situation, samples=pilot, seed=0)
    fraction = trial.effective_samples / pilot
    samples = math.ceil(HEADLINE_EFFECTIVE / fraction * 1.02)
    timed = timed_estimates({**situation, "spread": 0.0}, samples, repeats, warmup)
    return {"hand": situation["hand"], "trump": situation["trump"], "bids": list(situation["bids"]),
            "position": 3, "pilot_samples": pilot, "pilot_ess_fraction": round(fraction, 4), **timed}


# -- Python policies -------------------------------------------------------------------------------
class NumpyModel:
    """A numpy policy standing in for a learned model: cards and trump by a fixed random linear
    score of the observation ([n, 852] x [852, 85], the best legal action); bids by a rule,
    the nearest legal bid to its Wizards + trumps of rank Q or higher + other aces."""

    def __init__(self) -> None:
        self.weights = np.random.default_rng(0).standard_normal((obs.OBSERVATION_SIZE, obs.N_ACTIONS)).astype(np.float32)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        answers = np.empty(observations.shape[0], dtype=np.int64)
        bidding = masks[:, obs.ACTION_BID0 : obs.ACTION_BID0 + obs.N_BIDS].any(axis=1)
        if bidding.all():  # the model's bids are asked alone (inference): no copies
            return obs.ACTION_BID0 + self.bids(observations, masks)
        if bidding.any():
            answers[bidding] = obs.ACTION_BID0 + self.bids(observations[bidding], masks[bidding])
            scored = np.flatnonzero(~bidding)
            scores = np.where(masks[scored], observations[scored] @ self.weights, -np.inf)
            answers[scored] = scores.argmax(axis=1)
            return answers
        return np.where(masks, observations @ self.weights, -np.inf).argmax(axis=1)

    @staticmethod
    def bids(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        hand = observations[:, obs.OBS_HAND : obs.OBS_HAND + 60] > 0
        trump = observations[:, obs.OBS_TRUMP : obs.OBS_TRUMP + 5].argmax(axis=1)  # 4: no trump
        suited = hand[:, :52].reshape(-1, 4, 13)
        high_trumps = np.where(trump < 4, suited[np.arange(len(trump)), np.minimum(trump, 3), 10:].sum(axis=1), 0)
        aces = suited[:, :, 12].sum(axis=1) - np.where(trump < 4, suited[np.arange(len(trump)), np.minimum(trump, 3), 12], 0)
        target = hand[:, 52:56].sum(axis=1) + high_trumps + aces
        legal = masks[:, obs.ACTION_BID0 : obs.ACTION_BID0 + obs.N_BIDS]
        distance = np.abs(np.arange(obs.N_BIDS) - target[:, None]) + np.where(legal, 0, 99)
        return distance.argmin(axis=1)


def model_situation(round_size: int, position: int, seed: int = SITUATION_SEED, game: int = 0) -> dict:
    """real_situation's deal with NumpyModel's own bids (and trump choice) before the seat."""
    state = WizardGame(sim.Rules(players=PLAYERS, rounds=[round_size])).new_state(seed, game)
    model = NumpyModel()
    bids = []
    while len(bids) < position:
        seat = state.current_player()
        action = int(model.act(state.observation(seat)[None], state.legal_action_mask()[None])[0])
        if state.decision() == 1:  # DECIDE_BID
            bids.append(action - obs.ACTION_BID0)
        state.apply_action(action)
    return {**real_situation(round_size, position, seed, game), "bids": tuple(bids)}


def python_figures(samples: dict[int, int], builtin_samples: dict[int, int], repeats: int,
                   warmup: int) -> list[dict[str, Any]]:
    """Per round size: the built-in heuristic table, NumpyModel opponents (exact and
    tolerant models), and NumpyModel as the seat's own play against heuristic opponents."""
    rows = []
    for round_size in ROUND_SIZES:
        builtin_situation = real_situation(round_size, 3)
        cases = [
            ("heuristic table", builtin_situation, builtin_samples[round_size], 0.0, {}),
            ("heuristic table", builtin_situation, builtin_samples[round_size], 1.0, {}),
            ("model opponents", model_situation(round_size, 3), samples[round_size], 0.0, {"opponents": NumpyModel}),
            ("model opponents", model_situation(round_size, 3), samples[round_size], 1.0, {"opponents": NumpyModel}),
            ("model own play", builtin_situation, samples[round_size], 0.0, {"policy": NumpyModel}),
        ]
        for name, situation, count, spread, policies in cases:
            timed = timed_estimates({**situation, **policies, "spread": spread}, count, repeats, warmup)
            rows.append({"round_size": round_size, "table": name, "bids": list(situation["bids"]), "spread": spread,
                         **timed, "samples_per_s": per_second(count, timed["seconds"])})
    return rows


def python_lines(rows: list[dict[str, Any]], repeats: int) -> list[str]:
    lines = [f"Python policies (NumpyModel) next to the heuristic, 4 players, the seat bidding last, "
             f"{numba.config.NUMBA_NUM_THREADS} threads, {repeats} repeats (ESS and rates: medians):",
             f"{'r':>2} {'table':<16} {'bids':<8} {'spread':>6} {'samples':>8} {'ESS':>9} {'accept':>7} "
             f"{'wall s':>13} {'samples/s':>10} {'ESS/s':>9}"]  # fmt: skip
    for row in rows:
        lines.append(f"{row['round_size']:>2} {row['table']:<16} {','.join(map(str, row['bids'])):<8} "
                     f"{row['spread']:>6g} {row['samples']:>8,} {row['effective_samples'].median:>9,.0f} "
                     f"{row['acceptance'].median:>7.3f} {low_high(row['seconds'], '.3f'):>13} "
                     f"{row['samples_per_s'].median:>10,.0f} {row['effective_per_s'].median:>9,.0f}")  # fmt: skip
    return lines


# -- calibration against self-play ----------------------------------------------------------------
def calibration_lines(result: dict[str, Any]) -> list[str]:
    lines = [f"Round 1, 4 players, {result['games']:,} heuristic self-play games (seed {result['seed']}), a 5 turned "
             f"up; estimate with {result['samples']:,} samples (seed {result['estimate_seed']})",
             f"{'situation':<52} {'games':>7} {'self-play':>15} {'estimate':>9} {'ESS':>9} {'z':>6} {'no-infer':>9}"]

    def percent(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    for row in result["classes"]:
        play = "-" if row["self_play"] is None else f"{100 * row['self_play']:.1f} ± {100 * row['self_play_se']:.1f}%"
        lines.append(f"{row['situation']:<52} {row['games']:>7,} {play:>15} {percent(row['estimate']):>9} "
                     f"{row.get('effective_samples', 0):>9,.0f} {row.get('z', float('nan')):>6.2f} "
                     f"{percent(row['no_infer']):>9}")
    return lines


def speed_lines(figures: dict[str, Any], repeats: int) -> list[str]:
    threads, round_size = figures["threads"], len(HAND.split())
    lines = [f"{figures['samples']:,} samples of a {round_size}-card hand, 4 players, {round_size + 1} candidate bids "
             f"({figures['rounds']:,} rounds, {figures['card_plays'] / 1e6:.0f}M card plays); {repeats} repeats"]
    for name in ("heuristic", "random"):
        lines.append(
            f"{name:>10} table: {figures[f'{name}_seconds'].text('.2f')} s on {threads} threads "
            f"({figures[f'{name}_card_plays_per_s'].median / 1e6:.1f}M plays/s at the median, "
            f"{figures[f'{name}_cpu_seconds'].text('.2f')} s CPU); "
            f"{figures[f'{name}_seconds_1_thread'].text('.2f')} s on 1 thread "
            f"({figures[f'{name}_cpu_seconds_1_thread'].text('.2f')} s CPU)"
        )
    lines += ["", f"Informative earlier bids (real heuristic deals, seed {SITUATION_SEED} game 0), {threads} threads, "
                  f"{repeats} repeats (ESS, acceptance and ESS/s: medians):",
              f"{'r':>2} {'pos':>3} {'bids':<8} {'spread':>6} {'samples':>8} {'ESS':>9} {'accept':>7} {'wall s':>13} "
              f"{'CPU s':>13} {'ESS/s':>9}"]  # fmt: skip
    for row in figures["informative"]:
        lines.append(f"{row['round_size']:>2} {row['position']:>3} {','.join(map(str, row['bids'])):<8} "
                     f"{row['spread']:>6g} {row['samples']:>8,} {row['effective_samples'].median:>9,.0f} "
                     f"{row['acceptance'].median:>7.3f} {low_high(row['seconds'], '.3f'):>13} "
                     f"{low_high(row['cpu_seconds'], '.3f'):>13} {row['effective_per_s'].median:>9,.0f}")  # fmt: skip
    head = figures["headline"]
    lines += ["", f"Headline: {head['effective_samples'].text(',.0f')} effective samples of \"{head['hand']}\" "
                  f"(trump {head['trump']}, after bids {','.join(map(str, head['bids']))}, exact model) from "
                  f"{head['samples']:,} samples (pilot ESS fraction {head['pilot_ess_fraction']:.3f}): "
                  f"{head['seconds'].text('.2f')} s on {threads} threads ({head['cpu_seconds'].text('.2f')} s CPU), "
                  f"{repeats} repeats; target under 5 s"]  # fmt: skip
    return lines


def main() -> None:
    arguments = parser(__doc__.split("\n\n")[0])
    arguments.add_argument("--samples", type=int, default=100_000, help="samples of the uniform-deal benchmark")
    arguments.add_argument("--infer-samples", type=int, nargs=3, default=(200_000, 50_000, 20_000),
                           metavar=("R1", "R5", "R10"), help="samples of the informative situations per round size")
    arguments.add_argument("--calibration", action="store_true", help="run the self-play calibration instead")
    arguments.add_argument("--games", type=int, default=4_000_000, help="calibration: round-1 self-play games")
    arguments.add_argument("--calibration-samples", type=int, default=200_000, help="calibration: estimate samples")
    arguments.add_argument("--python", action="store_true", help="run the Python-policy comparison instead")
    arguments.add_argument("--python-samples", type=int, nargs=3, default=(20_000, 4_000, 2_000),
                           metavar=("R1", "R5", "R10"), help="--python: samples with the model per round size")
    args = arguments.parse_args()
    infer_samples = dict(zip(ROUND_SIZES, args.infer_samples))

    if args.calibration:
        result = calibration(args.games, args.calibration_samples)
        report(result, calibration_lines(result), args.json)
    elif args.python:
        rows = python_figures(dict(zip(ROUND_SIZES, args.python_samples)), infer_samples, args.repeats, args.warmup)
        report({"threads": numba.config.NUMBA_NUM_THREADS, "rows": rows}, python_lines(rows, args.repeats), args.json)
    else:
        figures = uniform_figures(args.samples, args.repeats, args.warmup, numba.config.NUMBA_NUM_THREADS)
        figures["informative"] = informative_figures(infer_samples, args.repeats, args.warmup)
        figures["headline"] = headline_figures(args.repeats, args.warmup)
        report(figures, speed_lines(figures, args.repeats), args.json)


if __name__ == "__main__":
    main()
