"""The `wizard-sim` command line: the top layer, which imports every other and is imported by none."""
from sim.cli.main import app

__all__ = ["app"]
