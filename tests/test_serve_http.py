"""`wizard-sim serve`'s HTTP connections (issue 61): a request that is not valid HTTP gets the
API's JSON error and one line of ours on the terminal (not uvicorn's text/plain 400 and its
warning); a request must arrive whole within a time limit (headers and body); the open
connections are bounded in number. Against a real uvicorn server on 127.0.0.1 in this process,
serving a small app (the protocol is what is tested, not the estimates)."""
from __future__ import annotations

import json
import socket
import threading
import time

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmarks.serving import free_port
from sim.serve import http


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"received": len(await request.body())})


@pytest.fixture
def server(monkeypatch):
    """A server on a free loopback port with short limits, and the lines it logged."""
    monkeypatch.setattr(http, "REQUEST_SECONDS", 1.0)
    monkeypatch.setattr(http, "MAX_CONNECTIONS", 20)
    lines: list[str] = []
    monkeypatch.setattr(http, "log_line", lines.append)
    port = free_port()
    app = Starlette(routes=[Route("/", echo, methods=["GET", "POST"])])
    running = uvicorn.Server(http.server_config(app, "127.0.0.1", port))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield port, lines
    running.should_exit = True
    thread.join(10)


def exchange(port: int, request: bytes, wait: float = 5.0) -> bytes:
    """Send `request` and read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def json_error(answer: bytes, status: int) -> str:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), answer
    assert b"content-type: application/json" in head.lower(), answer
    payload = json.loads(body)
    assert set(payload) == {"error", "field"} and payload["error"] and "\n" not in payload["error"]
    return payload["error"]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n",  # two Host headers
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \x00\r\n\r\n",
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 100_000 + b"\r\n\r\n",  # headers too large
    ],
)
def test_a_request_that_is_not_http_is_a_json_error_and_one_line_of_ours(server, request_bytes, capfd):
    port, lines = server
    message = json_error(exchange(port, request_bytes), 431 if b"X-Long" in request_bytes else 400)
    assert message.startswith("not a valid HTTP request")
    assert len(lines) == 1 and lines[0].startswith("refused a request from 127.0.0.1:") and len(lines[0]) < 400, lines
    assert "Invalid HTTP request received" not in capfd.readouterr().err


def test_the_server_goes_on_after_an_invalid_request(server):
    port, _ = server
    exchange(port, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
    assert exchange(port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab").endswith(
        b'{"received":2}'
    )


@pytest.mark.parametrize(
    "partial",
    [
        b"",  # connected, nothing sent
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # headers never finished
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{",  # body never finished
    ],
)
def test_a_request_that_does_not_arrive_in_time_is_closed(server, partial):
    port, _ = server
    began = time.monotonic()
    answer = exchange(port, partial, wait=10)
    assert time.monotonic() - began < 4
    if partial:
        assert "not received within" in json_error(answer, 408)


@pytest.mark.slow
def test_slow_connections_are_bounded_in_number_and_time(server):
    port, _ = server
    slow = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(30)]
    for connection in slow:
        connection.sendall(b"GET / HTTP/1.1\r\n")
    time.sleep(0.3)
    refused = 0
    for connection in slow:  # beyond MAX_CONNECTIONS: answered 503 and closed at once
        connection.settimeout(0.2)
        try:
            refused += connection.recv(65536).startswith(b"HTTP/1.1 503 ")
        except TimeoutError:
            pass
    assert refused == 10
    time.sleep(2.0)  # REQUEST_SECONDS later every slow one is closed
    for connection in slow:
        connection.settimeout(1)
        try:
            while connection.recv(65536):
                pass
        except ConnectionResetError:
            pass
        connection.close()
    answer = exchange(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize("workers", ["0", "9", "-1"])
def test_workers_outside_the_documented_range_are_refused(workers):
    """`serve --workers 0` started silently with the machine's cores."""
    from typer.testing import CliRunner

    from sim.cli import app

    result = CliRunner().invoke(app, ["serve", "--workers", workers, "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"wizard-sim: error: workers must be 1..8, got {workers}\n"
