"""`wizard-sim serve` against hostile requests (issue #40, class 1): every malformed body is a
4xx JSON error of one sentence, never a 500 or a traceback; bodies are bounded (413) before
they are read whole; only application/json from this server's own host names is taken (no
cross-site form post, no DNS rebinding); a request's cost is bounded by a time budget that the
answer reports; a cancelled request or Ctrl-C with uploads open prints no traceback."""
import asyncio
import gc
import json
import logging
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from starlette.testclient import TestClient

from benchmarks.serving import ROOT, free_port, running_server
from sim.estimation.request import EstimateRequest
from sim.serve.app import MAX_BODY_BYTES, allowed_hosts, create_app
from sim.serve.jobs import Cancelled, EstimateQueue, Job

WARM_UP_SECONDS = 1200
SMALL = {"hand": "W AS KH", "trump": "3H", "samples": 200, "seed": 1}


@pytest.fixture(scope="module")
def jobs():
    queue = EstimateQueue(workers=1, capacity=4)
    queue.start()
    assert queue.ready.wait(WARM_UP_SECONDS)
    yield queue
    queue.stop()


@pytest.fixture(scope="module")
def client(jobs):
    with TestClient(create_app(jobs, allowed_hosts("127.0.0.1")), base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


def one_sentence_error(answer, status: int) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    payload = answer.json()
    assert set(payload) == {"error", "field"} and payload["error"] and "\n" not in payload["error"]
    assert "Traceback" not in payload["error"]
    return payload


JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    "body, words",
    [
        (b"[" * 100_000 + b"]" * 100_000, "larger than"),  # the issue's: refused before it is parsed
        (b"[" * 8000 + b"]" * 8000, "nested"),  # within the size limit: a RecursionError in the parser
        (b'{"hand": ' + b"[" * 8000 + b"]" * 8000 + b"}", "nested"),
        (b'{"hand": ' + b"[" * 50 + b"]" * 50 + b"}", "nested"),
        (b'{"hand": "AS", "trump": "3H", "seed": ' + b"9" * 5000 + b"}", "not JSON"),  # int of > 4300 digits
        (b'{"hand": "\xff\xfe"}', "not JSON"),  # not UTF-8
        (b"", "not JSON"),
        (b"{hand", "not JSON"),
        (b'{"hand": "AS", "trump": "3H", "samples": 1e400}', "samples"),  # inf
        (b'{"hand": "AS", "trump": "3H", "spread": NaN}', "spread"),
        (b'{"hand": "AS", "trump": "3H", "seed": -1}', "seed"),
        (b'{"hand": "AS", "trump": "3H", "seed": 99999999999999999999999}', "seed"),
        (b'{"hand": "AS", "trump": "3H", "bids": [1e300]}', "bids"),
        (b'{"hand": "AS", "trump": "3H", "totals": "9' + b"9" * 4400 + b'"}', "totals"),
        (b'{"hand": {"a": 1}, "trump": "3H"}', "hand"),
        (b'"AS KS"', "JSON object"),
        (b"null", "JSON object"),
    ],
)
def test_every_malformed_body_is_a_4xx_sentence(client, body, words):
    for path in ("/api/estimate", "/api/estimate/stream"):
        answer = client.post(path, content=body, headers=JSON)
        assert 400 <= answer.status_code < 500, answer.text
        payload = answer.json()
        assert words in payload["error"] and "\n" not in payload["error"]


def test_a_large_body_is_refused_before_it_is_read(client):
    declared = client.post("/api/estimate", content=b" " * (MAX_BODY_BYTES + 1), headers=JSON)
    assert "larger than" in one_sentence_error(declared, 413)["error"]

    def chunks():  # no Content-Length: refused as it arrives
        for _ in range(64):
            yield b" " * 4096

    streamed = client.post("/api/estimate", content=chunks(), headers=JSON)
    one_sentence_error(streamed, 413)
    lying = client.post("/api/estimate", content=b"{}", headers={**JSON, "Content-Length": "x"})
    assert 400 <= lying.status_code < 500


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "application/jsonx"])  # fmt: skip
def test_only_json_is_accepted(client, content_type):
    headers = {} if content_type is None else {"Content-Type": content_type}
    answer = client.post("/api/estimate", content=json.dumps(SMALL).encode(), headers=headers)
    assert "Content-Type: application/json" in one_sentence_error(answer, 415)["error"]


def test_json_with_a_charset_is_json(client):
    answer = client.post("/api/estimate", content=json.dumps(SMALL).encode(),
                         headers={"Content-Type": "application/json; charset=utf-8"})  # fmt: skip
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "127.0.0.1.nip.io", "", "[::2]"])
def test_another_host_name_is_refused(client, host):
    for method, path in (("POST", "/api/estimate"), ("GET", "/api/status"), ("GET", "/")):
        answer = client.request(method, path, content=json.dumps(SMALL).encode(), headers={**JSON, "Host": host})
        assert "host" in one_sentence_error(answer, 403)["error"]


def test_a_page_of_another_site_is_refused(client):
    answer = client.post("/api/estimate", json=SMALL, headers={"Origin": "http://attacker.example"})
    assert "other sites" in one_sentence_error(answer, 403)["error"]
    same = client.post("/api/estimate", json=SMALL, headers={"Origin": "http://127.0.0.1:8000"})
    assert same.status_code == 200, same.text


def test_the_served_names_are_accepted(jobs):
    # No `with`: the app's lifespan would stop the module's queue when it ends.
    for listen, host in [("127.0.0.1", "127.0.0.1:8000"), ("127.0.0.1", "localhost:8000"), ("::1", "[::1]:8000"),
                         ("0.0.0.0", "192.168.1.5:8000"), ("::", "[fe80::1]:8000")]:  # fmt: skip
        test_client = TestClient(create_app(jobs, allowed_hosts(listen)))
        assert test_client.get("/api/status", headers={"Host": host}).status_code == 200, (listen, host)
    test_client = TestClient(create_app(jobs, allowed_hosts("0.0.0.0")))
    assert test_client.get("/api/status", headers={"Host": "evil.example"}).status_code == 403


def test_a_wrong_method_or_path_is_the_json_error_shape(client):
    answer = client.get("/api/estimate")
    assert "GET is not allowed" in one_sentence_error(answer, 405)["error"]
    assert "POST" in answer.headers["allow"]
    one_sentence_error(client.put("/api/estimate/stream", json=SMALL), 405)
    one_sentence_error(client.get("/api/nothing"), 404)


@pytest.mark.parametrize(
    "change, field",
    [({"bidding": "sideways"}, "bidding"), ({"even_bids": "never"}, "even_bids"),
     ({"bidding": "hidden", "even_bids": "forbidden"}, "even_bids"), ({"players": 9}, "players")],
)  # fmt: skip
def test_invalid_rules_name_their_own_field(client, change, field):
    answer = client.post("/api/estimate", json={**SMALL, **change})
    assert one_sentence_error(answer, 400)["field"] == field


@pytest.mark.slow
def test_the_time_budget_bounds_a_request_and_the_answer_says_so(jobs):
    """mc opponents at their largest settings: about 0.25 s a sample, a million would take days."""
    capped = EstimateQueue(workers=1, capacity=1, budget=1.0)
    capped.ready.set()  # the kernels are loaded (the module's queue warmed them up)
    capped.start()
    try:
        with TestClient(create_app(capped)) as test_client:
            began = time.perf_counter()
            body = {"hand": "W AS KH 7H", "trump": "3H", "opponents": "mc:samples=256,play_samples=256",
                    "samples": 1_000_000, "seed": 3}  # fmt: skip
            answer = test_client.post("/api/estimate", json=body)
            elapsed = time.perf_counter() - began
        assert answer.status_code == 200, answer.text
        payload = answer.json()
        cut = payload["time_budget"]
        assert cut["seconds"] == 1.0 and cut["samples_requested"] == 1_000_000
        assert 2 <= payload["samples"] == cut["samples"] < 1_000_000
        assert elapsed < 30  # the budget, a slice and the certainty check: not the 65 hours asked for
        deadline = time.monotonic() + 5
        while capped.running and time.monotonic() < deadline:
            time.sleep(0.05)
        assert capped.running == 0
    finally:
        capped.stop()


def test_an_answer_within_its_budget_carries_no_note(client):
    answer = client.post("/api/estimate", json=SMALL)
    assert answer.status_code == 200 and "time_budget" not in answer.json()
    assert client.get("/api/status").json()["time_budget_seconds"] == 30.0


def test_a_cancelled_job_logs_nothing(caplog):
    async def main():
        loop = asyncio.get_running_loop()
        job = Job(EstimateRequest(**SMALL), loop.create_future(), loop)
        job.finish(None, Cancelled())  # the request went away: nobody awaits the future
        await asyncio.sleep(0.05)
        del job

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(main())
        gc.collect()
    assert "never retrieved" not in caplog.text


@pytest.mark.processes
def test_the_ipv6_start_up_line_has_brackets():
    port = free_port()
    command = [sys.executable, "-m", "sim.cli", "serve", "--host", "::1", "--port", str(port)]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        lines = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            lines.append(process.stderr.readline())
            if "serving on" in lines[-1] or not lines[-1]:
                break
        assert f"serving on http://[::1]:{port} " in lines[-1], lines
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


def _open_upload(port: int) -> socket.socket:
    """A request whose body never finishes arriving."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(b"POST /api/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 1000\r\n\r\n{\"hand\": ")  # fmt: skip
    return connection


def _drop_a_stream(url: str) -> None:
    port = int(url.rsplit(":", 1)[1])
    body = json.dumps({"hand": "W AS KH 7H JD 10D 4C 9S 2S J", "trump": "3H", "samples": 1_000_000}).encode()
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(b"POST /api/estimate/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)  # fmt: skip
    connection.recv(4096)  # the stream started
    connection.close()


@pytest.mark.processes
def test_cancelled_requests_and_ctrl_c_with_uploads_open_print_no_traceback():
    with running_server("--workers", "1") as server:
        port = int(server.url.rsplit(":", 1)[1])
        for _ in range(5):
            _drop_a_stream(server.url)  # the page cancels a stream on every input change
        deadline = time.monotonic() + 5
        while server.status()["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
        uploads = [_open_upload(port) for _ in range(40)]
        code, _ = server.post("/api/estimate", SMALL)
        assert code == 200
        time.sleep(0.3)
        assert server.stop(signal.SIGINT) < 2.0
        for connection in uploads:
            connection.close()
        assert server.process.returncode == 130
        error = server.process.stderr.read()
        assert "Traceback" not in error and "never retrieved" not in error and "CancelledError" not in error, error
        lines = [line for line in error.strip().splitlines() if line]
        assert lines[-1] == "wizard-sim: stopped" and len(lines) <= 6, lines
        assert not re.search(r"Exception|Error", error), error


@pytest.mark.processes
def test_the_real_server_answers_what_is_not_http_in_json_and_logs_one_line_of_its_own():
    """Issue 61: two Host headers or Content-Length: -1 got uvicorn's text/plain 400 and its
    "WARNING: Invalid HTTP request received." on the terminal."""
    with running_server("--workers", "1") as server:
        port = int(server.url.rsplit(":", 1)[1])
        for request in (b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n",
                        b"POST /api/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n"):  # fmt: skip
            with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
                connection.sendall(request)
                answer = b""
                while chunk := connection.recv(65536):
                    answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400 ") and b"application/json" in head, answer
            assert json.loads(body)["error"].startswith("not a valid HTTP request")
        assert server.status()["ready"]
        server.stop(signal.SIGINT)
        error = server.process.stderr.read()
    assert "Invalid HTTP request" not in error and "WARNING" not in error, error
    assert error.count("wizard-sim: refused a request from 127.0.0.1:") == 2, error
