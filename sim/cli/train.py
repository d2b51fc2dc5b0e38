"""`wizard-sim train --out DIR --seed S --minutes M`: a learned policy from nothing (docs/learned.md)."""
from __future__ import annotations

import shlex
import sys
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from sim.cli.terminal import console, fail, on_interrupt
from sim.config.errors import ConfigError


class TrainProgress:
    """The training's bar on stderr: time spent of the budget, steps, loss, and the margin
    over heuristic seats of the last evaluation and of the best model written."""

    def __init__(self, enabled: bool) -> None:
        self.progress: Progress | None = None
        self.task = None
        if enabled:
            self.progress = Progress(
                TextColumn("training"), BarColumn(), TimeElapsedColumn(), TextColumn("{task.fields[line]}"),
                console=Console(stderr=True), transient=False,
            )  # fmt: skip

    def __enter__(self) -> "TrainProgress":
        if self.progress is not None:
            self.progress.__enter__()
            self.task = self.progress.add_task("training", total=1.0, line="starting (compiling on first use)")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.progress is not None:
            if exc_info[0] is not None:
                self.progress.live.transient = True
            self.progress.__exit__(*exc_info)

    def update(self, progress) -> None:  # noqa: ANN001  (sim.learn.train.Progress)
        if self.progress is None:
            return
        margin = "" if progress.margin is None else f", last {progress.margin:+.1f}"
        best = "" if progress.best is None else f", best {progress.best:+.1f}"
        line = f"step {progress.steps:,}, loss {progress.loss:.3f}, vs heuristic{margin}{best}"
        self.progress.update(self.task, completed=min(1.0, progress.seconds / progress.budget), line=line)


def train_command(
    out: Annotated[str, typer.Option(help="The model directory to write (new, or empty; with --resume: its training's).")],
    minutes: Annotated[float, typer.Option(help="Wall time to train, data generation and measurement included.")],
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same data and initial weights.")] = 1,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the training in --out from its checkpoint for --minutes more.")] = False,
    bid_hidden: Annotated[int, typer.Option(help="Width of the bid network's two hidden layers.")] = 128,
    play_hidden: Annotated[int, typer.Option(help="Width of the play network's two hidden layers.")] = 128,
    teacher_samples: Annotated[int, typer.Option(help="The teacher mc's samples per bid.")] = 8,
    teacher_play_samples: Annotated[int, typer.Option(help="The teacher mc's samples per card.")] = 4,
    batch: Annotated[int, typer.Option(help="Decisions per network per optimizer step.")] = 512,
    learning_rate: Annotated[float, typer.Option(help="Adam's learning rate.")] = 1e-3,
    eval_deals: Annotated[int, typer.Option(help="Held-out deals of each duplicate match against three heuristic seats.")] = 200,
    eval_seconds: Annotated[float, typer.Option(help="Seconds of training between two matches (each may write a better model).")] = 120.0,
    threads: Annotated[Optional[int], typer.Option(help="Kernel threads (default: all cores).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no summary.")] = False,
) -> None:
    """Train a learned policy from nothing and write it as a model directory (model.json, weights.npz).

    The engine plays rounds with mc as the teacher; two small networks learn its card values and
    the tricks taken. Every --eval-seconds the model plays a duplicate match against three
    heuristic seats on held-out deals, and the best model so far is written (whole or not at
    all). Seat it as learned:model=DIR. Needs the extra [learn] (JAX, optax).

    Example: wizard-sim train --out models/m1 --seed 1 --minutes 30
    """
    from sim.learn.train import TrainOptions, train

    options = TrainOptions(out, seed, minutes, bid_hidden, play_hidden, teacher_samples, teacher_play_samples, batch,
                           learning_rate, eval_deals, eval_seconds, threads=threads)  # fmt: skip
    command = "wizard-sim " + shlex.join(["train", *sys.argv[2:]]) if len(sys.argv) > 1 and sys.argv[1] == "train" else ""
    on_interrupt(lambda: f"wizard-sim: interrupted; the best model so far stays in {out}; continue with --resume")
    bar = TrainProgress(enabled=not quiet)
    try:
        with bar:
            result = train(options, resume=resume, command=command, on_progress=bar.update)
    except ConfigError as error:
        fail(error)
    except KeyboardInterrupt:
        print(f"wizard-sim: interrupted; the best model so far stays in {out}; continue with --resume", file=sys.stderr)
        raise typer.Exit(130) from None
    if not quiet:
        state = result.state
        low, high = state.best_interval
        console.print(
            f"model written to {result.out}: {state.steps:,} steps on {state.chunks:,} data chunks in {state.seconds / 60:.1f} min;"
            f" beats three heuristic seats by {state.best_margin:+.1f} (95% CI {low:+.1f} to {high:+.1f}) points per game"
            f" on {options.eval_deals} held-out deals",
            markup=False, highlight=False,
        )  # fmt: skip
