"""The one harness of the throughput benches: warm-up, alternating A/B pairs, ranges, --json.

The machine is shared (docs/performance.md), so no figure is one number: each is the range of
its repeats (min, median, max). Two sides compared are measured in alternating pairs, each
going first every other time, so that a drift of the machine's load falls on both; their
ratio is taken pair by pair (more than two sides: `interleave`, each going first in turn). A
bench's options come from `parser` (--repeats, --warmup, --json), and it prints its figures
with `report`: a table, or one JSON object.

    python -m benchmarks.bench_tournament --deals 2000 --json
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from sim import Rules, run_games

Rate = Callable[[], float]  # one measurement, e.g. games/s of one run


@dataclass(frozen=True)
class Range:
    """Repeated measurements of one figure: every sample, and their min, median and max."""

    samples: tuple[float, ...]
    digits: int = 0  # decimals kept in its JSON form (a rate: none; a ratio: 3)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    def to_dict(self) -> dict[str, float | list[float]]:
        def rounded(value: float) -> float:
            return round(value, self.digits) if self.digits else round(value)

        return {"min": rounded(self.low), "median": rounded(self.median), "max": rounded(self.high),
                "samples": [rounded(value) for value in self.samples]}  # fmt: skip

    @classmethod
    def joined(cls, ranges: Sequence[Range]) -> Range:
        """One range of the samples of several (a figure measured in several runs)."""
        return cls(tuple(value for one in ranges for value in one.samples), ranges[0].digits)

    def text(self, form: str = ",.0f") -> str:
        """min–max (median), as the docs quote a shared machine's figures."""
        return f"{self.low:{form}}–{self.high:{form}} (median {self.median:{form}})"


def seconds(work: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds of one call of `work` by `clock` (time.process_time: CPU time, which a shared
    machine's other load disturbs less than the wall clock's)."""
    start = clock()
    work()
    return clock() - start


def rate(work: Callable[[], object], units: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Units per second of one call of `work`."""
    return units / seconds(work, clock)


def run_seconds(rules: Rules, policies: list[str], games: int, seeds: Iterator[int], threads: int = 1,
                clock: Callable[[], float] = time.perf_counter, scale: float = 1.0) -> Rate:
    """A side that plays `games` games of `policies` and gives their seconds by `clock` times
    `scale` (1 / games: per game), call n on the deals of the n-th of `seeds` (sides interleaved
    with the same seeds play the same games)."""
    def play() -> object:
        return run_games(rules, policies, seed=next(seeds), games=games, threads=threads)

    return lambda: scale * seconds(play, clock)


def measure(side: Rate, repeats: int, warmup: int = 1, digits: int = 0) -> Range:
    """`warmup` calls whose figures are dropped (compiling, caches), then `repeats` measured
    (`digits`: decimals their JSON form keeps)."""
    for _ in range(warmup):
        side()
    return Range(tuple(side() for _ in range(repeats)), digits)


def interleave(sides: Sequence[Rate], rounds: int, warmup: int = 1, digits: int = 0) -> list[Range]:
    """Every side once a round for `rounds` rounds after `warmup` calls of each, the order
    rotating so that each goes first in turn (a drift of the machine's load falls on all):
    their ranges, in the order given (`digits`: decimals their JSON form keeps)."""
    for _ in range(warmup):
        for side in sides:
            side()
    samples: list[list[float]] = [[] for _ in sides]
    for turn in range(rounds):
        for offset in range(len(sides)):
            index = (turn + offset) % len(sides)
            samples[index].append(sides[index]())
    return [Range(tuple(values), digits) for values in samples]


def ratio(mine: Range, theirs: Range) -> Range:
    """The ratios of two interleaved sides' figures, round by round."""
    return Range(tuple(a / b for a, b in zip(mine.samples, theirs.samples)), digits=3)


def difference(mine: Range, base: Range, scale: float = 1.0, digits: int = 0) -> Range:
    """(mine - base) x scale of two interleaved sides' figures, round by round: e.g. one seat's
    cost, a table's time less that of the same table without it."""
    return Range(tuple(scale * (a - b) for a, b in zip(mine.samples, base.samples)), digits)


def alternate(a: Rate, b: Rate, pairs: int, warmup: int = 1, digits: int = 0) -> tuple[Range, Range, Range]:
    """A and B in `pairs` alternating pairs (A first, then B first, ...) after `warmup` calls of
    each: their ranges and the range of the ratios A / B, pair by pair."""
    a_range, b_range = interleave((a, b), pairs, warmup, digits)
    return a_range, b_range, ratio(a_range, b_range)


def parser(description: str, repeats: int = 3) -> argparse.ArgumentParser:
    """The options every bench takes: --repeats, --warmup and --json."""
    arguments = argparse.ArgumentParser(description=description)
    arguments.add_argument("--repeats", type=int, default=repeats, help=f"measurements (or A/B pairs) per figure (default {repeats})")
    arguments.add_argument("--warmup", type=int, default=1, help="unmeasured runs first: compiling, caches (default 1)")
    arguments.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    return arguments


def json_form(value: object) -> object:
    """`value` with every Range in it (in dicts and lists) as its dict."""
    if isinstance(value, Range):
        return value.to_dict()
    if isinstance(value, dict):
        return {key: json_form(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_form(item) for item in value]
    return value


def report(figures: dict, lines: list[str], as_json: bool) -> None:
    """The bench's figures as one JSON object (ranges as their dicts), or its lines of text."""
    if as_json:
        print(json.dumps(json_form(figures)))
        return
    for line in lines:
        print(line)
