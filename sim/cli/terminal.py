"""Where the command line writes: one console for tables, and one-line errors."""
from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

import llvmlite
import numba
import numba.core.event
import typer
import typer.core
from rich.console import Console

from sim.cli.messages import phrase
from sim.config.errors import bounded
from sim.policies.registry import POLICY_FORMS  # noqa: F401  (the commands' option help imports it from here)

console = Console()
if not console.is_terminal:  # pipes and files: wide enough that tables do not wrap
    console = Console(width=160)


def fail(problem: str | Exception, code: int = 2) -> None:
    """One line on stderr (an exception in the command line's words, sim.cli.messages) and
    exit `code`: 2 for bad input, 1 for a failure at run time. Every error line of a command
    is written here, bounded once (sim.config.errors.bounded: no input repeated whole)."""
    text = phrase(problem) if isinstance(problem, Exception) else str(problem)
    print(f"wizard-sim: error: {bounded(text)}", file=sys.stderr)
    raise typer.Exit(code=code)


class OneLineErrors(typer.core.TyperCommand):
    """A command whose usage errors (an option that is not a number, a missing option) are one
    line on stderr and exit 2, like every other bad input, instead of click's usage box; and
    whose Ctrl-C, when the command has no words of its own for it, is one line and exit 130
    (instead of click's "Aborted!" and exit 1)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            previous = signal.signal(signal.SIGINT, _interrupt)
        except ValueError:  # not the main thread: Ctrl-C is the caller's
            previous = None
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            print("wizard-sim: interrupted", file=sys.stderr)
            raise typer.Exit(130) from None
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except Exception as error:
            # click's UsageError (typer ships its own copy of click: matched by what it has)
            if getattr(error, "exit_code", None) != 2 or not hasattr(error, "format_message"):
                raise
            fail(error.format_message())


GRACE_SECONDS = 1.5  # after Ctrl-C, how long a command may take to stop by itself
_interrupted_line: list[Callable[[], str]] = [lambda: "wizard-sim: interrupted"]


def on_interrupt(line: Callable[[], str]) -> None:
    """What gives the line to print if Ctrl-C has to stop the command without its own handler
    (see CommandLine), e.g. how to resume the run."""
    _interrupted_line[0] = line


def _exit_now(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe
            pass
    os._exit(code)


# numba's and llvmlite's Python code: a frame there means a compile (or a cache load) is under way.
_COMPILER_DIRS = tuple(os.path.dirname(module.__file__) + os.sep for module in (numba, llvmlite))


def _in_compiler(frame: Any) -> bool:
    """Whether the interrupted code runs inside numba or llvmlite (a compile, a cache load, an
    LLVM callback into Python): a KeyboardInterrupt raised there is swallowed by a ctypes
    callback ("Exception ignored on calling ctypes callback function", with its traceback) or
    leaves numba's half-built library behind ("RuntimeError: no compiled object yet")."""
    depth = 0
    while frame is not None and depth < 400:
        if frame.f_code.co_filename.startswith(_COMPILER_DIRS):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _interrupt(number: int, frame: Any) -> None:
    """SIGINT: KeyboardInterrupt as usual, which the command turns into its line and exit 130;
    if the process is still running GRACE_SECONDS later (the command's cleanup is slow), print
    its line and exit 130 then. During a compile, exit at once with that line: an exception
    raised inside numba's compiler is swallowed or breaks it (_in_compiler), and numba writes
    each cache file whole (a temporary renamed), so the cache stays sound. A run's data stays
    consistent at any moment (every file is written atomically), so stopping it there is safe."""

    def stop() -> None:
        print(_interrupted_line[0](), file=sys.stderr)
        _exit_now(130)

    if _in_compiler(frame):
        stop()
    watchdog = threading.Timer(GRACE_SECONDS, stop)
    watchdog.daemon = True
    watchdog.start()
    signal.default_int_handler(number, frame)


class CommandLine(typer.Typer):
    """The `wizard-sim` app, which exits as soon as its command is done: after Ctrl-C (exit
    130; a command's Ctrl-C is _interrupt, outside a command sim.cli._stop_loading) without
    the interpreter's teardown (a second or more on a busy machine, with numba and pandas
    loaded), and never kept alive by threads a bot started and left running (one line says
    so). Called by the `wizard-sim` script and `python -m sim.cli` (typer's test runner calls
    the commands directly)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            left = [thread.name for thread in threading.enumerate() if not thread.daemon and thread.is_alive()
                    and thread is not threading.main_thread()]  # fmt: skip
            if left:
                shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
                print(f"wizard-sim: note: {len(left)} thread{'s' * (len(left) > 1)} left running ({shown}),"
                      " probably a bot's: exiting without waiting for them", file=sys.stderr)  # fmt: skip
            if left or code == 130:
                _exit_now(code)
            raise


COMPILING = "wizard-sim: compiling kernels (first use, about 30 s; cached afterwards)"


class CompileNotice(numba.core.event.Listener):
    """Says once per process, on stderr, that the kernels are being compiled: numba compiles
    them on their first use after installation (or an edit) and caches them, so a first
    command is silent for about half a minute otherwise. Only a real compile is announced
    (numba's "numba:compile" event fires on a cache miss, not when the cache is loaded). On a
    terminal only: a script reading stderr sees the same lines with a cold cache or a warm one."""

    def __init__(self) -> None:
        self.shown = False

    def on_start(self, event: numba.core.event.Event) -> None:
        if not self.shown and sys.stderr.isatty():
            self.shown = True
            print(COMPILING, file=sys.stderr, flush=True)

    def on_end(self, event: numba.core.event.Event) -> None:
        pass


_compile_notice: list[CompileNotice] = []


def announce_compiling() -> None:
    """Register the CompileNotice (once per process)."""
    if not _compile_notice:
        _compile_notice.append(CompileNotice())
        numba.core.event.register("numba:compile", _compile_notice[0])
