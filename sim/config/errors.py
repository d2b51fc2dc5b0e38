"""The one exception type for bad user input; the CLI prints it as one line and exits 2."""


class ConfigError(ValueError):
    """A configuration or input value the simulator cannot accept."""
