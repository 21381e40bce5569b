"""``parastudio serve``: seed 001's paraphraser over HTTP on this machine, for a translation tool's plugin.

Graphs, LM and approaches load once; each request then costs only the paraphraser (a few milliseconds)
instead of a whole process. JSON in, JSON out, one request at a time (the graph store and the LM are
shared), keep-alive connections::

    $ parastudio serve --port 8741
    serving seed 001's paraphraser on http://127.0.0.1:8741 (Ctrl+C stops)

    $ curl -s http://127.0.0.1:8741/suggest -d '{"sentence": 0, "span": [2, 4]}'
    {"sentence": 0, "approach": "approach-10", "suggestions": [{"rank": 1, "text": ...}], "milliseconds": 2.1, ...}

``GET /`` describes the service (graph, sentences, approaches); ``POST /suggest`` takes the fields of
:mod:`core.engine.decoders.cat.suggestion_service`. Errors come back as ``{"error": "..."}`` with status 400
(a bad field), 404 (no such sentence or path), 411/413 (no or too long a body).
"""

from __future__ import annotations

import argparse
import json
import sys

from core.cli.number_options import WholeNumber

MAX_BODY = 1 << 20


def register(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="seed 001's paraphraser as a local HTTP service (JSON), loaded once",
                                  description=__doc__.split("\n\n")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--graph", help="graph store or search graph file (default: the demo's round-trip graph)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=WholeNumber(at_least=0, at_most=65535), default=8741,
                       help="port (default 8741; 0 picks a free one)")
    serve.add_argument("--approach", default="approach-10", help="the approach of a request that names none")
    serve.add_argument("--approaches", metavar="TOML", help="user-defined approaches ([approach.NAME] tables)")
    serve.add_argument("--lm", help="KenLM model for LMSF and LMBS (default: the demo's English LM)")
    serve.set_defaults(func=run_serve)


def build_service(args: argparse.Namespace):
    from core.demo import demo_files
    from core.engine.decoders.cat.approaches import APPROACHES, load_approaches
    from core.engine.decoders.cat.graph_store import open_graph
    from core.engine.decoders.cat.sorters import load_clustering
    from core.engine.decoders.cat.suggestion_service import SuggestionService
    from core.engine.lm.language_model import LanguageModel

    approaches = dict(APPROACHES)
    if args.approaches:
        approaches.update(load_approaches(args.approaches))
    if args.approach not in approaches:
        raise SystemExit(f"parastudio: error: no approach {args.approach!r}; known: {', '.join(approaches)}")
    load_clustering()
    store = open_graph(args.graph or demo_files().roundtrip_graph)
    return SuggestionService(store, approaches, LanguageModel(args.lm or demo_files().lm), args.approach)


def make_server(service, host: str, port: int):
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from core.engine.decoders.cat.suggestion_service import BadRequest

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: a plugin's connection serves many requests
        # Headers and body go out in two writes; with Nagle's algorithm on, the client's delayed ACK held the
        # second for ~40 ms (p50 52 ms against 1 ms of work, measured by benchmarks/bench_serve.py).
        disable_nagle_algorithm = True

        def do_GET(self):
            if self.path.split("?")[0] in ("/", "/health"):
                self._send(200, service.describe())
            else:
                self._send(404, {"error": f"no such path {self.path!r}; POST /suggest or GET /"})

        def do_POST(self):
            if self.path.split("?")[0] != "/suggest":
                self._discard_body()
                self._send(404, {"error": f"no such path {self.path!r}; POST /suggest"})
                return
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                self._send(411, {"error": "expected a Content-Length header"}, close=True)
                return
            if int(length) > MAX_BODY:
                self._send(413, {"error": f"body: expected at most {MAX_BODY} bytes"}, close=True)
                return
            body = self.rfile.read(int(length))
            try:
                request = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError) as error:
                self._send(400, {"error": f"body: expected a JSON object in UTF-8 ({str(error)[:200]})"})
                return
            try:
                self._send(200, service.answer(request))
            except BadRequest as error:
                self._send(error.status, {"error": str(error)})

        def _discard_body(self):
            length = self.headers.get("Content-Length", "0")
            if length.isdigit() and int(length) <= MAX_BODY:
                self.rfile.read(int(length))

        def _send(self, status: int, payload: dict, close: bool = False):
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):  # a plugin's every request is not worth a line on the terminal
            pass

    return HTTPServer((host, port), Handler)


def run_serve(args: argparse.Namespace) -> int:
    service = build_service(args)
    server = make_server(service, args.host, args.port)
    host, port = server.server_address[:2]
    print(f"serving seed 001's paraphraser on http://{host}:{port} (Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        service.store.close()
    print("parastudio serve: stopped", file=sys.stderr)
    return 0
