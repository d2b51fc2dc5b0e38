"""`wizard-sim serve`: the page for players at a real table and its JSON API (docs/serve.md).

Routes: `GET /` (the page, from this package's static/ folder), `GET /api/status` (whether the
kernels are ready, the queue), `POST /api/estimate` (the body: EstimateRequest's fields; the
answer: exactly `wizard-sim estimate --json`'s object), `POST /api/estimate/stream` (the same
body; NDJSON lines `{"progress": done, "samples": n}` then `{"result": ...}` or `{"error": ...}`),
which the page reads to draw its progress bar. A request whose client goes away (the page
changed its input and aborted the fetch) is cancelled: its sampling stops within a slice.
"""
from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from dataclasses import fields
from pathlib import Path
from typing import Optional

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim.config.errors import BotError, ConfigError, bounded
from sim.estimation.request import CheckedRequest, EstimateRequest
from sim.estimation.situation import UNKNOWN_MODEL
from sim.policies.registry import REGISTRY, is_external, split_policy_list
from sim.serve.jobs import Busy, Cancelled, EstimateQueue, Job
from sim.storage.files import BadJSON, parse_json

STATIC = Path(__file__).parent / "static"
MAX_SERVE_SAMPLES = 1_000_000  # one request's samples (about 15 s of a 10-card hand on 2 cores)
NOTICE = "compiling the simulator's kernels (first start: about a minute)"  # the page's, until they are ready
POLL_SECONDS = 0.1  # how often a waiting request looks whether its client went away
SERVER_FIELDS = [item for item in fields(EstimateRequest) if item.name != "threads"]  # threads: the server's
TEXT_OR_LIST = {"hand", "bids", "totals", "opponents"}  # text as on the command line, or a JSON list
# A request's body: a page's is a few hundred bytes. A larger one is refused before it is read
# whole, and the JSON of a smaller one nests at most MAX_DEPTH deep (a list of cards: 2).
MAX_BODY_BYTES = 16 * 1024
MAX_DEPTH = 8
JSON_TYPE = "application/json"


class BadRequest(Exception):
    def __init__(self, message: str, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.status = status


def check_type(name: str, value: object, kind: object) -> None:
    """A JSON value of the type the command line parses for this field (or a list where the
    command line takes a comma list)."""
    if name in TEXT_OR_LIST and isinstance(value, list):
        return
    optional = kind in (Optional[str], Optional[int])
    if value is None and optional:
        return
    base = {Optional[str]: str, Optional[int]: int}.get(kind, kind)
    if base is float:
        fits = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif base is int:
        fits = isinstance(value, int) and not isinstance(value, bool)
    else:
        fits = isinstance(value, base)
    if not fits:
        names = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}
        expected = names[base] + (" or null" if optional else "") + (" or a list" if name in TEXT_OR_LIST else "")
        raise BadRequest(f"{name} must be {expected}, got {json.dumps(value)}", name)


def check_policies(name: str, value: object) -> None:
    """The server plays built-in policies only: it never imports code named by a request."""
    items = split_policy_list(value) if isinstance(value, str) else value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, str):
            raise BadRequest(f"{name}: each policy is text, got {json.dumps(item)}", name)
        if is_external(item):
            raise BadRequest(
                f"{name}: the server plays only the built-in policies ({', '.join(REGISTRY)}), not {item.strip()!r}",
                name,
            )


def request_from_body(body: object) -> EstimateRequest:
    """The EstimateRequest of a JSON body (BadRequest naming the field when it does not fit;
    the values themselves are checked by the request, as on the command line)."""
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object of estimate's options (docs/serve.md)")
    known = {item.name: item for item in SERVER_FIELDS}
    unknown = sorted(set(body) - set(known))
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r}; the fields: {', '.join(known)}", unknown[0])
    if "hand" not in body:
        raise BadRequest("give the hand (e.g. \"hand\": \"W AS KH 7H J\")", "hand")
    for name, value in body.items():
        check_type(name, value, known[name].metadata["cli"])
    for name in ("opponents", "policy"):
        if name in body:
            check_policies(name, body[name])
    samples = body.get("samples", known["samples"].default)
    if isinstance(samples, int) and samples > MAX_SERVE_SAMPLES:
        raise BadRequest(f"samples: the server takes at most {MAX_SERVE_SAMPLES:,} per estimate, got {samples:,}",
                         "samples")  # fmt: skip
    return EstimateRequest(**body)


def error_response(message: str, status: int, field: str | None = None) -> JSONResponse:
    return JSONResponse({"error": bounded(message), "field": field}, status_code=status)


async def read_body(request: Request) -> bytes:
    """The body of a JSON request, refused (BadRequest) when it is not declared JSON (a page of
    another site can send text/plain without asking first; application/json it cannot) or is
    larger than MAX_BODY_BYTES: by its Content-Length before reading, or as it arrives."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != JSON_TYPE:
        shown = json.dumps(media_type) if media_type else "none"
        raise BadRequest(f"the body must be sent as Content-Type: {JSON_TYPE} (got {shown})", status=415)
    too_large = BadRequest(f"the body is larger than {MAX_BODY_BYTES:,} bytes: send only estimate's options",
                           status=413)  # fmt: skip
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        raise too_large
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise BadRequest("the client went away before its body arrived") from None
    return b"".join(chunks)


async def read_request(request: Request) -> CheckedRequest:
    text = await read_body(request)
    try:  # bounded: a RecursionError, a 5,000-digit number or invalid UTF-8 is one sentence too
        body = parse_json(text, "the body", MAX_BODY_BYTES, MAX_DEPTH)
    except BadJSON as error:
        raise BadRequest(f"the body is not a JSON object of estimate's options: {error.problem}") from None
    estimate_request = request_from_body(body)
    try:  # validated here, once, before it takes a place in the queue; the worker runs it as checked
        return estimate_request.checked()
    except ConfigError as error:
        raise BadRequest(str(error), getattr(error, "field", None)) from None


def outcome_error(error: BaseException) -> tuple[str, int, str | None]:
    """(message, HTTP status, field) of a job that did not answer."""
    if isinstance(error, ConfigError):
        return str(error), 422, getattr(error, "field", None)
    if isinstance(error, Cancelled):
        return "the estimate was cancelled", 503, None
    if isinstance(error, BotError):
        return str(error), 500, None
    return str(error) or type(error).__name__, 500, None


def host_name(header: str) -> str:
    """The host of a Host header, without its port ("[::1]:8000" -> "::1")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if header.count(":") == 1 else header


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def allowed_hosts(host: str) -> frozenset[str] | None:
    """The names a browser may use for a server listening on `host`: the address itself, and
    `localhost` for a loopback one. On every address (0.0.0.0, ::) any address literal too (a
    phone on the network opens http://192.168.1.5:8000). A name of another site is refused
    (DNS rebinding: attacker.example resolving to this machine). None: any host."""
    names = {host.strip("[]").lower()}
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return frozenset(names)  # a name given to --host: that name
    if address.is_loopback:
        names.update({"localhost", "127.0.0.1", "::1"})
    if address.is_unspecified:
        names.add("*address*")
    return frozenset(names)


def host_problem(request: Request, hosts: Collection[str] | None) -> str | None:
    """Why this request's Host (and Origin, when a browser sends one) is not this server's."""
    if hosts is None:
        return None
    name = host_name(request.headers.get("host", ""))
    if name not in hosts and not ("*address*" in hosts and is_address(name)):
        return f"this server does not answer for host {name or 'none'!r}: open it by its address"
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        origin_host = origin.partition("://")[2].lower()
        if origin_host != request.headers.get("host", "").strip().lower():
            return f"requests from pages of other sites ({origin}) are refused"
    return None


class QuietCancellation:
    """ASGI wrapper: a request cancelled by the server's shutdown (Ctrl-C with requests still
    uploading or waiting) ends quietly instead of logging its traceback."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.app(scope, receive, send)
        except asyncio.CancelledError:
            if scope["type"] == "lifespan":
                raise
            return


def create_app(jobs: EstimateQueue, hosts: Collection[str] | None = None) -> Starlette:
    """The Starlette application serving `jobs` (started and stopped with the app). `hosts`
    (allowed_hosts): the names it answers for; None: any (tests, an app mounted elsewhere)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def status(request: Request) -> Response:
        return JSONResponse({
            "ready": jobs.ready.is_set(),
            "notice": None if jobs.ready.is_set() else NOTICE,
            "warm_up_seconds": jobs.warm_up_seconds,
            "warm_up_error": jobs.warm_up_error,
            "workers": jobs.workers, "running": jobs.running, "waiting": jobs.waiting, "capacity": jobs.capacity,
            "max_samples": MAX_SERVE_SAMPLES, "time_budget_seconds": jobs.budget,
            "unknown_opponents": UNKNOWN_MODEL,
        })  # fmt: skip

    async def submit(request: Request) -> Job | Response:
        try:
            return jobs.submit(await read_request(request))
        except BadRequest as error:
            return error_response(str(error), error.status, error.field)
        except Busy as error:
            return error_response(str(error), 503)

    async def estimate(request: Request) -> Response:
        job = await submit(request)
        if isinstance(job, Response):
            return job
        try:
            while not job.future.done():
                await asyncio.wait([job.future], timeout=POLL_SECONDS)
                if not job.future.done() and await request.is_disconnected():
                    job.cancel()
                    return Response(status_code=499)
        except asyncio.CancelledError:
            job.cancel()
            raise
        if job.future.exception() is not None:
            message, code, field = outcome_error(job.future.exception())
            return error_response(message, code, field)
        return Response(job.future.result(), media_type="application/json")

    async def estimate_stream(request: Request) -> Response:
        job = await submit(request)
        if isinstance(job, Response):
            return job

        async def lines() -> AsyncIterator[str]:
            try:
                while not job.future.done():
                    await asyncio.wait([job.future], timeout=POLL_SECONDS * 2)
                    if not job.future.done():
                        yield json.dumps({"progress": job.done, "samples": job.total or job.request.samples}) + "\n"
                if job.future.exception() is not None:
                    message, code, field = outcome_error(job.future.exception())
                    yield json.dumps({"error": bounded(message), "status": code, "field": field}) + "\n"
                else:
                    yield '{"result": ' + job.future.result() + "}\n"
            finally:  # the client went away (Starlette cancels the stream) or it ended: stop sampling
                job.cancel()

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            jobs.stop()

    async def http_error(request: Request, error: HTTPException) -> Response:
        """404, 405... in the JSON shape of every other error."""
        message = {404: "no such page", 405: f"{request.method} is not allowed here"}.get(error.status_code, error.detail)
        answer = error_response(message, error.status_code)
        answer.headers.update(error.headers or {})
        return answer

    class CheckHost:
        """Refuse (403) a request for another host name or from another site's page, before any route."""

        def __init__(self, app) -> None:
            self.app = app

        async def __call__(self, scope, receive, send) -> None:
            if scope["type"] == "http":
                problem = host_problem(Request(scope), hosts)
                if problem is not None:
                    await error_response(problem, 403)(scope, receive, send)
                    return
            await self.app(scope, receive, send)

    routes = [
        Route("/", page),
        Route("/api/status", status),
        Route("/api/estimate", estimate, methods=["POST"]),
        Route("/api/estimate/stream", estimate_stream, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={Exception: internal_error, HTTPException: http_error})  # fmt: skip
    app.add_middleware(CheckHost)
    return app


async def internal_error(request: Request, error: Exception) -> Response:
    """Anything unexpected is a JSON 500 for that request; the server goes on."""
    return error_response(f"internal error: {type(error).__name__}: {error}", 500)
