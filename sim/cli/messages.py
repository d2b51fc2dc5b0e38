"""The command line's words for the storage errors: the same facts as the API's messages, with
the flags that act on them (`--out`, `--resume`, `--overwrite`)."""
from __future__ import annotations

from functools import singledispatch

from sim.storage import errors


@singledispatch
def phrase(error: Exception) -> str:
    """The one-line message the command line prints for `error` (without its prefix)."""
    return str(error)


@phrase.register
def _(error: errors.EmptyPath) -> str:
    return "--out is empty: name a directory"


@phrase.register
def _(error: errors.UnsupportedURL) -> str:
    return f"--out {error}"


@phrase.register
def _(error: errors.PathProblem) -> str:
    return f"--out {error}"


@phrase.register
def _(error: errors.DirectoryNotEmpty) -> str:
    return f"--out {error.path} is not empty: pass --resume to finish its run or --overwrite to replace it"


@phrase.register
def _(error: errors.EditedRecord) -> str:
    return f"{error} with --overwrite"


@phrase.register
def _(error: errors.LegacyRun) -> str:
    return f"{error} with --overwrite"


@phrase.register
def _(error: errors.PartsOfAnotherRun) -> str:
    return f"{error} with --overwrite"


@phrase.register
def _(error: errors.RefusedOverwrite) -> str:
    if error.cause is None:
        return f"--out {error.path} is not empty and holds no run.json: refusing to overwrite it"
    return f"refusing to overwrite: {phrase(error.cause)}"


@phrase.register
def _(error: errors.CannotResume) -> str:
    return f"cannot resume: {phrase(error.cause)}"


@phrase.register
def _(error: errors.UnsoundPart) -> str:
    return f"{error.root / error.part} is listed as complete but {error.problem}: see wizard-sim verify {error.root}, or --resume the run"


@phrase.register
def _(error: errors.RunError) -> str:
    if error.resumable:
        return f"{error}; no partial file is visible, finish with --resume"
    return f"{error}; nothing of the run was written"
