"""A bounded load test of `wizard-sim serve`: sustained concurrent requests for minutes, on
loopback only, that stops by itself (issue #40).

A real server process on a free 127.0.0.1 port (benchmarks/serving.py, as for the server's tests) with --workers and --queue;
CLIENTS threads each post the page's estimate (random hands of 1 to 10 cards, the unknown-
opponents model, SAMPLES samples) in a loop, through the stream API or the plain one, and
drop every DROP-th stream early as the page does on an input change, until DURATION seconds
have passed (at most MAX_DURATION) or REQUESTS requests were sent (at most MAX_REQUESTS).
Every SAMPLE seconds the server's resident memory (/proc/PID/status VmRSS) and /api/status
(running, waiting) are sampled. Counted: answers (200), refusals (503: the queue is full),
other statuses, client errors; answer latencies; and whether the server printed anything but
its start-up lines on stderr.

    python -m benchmarks.load_serve                         # 3 minutes, 24 clients
    python -m benchmarks.load_serve --duration 600 --clients 48 --json
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from benchmarks.serving import running_server

MAX_DURATION = 1800.0
MAX_REQUESTS = 200_000
MAX_CLIENTS = 128
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
DECK = [rank + suit for suit in "CDHS" for rank in RANKS] + ["W"] * 4 + ["J"] * 4


def random_request(draw: random.Random, samples: int) -> dict:
    size = draw.randint(1, 10)
    cards = draw.sample(range(60), size + 1)
    hand = " ".join(DECK[card] for card in cards[:size])
    position = draw.randint(0, 3)
    trump = DECK[cards[size]]
    request = {"hand": hand, "trump": trump, "players": 4, "position": position,
               "bids": [draw.randint(0, size) for _ in range(position)], "spread": 0.5, "floor": 0.1,
               "samples": samples, "seed": draw.randint(0, 1000)}  # fmt: skip
    if trump == "W":
        request["trump_suit"] = draw.choice("CDHS")
    return request


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Counts:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: dict[str, int] = {}
        self.latencies: list[float] = []
        self.sent = 0

    def add(self, key: str, latency: float | None = None) -> None:
        with self.lock:
            self.status[key] = self.status.get(key, 0) + 1
            if latency is not None:
                self.latencies.append(latency)


def client(url: str, number: int, args: argparse.Namespace, stop: threading.Event, counts: Counts) -> None:
    draw = random.Random(number)
    while not stop.is_set():
        with counts.lock:
            if counts.sent >= args.requests:
                return
            counts.sent += 1
        body = json.dumps(random_request(draw, args.samples)).encode()
        stream = draw.random() < 0.5
        path = "/api/estimate/stream" if stream else "/api/estimate"
        request = urllib.request.Request(url + path, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        began = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                if stream and draw.randrange(args.drop) == 0:
                    answer.readline()  # the page changed its input: the stream is dropped
                    counts.add("dropped stream")
                    continue
                data = answer.read()
                ok = b'"result"' in data if stream else data.startswith(b"{")
                counts.add("200" if ok else "200 with an error line", time.perf_counter() - began if ok else None)
        except urllib.error.HTTPError as error:
            counts.add(str(error.code))
            error.read()
            if error.code == 503:
                time.sleep(draw.uniform(0.05, 0.3))  # a refused client tries again soon, as a page would
        except OSError as error:
            counts.add(f"client error {type(error).__name__}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=180.0, help=f"seconds of load, at most {MAX_DURATION:g}")
    parser.add_argument("--requests", type=int, default=20_000, help=f"requests at most, at most {MAX_REQUESTS:,}")
    parser.add_argument("--clients", type=int, default=24, help=f"concurrent clients, at most {MAX_CLIENTS}")
    parser.add_argument("--samples", type=int, default=5_000, help="samples per estimate")
    parser.add_argument("--drop", type=int, default=5, help="one stream in DROP is dropped early")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--queue", type=int, default=8)
    parser.add_argument("--sample", type=float, default=2.0, help="seconds between memory and queue samples")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (0 < args.duration <= MAX_DURATION and 0 < args.requests <= MAX_REQUESTS and 0 < args.clients <= MAX_CLIENTS):
        parser.error("duration, requests and clients must be positive and within their bounds")

    with running_server("--workers", str(args.workers), "--queue", str(args.queue)) as server:
        pid = server.process.pid
        counts, stop = Counts(), threading.Event()
        samples: list[dict] = []
        threads = [threading.Thread(target=client, args=(server.url, n, args, stop, counts), daemon=True)
                   for n in range(args.clients)]  # fmt: skip
        began = time.monotonic()
        for thread in threads:
            thread.start()
        while time.monotonic() - began < args.duration and any(thread.is_alive() for thread in threads):
            status = server.status()
            samples.append({"t": round(time.monotonic() - began, 1), "rss_mb": round(rss_mb(pid), 1),
                            "running": status["running"], "waiting": status["waiting"]})  # fmt: skip
            time.sleep(args.sample)
        stop.set()
        for thread in threads:
            thread.join(timeout=150)
        elapsed = time.monotonic() - began
        idle = server.status()
        after = {"rss_mb": round(rss_mb(pid), 1), "running": idle["running"], "waiting": idle["waiting"]}
        stopped_in = server.stop()
        stderr_lines = [line for line in server.process.stderr.read().splitlines() if line]

    latencies = sorted(counts.latencies)
    rss = [sample["rss_mb"] for sample in samples]
    third = max(1, len(rss) // 3)
    figures = {
        "seconds": round(elapsed, 1), "clients": args.clients, "workers": args.workers, "queue": args.queue,
        "samples_per_estimate": args.samples, "requests": counts.sent, "outcomes": dict(sorted(counts.status.items())),
        "answers_per_second": round(counts.status.get("200", 0) / elapsed, 2),
        "latency_s": {"median": round(statistics.median(latencies), 2) if latencies else None,
                      "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 2) if latencies else None,
                      "max": round(latencies[-1], 2) if latencies else None},
        "rss_mb": {"first_third_mean": round(statistics.mean(rss[:third]), 1),
                   "last_third_mean": round(statistics.mean(rss[-third:]), 1), "max": max(rss)},
        "waiting_max": max(sample["waiting"] for sample in samples), "running_max": max(s["running"] for s in samples),
        "after_load": after, "ctrl_c_seconds": round(stopped_in, 2),
        "server_stderr_lines": stderr_lines,
    }  # fmt: skip
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
