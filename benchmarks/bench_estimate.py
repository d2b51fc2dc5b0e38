"""Bid estimation speed and calibration (docs/estimate.md, "Performance").

    python -m benchmarks.bench_estimate                 # speed tables
    python -m benchmarks.bench_estimate --json          # the same as one JSON object
    python -m benchmarks.bench_estimate --calibration   # estimate vs 4M games of self-play
    python -m benchmarks.bench_estimate --calibration --json

Speed, three parts:

1. Uniform deals (no earlier bids): 100k samples of a 10-card, 4-player hand on the warm
   kernels. Every sample deals the unseen cards once and plays the round for each of the 11
   candidate bids (0..10), so 100k samples are 1.1M rounds and 44M card plays. The seat bids
   first (position 0), the costliest position: all three opponents bid after it, again for
   every candidate. Target (issue): under 2 s warm on this 2-core machine.
2. Informative earlier bids: real situations taken from heuristic self-play (the deal of game
   0 of a 4-player game of one round of 1, 5 or 10 cards: the hand of the seat at bidding
   position 1, 2 or 3 and the bids the heuristic made before it), estimated with inference
   under the exact model (spread 0) and the tolerant one (spread 1): samples, effective
   samples (Kish), acceptance, wall seconds and effective samples per second, on all threads.
3. The headline figure: 100,000 effective samples of the 10-card hand after 3 earlier bids
   (exact model). A pilot run measures the ESS fraction; samples = 100,000 / fraction (+2%).
   Target: under 5 s warm on 2 cores.

--python: estimate with a numpy Python policy (NumpyModel below: a fixed linear score of the
observation per action, as a learned model would run, and a rule for its bids) next to the
built-in heuristic, on the same real deals (4 players, the seat bidding last after 3 earlier
bids, rounds of 1, 5 and 10 cards): the model as the opponents (its own bids on the deal,
inferred on under the exact and the tolerant model), and as the seat's own play. Samples/s
and effective samples/s, all threads, best of --repeats.

--calibration: 4-player round-1 heuristic self-play (play is forced, so whether a card takes
the trick depends on the cards alone), pooled by suit symmetry over a 5 turned up: for
several situation classes ("a Wizard bidding second after a first bid of 1", ...) the
self-play frequency of taking the trick with its standard error, next to estimate's P(make 1)
with inference and with infer=False (the large version of
tests/test_estimate.py::test_estimate_is_calibrated_against_self_play_after_informative_bids).
z = (estimate - self-play) / sqrt(p (1 - p) / games + SE(estimate)^2) with p the estimate: the
deviation in standard errors if the estimate is right (defined when self-play is 0% or 100%).
results/regenerate.py draws it (results/calibration.png).
"""
from __future__ import annotations

import argparse
import json
import math
import time

import numba
import numpy as np

import sim
from kernels import observation as obs
from sim.estimation.run import run_estimate
from sim.config.cards import format_card, format_hand
from sim.config.errors import ConfigError
from sim.env import WizardGame
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

HAND = "W AS KH 7H JD 10D 4C 9S 2S J"
SITUATION = dict(trump="3H", players=4, position=0)
PLAYERS = 4
ROUND_SIZES = (1, 5, 10)
POSITIONS = (1, 2, 3)
SPREADS = (0.0, 1.0)
SITUATION_SEED = 5  # the self-play run whose game 0 gives the informative situations
HEADLINE_EFFECTIVE = 100_000
CALIBRATION_SEED = 11
# (label, estimate hand with trump 5H, bidding position, earlier bids, card class)
CALIBRATION_CLASSES = (
    ("a Wizard, bidding second after a bid of 1", "W", 1, (1,), "wizard"),
    ("a Wizard, bidding second after a bid of 0", "W", 1, (0,), "wizard"),
    ("a Wizard, bidding third after bids 1, 1", "W", 2, (1, 1), "wizard"),
    ("a non-trump King, bidding first", "KS", 0, (), "offsuit king"),
    ("a non-trump King, bidding second after a bid of 0", "KS", 1, (0,), "offsuit king"),
    ("a non-trump King, bidding second after a bid of 1", "KS", 1, (1,), "offsuit king"),
    ("a non-trump King, the dealer after bids 0, 0, 0", "KS", 3, (0, 0, 0), "offsuit king"),
    ("a non-trump Queen, bidding third after bids 0, 1", "QS", 2, (0, 1), "offsuit queen"),
    ("a trump 9, bidding second after a bid of 1", "9H", 1, (1,), "trump 9"),
    ("a trump Ace, bidding third after bids 0, 0", "AH", 2, (0, 0), "trump ace"),
)


# -- 1. uniform deals (what the benchmark measured before inference) ------------------------------
def best_seconds(samples: int, threads: int, repeats: int, opponents: str, policy: str) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of `repeats` estimates, after a warm-up call. The CPU
    time (all threads) tells how much of the wall time other processes took on a shared box."""
    run_estimate(HAND, samples=1000, seed=0, threads=threads, opponents=opponents, policy=policy, **SITUATION)
    best = (float("inf"), float("inf"))
    for repeat in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run_estimate(HAND, samples=samples, seed=repeat + 1, threads=threads, opponents=opponents, policy=policy,
                     **SITUATION)
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def uniform_figures(samples: int, repeats: int, all_threads: int) -> dict:
    round_size = len(HAND.split())
    rounds = samples * (round_size + 1)
    figures: dict = {"samples": samples, "threads": all_threads, "rounds": rounds,
                     "card_plays": rounds * round_size * PLAYERS}
    for name, (opponents, policy) in (("heuristic", ("heuristic", "heuristic")), ("random", ("random", "random"))):
        for threads, suffix in ((1, "_1_thread"), (all_threads, "")):
            seconds, cpu_seconds = best_seconds(samples, threads, repeats, opponents, policy)
            figures[f"{name}_seconds{suffix}"] = round(seconds, 3)
            figures[f"{name}_cpu_seconds{suffix}"] = round(cpu_seconds, 3)
            figures[f"{name}_card_plays_per_s{suffix}"] = round(figures["card_plays"] / seconds)
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


def timed_estimate(situation: dict, samples: int, repeats: int, spread: float, threads: int | None = None) -> dict:
    """The fastest of `repeats` warm estimates (seeds 1..repeats) with its ESS and acceptance."""
    run_estimate(**situation, samples=min(samples, 1000), seed=0, spread=spread, threads=threads)  # warm-up
    best = None
    for repeat in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run_estimate(**situation, samples=samples, seed=repeat + 1, spread=spread, threads=threads)
        seconds, cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
        if best is None or seconds < best["seconds"]:
            best = {"samples": samples, "effective_samples": round(result.effective_samples, 1),
                    "acceptance": round(result.acceptance, 4), "observed_seats": result.observed_seats,
                    "seconds": round(seconds, 4), "cpu_seconds": round(cpu_seconds, 4),
                    "effective_per_s": round(result.effective_samples / seconds)}
    return best


def informative_figures(samples: dict[int, int], repeats: int) -> list[dict]:
    rows = []
    for round_size in ROUND_SIZES:
        for position in POSITIONS:
            situation = real_situation(round_size, position)
            for spread in SPREADS:
                row = timed_estimate(situation, samples[round_size], repeats, spread)
                rows.append({"round_size": round_size, "position": position, "hand": situation["hand"],
                             "trump": situation["trump"], "bids": list(situation["bids"]), "spread": spread, **row})
    return rows


# -- 3. the headline figure -----------------------------------------------------------------------
def headline_figures(repeats: int, pilot: int = 10_000) -> dict:
    situation = real_situation(10, 3)
    run_estimate(**situation, samples=1000, seed=0)  # warm-up
    trial = run_estimate(**situation, samples=pilot, seed=0)
    fraction = trial.effective_samples / pilot
    samples = math.ceil(HEADLINE_EFFECTIVE / fraction * 1.02)
    row = timed_estimate(situation, samples, repeats, 0.0)
    return {"hand": situation["hand"], "trump": situation["trump"], "bids": list(situation["bids"]),
            "position": 3, "pilot_samples": pilot, "pilot_ess_fraction": round(fraction, 4), **row}


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


def python_figures(samples: dict[int, int], builtin_samples: dict[int, int], repeats: int) -> list[dict]:
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
            row = timed_estimate({**situation, **policies}, count, repeats, spread)
            rows.append({"round_size": round_size, "table": name, "bids": list(situation["bids"]), "spread": spread,
                         **row, "samples_per_s": round(count / row["seconds"])})
    return rows


def print_python(rows: list[dict], repeats: int) -> None:
    print(f"Python policies (NumpyModel) next to the heuristic, 4 players, the seat bidding last, "
          f"{numba.config.NUMBA_NUM_THREADS} threads, best of {repeats}:")
    print(f"{'r':>2} {'table':<16} {'bids':<8} {'spread':>6} {'samples':>8} {'ESS':>9} {'accept':>7} {'wall s':>7} "
          f"{'samples/s':>10} {'ESS/s':>9}")
    for row in rows:
        print(f"{row['round_size']:>2} {row['table']:<16} {','.join(map(str, row['bids'])):<8} {row['spread']:>6g} "
              f"{row['samples']:>8,} {row['effective_samples']:>9,.0f} {row['acceptance']:>7.3f} {row['seconds']:>7.3f} "
              f"{row['samples_per_s']:>10,} {row['effective_per_s']:>9,}")


# -- calibration against self-play ----------------------------------------------------------------
def self_play_round_one(games: int, seed: int, chunk: int = 1_000_000) -> dict[str, np.ndarray]:
    """4-player heuristic self-play of round 1: per game and bidding position the card held,
    the bid and whether it took the trick, and the turned-up card (in chunks of games of the
    same run: games first_game.. of seed)."""
    parts: dict[str, list[np.ndarray]] = {"card": [], "bid": [], "won": [], "turned": []}
    for first in range(0, games, chunk):
        batch = sim.run_games(sim.Rules(players=PLAYERS, rounds=[1]), "heuristic", seed=seed,
                              games=min(chunk, games - first), first_game=first)
        hands, bids, tricks = (batch.seats[field][:, 0, :] for field in ("hand", "bid", "tricks"))
        dealer = batch.rounds["dealer"][:, 0].astype(np.int64)
        rows = np.arange(dealer.shape[0])[:, None]
        seats = (dealer[:, None] + 1 + np.arange(PLAYERS)[None, :]) % PLAYERS  # [game, position]
        parts["card"].append(np.log2(hands[rows, seats].astype(np.float64)).round().astype(np.int64))
        parts["bid"].append(bids[rows, seats].astype(np.int64))
        parts["won"].append(tricks[rows, seats].astype(np.int64))
        parts["turned"].append(batch.rounds["trump_card"][:, 0].astype(np.int64))
    return {name: np.concatenate(values) for name, values in parts.items()}


def card_class(kind: str, card: np.ndarray, turned_suit: np.ndarray) -> np.ndarray:
    suited = card < 52
    rank, suit = card % 13, card // 13
    return {
        "wizard": (card >= 52) & (card < 56),
        "offsuit king": suited & (rank == 11) & (suit != turned_suit),
        "offsuit queen": suited & (rank == 10) & (suit != turned_suit),
        "trump 9": suited & (rank == 7) & (suit == turned_suit),
        "trump ace": suited & (rank == 12) & (suit == turned_suit),
    }[kind]


def calibration(games: int, samples: int, seed: int = CALIBRATION_SEED, estimate_seed: int = 3) -> dict:
    """Self-play frequency of taking the trick vs estimate's P(make 1), per situation class."""
    start = time.perf_counter()
    play = self_play_round_one(games, seed)
    play_seconds = time.perf_counter() - start
    turned = play["turned"]
    five = (turned >= 0) & (turned < 52) & (turned % 13 == 3)  # a 5 of any suit turned up
    rows = []
    for label, hand, position, bids, kind in CALIBRATION_CLASSES:
        selected = five & card_class(kind, play["card"][:, position], turned // 13)
        for earlier, bid in enumerate(bids):
            selected &= play["bid"][:, earlier] == bid
        count = int(selected.sum())
        frequency = float(play["won"][selected, position].mean()) if count else None
        row = {"situation": label, "hand": hand, "trump": "5H", "position": position, "bids": list(bids),
               "games": count, "self_play": frequency,
               "self_play_se": math.sqrt(frequency * (1 - frequency) / count) if count else None}
        for name, infer in (("estimate", True), ("no_infer", False)):
            try:
                result = run_estimate(hand, trump="5H", players=PLAYERS, position=position, bids=bids, samples=samples,
                                      seed=estimate_seed, infer=infer)
            except ConfigError:  # no consistent deal (a class self-play never produced)
                row[name] = row[f"{name}_se"] = None
                continue
            p = result.stats[1].p_make
            row[name] = p
            row[f"{name}_se"] = math.sqrt(p * (1 - p) / result.effective_samples)
            if infer:
                row["effective_samples"] = round(result.effective_samples, 1)
        if count and row["estimate"] is not None:  # z under the hypothesis that the estimate is right
            predicted = row["estimate"]
            sigma = math.sqrt(predicted * (1 - predicted) / count + row["estimate_se"] ** 2)
            row["z"] = round((row["estimate"] - frequency) / sigma, 2) if sigma > 0 else 0.0
        rows.append(row)
    return {"games": games, "seed": seed, "samples": samples, "estimate_seed": estimate_seed, "players": PLAYERS,
            "self_play_seconds": round(play_seconds, 2), "classes": rows}


def print_calibration(result: dict) -> None:
    print(f"Round 1, 4 players, {result['games']:,} heuristic self-play games (seed {result['seed']}), a 5 turned up; "
          f"estimate with {result['samples']:,} samples (seed {result['estimate_seed']})")
    print(f"{'situation':<52} {'games':>7} {'self-play':>15} {'estimate':>9} {'ESS':>9} {'z':>6} {'no-infer':>9}")

    def percent(value):
        return "-" if value is None else f"{100 * value:.1f}%"

    for row in result["classes"]:
        play = "-" if row["self_play"] is None else f"{100 * row['self_play']:.1f} ± {100 * row['self_play_se']:.1f}%"
        print(f"{row['situation']:<52} {row['games']:>7,} {play:>15} {percent(row['estimate']):>9} "
              f"{row.get('effective_samples', 0):>9,.0f} {row.get('z', float('nan')):>6.2f} "
              f"{percent(row['no_infer']):>9}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=100_000, help="samples of the uniform-deal benchmark")
    parser.add_argument("--infer-samples", type=int, nargs=3, default=(200_000, 50_000, 20_000),
                        metavar=("R1", "R5", "R10"), help="samples of the informative situations per round size")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--calibration", action="store_true", help="run the self-play calibration instead")
    parser.add_argument("--games", type=int, default=4_000_000, help="calibration: round-1 self-play games")
    parser.add_argument("--calibration-samples", type=int, default=200_000, help="calibration: estimate samples")
    parser.add_argument("--python", action="store_true", help="run the Python-policy comparison instead")
    parser.add_argument("--python-samples", type=int, nargs=3, default=(20_000, 4_000, 2_000),
                        metavar=("R1", "R5", "R10"), help="--python: samples with the model per round size")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    if args.python:
        rows = python_figures(dict(zip(ROUND_SIZES, args.python_samples)), dict(zip(ROUND_SIZES, args.infer_samples)),
                              args.repeats)  # fmt: skip
        if args.json:
            print(json.dumps(rows))
        else:
            print_python(rows, args.repeats)
        return

    if args.calibration:
        result = calibration(args.games, args.calibration_samples)
        if args.json:
            print(json.dumps(result))
        else:
            print_calibration(result)
        return

    all_threads = numba.config.NUMBA_NUM_THREADS
    figures = uniform_figures(args.samples, args.repeats, all_threads)
    figures["informative"] = informative_figures(dict(zip(ROUND_SIZES, args.infer_samples)), args.repeats)
    figures["headline"] = headline_figures(args.repeats)
    if args.json:
        print(json.dumps(figures))
        return
    round_size = len(HAND.split())
    print(f"{args.samples:,} samples of a {round_size}-card hand, 4 players, {round_size + 1} candidate bids "
          f"({figures['rounds']:,} rounds, {figures['card_plays'] / 1e6:.0f}M card plays); best of {args.repeats}")
    for name in ("heuristic", "random"):
        print(
            f"{name:>10} table: {figures[f'{name}_seconds']:.2f} s on {all_threads} threads "
            f"({figures[f'{name}_card_plays_per_s'] / 1e6:.1f}M plays/s, {figures[f'{name}_cpu_seconds']:.2f} s CPU), "
            f"{figures[f'{name}_seconds_1_thread']:.2f} s on 1 thread "
            f"({figures[f'{name}_cpu_seconds_1_thread']:.2f} s CPU)"
        )
    print(f"\nInformative earlier bids (real heuristic deals, seed {SITUATION_SEED} game 0), {all_threads} threads, "
          f"best of {args.repeats}:")
    print(f"{'r':>2} {'pos':>3} {'bids':<8} {'spread':>6} {'samples':>8} {'ESS':>9} {'accept':>7} {'wall s':>7} "
          f"{'CPU s':>7} {'ESS/s':>9}")
    for row in figures["informative"]:
        print(f"{row['round_size']:>2} {row['position']:>3} {','.join(map(str, row['bids'])):<8} {row['spread']:>6g} "
              f"{row['samples']:>8,} {row['effective_samples']:>9,.0f} {row['acceptance']:>7.3f} "
              f"{row['seconds']:>7.3f} {row['cpu_seconds']:>7.3f} {row['effective_per_s']:>9,}")
    head = figures["headline"]
    print(f"\nHeadline: {head['effective_samples']:,.0f} effective samples of \"{head['hand']}\" "
          f"(trump {head['trump']}, "
          f"after bids {','.join(map(str, head['bids']))}, exact model) from {head['samples']:,} samples "
          f"(pilot ESS fraction {head['pilot_ess_fraction']:.3f}): {head['seconds']:.2f} s on {all_threads} threads "
          f"({head['cpu_seconds']:.2f} s CPU), best of {args.repeats}; target under 5 s")


if __name__ == "__main__":
    main()
