"""Cost of a sampling policy (`mc`, or `pimc`, which has the same two sample counts): games/s
of full 4-player games with one such seat (POLICY,heuristic,heuristic,random) and the cost of
one bid and one card decision.

    python -m benchmarks.bench_mc                       # table, default mc settings
    python -m benchmarks.bench_mc --policy mc:samples=8 --json
    python -m benchmarks.bench_mc --policy pimc --games 100
    # docs/pimc.md's figures: wizard-sim 0.1's pimc
    python -m benchmarks.bench_mc --policy pimc:play_samples=96,posterior=0,mc_from=0 --games 100

A decision's cost is measured on one thread as the extra time of games whose seat 0 plays mc
with only bidding (play_samples=0) or only card play (samples=0) sampled, over the same games
with the heuristic at seat 0, divided by the number of seat-0 decisions of that kind: an
average over the states of real games (every card decision counts, also the forced ones that
cost nothing). The same split is given per round size.

pimc plays its rounds of `mc_from` cards or more (7 at its defaults) as mc with mc_samples and
mc_play_samples, which the split leaves as they are. There (round sizes 10 and 15, and the
full game) a pimc bid's cost includes those rounds' mc card decisions and a card decision's
their mc bids; with mc_from=0 the split is pimc's own.
"""
from __future__ import annotations

import argparse
import json
import time

import numba

from sim import Rules, run_games
from sim.policies.registry import parameter_text, parse_policy

OPPONENTS = ["heuristic", "heuristic", "random"]
ROUND_SIZES = (1, 5, 10, 15)


def seconds(rules: Rules, seat0: str, games: int, threads: int, repeats: int) -> float:
    """Best-of-`repeats` wall time of `games` games with `seat0` at seat 0."""
    policies = [seat0] + OPPONENTS
    run_games(rules, policies, seed=0, games=min(games, 64), threads=threads)
    best = float("inf")
    for repeat in range(repeats):
        start = time.perf_counter()
        run_games(rules, policies, seed=repeat + 1, games=games, threads=threads)
        best = min(best, time.perf_counter() - start)
    return best


def with_parameters(policy: str, **changes: float) -> str:
    """The policy text with some parameters replaced."""
    parsed = parse_policy(policy)
    values = parsed.parameter_record()
    values.update(changes)
    return f"{parsed.name}:" + ",".join(f"{key}={parameter_text(value)}" for key, value in values.items())


def decision_costs(rules: Rules, policy: str, games: int, repeats: int) -> dict[str, float]:
    """Microseconds of one mc bid and of one mc card decision (one thread)."""
    base = seconds(rules, "heuristic", games, 1, repeats)
    bids = seconds(rules, with_parameters(policy, play_samples=0), games, 1, repeats)
    cards = seconds(rules, with_parameters(policy, samples=0), games, 1, repeats)
    card_decisions = sum(rules.round_sizes)
    return {
        "bid_us": round(1e6 * (bids - base) / (games * len(rules.round_sizes)), 1),
        "card_us": round(1e6 * (cards - base) / (games * card_decisions), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", default="mc", help="the mc or pimc policy with its parameters")
    parser.add_argument("--games", type=int, default=1000, help="full games per timed run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    policy = with_parameters(args.policy)
    all_threads = numba.config.NUMBA_NUM_THREADS
    full = Rules(players=4)
    figures: dict = {"policy": policy, "threads": all_threads, "table": ",".join([policy] + OPPONENTS)}
    figures["games_per_s_1_thread"] = round(args.games / seconds(full, policy, args.games, 1, args.repeats), 1)
    figures["games_per_s"] = round(args.games / seconds(full, policy, args.games, all_threads, args.repeats), 1)
    figures["full_game"] = decision_costs(full, policy, args.games, args.repeats)
    figures["by_round_size"] = {
        str(size): decision_costs(Rules(players=4, rounds=(size,)), policy, args.games, args.repeats)
        for size in ROUND_SIZES
    }

    if args.json:
        print(json.dumps(figures))
        return
    print(f"{figures['table']}: full 4-player games")
    print(f"  {figures['games_per_s_1_thread']:,} games/s on 1 thread, {figures['games_per_s']:,} on {all_threads}")
    costs = figures["full_game"]
    print(f"  one bid {costs['bid_us']} us, one card decision {costs['card_us']} us (mean over a full game)")
    for size, costs in figures["by_round_size"].items():
        print(f"  round size {size:>2}: bid {costs['bid_us']:>8} us, card decision {costs['card_us']:>8} us")


if __name__ == "__main__":
    main()
