"""A real `wizard-sim serve` process on a free loopback port: for the server's benches, and the
server and browser tests."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READY_SECONDS = 300  # a cold numba cache compiles the estimate kernels first


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


class Server:
    def __init__(self, process: subprocess.Popen, url: str) -> None:
        self.process, self.url = process, url

    def status(self) -> dict:
        return get_json(self.url + "/api/status")

    def post(self, path: str, body: object, timeout: float = 120) -> tuple[int, bytes]:
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def stop(self, sig: int = signal.SIGINT) -> float:
        """Send `sig` and return the seconds until the process ended."""
        began = time.perf_counter()
        self.process.send_signal(sig)
        self.process.wait(timeout=30)
        return time.perf_counter() - began


@contextmanager
def running_server(*arguments: str):
    """`wizard-sim serve` on a free port, once its kernels are ready; stopped at the end."""
    port = free_port()
    command = [sys.executable, "-m", "sim.cli", "serve", "--port", str(port), *arguments]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"))  # fmt: skip
    server = Server(process, f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"wizard-sim serve exited: {process.stderr.read()}")
            try:
                if server.status()["ready"]:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("wizard-sim serve was not ready in time")
            time.sleep(0.2)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
