"""The `wizard-sim` command line: the top layer, which imports every other and is imported by none."""
from sim.cli.main import app
from sim.cli.terminal import announce_compiling

announce_compiling()

__all__ = ["app"]
