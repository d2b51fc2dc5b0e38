"""`wizard-sim serve`: the page and JSON API of sim.serve on a uvicorn server (registered in sim/cli/main.py)."""
from __future__ import annotations

import logging
import os
import socket
import sys
from typing import Annotated, Optional

import typer

from sim.cli.terminal import fail

MAX_WORKERS = 8
MAX_QUEUE = 256
MAX_BUDGET = 3600
TIME_BUDGET_SECONDS = 30.0  # sim.serve.jobs.TIME_BUDGET_SECONDS (not imported: it loads the kernels)


def serve_command(
    host: Annotated[
        str, typer.Option(help="Address to listen on (127.0.0.1: this machine only; 0.0.0.0: the network).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on, 1..65535.")] = 8000,
    workers: Annotated[
        Optional[int],
        typer.Option(help=f"Estimates computed at once, 1..{MAX_WORKERS} (default: the cores, at most {MAX_WORKERS}).",
                     show_default=False),
    ] = None,
    queue: Annotated[
        int, typer.Option(help=f"Estimates that may wait for a worker, 1..{MAX_QUEUE}; more get a 503.")
    ] = 16,
    time_budget: Annotated[
        float, typer.Option(help=f"Seconds of sampling per estimate, 1..{MAX_BUDGET}; then the samples done are the"
                                 " answer (it says so).")
    ] = TIME_BUDGET_SECONDS,
) -> None:
    """The page for players at a real table: tap your cards, see what to bid (docs/serve.md).

    Serves the page and POST /api/estimate. The kernels are loaded (or compiled, on first use)
    at start-up; the page says so until they are ready. Ctrl-C stops the server.

    Example: wizard-sim serve --port 8000, then open http://127.0.0.1:8000 (a phone on the same
    network: --host 0.0.0.0 and this machine's address)
    """
    if not 1 <= port <= 65535:
        fail(f"port must be 1..65535, got {port}")
    if workers is None:
        workers = min(MAX_WORKERS, os.cpu_count() or 1)
    elif not 1 <= workers <= MAX_WORKERS:
        fail(f"workers must be 1..{MAX_WORKERS}, got {workers}")
    if not 1 <= queue <= MAX_QUEUE:
        fail(f"queue must be 1..{MAX_QUEUE}, got {queue}")
    if not 1 <= time_budget <= MAX_BUDGET:
        fail(f"time-budget must be 1..{MAX_BUDGET} seconds, got {time_budget:g}")
    import uvicorn  # the server's imports only for this command: they slow every other start

    from sim.serve.app import QuietCancellation, allowed_hosts, create_app
    from sim.serve.http import server_config
    from sim.serve.jobs import EstimateQueue

    jobs = EstimateQueue(workers=workers, capacity=queue, budget=time_budget)

    def ready(queue_: EstimateQueue) -> None:
        if queue_.warm_up_error:
            print(f"wizard-sim: warning: warming up the kernels failed: {queue_.warm_up_error}", file=sys.stderr)
        else:
            print(f"wizard-sim: kernels ready ({queue_.warm_up_seconds:.1f} s)", file=sys.stderr, flush=True)

    try:  # bound here, so that a port in use is one line before anything starts
        listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
    except OSError as error:
        shown = f"[{host}]" if ":" in host else host
        print(f"wizard-sim: error: cannot listen on {shown}:{port}: {error.strerror or error}", file=sys.stderr)
        raise typer.Exit(code=1)
    print("wizard-sim: loading the kernels (compiling on first use: about a minute); the page says when they are "
          "ready", file=sys.stderr, flush=True)  # fmt: skip
    jobs.start(on_ready=ready)
    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame) -> None:
            jobs.stop()  # Ctrl-C: running estimates stop at their next slice, so open requests end now
            # The requests still open (uploads, streams) are cancelled by the shutdown: uvicorn
            # would log each ("ASGI callable returned without starting response"). The
            # operator asked to stop: one line says so, nothing per request.
            logging.getLogger("uvicorn.error").addFilter(lambda record: False)
            super().handle_exit(sig, frame)

    application = QuietCancellation(create_app(jobs, allowed_hosts(host)))
    server = Server(server_config(application, host, port))
    shown = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL is in brackets
    print(f"wizard-sim: serving on http://{shown}:{port} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        server.run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down for: exit 130 like every command
        print("wizard-sim: stopped", file=sys.stderr)
        # The server has shut down and written everything; the interpreter's own teardown (numba's
        # compiler and thread pool) takes about a second more on a busy machine: skip it, so that
        # Ctrl-C stops the command within 2 s.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    print("wizard-sim: stopped", file=sys.stderr)
