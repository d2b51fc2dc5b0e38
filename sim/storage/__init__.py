"""A run's storage, by job: `record` (run.json and its fingerprint), `parts` (the Parquet part
files), `journal` (chunks.jsonl), `lock` (one writer per directory), `directory` (a run's
directory and the steps of its life), `files` (atomic writes) and `errors` (what went wrong,
as exception classes; only the CLI phrases them with its flags).

The public readers are `read_run(DIR)`, `read_config(part)`, and `read_table(DIR, table)` /
`sound_parts(DIR, table)`, which read only the parts a run's journal vouches for."""
from sim.storage.directory import (
    OUTPUT_FILES,
    SUMMARY_FILES,
    PartCheck,
    RunDirectory,
    check_output_file,
    enclosing_run,
    local_path,
    read_run,
    read_table,
    sound_parts,
)
from sim.storage.errors import RunError, StorageError
from sim.storage.files import atomic_write, write_json
from sim.storage.journal import JOURNAL_FILE
from sim.storage.lock import LOCK_FILE, RunLock
from sim.storage.parts import KNOWN_TABLES, config_metadata, part_name, read_config, write_parquet
from sim.storage.record import (
    FORMAT_VERSION,
    LEGACY_FORMAT,
    RUN_FILE,
    RUN_FORMAT,
    SIZE_FIELDS,
    chunk_count,
    chunk_range,
    chunk_ranges,
    fingerprint,
    new_run_id,
    now,
    versions,
)

__all__ = [
    "FORMAT_VERSION",
    "JOURNAL_FILE",
    "KNOWN_TABLES",
    "LEGACY_FORMAT",
    "LOCK_FILE",
    "RUN_FILE",
    "RUN_FORMAT",
    "OUTPUT_FILES",
    "SIZE_FIELDS",
    "SUMMARY_FILES",
    "PartCheck",
    "RunDirectory",
    "RunError",
    "RunLock",
    "StorageError",
    "atomic_write",
    "chunk_count",
    "chunk_range",
    "chunk_ranges",
    "check_output_file",
    "config_metadata",
    "enclosing_run",
    "fingerprint",
    "local_path",
    "new_run_id",
    "now",
    "part_name",
    "read_config",
    "read_run",
    "read_table",
    "sound_parts",
    "versions",
    "write_json",
    "write_parquet",
]
