"""numba's on-disk cache of the kernels, cleared when any kernel source changed.

numba files a compiled function under its own source file and checks only that file, so a
kernel that inlines functions of an edited module (every batch kernel inlines
kernels/rules.py) would load stale machine code: silently other rules. So, once per process
before any kernel is compiled (sim.engine.startup.start), the kernels' sources are hashed; when the
digest differs from the one recorded in kernels/__pycache__/, the cache files numba wrote
for the kernels (*.nbi, *.nbc in kernels' __pycache__ directories, nothing else) are removed,
and so are those of the benchmarks' own jitted functions (benchmarks/__pycache__), which
inline kernels too; then the new digest is recorded. A cache moved elsewhere by
NUMBA_CACHE_DIR is not checked."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
KERNELS = ROOT / "kernels"
# Directories of other jitted code that inlines the kernels: their caches go with the kernels'.
DEPENDENTS = (ROOT / "benchmarks",)
STAMP_NAME = "wizard-sim-sources.sha256"
CACHE_SUFFIXES = (".nbi", ".nbc")


def sources_digest(kernels: Path) -> str:
    """SHA-256 over every kernel source file's path and bytes."""
    digest = hashlib.sha256()
    for path in sorted(kernels.rglob("*.py")):
        digest.update(path.relative_to(kernels).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def clear_stale_caches(kernels: Path = KERNELS, dependents: tuple[Path, ...] = DEPENDENTS) -> bool:
    """Remove numba's cache files under `kernels` and `dependents` when the kernels' sources
    changed since the recorded digest (or none is recorded); True when they were cleared.
    Silent when a directory cannot be read or written (an installed package numba cannot
    cache into either)."""
    try:
        if not kernels.is_dir():
            return False
        digest = sources_digest(kernels)
        stamp = kernels / "__pycache__" / STAMP_NAME
        if stamp.is_file() and stamp.read_bytes() == digest.encode():  # bytes: a garbled stamp is no error
            return False
        caches = [*kernels.rglob("__pycache__"), *(path / "__pycache__" for path in dependents)]
        for directory in caches:
            if not directory.is_dir():
                continue
            for path in directory.iterdir():
                if path.suffix in CACHE_SUFFIXES and path.is_file():
                    path.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        written = stamp.with_name(f"{STAMP_NAME}.{os.getpid()}.tmp")
        written.write_text(digest)
        os.replace(written, stamp)
        return True
    except OSError:
        return False
