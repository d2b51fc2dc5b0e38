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

Each figure is a range over --repeats runs after --warmup (benchmarks.harness); the three
tables of a split are interleaved on the same games and the cost taken run by run.
"""
from __future__ import annotations

import argparse
import itertools

import numba

from benchmarks.harness import Range, difference, interleave, measure, parser, report, run_seconds
from sim import Rules
from sim.policies.registry import parameter_text, parse_policy

OPPONENTS = ["heuristic", "heuristic", "random"]
ROUND_SIZES = (1, 5, 10, 15)


def with_parameters(policy: str, **changes: float) -> str:
    """The policy text with some parameters replaced."""
    parsed = parse_policy(policy)
    values = parsed.parameter_record()
    values.update(changes)
    return f"{parsed.name}:" + ",".join(f"{key}={parameter_text(value)}" for key, value in values.items())


def decision_costs(rules: Rules, policy: str, games: int, repeats: int, warmup: int) -> dict[str, Range]:
    """Microseconds of one mc bid and of one mc card decision (one thread): the three tables
    interleaved on the same games, each cost taken round by round."""
    base, bids, cards = interleave(
        [run_seconds(rules, [seat0, *OPPONENTS], games, itertools.count()) for seat0 in
         ("heuristic", with_parameters(policy, play_samples=0), with_parameters(policy, samples=0))],
        repeats, warmup)  # fmt: skip
    return {"bid_us": difference(bids, base, 1e6 / (games * len(rules.round_sizes)), 1),
            "card_us": difference(cards, base, 1e6 / (games * sum(rules.round_sizes)), 1)}  # fmt: skip


def main() -> None:
    arguments = parser(__doc__)
    arguments.formatter_class = argparse.RawDescriptionHelpFormatter
    arguments.add_argument("--policy", default="mc", help="the mc or pimc policy with its parameters")
    arguments.add_argument("--games", type=int, default=1000, help="full games per timed run")
    args = arguments.parse_args()

    policy = with_parameters(args.policy)
    all_threads = numba.config.NUMBA_NUM_THREADS
    full = Rules(players=4)
    figures: dict = {"policy": policy, "threads": all_threads, "table": ",".join([policy] + OPPONENTS)}
    for threads, key in ((1, "games_per_s_1_thread"), (all_threads, "games_per_s")):
        games_run = run_seconds(full, [policy, *OPPONENTS], args.games, itertools.count(), threads)
        figures[key] = measure(lambda: args.games / games_run(), args.repeats, args.warmup, digits=1)
    figures["full_game"] = decision_costs(full, policy, args.games, args.repeats, args.warmup)
    figures["by_round_size"] = {
        str(size): decision_costs(Rules(players=4, rounds=(size,)), policy, args.games, args.repeats, args.warmup)
        for size in ROUND_SIZES
    }

    costs = figures["full_game"]
    lines = [f"{figures['table']}: full 4-player games",
             f"  {figures['games_per_s_1_thread'].text(',.1f')} games/s on 1 thread, "
             f"{figures['games_per_s'].text(',.1f')} on {all_threads}",
             f"  one bid {costs['bid_us'].text('.1f')} us, one card decision {costs['card_us'].text('.1f')} us"
             " (mean over a full game)"]  # fmt: skip
    for size, costs in figures["by_round_size"].items():
        lines.append(f"  round size {size:>2}: bid {costs['bid_us'].text('.1f')} us, "
                     f"card decision {costs['card_us'].text('.1f')} us")  # fmt: skip
    report(figures, lines, args.json)


if __name__ == "__main__":
    main()
