"""`--engine dask`: the same dataset as the local executor, row for row, on a 2-worker local
cluster; a worker killed mid-run and a driver killed then resumed; one-line errors."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

pytest.importorskip("distributed")
import dask  # noqa: E402
import distributed  # noqa: E402
import numba  # noqa: E402

import kernels.batch  # noqa: E402
import kernels.fast_games  # noqa: E402
import sim.runs.games  # noqa: E402
from sim.cli import app  # noqa: E402
from sim.config.errors import ConfigError  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.runs.cluster import DaskExecutor, check_workers, chunk_key, worker_threads  # noqa: E402
from sim.runs.executors import ChunkJob, run_chunk  # noqa: E402
from sim.runs.games import run_games  # noqa: E402
from sim.runs.simulation import SimulationConfig, resume, simulate  # noqa: E402
from sim.storage import RunError, read_run, versions  # noqa: E402

runner = CliRunner()
SMALL = ["--players", "3", "--games", "23", "--rounds", "1-4", "--policy", "heuristic,random,heuristic:aggression=1.2",
         "--seed", "5", "--chunk-games", "4", "--log-plays", "--quiet"]  # fmt: skip
TOURNAMENT = ["--policies", "heuristic,random,heuristic:aggression=1.3,random", "--games", "30", "--rounds", "1-5",
              "--seed", "4", "--chunk-games", "4", "--log-plays", "--quiet"]  # fmt: skip
TABLES = ("rounds", "games", "plays")


def kernel_report() -> tuple[str, int, int]:
    """On a worker: where the kernels come from; how often play_games (of the fast path: these
    tests seat only `random` and `heuristic`) was loaded from the cache and how often compiled."""
    stats = kernels.fast_games.play_games.stats
    return kernels.batch.__file__, sum(stats.cache_hits.values()), sum(stats.cache_misses.values())


def prepend_to_path(directory: str) -> None:
    """On a worker: make `directory` importable, as a user puts a bot's module on the workers'
    PYTHONPATH (docs/dask.md); the test process's own path does not reach worker processes."""
    sys.path.insert(0, directory)


@pytest.fixture(scope="module")
def client():
    run_games(Rules(players=3), "random", seed=0, games=1)  # the workers load these kernels from the cache
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as dask_client:  # fmt: skip
        yield dask_client


def invoke(command: str, *arguments: str):
    return runner.invoke(app, [command, *arguments])


def assert_same_dataset(first: Path, second: Path, tables=TABLES) -> None:
    for table in tables:
        pd.testing.assert_frame_equal(pd.read_parquet(first / table), pd.read_parquet(second / table))
        assert sorted(p.name for p in (first / table).iterdir()) == sorted(p.name for p in (second / table).iterdir())


def chunk_stats(out: Path) -> dict:
    return read_run(out)["chunks"]["complete"]


@pytest.mark.cluster
def test_simulate_on_dask_equals_local(tmp_path, client):
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("simulate", *SMALL, "--out", str(local)).exit_code == 0
    on_cluster = ["--engine", "dask", "--scheduler", client.scheduler.address]
    result = invoke("simulate", *SMALL, "--out", str(on_dask), *on_cluster)
    assert result.exit_code == 0, result.output
    assert_same_dataset(local, on_dask)
    assert chunk_stats(on_dask) == chunk_stats(local)
    assert read_run(on_dask)["finished"]
    assert not [p for p in on_dask.rglob(".*") if p.name != ".wizard-sim.lock"]
    for kernel_file, loads, compilations in client.run(kernel_report).values():
        assert kernel_file == kernels.batch.__file__  # the workers run this source tree
        assert loads == 1 and compilations == 0  # and loaded its cached kernels instead of compiling them


@pytest.mark.cluster
def test_tournament_on_dask_equals_local(tmp_path, client):
    for duplicate in ([], ["--no-duplicate"]):
        local, on_dask = tmp_path / f"local{duplicate}", tmp_path / f"dask{duplicate}"
        assert invoke("tournament", *TOURNAMENT, *duplicate, "--out", str(local)).exit_code == 0
        result = invoke(
            "tournament", *TOURNAMENT, *duplicate, "--out", str(on_dask), "--engine", "dask",
            "--scheduler", client.scheduler.address, "--threads", "1",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert_same_dataset(local, on_dask)
        assert json.loads((on_dask / "summary.json").read_text()) == json.loads((local / "summary.json").read_text())


@pytest.mark.cluster
def test_league_on_dask_equals_local(tmp_path, client):
    policies = "heuristic,random,heuristic:aggression=1.3,heuristic:crowding=0.3,mc:samples=2,play_samples=2"
    league = ["--policies", policies, "--games", "17", "--rounds", "1-4", "--seed", "4", "--chunk-games", "3",
              "--log-plays", "--quiet"]  # fmt: skip
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("league", *league, "--out", str(local)).exit_code == 0
    result = invoke("league", *league, "--out", str(on_dask), "--engine", "dask", "--scheduler", client.scheduler.address)
    assert result.exit_code == 0, result.output
    assert_same_dataset(local, on_dask)
    assert json.loads((on_dask / "summary.json").read_text()) == json.loads((local / "summary.json").read_text())


@pytest.mark.cluster
def test_an_sprt_run_on_dask_stops_where_the_local_one_does(tmp_path, client):
    """Chunks land out of order on the cluster; the test is fed them in chunk order and the
    chunks computed past its decision are removed, so the data are the local run's."""
    sprt = ["--policies", "heuristic,heuristic:aggression=1.2,random", "--players", "3", "--rounds", "1-3", "--games", "5000",
            "--chunk-games", "20", "--seed", "5", "--sprt", "0,3", "--quiet"]  # fmt: skip
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("tournament", *sprt, "--out", str(local)).exit_code == 0
    result = invoke("tournament", *sprt, "--out", str(on_dask), "--engine", "dask", "--scheduler", client.scheduler.address)
    assert result.exit_code == 0, result.output
    assert_same_dataset(local, on_dask, ("rounds", "games"))
    record = json.loads((on_dask / "run.json").read_text())
    assert record["sprt"] == json.loads((local / "run.json").read_text())["sprt"] and record["sprt"]["decision"]
    assert invoke("verify", str(on_dask)).exit_code == 0


@pytest.mark.cluster
def test_an_external_bot_plays_on_dask_where_the_workers_can_import_it(tmp_path, client, monkeypatch):
    examples = str(Path(__file__).resolve().parent.parent / "examples")
    monkeypatch.syspath_prepend(examples)  # the driver imports the bot
    bot_table = ["--policies", "greedy_bot:GreedyBot,heuristic,random,random", "--games", "12", "--rounds", "1-4",
                 "--seed", "3", "--chunk-games", "4", "--quiet"]  # fmt: skip
    on_cluster = ["--engine", "dask", "--scheduler", client.scheduler.address]
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("tournament", *bot_table, "--out", str(local)).exit_code == 0
    # The workers started before examples/ was on the path: they cannot import the bot.
    refused = invoke("tournament", *bot_table, "--out", str(on_dask), *on_cluster)
    assert refused.exit_code == 2
    assert refused.stderr.strip().splitlines() == [
        "wizard-sim: error: on a Dask worker: cannot import policy module 'greedy_bot': No module named 'greedy_bot' "
        "(an external bot's module must be importable on every worker)"
    ]
    client.run(prepend_to_path, examples)
    unnamed = invoke("tournament", "--resume", "--out", str(on_dask), "--quiet", *on_cluster)
    assert unnamed.exit_code == 2 and "name its policies again with --policies" in unnamed.stderr
    resumed = invoke("tournament", "--resume", "--out", str(on_dask), "--quiet", *on_cluster,
                     "--policies", "greedy_bot:GreedyBot,heuristic,random,random")  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    assert_same_dataset(local, on_dask, ("rounds", "games"))


@pytest.mark.cluster
def test_a_python_policy_plays_on_dask_where_the_workers_can_import_it(tmp_path, client, monkeypatch):
    bots = str(Path(__file__).resolve().parent / "bots")
    monkeypatch.syspath_prepend(bots)  # the driver imports the bots
    policies = "python_bots:Lowest,heuristic,python_bots:DelegatingHeuristic,random"
    table = ["--policies", policies, "--games", "10", "--rounds", "1-4", "--seed", "3", "--chunk-games", "3",
             "--batch-games", "5", "--log-plays", "--quiet"]  # fmt: skip
    on_cluster = ["--engine", "dask", "--scheduler", client.scheduler.address]
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("tournament", *table, "--out", str(local)).exit_code == 0
    refused = invoke("tournament", *table, "--out", str(on_dask), *on_cluster)
    assert refused.exit_code == 2
    assert refused.stderr.strip().splitlines() == [
        "wizard-sim: error: on a Dask worker: cannot import policy module 'python_bots': No module named 'python_bots' "
        "(an external bot's module must be importable on every worker)"
    ]
    client.run(prepend_to_path, bots)
    resumed = invoke("tournament", "--resume", "--out", str(on_dask), "--quiet", *on_cluster, "--policies", policies)
    assert resumed.exit_code == 0, resumed.output
    assert_same_dataset(local, on_dask)
    assert json.loads((on_dask / "summary.json").read_text()) == json.loads((local / "summary.json").read_text())
    # A policy object that its label does not import again (an instance) stays in this process.
    from python_bots import Lowest

    config = SimulationConfig.build(Rules(players=3, rounds=(1, 2)), [Lowest(), "heuristic", "random"], seed=1, games=4)
    with pytest.raises(ConfigError, match="python_bots:Lowest was given as an object that importing"):
        simulate(config, str(tmp_path / "instance"), executor=DaskExecutor(client))
    assert not (tmp_path / "instance").exists()  # refused before anything is written


@pytest.mark.cluster
def test_workers_option_starts_a_local_cluster_and_takes_file_urls(tmp_path):
    local, on_dask = tmp_path / "local", tmp_path / "dask"
    assert invoke("simulate", *SMALL, "--out", str(local)).exit_code == 0
    result = invoke("simulate", *SMALL, "--out", on_dask.as_uri(), "--engine", "dask", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert_same_dataset(local, on_dask)


def test_a_duplicated_task_rewrites_the_same_files(tmp_path):
    out = tmp_path / "run"
    assert invoke("simulate", *SMALL, "--out", str(out)).exit_code == 0
    record = read_run(out)
    job = ChunkJob(SimulationConfig, record["config"], str(out))
    before = {path: path.read_bytes() for path in out.rglob("part-00002.parquet")}
    assert run_chunk(job, 2)["stats"] == record["chunks"]["complete"]["2"]
    assert {path: path.read_bytes() for path in out.rglob("part-00002.parquet")} == before
    assert chunk_key(job, 2) == chunk_key(ChunkJob(SimulationConfig, dict(record["config"]), str(out), threads=2), 2)
    assert chunk_key(job, 2) != chunk_key(job, 3)
    assert chunk_key(job, 2) != chunk_key(ChunkJob(SimulationConfig, record["config"], str(tmp_path / "other")), 2)
    assert chunk_key(job, 2) != chunk_key(ChunkJob(SimulationConfig, {**record["config"], "seed": 6}, str(out)), 2)


def test_workers_are_checked_before_a_run(tmp_path):
    out = str(tmp_path)
    ours = versions()["wizard_sim"]
    check_workers({"tcp://a:1": {"wizard_sim": ours, "sees_out": True}}, out)
    with pytest.raises(ValueError, match="runs wizard-sim 0.0.1, this driver"):
        check_workers({"tcp://a:1": {"wizard_sim": "0.0.1", "sees_out": True}}, out)
    with pytest.raises(ValueError, match="cannot see .*run.json: --out must be on storage shared"):
        check_workers({"tcp://a:1": {"wizard_sim": ours, "sees_out": False}}, out)
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        DaskExecutor(client=None).check_threads(0)

    class WorkersWithoutWizardSim:
        def run(self, function, *arguments):
            raise Exception("ModuleNotFoundError(\"No module named 'sim'\")")  # as Dask re-raises it

    with pytest.raises(ConfigError, match="the Dask workers could not run wizard-sim .*No module named 'sim'"):
        DaskExecutor(WorkersWithoutWizardSim()).run(ChunkJob(SimulationConfig, {}, out), [0], lambda index, stats: None)


def test_threads_reach_the_kernels_of_the_local_executor(tmp_path, monkeypatch):
    seen = []
    real_set_threads = sim.runs.games.set_threads
    monkeypatch.setattr(sim.runs.games, "set_threads", lambda threads: (seen.append(threads), real_set_threads(threads)))
    assert invoke("simulate", *SMALL, "--threads", "1", "--out", str(tmp_path / "run")).exit_code == 0
    assert seen and set(seen) == {1}


def test_kernel_threads_on_workers(client):
    cores = next(iter(client.run(lambda: numba.config.NUMBA_NUM_THREADS).values()))
    for requested, expected in ((None, cores), (1, 1), (cores + 5, cores)):  # one task thread per worker
        assert client.submit(worker_threads, requested, pure=False).result() == expected


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--engine", "foo"], "--engine must be local or dask, got 'foo'"),
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler and --workers need --engine dask"),
        (["--workers", "2"], "--scheduler and --workers need --engine dask"),
        (["--engine", "dask"], "--engine dask needs --scheduler tcp://HOST:8786"),
        (["--engine", "dask", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "exclude each other"),
        (["--engine", "dask", "--workers", "0"], "workers must be in 1..256"),
        (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler tcp://127.0.0.1:1 does not answer as a Dask scheduler"),
        (["--out", "s3://bucket/run"], "s3:// URLs are not supported"),
    ],
)
@pytest.mark.cluster
def test_bad_engine_options_are_one_line_exit_2(tmp_path, arguments, message):
    out = tmp_path / "run"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = invoke("simulate", "--games", "5", "--quiet", "--out", str(out), *arguments)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not out.exists()


def test_without_dask_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    result = invoke("tournament", *TOURNAMENT, "--out", str(tmp_path / "run"), "--engine", "dask", "--workers", "2")
    assert result.exit_code == 2
    expected = "--engine dask needs Dask, which is not installed: pip install 'wizard-sim[dask]'"
    assert result.stderr == f"wizard-sim: error: {expected}\n"


@pytest.mark.cluster
def test_killed_driver_resumes_on_the_cluster(tmp_path, client):
    arguments = ["simulate", "--games", "3000", "--chunk-games", "50", "--policy", "heuristic", "--seed", "11",
                 "--log-plays", "--quiet"]  # fmt: skip
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "sim.cli", *arguments, "--out", str(out), "--engine", "dask",
               "--scheduler", client.scheduler.address]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if len(chunk_stats(out)) >= 3:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 0 < len(chunk_stats(out)) < 60, "the kill came too late to test anything"
    resumed = invoke(arguments[0], "--resume", "--quiet", "--out", str(out), "--engine", "dask",
                     "--scheduler", client.scheduler.address)  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    assert not list(out.rglob(".*.tmp"))
    reference = tmp_path / "reference"
    assert invoke(*arguments, "--out", str(reference)).exit_code == 0
    assert_same_dataset(reference, out)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.cluster
def test_a_dead_scheduler_stops_the_run_with_one_line_and_resume_finishes_it(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port",
                                  address.rsplit(":", 1)[1], "--dashboard-address", ":0"], **quiet)  # fmt: skip
    worker = subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nworkers", "1", "--nthreads", "1"], **quiet)
    arguments = ["simulate", "--games", "2000", "--chunk-games", "20", "--policy", "mc:samples=2,play_samples=2",
                 "--seed", "8", "--quiet"]  # fmt: skip
    out = tmp_path / "run"
    try:
        driver = subprocess.Popen(
            [sys.executable, "-m", "sim.cli", *arguments, "--out", str(out), "--engine", "dask", "--scheduler", address],
            stderr=subprocess.PIPE, text=True, env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "3s"},
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and driver.poll() is None:
            with contextlib.suppress(OSError, ValueError, KeyError):
                if len(chunk_stats(out)) >= 2:
                    break
            time.sleep(0.02)
        scheduler.kill()
        _, stderr = driver.communicate(timeout=120)
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait()
    assert 0 < len(chunk_stats(out)) < 100, "the scheduler died too late to test anything"
    assert driver.returncode == 1
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith("wizard-sim: error: lost the Dask scheduler (") and "--resume" in stderr
    assert invoke("simulate", "--resume", "--quiet", "--out", str(out)).exit_code == 0  # on the local executor
    reference = tmp_path / "reference"
    assert invoke(*arguments, "--out", str(reference)).exit_code == 0
    assert_same_dataset(reference, out, ("rounds", "games"))


def test_a_failing_task_stops_the_run_and_resume_finishes_it(tmp_path, client):
    config = SimulationConfig.build(Rules(players=3, rounds=(1, 2)), "random", seed=1, games=40, chunk_games=10)
    out = tmp_path / "run"

    def break_the_games_directory(done: int, total: int) -> None:
        if done == 0:  # before any task runs
            if (out / "games").is_dir():  # a table's directory appears with its first part
                shutil.rmtree(out / "games")
            (out / "games").write_text("not a directory")

    with pytest.raises(RunError, match="writing games/part-0000"):
        simulate(config, str(out), executor=DaskExecutor(client), on_progress=break_the_games_directory)
    assert not read_run(out)["finished"]
    (out / "games").unlink()
    resume(str(out), executor=DaskExecutor(client))
    reference = tmp_path / "local"
    simulate(config, str(reference))
    assert_same_dataset(reference, out, ("rounds", "games"))


@pytest.mark.cluster
def test_killed_worker_is_replaced_and_the_data_are_the_same(tmp_path, client):
    """Last in this module: the cluster loses a worker (its nanny starts a new one)."""
    rules = Rules(players=4)
    config = SimulationConfig.build(rules, "heuristic", seed=3, games=2000, chunk_games=100, log_plays=True)
    pids = client.run(os.getpid)
    killed = []

    def kill_a_busy_worker(done: int, total: int) -> None:
        busy = [worker for worker, keys in client.processing().items() if keys]
        if 0 < done < total and busy and not killed:
            os.kill(pids[busy[0]], signal.SIGKILL)
            killed.append(busy[0])

    out = tmp_path / "dask"
    simulate(config, str(out), executor=DaskExecutor(client), on_progress=kill_a_busy_worker)
    assert killed, "no worker was busy when chunks completed"
    reference = tmp_path / "local"
    simulate(config, str(reference))
    assert_same_dataset(reference, out)
    assert chunk_stats(out) == chunk_stats(reference)
    assert not list(out.rglob(".*.tmp"))
    client.wait_for_workers(2, timeout=30)
    assert set(client.run(os.getpid).values()) != set(pids.values())
