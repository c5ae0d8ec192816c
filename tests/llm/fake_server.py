"""A scripted OpenAI-compatible server on 127.0.0.1 (stdlib only) for the LLM tests.

Each request to ``/v1/chat/completions`` takes the next scripted :class:`Reply` (or the
default one when the script is empty); ``/v1/models`` lists :attr:`FakeServer.models`;
``/v1/embeddings`` answers hashed bag-of-words vectors (:func:`bag_of_words`).
Every request body is recorded in :attr:`FakeServer.requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """A scripted answer: ``status`` 200 with ``content`` as the message, or an error status
    with ``body``; ``delay_s`` before answering; extra ``headers``."""

    content: str = "ok"
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    prompt_tokens: int = 11
    completion_tokens: int = 7


def bag_of_words(text: str, dims: int = 64) -> list[float]:
    """A deterministic stand-in embedding: word counts hashed into ``dims`` buckets."""
    import zlib

    v = [0.0] * dims
    for w in "".join(c if c.isalnum() else " " for c in text.lower()).split():
        v[zlib.crc32(w.encode()) % dims] += 1.0
    return v


class FakeServer:
    def __init__(self, models: tuple[str, ...] = ("fake-model",)):
        self.models = list(models)
        self.script: deque[Reply] = deque()
        self.default = Reply()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.models_status = 200
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:  # quiet
                pass

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:  # noqa: N802
                server.paths.append(self.path)
                if self.path.rstrip("/").endswith("/models"):
                    if server.models_status != 200:
                        self._send(server.models_status, {"error": {"message": "no model list"}})
                        return
                    self._send(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                server.paths.append(self.path)
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                if self.path.rstrip("/").endswith("/embeddings"):
                    server.requests.append(body)
                    texts = body.get("input") or []
                    texts = [texts] if isinstance(texts, str) else texts
                    self._send(200, {"object": "list", "model": body.get("model", ""),
                                     "data": [{"object": "embedding", "index": i, "embedding": bag_of_words(t)}
                                              for i, t in enumerate(texts)],
                                     "usage": {"prompt_tokens": 1, "total_tokens": 1}})
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                server.requests.append(body)
                reply = server.script.popleft() if server.script else server.default
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    self._send(reply.status, reply.body or {"error": {"message": f"scripted {reply.status}",
                                                                      "type": "fake"}}, reply.headers)
                    return
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply.content}}],
                    "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                              "total_tokens": reply.prompt_tokens + reply.completion_tokens}}, reply.headers)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def push(self, *replies: Reply | str) -> None:
        for r in replies:
            self.script.append(Reply(content=r) if isinstance(r, str) else r)

    def __enter__(self) -> "FakeServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
