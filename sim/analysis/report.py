"""Bid accuracy of a simulate or tournament dataset, streamed in bounded memory.

A dataset is a directory with rounds/part-NNNNN.parquet (one row per game x round x seat)
and optionally games/part-NNNNN.parquet (one row per game x seat) and run.json. In a run's
directory (run.json) only the parts its journal lists as complete are read: an interrupted
run's figures cover its complete chunks (run_status says so), and a file that is not one of
its parts is never counted. In a directory without run.json every part file is read, except
names starting with "." or "_" (unfinished writes).

Memory: the rounds are read file after file, one file open at a time, as record batches of
at most `batch_size` rows of the six columns the tables need (pyarrow projection: tournament
extras such as deal_id or rotation, and hand, score, total, are never read), and each batch is
reduced at once to one bincount of its cells. What is held is one part's footer, one decoded
row group of those columns, the current batch's numpy temporaries (about 100 bytes a row) and
the histogram of bid_error_histogram (161 KiB per policy): independent of the number of rows,
and of parts but for the list of their paths and each chunk's journal record of its parts
(`python -m benchmarks.bench_report --many-parts 10000`: peak 205 MiB for 10,000 one-game parts,
198 MiB for 4). Score distributions keep one counter per distinct (policy, score).
"""
from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from rich.table import Table

from kernels.cards import N_CARDS, NO_CARD
from kernels.records import MAX_PLAYERS, MAX_ROUND_SIZE
from sim.analysis import DEFAULT_BATCH_SIZE
from sim.analysis.features import TRUMP_KINDS, trump_kind_codes
from sim.config.errors import ConfigError, OutputError
from sim.config.limits import MAX_BATCH_SIZE, check_count
from sim.storage import RUN_FILE, atomic_write, check_output_file, enclosing_run, read_run, sound_parts, write_parquet
from sim.storage.errors import OutputInRun

ROUNDS_COLUMNS = ("policy", "round", "bid_order", "trump_card", "bid", "tricks")
# Breakdown name -> its key column (None: one row per policy).
BREAKDOWNS: dict[str, str | None] = {
    "by_policy": None,
    "by_round": "round",
    "by_bid_order": "bid_order",
    "by_trump_kind": "trump_kind",
}
METRICS = ("n", "exact_rate", "mean_abs_error", "over_rate", "under_rate")
# Axes of the bid error histogram after the policy axis, and their sizes. Values index their
# axis directly: round size 0..MAX_ROUND_SIZE (0 unused), bid_order, trump kind code, and
# error = bid - tricks shifted by MAX_ROUND_SIZE.
HISTOGRAM_AXES = {
    "round": MAX_ROUND_SIZE + 1,
    "bid_order": MAX_PLAYERS,
    "trump_kind": len(TRUMP_KINDS),
    "error": 2 * MAX_ROUND_SIZE + 1,
}
ERRORS = np.arange(-MAX_ROUND_SIZE, MAX_ROUND_SIZE + 1)  # bid - tricks along the error axis
SCORE_SOURCES = {"games": "total", "rounds": "score"}  # part directory -> score column
PLOT_FILES = ("accuracy_by_round.png", "score_distribution.png")
_INT32_OFFSET = 1 << 31  # shifts an int32 score to a non-negative 32-bit field of a key


def part_files(directory: Path) -> list[Path]:
    """Parquet part files of one table directory, sorted; unfinished writes (".", "_") skipped."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.parquet") if p.is_file() and not p.name.startswith((".", "_")))


def listed_parts(root: Path, table: str) -> list[Path] | None:
    """The parts of `table` that the run in `root` lists as complete (None: `root` holds no
    run.json, a plain dataset whose every part file is read), each checked against its journal
    line (size, footer, checksum): one that is not what was written is an UnsoundPart."""
    if not (root / RUN_FILE).exists():
        return None
    return sound_parts(root, table)


def run_status(path: str | os.PathLike) -> str | None:
    """A note when the dataset at `path` is a run that is not complete (else None)."""
    root = Path(path)
    if not (root / RUN_FILE).exists():
        return None
    record = read_run(root, statistics=False)
    done, count = len(record["chunks"]["complete"]), record["chunks"]["count"]
    if done < count:
        return f"{root} is an incomplete run ({done:,} of {count:,} chunks): these figures cover only its complete chunks"
    return None


def table_files(root: Path, table: str) -> list[Path]:
    """The part files of one table of a dataset: those its run lists, or every part file."""
    listed = listed_parts(root, table)
    return part_files(root / table) if listed is None else listed


def rounds_files(path: str | os.PathLike) -> list[Path]:
    """The rounds part files of the dataset at `path`, or ConfigError saying why there are none."""
    root = Path(path)
    if not root.exists():
        raise ConfigError(f"dataset {str(root)!r} does not exist")
    if not root.is_dir():
        raise ConfigError(f"{str(root)!r} is not a dataset directory (expected a directory with rounds/*.parquet)")
    files = table_files(root, "rounds")
    if not files:
        raise ConfigError(f"{str(root)!r} has no rounds/*.parquet files: not a simulate or tournament dataset")
    return files


def _arrow_message(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _batches(files: list[Path], columns: tuple[str, ...], batch_size: int) -> Iterator[pa.RecordBatch]:
    """Record batches of `columns` only, at most batch_size rows each, file after file. One
    file is open at a time and its footer goes with it, so memory does not grow with the
    number of files (a dataset of all of them kept every footer: 40 KB a part)."""
    where = f"{files[0].parent}"
    try:
        for file in files:
            with pq.ParquetFile(file, pre_buffer=False) as part:
                missing = [name for name in columns if name not in part.schema_arrow.names]
                if missing:
                    raise ConfigError(
                        f"{where} lacks the column(s) {', '.join(missing)}: not a simulate or tournament dataset"
                    )
                yield from part.iter_batches(batch_size=batch_size, columns=list(columns))
    except (pa.ArrowException, OSError) as error:
        raise ConfigError(f"cannot read {where}: {_arrow_message(error)}") from error


def check_batch_size(batch_size: int) -> None:
    check_count(batch_size, "batch size", 1, MAX_BATCH_SIZE)


class PolicyCodes:
    """One code per policy label over all part files (each file has its own dictionary)."""

    def __init__(self) -> None:
        self._code: dict[str, int] = {}

    @property
    def labels(self) -> list[str]:
        return list(self._code)

    def encode(self, column: pa.Array) -> np.ndarray:
        """Codes (int64, indices into self.labels) of a batch's policy column."""
        _check_no_nulls("policy", column)
        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        codes = [self._code.setdefault(label, len(self._code)) for label in column.dictionary.to_pylist()]
        return np.array(codes, dtype=np.int64)[column.indices.to_numpy(zero_copy_only=False)]


def _check_no_nulls(name: str, column: pa.Array) -> None:
    if column.null_count:
        raise ConfigError(f"column {name} has {column.null_count} missing values")


def _int_column(batch: pa.RecordBatch, name: str, low: int, high: int) -> np.ndarray:
    """A batch column as int64, checked to lie in low..high."""
    column = batch.column(name)
    _check_no_nulls(name, column)
    values = column.to_numpy(zero_copy_only=False).astype(np.int64)
    if values.size and (values.min() < low or values.max() > high):
        raise ConfigError(f"column {name} has values outside {low}..{high}: {values.min()}..{values.max()}")
    return values


def _grown(histogram: np.ndarray, n_policies: int) -> np.ndarray:
    """The histogram with its policy axis extended to n_policies (new policies count 0)."""
    missing = n_policies - histogram.shape[0]
    if not missing:
        return histogram
    return np.concatenate([histogram, np.zeros((missing,) + histogram.shape[1:], dtype=np.int64)])


def bid_error_histogram(path: str | os.PathLike, batch_size: int = DEFAULT_BATCH_SIZE) -> tuple[list[str], np.ndarray]:
    """Policy labels and how many bids fall in each cell of
    [policy, round size, bid_order, trump kind, bid - tricks] (axes as HISTOGRAM_AXES).

    Every breakdown of the report is a sum over some of these axes. Streams the rounds in
    batches of batch_size rows; each batch adds one bincount of its joint cell index."""
    check_batch_size(batch_size)
    files = rounds_files(path)
    sizes = tuple(HISTOGRAM_AXES.values())
    histogram = np.zeros((0, *sizes), dtype=np.int64)
    policies = PolicyCodes()
    for batch in _batches(files, ROUNDS_COLUMNS, batch_size):
        cell = policies.encode(batch.column("policy"))
        error = _int_column(batch, "bid", 0, MAX_ROUND_SIZE) - _int_column(batch, "tricks", 0, MAX_ROUND_SIZE)
        axes = (
            _int_column(batch, "round", 1, MAX_ROUND_SIZE),
            _int_column(batch, "bid_order", 0, MAX_PLAYERS - 1),
            trump_kind_codes(_int_column(batch, "trump_card", NO_CARD, N_CARDS - 1)),
            error + MAX_ROUND_SIZE,
        )
        for values, size in zip(axes, sizes):
            cell *= size
            cell += values
        n_policies = len(policies.labels)
        counts = np.bincount(cell, minlength=n_policies * int(np.prod(sizes)))
        histogram = _grown(histogram, n_policies) + counts.reshape(n_policies, *sizes)
    if not histogram.any():
        raise ConfigError(f"{str(files[0].parent)!r} has no rows")
    return policies.labels, histogram


def _metrics(errors: np.ndarray) -> dict[str, np.ndarray]:
    """The METRICS of rows of an error histogram [rows, error axis]."""
    n = errors.sum(axis=1)
    return {
        "n": n,
        "exact_rate": errors[:, ERRORS == 0].sum(axis=1) / n,
        "mean_abs_error": errors @ np.abs(ERRORS) / n,
        "over_rate": errors[:, ERRORS > 0].sum(axis=1) / n,
        "under_rate": errors[:, ERRORS < 0].sum(axis=1) / n,
    }


def _frame(labels: list[str], histogram: np.ndarray, key: str | None) -> pd.DataFrame:
    """One breakdown: one row per (policy, key value) seen, policies alphabetical, key values
    ascending (trump kinds in TRUMP_KINDS order)."""
    axes = list(HISTOGRAM_AXES)
    summed = tuple(1 + i for i, axis in enumerate(axes) if axis not in (key, "error"))
    errors = histogram.sum(axis=summed)  # [policy, key value, error] or [policy, error]
    if key is None:
        errors = errors[:, None, :]
    policy, value = np.nonzero(errors.sum(axis=2))
    alphabetical_rank = np.argsort(np.argsort(labels))
    order = np.lexsort((value, alphabetical_rank[policy]))
    policy, value = policy[order], value[order]
    columns: dict[str, object] = {"policy": [labels[p] for p in policy]}
    if key == "trump_kind":
        columns[key] = [TRUMP_KINDS[v] for v in value]
    elif key is not None:
        columns[key] = value.astype(np.int64)
    columns.update(_metrics(errors[policy, value]))
    return pd.DataFrame(columns)


def accuracy_tables(path: str | os.PathLike, batch_size: int = DEFAULT_BATCH_SIZE) -> dict[str, pd.DataFrame]:
    """Bid accuracy of the dataset at `path`, one DataFrame per breakdown of BREAKDOWNS.

    by_policy: all rounds of a policy; by_round: policy x round size (cards per player);
    by_bid_order: policy x bidding position (0 = first to bid, left of the dealer);
    by_trump_kind: policy x TRUMP_KINDS. Columns: policy, the key, then n (bids), exact_rate
    (bid == tricks), mean_abs_error (mean |bid - tricks|), over_rate (bid > tricks),
    under_rate (bid < tricks). Streams the rounds in batches of batch_size rows; bad input
    raises ConfigError."""
    labels, histogram = bid_error_histogram(path, batch_size)
    return {name: _frame(labels, histogram, key) for name, key in BREAKDOWNS.items()}


def score_counts(path: str | os.PathLike, batch_size: int = DEFAULT_BATCH_SIZE) -> pd.DataFrame:
    """How often each score occurs per policy: columns source, policy, score, count.

    Final game totals (source "games.total") when the dataset has games/ part files, else
    round scores (source "rounds.score"). Streamed; memory grows with distinct scores only."""
    check_batch_size(batch_size)
    root = Path(path)
    # The games parts when there are any (each run's part checked once), else the rounds.
    files = table_files(root, "games") if root.is_dir() else []
    directory = "games" if files else "rounds"
    files = files or rounds_files(root)
    column = SCORE_SOURCES[directory]
    policies = PolicyCodes()
    counts: Counter[int] = Counter()
    for batch in _batches(files, ("policy", column), batch_size):
        policy = policies.encode(batch.column("policy"))
        score = _int_column(batch, column, -_INT32_OFFSET, _INT32_OFFSET - 1)
        keys, n = np.unique((policy << 32) | (score + _INT32_OFFSET), return_counts=True)
        counts.update(dict(zip(keys.tolist(), n.tolist())))
    if not counts:
        raise ConfigError(f"{str(files[0].parent)!r} has no rows")
    keys = np.array(sorted(counts), dtype=np.int64)
    labels = policies.labels
    frame = pd.DataFrame(
        {
            "source": f"{directory}.{column}",
            "policy": [labels[p] for p in (keys >> 32)],
            "score": (keys & 0xFFFFFFFF) - _INT32_OFFSET,
            "count": np.array([counts[k] for k in keys.tolist()], dtype=np.int64),
        }
    )
    return frame.sort_values(["policy", "score"], ignore_index=True)


def tidy_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The breakdowns as one long table: a `table` column names the breakdown; key columns
    that do not apply to a breakdown are missing values."""
    keys = {"round": "Int8", "bid_order": "Int8", "trump_kind": "string"}
    parts = []
    for name, frame in tables.items():
        part = frame.assign(table=name)
        for key, dtype in keys.items():
            part[key] = part[key].astype(dtype) if key in part else pd.Series(pd.NA, index=part.index, dtype=dtype)
        parts.append(part[["table", "policy", *keys, *METRICS]])
    tidy = pd.concat(parts, ignore_index=True)
    tidy["table"] = tidy["table"].astype("string")
    tidy["policy"] = tidy["policy"].astype("string")
    return tidy


def tables_json(tables: dict[str, pd.DataFrame]) -> str:
    """One JSON object: breakdown name -> list of records."""
    return json.dumps({name: frame.to_dict(orient="records") for name, frame in tables.items()})


@contextlib.contextmanager
def reported_as_output_error(path: Path) -> Iterator[None]:
    """An OSError while writing `path` (a full disk) becomes a one-line OutputError: a failure
    at run time, not bad input."""
    try:
        yield
    except OSError as error:
        raise OutputError(f"cannot write {str(path)!r}: {error.strerror or error}") from error


def write_atomically(path: str | os.PathLike, write: Callable[[str], None]) -> None:
    """sim.storage.atomic_write (readers see the old file or the whole new one), with an
    OSError turned into a one-line OutputError."""
    target = Path(path)
    with reported_as_output_error(target):
        atomic_write(target, write)


def write_tidy_table(tables: dict[str, pd.DataFrame], path: str | os.PathLike) -> None:
    """The tidy table (tidy_table) as one Parquet file, written atomically."""
    table = pa.Table.from_pandas(tidy_table(tables), preserve_index=False)
    target = Path(path)
    with reported_as_output_error(target):
        write_parquet(target, table, metadata={})


def check_tidy_file(path: Path, overwrite: bool) -> None:
    """Fail early, before a long scan, when `path` cannot be a new file of the report (not in
    a run directory; an existing file only with `overwrite`)."""
    check_output_file(path, "the report table")
    if os.path.lexists(path) and not overwrite:
        raise ConfigError(f"{path} exists: pass --overwrite to replace it")


def check_plot_directory(path: Path, overwrite: bool) -> None:
    """Fail early when `path` cannot be (or become) a writable directory outside any run
    directory, or holds a plot file already (replaced only with `overwrite`); creates nothing."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"cannot create the plot directory {str(path)!r}: it exists and is not a directory")
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot create the plot directory {str(path)!r}: {str(parent)!r} is not a writable directory")
    run = enclosing_run(path)
    if run is not None:
        raise OutputInRun(path, "the plots into", run)
    for name in PLOT_FILES:
        if os.path.lexists(path / name) and not overwrite:
            raise ConfigError(f"{path / name} exists: pass --overwrite to replace it")


def make_plot_directory(path: Path) -> list[Path]:
    """Create the plot directory (and missing parents): the directories created, innermost
    first (remove_empty_directories takes them back if the plots fail)."""
    created = []
    missing = path
    while not missing.exists() and missing != missing.parent:
        created.append(missing)
        missing = missing.parent
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        remove_empty_directories(created)
        raise OutputError(f"cannot create the plot directory {str(path)!r}: {error.strerror or error}") from error
    return created


def remove_empty_directories(directories: list[Path]) -> None:
    """Remove those of `directories` (innermost first) that are empty: only what this command created."""
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:  # not empty, or gone
            return


TABLE_TITLES = {
    "by_policy": "Bid accuracy by policy",
    "by_round": "Bid accuracy by policy x round size (cards per player)",
    "by_bid_order": "Bid accuracy by bidding position (0 = first to bid)",
    "by_trump_kind": "Bid accuracy by trump kind",
}
HEADERS = {
    "round": "round size",
    "bid_order": "bid position",
    "trump_kind": "trump kind",
    "n": "n",
    "exact_rate": "exact",
    "mean_abs_error": "mean |err|",
    "over_rate": "over",
    "under_rate": "under",
}
LEGEND = "err = bid - tricks; exact: err = 0, over: err > 0 (bid too high), under: err < 0 (too low)"
TEXT_COLUMNS = ("policy", "trump_kind")


def rich_table(name: str, frame: pd.DataFrame) -> Table:
    """A breakdown as a rich table: counts with thousands separators, rates to 3 decimals."""
    table = Table(title=TABLE_TITLES[name])
    for column in frame.columns:
        text = column in TEXT_COLUMNS
        table.add_column(HEADERS.get(column, column), justify="left" if text else "right", no_wrap=text)
    for row in frame.itertuples(index=False):
        table.add_row(*(_cell(column, value) for column, value in zip(frame.columns, row)))
    return table


def _cell(column: str, value: object) -> str:
    if column == "n":
        return f"{value:,}"
    return f"{value:.3f}" if isinstance(value, float) else str(value)
