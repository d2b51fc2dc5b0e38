"""The HTTP connections of `wizard-sim serve`: uvicorn's h11 protocol with what a server on a
network needs and uvicorn does not do by itself (docs/serve.md, Guarantees):

- a request that is not valid HTTP (two Host headers, `Content-Length: -1`, headers larger
  than h11's limit) is answered in the API's JSON error shape, `{"error": ..., "field": null}`,
  and closed, with one line of ours on the terminal instead of uvicorn's text/plain 400 and
  its warning;
- a request must arrive whole, headers and body, within REQUEST_SECONDS of its first byte (or
  of the connection): a slow client is answered 408 and closed;
- at most MAX_CONNECTIONS connections are open at once: one more is answered 503 and closed.

The answers of this layer are written to the socket directly, each followed by closing the
connection: h11's state no longer matters once the connection ends."""
from __future__ import annotations

import asyncio
import http
import json
import sys
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from sim.config.errors import bounded

REQUEST_SECONDS = 5.0  # a request's headers and body, from its first byte (or the connection)
MAX_CONNECTIONS = 64  # open at once: a phone's browser opens a few; a page's requests are small
MAX_HEAD_BYTES = 16 * 1024  # a request's line and headers (h11's own default); a page's are about 1 KB


def log_line(text: str) -> None:
    """One line of ours on the terminal the server runs in."""
    print(f"wizard-sim: {text}", file=sys.stderr, flush=True)


def error_bytes(status: int, message: str) -> bytes:
    """A whole HTTP response: the API's JSON error, and the connection closed."""
    body = json.dumps({"error": bounded(message), "field": None}).encode()
    head = (
        f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class _Connection(h11.Connection):
    """h11's connection, whose protocol errors go to `refuse` (uvicorn would answer text/plain
    and log its warning); it then waits for data that never comes, as the connection closes.
    Headers larger than h11's limit are one of them even when they arrive in one read (h11
    bounds only what it holds incomplete)."""

    def __init__(self, refuse: Any, max_incomplete_event_size: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size)
        self._refuse = refuse
        self._max_headers = max_incomplete_event_size

    def next_event(self) -> Any:
        try:
            event = super().next_event()
            if isinstance(event, h11.Request) and sum(len(k) + len(v) + 4 for k, v in event.headers) > self._max_headers:
                raise h11.RemoteProtocolError(f"headers larger than {self._max_headers:,} bytes", error_status_hint=431)
            return event
        except h11.RemoteProtocolError as error:
            self._refuse(error)
            return h11.NEED_DATA


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol, with the three guards of this module."""

    def __init__(self, config: uvicorn.Config, server_state: Any, app_state: dict, _loop: Any = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.conn = _Connection(self._refuse, config.h11_max_incomplete_event_size or MAX_HEAD_BYTES)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            self._close(503, f"the server has {MAX_CONNECTIONS} connections open: try again shortly")
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None:  # the first byte of the next request on a kept-alive connection
            self._arm()
        super().data_received(data)
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()  # the request arrived whole (or the connection is ending)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self.cycle is not None and self.cycle.response_started:
            self.transport.close()
        else:
            self._close(408, f"the request was not received within {REQUEST_SECONDS:g} s: send it whole")

    def _refuse(self, error: h11.RemoteProtocolError) -> None:
        if self.transport.is_closing():
            return
        client = "%s:%d" % self.client if self.client else "a client"
        detail = str(error) or "malformed"
        log_line(bounded(f"refused a request from {client}: not a valid HTTP request ({detail}); connection closed"))
        self._close(error.error_status_hint, f"not a valid HTTP request: {detail}")

    def _close(self, status: int, message: str) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(error_bytes(status, message))
            self.transport.close()


def server_config(app: Any, host: str, port: int) -> uvicorn.Config:
    """uvicorn's configuration of `wizard-sim serve`: its connections are GuardedProtocol's."""
    return uvicorn.Config(app, host=host, port=port, http=GuardedProtocol, log_level="warning", timeout_graceful_shutdown=1)
