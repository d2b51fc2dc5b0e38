"""`wizard-sim serve` and its JSON API (sim.serve, docs/serve.md): the answer for a seed is
`wizard-sim estimate --json`'s, bad input is one sentence and a 4xx naming the field, a broken
estimate does not stop the server, the queue is bounded, a cancelled request stops sampling,
and Ctrl-C stops the server within 2 s."""
import asyncio
import json
import signal
import threading
import time
import urllib.request

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from benchmarks.serving import running_server
from sim.estimation.request import EstimateRequest
from sim.cli import app as cli
from sim.serve import jobs as serve_jobs
from sim.serve.app import create_app, request_from_body
from sim.serve.jobs import Busy, Cancelled, EstimateQueue

runner = CliRunner()
SITUATION = {"hand": "W AS KH 7H J", "trump": "3H", "players": 4, "position": 2, "bids": [1, 0], "samples": 3000,
             "seed": 7}  # fmt: skip


# The queue compiles (or loads) the estimate kernels before it is ready: a first run on a cold
# numba cache, on a machine shared with other jobs, has taken over 300 s.
WARM_UP_SECONDS = 1200


@pytest.fixture(scope="module")
def client():
    jobs = EstimateQueue(workers=2, capacity=4)
    jobs.start()
    assert jobs.ready.wait(WARM_UP_SECONDS)
    with TestClient(create_app(jobs)) as test_client:
        yield test_client


def cli_json(*arguments: str) -> str:
    result = runner.invoke(cli, ["estimate", *arguments, "--json"])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def test_the_answer_for_a_seed_is_the_command_lines_json_exactly(client):
    answer = client.post("/api/estimate", json=SITUATION)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    expected = cli_json("--hand", "W AS KH 7H J", "--trump", "3H", "--players", "4", "--position", "2",
                        "--bids", "1,0", "--samples", "3000", "--seed", "7")  # fmt: skip
    assert answer.text == expected
    payload = answer.json()
    assert payload["assumptions"]["opponent_model"] == "exact heuristic"
    assert "exactly like the heuristic" in payload["assumptions"]["summary"]


def test_every_option_of_the_request_is_the_command_lines(client):
    body = {"hand": "AS KS QD", "trump": "W", "trump_suit": "D", "players": 3, "position": 2, "bids": "1,0",
            "bidding": "open", "even_bids": "leader", "totals": [30, 0, 10], "opponents": ["random", "mc"],
            "policy": "heuristic:aggression=1.1", "spread": 1.0, "floor": 0.2, "infer": True, "samples": 500,
            "seed": 3}  # fmt: skip
    answer = client.post("/api/estimate", json=body)
    assert answer.status_code == 200, answer.text
    expected = cli_json("--hand", "AS KS QD", "--trump", "W", "--trump-suit", "D", "--players", "3", "--position",
                        "2", "--bids", "1,0", "--bidding", "open", "--even-bids", "leader", "--totals", "30,0,10",
                        "--opponents", "random,mc", "--policy", "heuristic:aggression=1.1", "--spread", "1",
                        "--floor", "0.2", "--infer", "--samples", "500", "--seed", "3")  # fmt: skip
    assert answer.text == expected
    assert json.loads(answer.text)["assumptions"]["opponent_model"] == "tolerant heuristic (spread 1, 20% random bids)"


def test_the_body_is_the_request_objects_fields():
    assert request_from_body(dict(SITUATION)) == EstimateRequest(**SITUATION)


@pytest.mark.parametrize(
    "body, field, message",
    [
        ({"hand": "AS AS", "trump": "3H"}, "hand", "card 'AS' appears twice"),
        ({"hand": "AS", "trump": "3H", "position": 1, "bids": [2]}, "bids",
         "earlier bid 2 (position 0) is outside 0..1"),
        ({"hand": "AS KH", "trump": "AS"}, "trump", "the trump card AS is also in the hand"),
        ({"hand": "AS"}, "trump", "say what was turned up"),
        ({"hand": "AS", "trump": "3H", "players": "4"}, "players", "players must be a whole number"),
        ({"hand": "AS", "trump": "3H", "players": 7}, "players", "players must be 3..6"),
        ({"hand": "AS", "trump": "3H", "colour": "red"}, "colour", "unknown field 'colour'"),
        ({"hand": "AS", "trump": "3H", "threads": 1}, "threads", "unknown field 'threads'"),
        ({"hand": "AS", "trump": "3H", "opponents": "os:system"}, "opponents", "only the built-in policies"),
        ({"hand": "AS", "trump": "3H", "policy": "examples.rule_bot:RuleBot"}, "policy", "only the built-in policies"),
        ({"hand": "AS", "trump": "3H", "opponents": ["random", 3, "mc"]}, "opponents", "each policy is text"),
        ({"hand": "AS", "trump": "3H", "samples": 5_000_000}, "samples", "at most 1,000,000"),
        ({"hand": "AS", "trump": "3H", "samples": 1}, "samples", "samples must be a whole number in 2.."),
        ({"hand": "AS", "trump": "3H", "spread": "wide"}, "spread", "spread must be a number"),
        ({"hand": "AS", "trump": "3H", "floor": 2}, "floor", "floor must be a number in 0..1"),
        ({"trump": "3H"}, "hand", "give the hand"),
        ([1, 2], None, "the body must be a JSON object"),
    ],
)
def test_bad_input_is_one_sentence_naming_its_field_and_a_400(client, body, field, message):
    answer = client.post("/api/estimate", json=body)
    assert answer.status_code == 400, answer.text
    payload = answer.json()
    assert message in payload["error"] and "\n" not in payload["error"]
    assert payload["field"] == field


def test_a_body_that_is_not_json_is_a_400(client):
    answer = client.post("/api/estimate", content=b"{hand", headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]


def test_the_exact_model_with_nothing_to_sample_is_a_422(client):
    answer = client.post("/api/estimate", json={"hand": "AS KS", "trump": "2H", "position": 1, "bids": [2],
                                                "opponents": "heuristic:aggression=0", "samples": 100})  # fmt: skip
    assert answer.status_code == 422 and "tolerant model" in answer.json()["error"]


def test_a_failing_estimate_is_a_500_and_the_server_goes_on(client, monkeypatch):
    def broken(request, progress=None):
        raise RuntimeError("a broken kernel")

    monkeypatch.setattr(serve_jobs, "run_estimate", broken)
    answer = client.post("/api/estimate", json=SITUATION)
    assert answer.status_code == 500 and "a broken kernel" in answer.json()["error"]
    monkeypatch.undo()
    assert client.post("/api/estimate", json=SITUATION).status_code == 200


def test_the_stream_reports_progress_then_the_same_answer(client):
    body = dict(SITUATION, samples=25_000)
    with client.stream("POST", "/api/estimate/stream", json=body) as answer:
        lines = [json.loads(line) for line in answer.iter_lines() if line]
    assert all("progress" in line for line in lines[:-1]) and "result" in lines[-1]
    assert client.post("/api/estimate", json=body).json() == lines[-1]["result"]
    bad = client.post("/api/estimate/stream", json={"hand": "AS AS", "trump": "3H"})
    assert bad.status_code == 400 and bad.json()["field"] == "hand"


def test_the_page_and_its_assets_are_served_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and "What should I bid?" in page.text
    for asset in ("app.js", "style.css"):
        assert client.get(f"/static/{asset}").status_code == 200
    assert "http" not in page.text.replace("http-equiv", "")  # nothing from another host
    status = client.get("/api/status").json()
    assert status["ready"] and status["unknown_opponents"]["spread"] > 0


# --- the queue -----------------------------------------------------------------------------


def run_jobs(queue: EstimateQueue, requests: list[EstimateRequest], cancel_first: bool = False):
    async def main():
        submitted = []
        outcome = []
        for request in requests:
            try:
                submitted.append(queue.submit(request))
            except Busy as error:
                outcome.append(error)
        if cancel_first:
            await asyncio.sleep(0.5)
            submitted[0].cancel()
        for job in submitted:
            try:
                outcome.append(await asyncio.wait_for(job.future, 120))
            except Exception as error:  # noqa: BLE001
                outcome.append(error)
        return submitted, outcome

    return asyncio.run(main())


def test_a_full_queue_answers_busy():
    queue = EstimateQueue(workers=1, capacity=1)
    queue.start()
    assert queue.ready.wait(WARM_UP_SECONDS)
    requests = [EstimateRequest(**dict(SITUATION, samples=20_000, seed=seed)) for seed in range(4)]
    _, outcome = run_jobs(queue, requests)
    busy = [item for item in outcome if isinstance(item, Busy)]
    answers = [item for item in outcome if isinstance(item, str)]
    assert busy and answers and len(busy) + len(answers) == 4
    assert "the server is busy" in str(busy[0])
    queue.stop()


def test_a_cancelled_job_stops_sampling():
    queue = EstimateQueue(workers=1, capacity=2)
    queue.start()
    assert queue.ready.wait(WARM_UP_SECONDS)
    big = EstimateRequest("W AS KH 7H JD 10D 4C 9S 2S J", trump="3H", samples=1_000_000)
    began = time.perf_counter()
    submitted, outcome = run_jobs(queue, [big], cancel_first=True)
    assert isinstance(outcome[0], Cancelled)
    assert time.perf_counter() - began < 5  # 1,000,000 samples take 15 s or more
    assert 0 < submitted[0].done < 1_000_000
    queue.stop()


# --- the real server ---------------------------------------------------------------------


@pytest.mark.processes
def test_the_real_server_cancels_a_dropped_request_and_stops_on_ctrl_c_within_2_s():
    with running_server("--workers", "1") as server:
        body = {"hand": "W AS KH 7H JD 10D 4C 9S 2S J", "trump": "3H", "samples": 1_000_000}
        request = urllib.request.Request(server.url + "/api/estimate/stream", data=json.dumps(body).encode(),
                                         method="POST", headers={"Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(request, timeout=30) as answer:
            for _ in range(3):
                answer.readline()  # sampling has started
            assert server.status()["running"] == 1
        deadline = time.monotonic() + 3  # the client went away: its estimate stops within a slice or two
        while server.status()["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.status()["running"] == 0
        code, text = server.post("/api/estimate", SITUATION)
        assert code == 200 and json.loads(text)["samples"] == 3000
        # Ctrl-C while an estimate samples: the server stops within 2 s.
        request = urllib.request.Request(server.url + "/api/estimate", data=json.dumps(body).encode(),
                                         method="POST", headers={"Content-Type": "application/json"})  # fmt: skip
        waiting = threading.Thread(target=_ignore_errors, args=(urllib.request.urlopen, request), daemon=True)
        waiting.start()
        deadline = time.monotonic() + 10
        while not server.status()["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.stop(signal.SIGINT) < 2.0
        assert server.process.returncode == 130  # interrupted, as every command
        assert server.process.stderr.read().strip().splitlines()[-1] == "wizard-sim: stopped"


def _ignore_errors(function, *arguments, **options):
    try:
        function(*arguments, **options)
    except OSError:
        pass


def test_a_request_is_checked_once_on_its_way_to_the_kernels(client, monkeypatch):
    """The server checks a request before it queues it, and its worker runs the checked request
    (issue #36): one check per request."""
    calls = []
    real = EstimateRequest.checked
    monkeypatch.setattr(EstimateRequest, "checked", lambda self: (calls.append(self), real(self))[1])
    assert client.post("/api/estimate", json=SITUATION).status_code == 200
    assert len(calls) == 1
