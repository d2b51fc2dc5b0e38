"""The installed wizard-sim version: recorded in every run, and a resumed run must match it."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wizard-sim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
