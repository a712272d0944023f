"""Stand-ins for a tracking server on 127.0.0.1, for the tests of what roundlab does when it
does not answer: one that accepts connections and never answers (hung), one that answers every
request with a given HTTP status. Each counts the connections it accepted and stops when its
``with`` block ends."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Server:
    url: str
    accepted: list[socket.socket] = field(default_factory=list)


@contextmanager
def hung_server() -> Iterator[Server]:
    """Accepts every TCP connection, reads nothing and answers nothing."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    server = Server(f"http://127.0.0.1:{listener.getsockname()[1]}")
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                server.accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join()
        for connection in server.accepted:
            connection.close()
        listener.close()


@contextmanager
def answering_server(status: int, body: bytes = b"OK") -> Iterator[Server]:
    """Answers every GET with ``status`` and ``body``."""
    server = Server("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (the name http.server calls)
            self.send_response(status)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
