"""The exceptions the CLI prints as one line: bad user input (ConfigError, exit 2), a failing bot
(BotError, exit 1) and an output that failed to be written (OutputError, exit 1)."""


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
