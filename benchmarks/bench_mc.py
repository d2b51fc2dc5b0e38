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

from benchmarks.harness import Range, Rate, interleave, measure, parser, report, seconds
from sim import Rules, run_games
from sim.policies.registry import parameter_text, parse_policy

OPPONENTS = ["heuristic", "heuristic", "random"]
ROUND_SIZES = (1, 5, 10, 15)


def run_seconds(rules: Rules, seat0: str, games: int, threads: int) -> Rate:
    """Wall seconds of `games` games with `seat0` at seat 0, call n playing the deals of seed n
    (sides interleaved with the same call count play the same games)."""
    policies = [seat0] + OPPONENTS
    seeds = itertools.count()
    return lambda: seconds(lambda: run_games(rules, policies, seed=next(seeds), games=games, threads=threads))


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
        [run_seconds(rules, seat0, games, 1) for seat0 in
         ("heuristic", with_parameters(policy, play_samples=0), with_parameters(policy, samples=0))],
        repeats, warmup)  # fmt: skip

    def extra_us(sampled: Range, decisions: int) -> Range:
        return Range(tuple(1e6 * (mine - plain) / decisions for mine, plain in zip(sampled.samples, base.samples)), 1)

    return {"bid_us": extra_us(bids, games * len(rules.round_sizes)),
            "card_us": extra_us(cards, games * sum(rules.round_sizes))}  # fmt: skip


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
        games_run = run_seconds(full, policy, args.games, threads)
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
