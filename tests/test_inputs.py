"""Issue #15, every input bounded: each command (simulate, tournament, estimate, report, demo,
verify) driven with generated arguments, valid and not, exits 0 or 2 (verify: 0, 1 or 2)
without a traceback, and writes nothing when it exits 2. Sizes stay tiny so that the valid
cases run in milliseconds."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

HUGE = ["1" + "0" * 30, str(2**63), str(2**64), "-1", "0", "1e3", "nan", "inf", "", "x", "²", "-0"]


def numbers(valid: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(valid + HUGE)


POLICIES = [
    "random", "heuristic", "heuristic:aggression=1.2", "mc:samples=2,play_samples=1", "random,heuristic,random,random",
    "", ",", "heuristic:aggression=nan", "heuristic:aggression=inf", "heuristic:aggression=1e300",
    "heuristic:aggression=-1", "heuristic:crowding=11", "mc:samples=1e300", "mc:samples=257", "mc:samples=-1",
    "mc:play_samples=2.5", "nosuch", "heuristic:nosuch=1", "heuristic:aggression", "random:x",
]  # fmt: skip
RUN_OPTIONS = {
    "--players": numbers(["3", "4", "6", "7"]),
    "--rounds": st.sampled_from(["1", "1-3", "2,3", "0", "1-1000000000000", "3-1", "²", "a", "1-15", "99999999999999999999"]),
    "--bidding": st.sampled_from(["open", "hidden", "delayed", "nope"]),
    "--even-bids": st.sampled_from(["allowed", "forbidden", "leader", "nope"]),
    "--first-dealer": st.sampled_from(["draw", "0", "2", "9", "²", "-1", "99999999999999999999999"]),
    "--seed": numbers(["0", "7", str(2**63 - 1)]),
    "--threads": numbers(["1", "2", "99"]),
    "--chunk-games": numbers(["1", "3", "1000000000"]),
}


def options(table: dict[str, st.SearchStrategy[str]]) -> st.SearchStrategy[list[str]]:
    """Any subset of the options of `table`, each with a generated value."""
    return st.fixed_dictionaries({}, optional=table).map(lambda chosen: [x for pair in chosen.items() for x in pair])


def check(arguments: list[str], written: Path | None, codes=(0, 2)) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code in codes, (arguments, result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (arguments, repr(result.exception))
    assert "Traceback" not in result.output, (arguments, result.output)
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("wizard-sim: error:"), (arguments, result.stderr)
        if written is not None:
            assert not written.exists(), (arguments, "exit 2 wrote", sorted(written.rglob("*")))


@pytest.mark.slow
@SETTINGS
@given(games=numbers(["1", "3", "8"]), policy=st.sampled_from(POLICIES), more=options(RUN_OPTIONS), plays=st.booleans())
def test_simulate(games, policy, more, plays):
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "out"
        flags = ["--log-plays"] if plays else []
        check(["simulate", "--games", games, "--policy", policy, "--rounds", "1-2", *more, *flags, "--quiet", "--out", str(out)], out)


@SETTINGS
@given(
    games=numbers(["1", "2", "5"]),
    policies=st.sampled_from(["heuristic,random,random,random", "random,heuristic", "random", *POLICIES]),
    more=options(RUN_OPTIONS),
    plain=st.booleans(),
)
@pytest.mark.slow
def test_tournament(games, policies, more, plain):
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "out"
        flags = ["--no-duplicate"] if plain else []
        check(["tournament", "--games", games, "--policies", policies, "--rounds", "1-2", *more, *flags, "--quiet", "--out", str(out)], out)


ESTIMATE = {
    "--trump": st.sampled_from(["3H", "W", "J", "AS", "ZZ", ""]),
    "--trump-suit": st.sampled_from(["H", "clubs", "Q", ""]),
    "--players": numbers(["3", "4", "6"]),
    "--position": numbers(["0", "1", "3"]),
    "--bids": st.sampled_from(["", "1", "0,1", "1,0,1", "99", "-1", "1" + "0" * 30, "a"]),
    "--totals": st.sampled_from(["", "0,0,0,0", "40,-10,0,20", "1" + "0" * 30 + ",0,0,0", "nan,0,0,0"]),
    "--opponents": st.sampled_from(["heuristic", "random", "mc:samples=2,play_samples=1", *POLICIES[5:]]),
    "--policy": st.sampled_from(["heuristic", "random", *POLICIES[5:]]),
    "--samples": numbers(["2", "20"]),
    "--seed": numbers(["0", "5"]),
    "--bidding": st.sampled_from(["open", "hidden", "nope"]),
    "--even-bids": st.sampled_from(["allowed", "forbidden", "nope"]),
    "--threads": numbers(["1", "2"]),
}


@SETTINGS
@given(
    hand=st.sampled_from(["AS", "W AS KH", "J", "ZZ", "", "AS AS", "W W W W W"]),
    samples=numbers(["2", "30"]),
    more=options(ESTIMATE),
    no_trump=st.booleans(),
)
@pytest.mark.slow
def test_estimate(hand, samples, more, no_trump):
    check(["estimate", "--hand", hand, "--samples", samples, *more, *(["--no-trump"] if no_trump else [])], None)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("datasets")
    complete = root / "complete"
    arguments = ["simulate", "--games", "6", "--chunk-games", "2", "--rounds", "1-3", "--seed", "1", "--quiet"]
    assert runner.invoke(app, [*arguments, "--out", str(complete)]).exit_code == 0
    damaged = root / "damaged"
    assert runner.invoke(app, [*arguments, "--out", str(damaged)]).exit_code == 0
    (damaged / "rounds" / "part-00001.parquet").write_bytes(b"PAR1 not a parquet file")
    listed = root / "bad-json"
    assert runner.invoke(app, [*arguments, "--out", str(listed)]).exit_code == 0
    (listed / "run.json").write_text("[]")
    (root / "a-file").write_text("x")
    return {"complete": complete, "damaged": damaged, "bad-json": listed, "file": root / "a-file",
            "missing": root / "missing", "empty": root}  # fmt: skip


@SETTINGS
@given(
    which=st.sampled_from(["complete", "damaged", "bad-json", "file", "missing", "empty"]),
    batch_size=numbers(["1", "1000"]),
    json_output=st.booleans(),
    outputs=st.sampled_from([[], ["--out"], ["--plots"], ["--out", "--plots"]]),
)
@pytest.mark.slow
def test_report(datasets, which, batch_size, json_output, outputs):
    with tempfile.TemporaryDirectory() as work:
        written = Path(work) / "written"
        extra = []
        for option in outputs:
            extra += [option, str(written / ("accuracy.parquet" if option == "--out" else "plots"))]
        arguments = ["report", str(datasets[which]), "--batch-size", batch_size, *extra, *(["--json"] if json_output else [])]
        check(arguments, written)


@SETTINGS
@given(which=st.sampled_from(["complete", "damaged", "bad-json", "file", "missing", "empty"]))
def test_verify(datasets, which):
    check(["verify", str(datasets[which])], None, codes=(0, 1, 2))


@SETTINGS
@given(
    games=numbers(["1", "5"]),
    more=options({"--players": numbers(["3", "4"]), "--policy": st.sampled_from(POLICIES), "--seed": numbers(["0", "1"])}),
)
@pytest.mark.slow
def test_demo(games, more):
    check(["demo", "--games", games, *more], None)
