"""numba's cache of the kernels is cleared when any kernel source changes (numba checks only
each function's own file, and the batch kernels inline kernels/rules.py)."""
from __future__ import annotations

import functools
from pathlib import Path

from sim.engine.kernel_cache import KERNELS, STAMP_NAME, clear_stale_caches


def fake_kernels(root: Path) -> Path:
    kernels = root / "kernels"
    (kernels / "policies" / "__pycache__").mkdir(parents=True)
    (kernels / "__pycache__").mkdir()
    (kernels / "rules.py").write_text("A = 1\n")
    (kernels / "policies" / "mc.py").write_text("B = 2\n")
    return kernels


def cache_files(kernels: Path) -> list[str]:
    return sorted(path.name for path in kernels.rglob("*.nb[ic]"))


def benchmark_cache(root: Path) -> Path:
    """A benchmarks directory whose jitted function numba cached (it inlines kernels)."""
    (root / "benchmarks" / "__pycache__").mkdir(parents=True)
    cached = root / "benchmarks" / "__pycache__" / "bench_register_loop.play-5.py311.nbi"
    cached.write_bytes(b"compiled")
    return cached


def test_caches_are_cleared_when_a_source_changes_and_kept_otherwise(tmp_path):
    kernels = fake_kernels(tmp_path)
    benchmarked = benchmark_cache(tmp_path)
    clear = functools.partial(clear_stale_caches, dependents=(tmp_path / "benchmarks", tmp_path / "absent"))
    written = ["batch.play_games-133.py311.1.nbc", "batch.play_games-133.py311.nbi"]
    for name in written:
        (kernels / "__pycache__" / name).write_bytes(b"compiled")
    (kernels / "policies" / "__pycache__" / "mc.decide-9.py311.nbi").write_bytes(b"compiled")
    theirs = [kernels / "__pycache__" / "rules.cpython-311.pyc", kernels / "__pycache__" / "notes.txt"]
    for path in theirs:
        path.write_text("not numba's")
    assert clear(kernels)  # no digest recorded yet: cleared once
    assert cache_files(kernels) == [] and all(path.exists() for path in theirs)
    assert not benchmarked.exists()  # a benchmark's kernel inlines the kernels: cleared with them
    assert (kernels / "__pycache__" / STAMP_NAME).is_file()
    for name in written:
        (kernels / "__pycache__" / name).write_bytes(b"compiled again")
    assert not clear(kernels) and cache_files(kernels) == sorted(written)
    benchmarked.write_bytes(b"compiled again")
    assert benchmarked.exists()  # kept while the kernels are unchanged
    (kernels / "policies" / "mc.py").write_text("B = 3\n")  # an edit in another module
    assert clear(kernels) and cache_files(kernels) == [] and not benchmarked.exists()
    assert not clear(kernels)
    (kernels / "new_module.py").write_text("C = 4\n")  # a new file counts too
    assert clear(kernels)
    (kernels / "__pycache__" / STAMP_NAME).write_bytes(b"\xff\xfe not a digest")  # garbled: cleared, no error
    assert clear(kernels) and not clear(kernels)


def test_an_unwritable_or_missing_directory_is_left_alone(tmp_path):
    assert not clear_stale_caches(tmp_path / "absent", dependents=())
    kernels = fake_kernels(tmp_path)
    (kernels / "__pycache__").chmod(0o500)
    try:
        clear_stale_caches(kernels, dependents=())  # root may still write there; it must not raise either way
    finally:
        (kernels / "__pycache__").chmod(0o700)


def test_the_real_kernels_are_stamped_with_their_sources():
    from sim.engine.startup import start

    start()  # the engine's start runs the check (once per process)

    stamp = KERNELS / "__pycache__" / STAMP_NAME
    assert stamp.is_file() and not clear_stale_caches()
