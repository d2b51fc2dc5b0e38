"""`wizard-sim serve` under load: the page's estimate of a 10-card hand (100,000 samples) through
the HTTP API, and concurrent requests (issue #25: an answer within 3 s on 2 cores; 8 concurrent
requests complete without error).

A real server process on a free loopback port (benchmarks/serving.py starts it, as for the server's tests), warm
kernels. Requests are the page's: the unknown-opponents model (its default), seed 0.

    python -m benchmarks.bench_serve                  # about a minute
    python -m benchmarks.bench_serve --json

The situations are interleaved, --repeats requests each after --warmup (benchmarks.harness),
their latencies and the server's CPU seconds ranges; the concurrent requests are one load.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from benchmarks.harness import Range, Rate, interleave, parser, report
from benchmarks.serving import running_server

from sim.estimation.situation import UNKNOWN_MODEL

PAGE = {"players": 4, "bidding": "open", "even_bids": "allowed", **UNKNOWN_MODEL,
        "seed": 0}  # fmt: skip
SITUATIONS = {
    # bench_estimate.py's uniform case: bidding first, nothing to infer, every opponent bids after each candidate
    "10 cards, bidding first": {"hand": "W AS KH 7H JD 10D 4C 9S 2S J", "trump": "3H", "position": 0, "bids": []},
    # bench_estimate.py's headline hand: the dealer after three real heuristic bids (inference)
    "10 cards, dealer after bids 2,3,1": {"hand": "W W JS 10H 7H JD 2D 10C 4C J", "trump": "QS", "position": 3,
                                          "bids": [2, 3, 1]},  # fmt: skip
}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc): the server's work, whatever else
    the shared machine runs meanwhile."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(server, body: dict) -> tuple[float, int, dict]:
    began = time.perf_counter()
    code, text = server.post("/api/estimate", body, timeout=300)
    return time.perf_counter() - began, code, json.loads(text)


def request_seconds(server, body: dict, cpu: list[float], answers: list[dict]) -> Rate:
    """Seconds of one request of `body`; the server's CPU seconds for it go to `cpu`, its
    answer to `answers`."""

    def one_request() -> float:
        before = cpu_seconds(server.process.pid)
        seconds, code, answer = timed(server, body)
        assert code == 200, answer
        cpu.append(cpu_seconds(server.process.pid) - before)
        answers.append(answer)
        return seconds

    return one_request


def main() -> None:
    arguments = parser(__doc__.split("\n\n")[0])
    arguments.add_argument("--samples", type=int, default=100_000)
    arguments.add_argument("--concurrent", type=int, default=8)
    args = arguments.parse_args()
    cpu: dict[str, list[float]] = {name: [] for name in SITUATIONS}
    answers: dict[str, list[dict]] = {name: [] for name in SITUATIONS}
    with running_server() as server:
        status = server.status()
        sides = [request_seconds(server, {**PAGE, **situation, "samples": args.samples}, cpu[name], answers[name])
                 for name, situation in SITUATIONS.items()]  # fmt: skip
        latencies = dict(zip(SITUATIONS, interleave(sides, args.repeats, args.warmup, digits=3)))
        outcome: list = []
        body = {**PAGE, **SITUATIONS["10 cards, bidding first"], "samples": args.samples}

        def one(seed: int) -> None:
            outcome.append(timed(server, dict(body, seed=seed)))

        # A load of its own, once: every request at the same moment, not a repeated figure.
        began, server_cpu = time.perf_counter(), cpu_seconds(server.process.pid)
        threads = [threading.Thread(target=one, args=(seed,)) for seed in range(args.concurrent)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall, server_cpu = time.perf_counter() - began, cpu_seconds(server.process.pid) - server_cpu
    single = {name: {"seconds": latencies[name], "cpu_seconds": Range(tuple(cpu[name][args.warmup:]), 2),
                     "effective_samples": round(answers[name][-1]["effective_samples"])}
              for name in SITUATIONS}  # fmt: skip
    concurrent = {
        "requests": args.concurrent,
        "ok": sum(code == 200 for _, code, _ in outcome),
        "errors": [answer.get("error") for _, code, answer in outcome if code != 200],
        "wall_seconds": round(wall, 3),
        "cpu_seconds": round(server_cpu, 2),
        "latency_seconds": sorted(round(seconds, 3) for seconds, _, _ in outcome),
    }
    figures = {"samples": args.samples, "workers": status["workers"], "single": single, "concurrent": concurrent}
    lines = [f"server: {status['workers']} workers; {args.samples:,} samples per request, unknown-opponents model"]
    lines += [f"  {name}: {entry['seconds'].text('.2f')} s (server CPU {entry['cpu_seconds'].text('.2f')} s; "
              f"{entry['effective_samples']:,} effective samples)" for name, entry in single.items()]  # fmt: skip
    lines.append(f"  {args.concurrent} concurrent (10 cards, bidding first): {concurrent['ok']} ok, "
                 f"{len(concurrent['errors'])} errors, all done in {concurrent['wall_seconds']:.1f} s "
                 f"(server CPU {concurrent['cpu_seconds']:.1f} s); latencies "
                 f"{concurrent['latency_seconds'][0]:.1f}-{concurrent['latency_seconds'][-1]:.1f} s")  # fmt: skip
    report(figures, lines, args.json)


if __name__ == "__main__":
    main()
