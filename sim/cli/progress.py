"""A rich progress bar for runs: games done, games/s and time left, on stderr."""
from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class GameProgress:
    """Context manager whose `update(games_done, games_total)` is a run's progress callback (a
    tournament's too: it counts games, not deals); does nothing when disabled (--quiet) or when
    stderr is not a terminal and rich cannot draw. A run that fails or is interrupted erases
    the bar, so that its one error line stands alone."""

    def __init__(self, enabled: bool = True, console: Console | None = None):
        self.enabled = enabled
        self.console = console
        self.progress: Progress | None = None
        self.task = None
        self.start_done = 0
        self.start_time = 0.0

    def __enter__(self) -> "GameProgress":
        if self.enabled:
            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console or Console(stderr=True),
                transient=False,
            )
            self.progress.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        if self.progress is not None:
            if exc_info[0] is not None:
                # The error line that follows stands alone: the bar is erased, not left above it.
                self.progress.live.transient = True
            self.progress.__exit__(*exc_info)

    def update(self, done: int, total: int) -> None:
        if self.progress is None:
            return
        now = time.perf_counter()
        if self.task is None:
            self.task = self.progress.add_task("games", total=total, completed=done, rate="")
            self.start_done, self.start_time = done, now
            return
        elapsed = now - self.start_time
        rate = f"{(done - self.start_done) / elapsed:,.0f} games/s" if elapsed > 0 else ""
        self.progress.update(self.task, completed=done, total=total, rate=rate)  # a stopped run ends early
