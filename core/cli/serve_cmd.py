"""``parastudio serve``: seed 001's paraphrasing service over HTTP, for a translation tool (CAT) to call.

The table, LM, approaches and graphs load once; a translation tool then sends each new sentence to
``POST /translate`` (decoded by the beam decoder, its search graph kept) and asks ``POST /suggest`` for
paraphrases of any span of its translation, drawn from that graph. Many clients at once; none can hold the
others (uvicorn, deadlines per connection, a bounded queue)::

    $ parastudio serve --port 8741
    serving seed 001's paraphraser on http://127.0.0.1:8741 (Ctrl+C stops)

    $ curl -s localhost:8741/translate -d '{"source": "he went to the house of his father ."}'
    {"key": "s-...", "translation": "...", "segmentation": "... |0-0| ...", ...}
    $ curl -s localhost:8741/suggest -d '{"key": "s-...", "span": [2, 4]}'
    {"suggestions": [{"rank": 1, "text": ...}], ...}

The contract (fields, answers, every error as JSON with its status): ``GET /openapi.json`` and docs/CLI.md;
``GET /health``; ``GET /`` describes the loaded graph, the approaches, the decoder and the limits.
"""

from __future__ import annotations

import argparse
import sys

from parastudio.core.cli.number_options import COUNT, POSITIVE, WholeNumber


def register(subparsers) -> None:
    from parastudio.core.cli.table_options import add_table_loading_options

    serve = subparsers.add_parser("serve", help="seed 001's paraphraser as a local HTTP service (JSON), loaded once",
                                  description="\n\n".join(__doc__.split("\n\n")[1:]).replace("``", "`"),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--graph", help="graph store or search graph file whose sentences /suggest takes by index "
                       "(default: the demo's round-trip graph)")
    serve.add_argument("--table", action="append", default=None,
                       help="paraphrase or phrase table that /translate decodes with (repeat for several, merged as "
                       "generate merges them; default: the demo's table)")
    serve.add_argument("--lm", help="KenLM model of the decoder and of LMSF and LMBS (default: the demo's English LM)")
    serve.add_argument("--stack-size", type=COUNT, default=None, help="the beam decoder's stack size (default 200)")
    serve.add_argument("--graphs", type=COUNT, default=None, metavar="N",
                       help="decoded sentences whose graphs are kept, least recently used out (default 200)")
    serve.add_argument("--approach", default="approach-10", help="the approach of a request that names none")
    serve.add_argument("--approaches", metavar="TOML", help="user-defined approaches ([approach.NAME] tables)")
    network = serve.add_argument_group("network")
    network.add_argument("--host", default="127.0.0.1",
                         help="address to listen on (default 127.0.0.1: this machine only)")
    network.add_argument("--port", type=WholeNumber(at_least=0, at_most=65535), default=8741,
                         help="port (default 8741; 0 picks a free one)")
    network.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                         help="a web page origin (https://cat.example.org) whose scripts may call the service "
                         "(CORS; repeat for several; * for any; default none)")
    network.add_argument("--workers", type=COUNT, default=2,
                         help="processes that decode and search, forked once all is loaded (default 2)")
    network.add_argument("--queue", type=WholeNumber(at_least=0), default=64,
                         help="requests that may wait for a worker; more are answered 503 (default 64)")
    network.add_argument("--max-body", type=COUNT, default=None, metavar="BYTES",
                         help="the longest request body (default 1 MiB; longer: 413)")
    network.add_argument("--request-timeout", type=POSITIVE, default=10.0, metavar="SECONDS",
                         help="time for a request's line and headers, and again for its body (default 10; then 408)")
    network.add_argument("--keep-alive", type=POSITIVE, default=15.0, metavar="SECONDS",
                         help="how long an idle connection is kept open (default 15)")
    add_table_loading_options(serve)
    serve.set_defaults(func=run_serve)


def build_service(args: argparse.Namespace):
    """The service the options describe: graphs, approaches, LM and decoder loaded (refusals: exit 2)."""
    from parastudio.core.cli.table_options import print_table_report, table_loading_from_args
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.candidates.generation import merged_table
    from parastudio.core.engine.candidates.generation_options import options_for
    from parastudio.core.engine.candidates.generation_resources import load_resources
    from parastudio.core.engine.decoders.beam_decoder import BeamDecoder
    from parastudio.core.engine.decoders.cat.approaches import APPROACHES, load_approaches
    from parastudio.core.engine.decoders.cat.graph_store import open_graph
    from parastudio.core.engine.decoders.cat.recent_graphs import RecentGraphs
    from parastudio.core.engine.decoders.cat.sorters import load_clustering
    from parastudio.core.engine.decoders.cat.suggestion_service import DEFAULT_GRAPHS, SuggestionService
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.errors import OptionsError

    approaches = dict(APPROACHES)
    if args.approaches:
        approaches.update(load_approaches(args.approaches))
    if args.approach not in approaches:
        raise OptionsError(f"no approach {args.approach!r}; known: {', '.join(approaches)}")
    demo = demo_files()
    tables = args.table or [str(demo.table)]
    lm = args.lm or str(demo.lm)
    options = options_for("beam", **({"stack_size": args.stack_size} if args.stack_size else {}),
                          table_loading=table_loading_from_args(args))
    resources = load_resources(options, tables, lm, on_table_report=print_table_report)
    decoder = BeamDecoder(merged_table(resources.tables), resources.lm, options.decoder)
    load_clustering()
    store = open_graph(args.graph or demo.roundtrip_graph)
    return SuggestionService(store, approaches, LanguageModel(lm, cache_size=0), args.approach, decoder=decoder,
                             graphs=RecentGraphs(args.graphs or DEFAULT_GRAPHS),
                             decoder_description={**options.to_json(), "tables": [str(t) for t in tables], "lm": lm})


def run_serve(args: argparse.Namespace) -> int:
    from parastudio.core.service.http_app import MAX_BODY, make_app
    from parastudio.core.service.http_server import listening_socket, serve
    from parastudio.core.service.work_pool import WorkPool
    from parastudio.core.service.worker_process import ServiceWorker

    listener = listening_socket(args.host, args.port)  # refused before anything loads
    service = build_service(args)
    pool = WorkPool(ServiceWorker(service), args.workers, args.queue, graphs=service.graphs.capacity)
    app = make_app(service, pool, allow_origins=tuple(args.allow_origin), max_body=args.max_body or MAX_BODY,
                   body_timeout=args.request_timeout)

    def listening(host: str, port: int) -> None:
        shown = f"[{host}]" if ":" in host else host
        print(f"serving seed 001's paraphraser on http://{shown}:{port} (Ctrl+C stops)", flush=True)

    try:
        serve(app, listener, request_timeout=args.request_timeout, keep_alive=args.keep_alive,
              on_listening=listening)
    finally:
        pool.close()
        service.close()
        listener.close()
    print("parastudio serve: stopped", file=sys.stderr)
    return 0
