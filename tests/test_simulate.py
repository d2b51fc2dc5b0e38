"""`wizard-sim simulate`: the dataset contract, exactness across threads/chunks, atomic parts,
resume after failures and kills, and one-line errors with exit code 2."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import sim.storage.parts
from sim.storage.parts import PART_FORMATS
from sim.cli import app
from sim.config.errors import ConfigError
from sim.runs.executors import ChunkJob, resume
from sim.runs.simulation import SimulationConfig
from sim.storage import read_config, read_run
from sim.storage.record import fingerprint
from sim.runs.games import run_games
from sim.config.rules import Rules
from sim.runs.tables import games_table, rounds_table
from helpers import move_heuristic_default

runner = CliRunner()
SMALL = ["--players", "3", "--games", "23", "--rounds", "1-4", "--policy", "heuristic,random,heuristic:aggression=1.2",
         "--seed", "5", "--quiet"]  # fmt: skip


def simulate(*arguments: str) -> object:
    return runner.invoke(app, ["simulate", *arguments])


def read(out: Path, table: str) -> pd.DataFrame:
    return pd.read_parquet(out / table)


def assert_same_dataset(first: Path, second: Path, tables=("rounds", "games")) -> None:
    for table in tables:
        pd.testing.assert_frame_equal(read(first, table), read(second, table))


def test_writes_the_data_contract(tmp_path):
    out = tmp_path / "run"
    result = simulate(*SMALL, "--log-plays", "--chunk-games", "7", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "rounds").iterdir()) == [f"part-0000{k}.parquet" for k in range(4)]
    rounds, games, plays = read(out, "rounds"), read(out, "games"), read(out, "plays")
    assert list(rounds.columns) == ["game_id", "round", "seat", "dealer", "policy", "hand", "trump_card", "trump",
                                    "bid", "bid_order", "tricks", "score", "total"]  # fmt: skip
    assert str(rounds["game_id"].dtype) == "int64" and str(rounds["total"].dtype) == "int32"
    assert str(rounds["score"].dtype) == "int16" and str(rounds["hand"].dtype) == "int64"
    assert all(str(rounds[c].dtype) == "int8" for c in ("round", "seat", "dealer", "trump_card", "trump", "bid", "bid_order", "tricks"))
    assert list(games.columns) == ["game_id", "seat", "policy", "total", "winner"]
    assert list(plays.columns) == ["game_id", "round", "trick", "position", "seat", "card", "winner"]
    assert len(rounds) == 23 * 4 * 3 and len(games) == 23 * 3 and len(plays) == 23 * 3 * (1 + 2 + 3 + 4)
    assert set(rounds["policy"]) == {"heuristic", "random", "heuristic:aggression=1.2"}
    assert rounds.groupby("seat")["policy"].nunique().eq(1).all()
    run = read_run(out)
    assert run["config"]["seed"] == 5 and run["config"]["chunk_games"] == 7 and run["finished"]
    assert sorted(run["chunks"]["complete"], key=int) == ["0", "1", "2", "3"]
    assert set(run["versions"]) == {"wizard_sim", "numba", "numpy", "pyarrow"}
    for table in ("rounds", "games", "plays"):
        for part in (out / table).iterdir():
            assert read_config(part) == run["config"]


def test_parts_physical_layout(tmp_path):
    """Every column of every table in the format sim.storage.parts.PART_FORMATS chose for it
    (encoding and codec), required (no definition levels), min/max statistics on game_id only."""
    out = tmp_path / "run"
    assert simulate(*SMALL, "--log-plays", "--out", str(out)).exit_code == 0
    for table in ("rounds", "games", "plays"):
        part = pq.ParquetFile(out / table / "part-00000.parquet")
        assert set(part.schema_arrow.names) == set(PART_FORMATS[table]) - {"deal_id", "rotation", "table_id"}
        row_group = part.metadata.row_group(0)
        for index in range(row_group.num_columns):
            column = row_group.column(index)
            name = column.path_in_schema
            chosen = PART_FORMATS[table][name]
            assert part.schema.column(index).max_definition_level == 0, name
            assert column.compression == {"NONE": "UNCOMPRESSED"}.get(chosen.compression, chosen.compression), name
            assert column.is_stats_set == (name == "game_id"), name
            expected = {"DICTIONARY": "RLE_DICTIONARY", "PLAIN": None}.get(chosen.encoding, chosen.encoding)
            assert {"DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT", "RLE_DICTIONARY"} & set(column.encodings) == {expected} - {None}, name


def test_tournament_parts_have_a_format_for_every_column(tmp_path):
    """A tournament's deal_id and rotation columns are in PART_FORMATS too, and required."""
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tournament", "--players", "3", "--rounds", "1-2", "--games", "4", "--policies",
                                      "random,heuristic,heuristic", "--seed", "1", "--quiet", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    for table in ("rounds", "games"):
        part = pq.ParquetFile(out / table / "part-00000.parquet")
        assert set(part.schema_arrow.names) <= set(PART_FORMATS[table])
        assert {"deal_id", "rotation"} <= set(part.schema_arrow.names)
        assert all(part.schema.column(index).max_definition_level == 0 for index in range(len(part.schema)))


def test_dataset_obeys_the_rules(tmp_path):
    out = tmp_path / "run"
    assert simulate(*SMALL, "--log-plays", "--out", str(out)).exit_code == 0
    rounds, games, plays = read(out, "rounds"), read(out, "games"), read(out, "plays")
    players = 3
    for (game, size), group in rounds.groupby(["game_id", "round"]):
        hands = [int(h) for h in group["hand"]]
        assert all(bin(h).count("1") == size for h in hands)
        union = 0
        for hand in hands:
            assert union & hand == 0  # each card at most once per round
            union |= hand
        trump_card = int(group["trump_card"].iloc[0])
        assert trump_card == -1 or not (union >> trump_card) & 1
        assert group["tricks"].sum() == size
        expected = np.where(group["bid"] == group["tricks"], 20 + 10 * group["tricks"], -10 * (group["bid"] - group["tricks"]).abs())
        assert (group["score"].to_numpy() == expected).all()
        dealer = int(group["dealer"].iloc[0])
        assert ((group["seat"] - dealer - 1) % players == group["bid_order"]).all()
        round_plays = plays[(plays.game_id == game) & (plays["round"] == size)]
        played = {seat: 0 for seat in range(players)}
        for seat, card in zip(round_plays["seat"], round_plays["card"]):
            played[int(seat)] |= 1 << int(card)
        assert [played[s] for s in range(players)] == hands
        taken = round_plays.groupby("trick")["winner"].first().value_counts()
        for seat, tricks in zip(group["seat"], group["tricks"]):
            assert taken.get(seat, 0) == tricks
    for game, group in rounds.groupby("game_id"):
        dealers = group.groupby("round")["dealer"].first()
        assert (np.diff(dealers.to_numpy()) % players == 1).all()  # the deal passes left
        for seat, seat_rows in group.groupby("seat"):
            assert (seat_rows.sort_values("round")["score"].cumsum() == seat_rows.sort_values("round")["total"]).all()
    finals = rounds[rounds["round"] == 4].set_index(["game_id", "seat"])["total"]
    assert (games.set_index(["game_id", "seat"])["total"] == finals).all()
    best = games.groupby("game_id")["total"].transform("max")
    assert (games["winner"] == (games["total"] == best)).all()


def test_equals_run_games(tmp_path):
    out = tmp_path / "run"
    assert simulate("--games", "40", "--policy", "heuristic", "--seed", "9", "--chunk-games", "15", "-q", "--out", str(out)).exit_code == 0
    batch = run_games(Rules(players=4), "heuristic", seed=9, games=40)
    pd.testing.assert_frame_equal(read(out, "rounds"), rounds_table(batch).to_pandas())
    pd.testing.assert_frame_equal(read(out, "games"), games_table(batch).to_pandas())


def test_identical_whatever_threads_and_chunks(tmp_path):
    runs = []
    for threads, chunk in ((1, 5), (2, 23), (2, 9)):
        out = tmp_path / f"run-{threads}-{chunk}"
        result = simulate(*SMALL, "--log-plays", "--threads", str(threads), "--chunk-games", str(chunk), "--out", str(out))
        assert result.exit_code == 0, result.output
        runs.append(out)
    for other in runs[1:]:
        assert_same_dataset(runs[0], other, ("rounds", "games", "plays"))


def test_options_reach_the_games(tmp_path):
    out = tmp_path / "run"
    result = simulate("--players", "5", "--games", "12", "--rounds", "1,3,5", "--first-dealer", "2", "--bidding", "hidden",
                      "--policy", "random", "--seed", "1", "-q", "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    rounds = read(out, "rounds")
    assert sorted(rounds["round"].unique()) == [1, 3, 5] and rounds["seat"].nunique() == 5
    assert (rounds["dealer"] == (2 + rounds["round"] - 1) % 5).all()
    config = read_run(out)["config"]
    assert config["rules"] == {"players": 5, "rounds": [1, 3, 5], "bidding": "hidden", "even_bids": "allowed", "first_dealer": 2}
    out = tmp_path / "forbidden"
    assert simulate("--games", "200", "--rounds", "4", "--even-bids", "forbidden", "--policy", "random", "-q", "--out", str(out)).exit_code == 0
    rounds = read(out, "rounds")
    assert (rounds.groupby("game_id")["bid"].sum() != 4).all()  # the dealer may not even the bids


def test_seed_is_drawn_and_recorded_when_omitted(tmp_path):
    out = tmp_path / "run"
    assert simulate("--games", "3", "--rounds", "2", "-q", "--out", str(out)).exit_code == 0
    seed = read_run(out)["config"]["seed"]
    again = tmp_path / "again"
    assert simulate("--games", "3", "--rounds", "2", "-q", "--seed", str(seed), "--out", str(again)).exit_code == 0
    assert_same_dataset(out, again)


def test_summary_and_quiet(tmp_path):
    result = simulate("--games", "20", "--policy", "heuristic,random,random,random", "--seed", "2", "--out", str(tmp_path / "a"))
    assert result.exit_code == 0
    assert "20 games, 300 rounds, 4 players, seed 2" in result.stdout
    assert "heuristic" in result.stdout and "bid accuracy" in result.stdout and str(tmp_path / "a") in result.stdout
    quiet = simulate("--games", "20", "--seed", "2", "-q", "--out", str(tmp_path / "b"))
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_help_has_examples():
    result = runner.invoke(app, ["simulate", "--help"])
    assert result.exit_code == 0
    assert "--resume" in result.stdout and "wizard-sim simulate --players 4 --games 1000000" in result.stdout


def test_refuses_a_non_empty_out_and_overwrites_a_run(tmp_path):
    out = tmp_path / "run"
    assert simulate(*SMALL, "--out", str(out)).exit_code == 0
    refused = simulate(*SMALL, "--out", str(out))
    assert refused.exit_code == 2 and "is not empty" in refused.stderr
    replaced = simulate("--games", "4", "--rounds", "1", "--seed", "1", "-q", "--overwrite", "--out", str(out))
    assert replaced.exit_code == 0
    assert read(out, "rounds")["game_id"].max() == 3
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    result = simulate(*SMALL, "--overwrite", "--out", str(stranger))
    assert result.exit_code == 2 and "refusing to overwrite" in result.stderr
    assert (stranger / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--players", "7"], "players must be 3..6"),
        (["--players", "2"], "players must be 3..6"),
        (["--rounds", "16"], "round size 16 is outside 1..15"),
        (["--rounds", "0"], "round size 0 is outside"),
        (["--rounds", "x"], "bad round list"),
        (["--policy", "nobody"], "unknown policy 'nobody'"),
        (["--policy", "heuristic:boldness=2"], "has no parameter 'boldness=2'"),
        (["--policy", "heuristic:aggression=lots"], "needs a number"),
        (["--policy", "random,random"], "got 2 policies for 4 players"),
        (["--bidding", "hidden", "--even-bids", "forbidden"], "needs a last bidder"),
        (["--bidding", "delayed", "--even-bids", "leader"], "needs a last bidder"),
        (["--bidding", "loud"], "bidding must be one of"),
        (["--first-dealer", "4"], "first_dealer seat 4 is outside 0..3"),
        (["--games", "0"], "games must be in 1..1,000,000,000,000"),
        (["--seed", "-3"], "seed must be an integer"),
        (["--chunk-games", "0"], "chunk-games must be in 1.."),
        (["--threads", "0"], "threads must be"),
        (["--overwrite", "--resume"], "exclude each other"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, arguments, message):
    out = tmp_path / "run"
    base = {"--games": "5", "--out": str(out)}
    for option, value in zip(arguments[::2], arguments[1::2]):
        base.pop(option, None)
    flat = [item for pair in base.items() for item in pair]
    result = simulate(*flat, *arguments)
    assert result.exit_code == 2, (arguments, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("wizard-sim: error:"), result.stderr
    assert not out.exists()


def test_unwritable_out(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = simulate("--games", "5", "--out", str(blocker / "run"))
    assert result.exit_code == 2 and "is not a directory" in result.stderr
    result = simulate("--games", "5", "--out", str(blocker))
    assert result.exit_code == 2 and "not a directory" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_read_only_parent(tmp_path):
    parent = tmp_path / "locked"
    parent.mkdir(mode=0o500)
    result = simulate("--games", "5", "--out", str(parent / "run"))
    assert result.exit_code == 2 and "is not writable" in result.stderr


def test_write_failure_leaves_no_partial_file_and_resumes(tmp_path, monkeypatch):
    reference = tmp_path / "reference"
    assert simulate(*SMALL, "--log-plays", "--chunk-games", "5", "--out", str(reference)).exit_code == 0
    out = tmp_path / "run"
    real_write = sim.storage.parts.pq.write_table
    calls = {"n": 0}

    def failing_write(table, where, **options):
        calls["n"] += 1
        if calls["n"] == 7:  # in the third chunk, after a partial write
            Path(where).write_bytes(b"PAR1 half a file")
            raise OSError(28, "No space left on device")
        return real_write(table, where, **options)

    monkeypatch.setattr(sim.storage.parts.pq, "write_table", failing_write)
    result = simulate(*SMALL, "--log-plays", "--chunk-games", "5", "--out", str(out))
    assert result.exit_code == 1
    assert "No space left on device" in result.stderr and "--resume" in result.stderr
    assert not [p for p in out.rglob(".*") if p.name != ".wizard-sim.lock"], "a temporary file was left behind"
    for table in ("rounds", "games", "plays"):
        read(out, table)  # every visible part is complete
    run = read_run(out)
    # The failed chunk is missing; the chunk written beside it (two writers) may have landed.
    assert 2 <= len(run["chunks"]["complete"]) < run["chunks"]["count"] and not run["finished"]
    monkeypatch.setattr(sim.storage.parts.pq, "write_table", real_write)
    resumed = simulate("--resume", "--out", str(out), "-q")
    assert resumed.exit_code == 0, resumed.output
    assert_same_dataset(reference, out, ("rounds", "games", "plays"))


def test_resume_rules(tmp_path):
    out = tmp_path / "run"
    assert simulate(*SMALL, "--out", str(out)).exit_code == 0
    done = simulate("--resume", "--out", str(out), "--seed", "5", "--players", "3", "-q")
    assert done.exit_code == 0  # already complete: nothing to do, options that agree are fine
    # Resume compares configurations, not option texts: these spell the recorded one differently.
    same = simulate("--resume", "--out", str(out), "--rounds", "4,1-3", "--policy", "heuristic,random,heuristic:aggression=1.20",
                    "--first-dealer", "draw", "-q")  # fmt: skip
    assert same.exit_code == 0, same.stderr
    for arguments, message in (
        (["--seed", "6"], "--seed 6 differs from the run being resumed (5)"),
        (["--games", "30"], "--games 30 differs"),
        (["--policy", "random"], "--policy"),
        (["--rounds", "1-5"], "--rounds"),
    ):
        result = simulate("--resume", "--out", str(out), *arguments)
        assert result.exit_code == 2 and message in result.stderr, result.stderr
    missing = simulate("--resume", "--out", str(tmp_path / "nothing"))
    assert missing.exit_code == 2 and "cannot resume" in missing.stderr
    (out / "run.json").write_text("{not json")
    broken = simulate("--resume", "--out", str(out))
    assert broken.exit_code == 2 and "unreadable" in broken.stderr


def test_a_run_is_not_resumed_or_computed_with_other_defaults(tmp_path, monkeypatch):
    """A label names only the parameters that differ from the defaults; run.json records what
    each label meant, so that a changed default refuses the resume and a worker's chunks."""
    out = tmp_path / "run"
    assert simulate(*SMALL, "--out", str(out)).exit_code == 0
    record = read_run(out)
    recorded = record["policy_parameters"]
    assert set(recorded) == {"heuristic", "random", "heuristic:aggression=1.2"} and recorded["random"] == {}
    assert (recorded["heuristic"]["aggression"], recorded["heuristic:aggression=1.2"]["aggression"]) == (1.0, 1.2)
    job = ChunkJob(SimulationConfig, record["config"], str(out), parameters=recorded)
    job.configuration()
    move_heuristic_default(monkeypatch)
    refused = simulate("--resume", "--out", str(out))
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "its policy heuristic was started with other parameters (aggression 1.0 then, 1.1 now)" in refused.stderr
    with pytest.raises(ConfigError, match="policy heuristic was started with other parameters"):
        resume(SimulationConfig, str(out))
    with pytest.raises(ConfigError, match="cannot be computed by this wizard-sim"):
        job.configuration()  # a cluster worker rebuilding the configuration from its labels
    verified = runner.invoke(app, ["verify", str(out)])  # the data stay sound; verify says what moved
    assert verified.exit_code == 0 and "complete and sound" in verified.stdout, verified.output
    assert "policy heuristic has other defaults in this wizard-sim (aggression 1.0 then, 1.1 now)" in verified.stdout
    assert "heuristic:aggression=1.2 has" not in verified.stdout and "random has" not in verified.stdout


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_a_run_recorded_with_pimcs_former_parameters_is_not_resumed(tmp_path):
    """pimc's `infer` levels became named switches (docs/pimc.md): a run whose run.json records
    its pimc label with the former parameters refuses --resume in one line, and so does a run
    whose label names infer, with the label that now plays as it."""
    from kernels.search import pimc

    out = tmp_path / "run"
    label = "pimc:samples=0,play_samples=0"  # the heuristic's bids and cards: cheap games
    assert simulate("--players", "3", "--games", "4", "--rounds", "1-2", "--policy", f"{label},heuristic,random",
                    "--seed", "3", "--out", str(out), "-q").exit_code == 0  # fmt: skip
    record = json.loads((out / "run.json").read_text())
    now = record["policy_parameters"][label]
    former = {name: value for name, value in now.items() if name not in pimc.SWITCHES} | {"infer": 6.0}
    recorded = {**record["policy_parameters"], label: former}
    (out / "run.json").write_text(json.dumps({**record, "policy_parameters": recorded}))
    refused = simulate("--resume", "--out", str(out))
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    said = f"its policy {label} was started with other parameters (infer 6.0 then, 'absent' now, posterior"
    assert said in refused.stderr, refused.stderr
    assert "its parameters have changed since" in refused.stderr
    verified = runner.invoke(app, ["verify", str(out)])
    assert f"policy {label} has other parameters in this wizard-sim (infer 6.0 then" in verified.stdout, verified.output
    old_label = f"{label},infer=3"  # as the former wizard-sim recorded it, fingerprint and all
    record["config"]["policies"][0] = old_label
    record["policy_parameters"] = {old_label: former, **record["policy_parameters"]}
    record["fingerprint"] = fingerprint(record["command"], record["config"])
    (out / "run.json").write_text(json.dumps(record))
    refused = simulate("--resume", "--out", str(out))
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert (f"policy pimc no longer has the parameter infer (docs/pimc.md): {old_label} is now "
            f"{label},ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0") in refused.stderr  # fmt: skip


def test_a_run_from_before_the_parameter_record_still_resumes(tmp_path):
    out = tmp_path / "run"
    assert simulate(*SMALL, "--chunk-games", "5", "--out", str(out)).exit_code == 0
    reference = tmp_path / "reference"
    shutil.copytree(out, reference)
    record = json.loads((out / "run.json").read_text())
    del record["policy_parameters"]
    (out / "run.json").write_text(json.dumps(record))
    (out / "rounds" / "part-00001.parquet").unlink()  # a lost part: recomputed by the resume
    resumed = simulate("--resume", "--out", str(out), "-q")
    assert resumed.exit_code == 0, resumed.stderr
    assert_same_dataset(reference, out)


@pytest.mark.processes
def test_killed_run_resumes_to_identical_data(tmp_path):
    """SIGKILL a real `wizard-sim simulate` process mid-run, then --resume it."""
    arguments = ["simulate", "--games", "6000", "--chunk-games", "50", "--policy", "heuristic", "--seed", "11",
                 "--log-plays", "--quiet", "--threads", "1"]  # fmt: skip
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "sim.cli", *arguments, "--out", str(out)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    complete = 0
    while time.monotonic() < deadline and process.poll() is None:
        try:
            complete = len(read_run(out)["chunks"]["complete"])
        except (OSError, ValueError, KeyError):
            complete = 0
        if complete >= 3:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    run = read_run(out)
    assert 0 < len(run["chunks"]["complete"]) < 120, "the kill came too late to test anything"
    for table in ("rounds", "games", "plays"):
        for part in (out / table).glob("part-*.parquet"):
            pq.read_table(part)  # every visible part is whole
    resumed = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--resume", "--quiet", "--out", str(out)])
    assert resumed.returncode == 0
    assert not list(out.rglob(".*.tmp"))
    reference = tmp_path / "reference"
    result = simulate(*arguments[1:], "--out", str(reference))
    assert result.exit_code == 0
    assert_same_dataset(reference, out, ("rounds", "games", "plays"))


def test_a_run_parses_its_policies_once_and_looks_its_engine_up_once(tmp_path, monkeypatch):
    """Issue #36: a run's policies are validated once, into the configuration's Seating, and
    every chunk and kernel slice after that reuses it, with the engine looked up once."""
    import dataclasses

    import kernels.batch
    import sim.policies.registry
    import sim.engine.seating
    from sim.runs.simulation import SimulationConfig
    from sim.runs.simulation import simulate as run_simulation

    parsed, looked_up = [], []
    real_parse = sim.policies.registry.parse_policy
    monkeypatch.setattr(sim.policies.registry, "parse_policy", lambda text: parsed.append(text) or real_parse(text))
    config = SimulationConfig.build(Rules(3, (1, 2)), "heuristic,random,heuristic:aggression=1.2", seed=5, games=23,
                                    chunk_games=7)  # fmt: skip
    assert len(parsed) == 6  # each text checked before any module is imported (issue 61), then parsed
    # A stand-in numba bot, so that the decision step's engine is looked up (not the fast
    # path's): the lookup is counted and gives the engine of the built-in policies seated.
    real_engine = sim.engine.seating.compiled_engine
    monkeypatch.setattr(sim.engine.seating, "compiled_engine",
                        lambda entry, built_in, bots, models: looked_up.append(entry) or real_engine(entry, built_in, [], models))  # fmt: skip
    config.__dict__["seating"] = dataclasses.replace(config.seating, bots=(object(),))
    result = run_simulation(config, str(tmp_path / "run"), threads=1)
    assert result.units_computed == 23 and len(result.record["chunks"]["complete"]) == 4
    assert len(parsed) == 6, "a policy was parsed again during the run"
    assert looked_up == [kernels.batch.play_games], "the engine was looked up more than once"
