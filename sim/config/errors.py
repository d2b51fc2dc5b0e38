"""The exceptions the CLI prints as one line: bad user input (ConfigError, exit 2), a failing bot
(BotError, exit 1) and an output that failed to be written (OutputError, exit 1); and how a
message repeats what the user gave (echo) and how long its line may be (bounded)."""
from __future__ import annotations

import re

import numpy as np

MAX_ECHO = 200  # characters of one piece of user input that an error message repeats
_LONG_RUN = re.compile(r"\S{%d,}" % (MAX_ECHO + 1))


class ConfigError(ValueError):
    """A configuration or input value the simulator cannot accept."""


class BotError(Exception):
    """An external bot failed (raised, exited, or broke the rules): the CLI prints one line and
    exits 1. Not a ConfigError: the input was valid, the bot's code misbehaved. `chunks_saved`:
    the chunks of a run that stay written (resuming the run continues after them)."""

    chunks_saved = 0


class OutputError(Exception):
    """Writing a command's output failed at run time (a full disk, permissions): the CLI prints
    one line and exits 1. Not a ConfigError: the input was valid."""


def cut(text: str) -> str:
    """`text` with at most MAX_ECHO characters of it kept, saying how long it was."""
    if len(text) <= MAX_ECHO:
        return text
    return f"{text[: MAX_ECHO - 20]}...{text[-10:]} ({len(text):,} characters)"


def echo(value: object) -> str:
    """A value the user gave, as a message repeats it: text quoted and cut (at most MAX_ECHO
    characters), true/false, a number in digits (a very long one by its length), anything
    else by its kind: never a Python repr of an object."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        digits = str(int(value))
        return digits if len(digits) <= 30 else f"a {len(digits.lstrip('-')):,}-digit number"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))  # 60.0, not 60: the point may be that it is not a whole number
    if isinstance(value, str):
        return f"'{cut(value)}'"
    if value is None:
        return "nothing"
    return f"a {type(value).__name__}"


def bounded(message: str) -> str:
    """A message as one line in which no run of characters without a space is longer than
    MAX_ECHO (an input echoed whole, however it got there, is cut): every one-line error
    passes here once, where it is written (the command line's and the server's)."""
    return _LONG_RUN.sub(lambda match: cut(match.group()), " ".join(message.split()))
