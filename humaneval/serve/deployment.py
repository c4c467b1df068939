"""How ``humaneval serve`` runs uvicorn: the limits on connections that a collection server needs.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) and the size of a request head
that h11 buffers (``h11_max_incomplete_event_size``), but not the *time* a client may take to send
its request: a connection that sends half a request line, or headers without the blank line that
ends them, or a body shorter than its ``Content-Length``, stays open for ever (1,500 such
connections stayed open for 32 s in a hostile test while the server kept serving). The protocol
below closes a connection whose request is not complete ``request_timeout`` seconds after the
connection opened (or after the previous response on it), and ``server_options`` sets the other
limits. The reverse proxy in front must bound the same things per client (docs/serve.md).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send a whole request (head and body) on a connection.
REQUEST_TIMEOUT = 20.0
#: Seconds an idle keep-alive connection stays open between requests (uvicorn's default).
KEEP_ALIVE_TIMEOUT = 5
#: Bytes of an incomplete request head h11 buffers before it answers 400 (h11's default, stated).
MAX_HEAD_BYTES = 16 * 1024
#: Connections and requests in flight before new ones get 503 (a study of a few hundred participants
#: at once needs far fewer; the proxy should limit connections per client well below this).
MAX_CONCURRENCY = 1000
#: Seconds a shutdown waits for requests in flight before closing them.
SHUTDOWN_TIMEOUT = 10


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request (:data:`REQUEST_TIMEOUT`)."""

    request_timeout = REQUEST_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of a request after a finished one
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # the request is complete (or the connection is done)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # keep-alive idle time is uvicorn's timeout_keep_alive

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        self.transport.close()


def server_options(request_timeout: float = REQUEST_TIMEOUT) -> dict[str, Any]:
    """The keyword arguments of :class:`uvicorn.Config` that bound what one client can hold open.

    Examples
    --------
    >>> options = server_options(5)
    >>> options["timeout_keep_alive"], options["h11_max_incomplete_event_size"], options["limit_concurrency"]
    (5, 16384, 1000)
    >>> options["http"].request_timeout
    5.0
    """
    protocol = type("BoundedH11Protocol", (BoundedH11Protocol,), {"request_timeout": float(request_timeout)})
    return {
        "http": protocol,
        "timeout_keep_alive": KEEP_ALIVE_TIMEOUT,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "limit_concurrency": MAX_CONCURRENCY,
        "timeout_graceful_shutdown": SHUTDOWN_TIMEOUT,
    }
