"""Issue #22 item 4: every JSON wizard-sim reads (run.json, the chunk journal, play saves, a
part's configuration metadata) is bounded in size and depth. Hostile files, deep and generated,
give one line and the right exit code, never a traceback."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.storage import JOURNAL_FILE
from sim.storage.files import BadJSON, parse_json

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
RUN = ["simulate", "--players", "3", "--rounds", "1-2", "--policy", "random", "--games", "6", "--chunk-games", "2",
       "--seed", "1", "--quiet"]  # fmt: skip
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)
DEEP = {
    "a list 200,000 deep": "[" * 200_000 + "]" * 200_000,
    "an object 100,000 deep, torn": '{"a":' * 100_000,
    "40 levels, within json's limits": "[" * 40 + "]" * 40,
    "digits": "1" * 5000,
    "not text": b"\xff\xfe\x00[".decode("latin-1"),
}


def check(result, codes: tuple[int, ...]) -> None:
    """Exit code among `codes`, no traceback, and one error line when it is not 0 (verify's 1
    prints its report on stdout)."""
    assert result.exit_code in codes, (result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("wizard-sim: error:"), result.stderr


@pytest.fixture(scope="module")
def valid_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("valid") / "run"
    assert invoke(*RUN, "--out", out).exit_code == 0
    return out


def copy_of(run: Path, where: Path) -> Path:
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(run, where)
    return where


@pytest.mark.parametrize("name", sorted(DEEP))
def test_parse_json_bounds_depth_and_size(name):
    with pytest.raises(BadJSON):
        parse_json(DEEP[name].encode("latin-1"), "x")
    with pytest.raises(BadJSON, match="larger than 10 bytes"):
        parse_json(b"[" + b"1," * 10 + b"1]", "x", max_bytes=10)
    assert parse_json(b'{"a": [[1]]}', "x") == {"a": [[1]]}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_hostile_run_json_is_one_line(tmp_path, valid_run, name):
    out = copy_of(valid_run, tmp_path / "run")
    (out / "run.json").write_bytes(DEEP[name].encode("latin-1"))
    for command, codes in ((["verify", out], (2,)), (["report", out], (2,)), (["simulate", "--resume", "--out", out], (2,)),
                           ([*RUN, "--overwrite", "--out", out], (2,))):  # fmt: skip
        check(invoke(*command), codes)


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_hostile_journal_line_is_an_unreadable_line(tmp_path, valid_run, name):
    out = copy_of(valid_run, tmp_path / "run")
    with open(out / JOURNAL_FILE, "ab") as stream:
        stream.write(DEEP[name].encode("latin-1") + b"\n")
    verified = invoke("verify", out)
    check(verified, (1,))
    assert "unreadable journal lines: 1" in verified.stdout
    check(invoke("report", out), (0,))
    check(invoke("simulate", "--resume", "--out", out, "--quiet"), (0,))


def test_a_journal_line_of_a_gigabyte_is_not_read_into_memory(tmp_path, valid_run):
    out = copy_of(valid_run, tmp_path / "run")
    with open(out / JOURNAL_FILE, "ab") as stream:
        for _ in range(16):
            stream.write(b"[" * (1 << 20))  # 16 MiB without a newline, then a good line again
        stream.write(b"\n" + (out / JOURNAL_FILE).read_bytes().splitlines(keepends=True)[0])
    verified = invoke("verify", out)
    check(verified, (0, 1))
    assert "unreadable journal lines: 1" in verified.stdout and "3 of 3 chunks complete" in verified.stdout


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_hostile_play_save_is_one_line(tmp_path, name):
    save = tmp_path / "game.json"
    save.write_bytes(DEEP[name].encode("latin-1"))
    check(invoke("play", "--resume", save), (2,))


@pytest.mark.slow
@given(value=JSON)
@SETTINGS
def test_generated_run_json(tmp_path_factory, valid_run, value):
    out = copy_of(valid_run, tmp_path_factory.mktemp("generated") / "run")
    (out / "run.json").write_text(json.dumps(value))
    check(invoke("verify", out), (2,))
    check(invoke("simulate", "--resume", "--out", out), (2,))


@pytest.mark.slow
@given(path=st.sampled_from(["config", "chunks", "versions", "config.rules", "config.policies", "chunks.count",
                             "resumed", "finished", "config.seed", "fingerprint", "policy_parameters",
                             "policy_parameters.random"]), value=JSON)  # fmt: skip
@SETTINGS
def test_generated_fields_of_run_json(tmp_path_factory, valid_run, path, value):
    out = copy_of(valid_run, tmp_path_factory.mktemp("field") / "run")
    record = json.loads((out / "run.json").read_text())
    *parents, key = path.split(".")
    holder = record
    for parent in parents:
        holder = holder[parent]
    holder[key] = value
    (out / "run.json").write_text(json.dumps(record))
    check(invoke("verify", out), (0, 1, 2))
    check(invoke("report", out), (0, 2))
    check(invoke("simulate", "--resume", "--out", out, "--quiet"), (0, 2))


@pytest.mark.slow
@given(line=JSON | st.binary(max_size=64).map(lambda data: data.decode("latin-1")), where=st.sampled_from([0, 1, 3]))
@SETTINGS
def test_generated_journal_lines(tmp_path_factory, valid_run, line, where):
    out = copy_of(valid_run, tmp_path_factory.mktemp("journal") / "run")
    lines = (out / JOURNAL_FILE).read_bytes().splitlines(keepends=True)
    text = line if isinstance(line, str) and not line.startswith(("{", "[")) else json.dumps(line)
    lines.insert(where, text.encode("latin-1", "replace").replace(b"\n", b" ") + b"\n")
    (out / JOURNAL_FILE).write_bytes(b"".join(lines))
    check(invoke("verify", out), (0, 1))
    check(invoke("report", out), (0, 2))
    check(invoke("simulate", "--resume", "--out", out, "--quiet"), (0, 2))


@pytest.mark.slow
@given(key=st.sampled_from(["config", "answers", "format_version", "rules", "opponents", "seat", "seed", "game"]),
       value=JSON)  # fmt: skip
@SETTINGS
def test_generated_play_saves(tmp_path_factory, key, value):
    directory = tmp_path_factory.mktemp("save")
    save = directory / "game.json"
    assert invoke("play", "--players", "3", "--rounds", "1", "--seed", "1", "--save", save).exit_code == 0
    data = json.loads(save.read_text())
    (data if key in data else data["config"])[key] = value
    save.write_text(json.dumps(data))
    check(invoke("play", "--resume", save), (0, 2))
