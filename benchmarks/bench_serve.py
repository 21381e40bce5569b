"""``parastudio serve`` under many clients: latency of ``/suggest`` and ``/translate``, with idle connections beside.

Starts ``python -m parastudio serve --port 0`` (the demo's table, LM and round-trip graphs; ``--keep-alive 600`` so the
idle connections stay open for the whole run), opens 8 keep-alive connections that make one request each and
then sit idle, and measures, for each endpoint, 1, 8 and 32 concurrent clients, over keep-alive connections (one
per client) and over fresh ones (one per request), ``--requests`` requests (default 1,000) as a client sees them:
request written to answer read. ``/suggest``: the bundled round-trip cases (sentence by index, span), approaches 1
and 10 alternating; ``/translate``: 30-token sentences, each new to the service (windows of the demo's test
sentences and references), so every one is decoded. Prints p50, p95 and max in milliseconds, requests per second and the
answers that were not 200; then whether the idle connections are still served. The client is asyncio in one
process on the same machine, so its own work is in the figures. Goal (issue 45): p95 <= 50 ms for /suggest and
<= 300 ms for /translate at 8 clients, and no request waiting on an idle client.

    nice -n 10 python3 benchmarks/bench_serve.py [--requests 1000] [--clients 1 8 32]

Thesis-size graphs (stack 200, 100 options: ``benchmarks/bench_thesis_graphs.py --settings 200:100 --out DIR``
decodes the round-trip cases' sentences so and leaves ``DIR/s200-o100.sqlite``): ``--graph`` serves them,
``--approach`` gives each approach its own rows, ``--only suggest`` skips /translate. Each case's selected words
are found in that graph's 1-best (a case whose words are not there is left out), and the request names them
there, as a CAT tool names the span of the translation it was given::

    nice -n 10 python3 benchmarks/bench_serve.py --graph DIR/s200-o100.sqlite --approach approach-10 approach-1 \
        --only suggest --clients 1 8

``--translators`` deals the selections as translators make them: each client has sentences of its own and asks
span after span of one before the next (by default every client takes the selections in turn, so consecutive
requests to a worker are mostly for different sentences).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.demo import demo_files  # noqa: E402
from parastudio.core.engine.decoders.cat.autoeval import read_cases  # noqa: E402

IDLE_CONNECTIONS = 8
ALTERNATING = ["approach-1", "approach-10"]
SOURCE_TOKENS = 30


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def selections(graph: str | None) -> list[tuple[int, list[int]]]:
    """``(sentence, span)`` of every round-trip case: as the case says on the bundled graphs; on another graph,
    where the case's selected words first stand in that graph's 1-best (cases whose words are not there left out)."""
    cases = read_cases(demo_files().roundtrip_cases)
    if graph is None:
        return [(case.sentence_id, list(case.span)) for case in cases]
    from parastudio.core.engine.decoders.cat.graph_store import open_graph

    found = []
    with open_graph(graph) as store:
        known = set(store.sentences())
        for case in cases:
            if case.sentence_id not in known:
                continue
            tokens = store.sentence_graph(case.sentence_id).translation().tokens
            words = case.sentence[case.span[0]:case.span[1]]
            at = next((i for i in range(len(tokens) - len(words) + 1) if tokens[i:i + len(words)] == words), None)
            if at is not None:
                found.append((case.sentence_id, [at, at + len(words)]))
    return found


def suggest_bodies(count: int, chosen: list[tuple[int, list[int]]], approaches: list[str]) -> list[bytes]:
    return [json.dumps({"sentence": sentence, "span": span, "approach": approaches[number % len(approaches)]}).encode()
            for number, (sentence, span) in ((n, chosen[n % len(chosen)]) for n in range(count))]


def translate_bodies(count: int, first: int) -> list[bytes]:
    """``count`` distinct 30-token sentences: windows over the demo's test sentences, from window ``first``."""
    demo = demo_files()
    words = " ".join(path.read_text(encoding="utf-8") for path in (demo.test_sentences, demo.test_references)).split()
    windows = len(words) - SOURCE_TOKENS
    if first + count > windows:
        raise SystemExit(f"bench_serve: only {windows} distinct 30-token windows; ask for fewer requests")
    return [json.dumps({"source": " ".join(words[first + n:first + n + SOURCE_TOKENS])}).encode()
            for n in range(count)]


def http_request(host: str, path: str, body: bytes | None, *, close: bool) -> bytes:
    method = "POST" if body is not None else "GET"
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    if close:
        head += "Connection: close\r\n"
    return (head + f"Content-Length: {len(body or b'')}\r\n\r\n").encode() + (body or b"")


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(int(line.split(":")[1]) for line in lines if line.lower().startswith("content-length:"))
    return int(lines[0].split()[1]), await reader.readexactly(length)


async def client(host: str, port: int, path: str, bodies: list[bytes], keep_alive: bool,
                 latencies: list[float], statuses: list[int]) -> None:
    connection = None
    for body in bodies:
        sent = time.perf_counter()
        if connection is None:
            connection = await asyncio.open_connection(host, port)
        reader, writer = connection
        writer.write(http_request(host, path, body, close=not keep_alive))
        status, _ = await read_answer(reader)
        latencies.append(1000 * (time.perf_counter() - sent))
        statuses.append(status)
        if not keep_alive:
            writer.close()
            connection = None
    if connection is not None:
        connection[1].close()


def translator_shares(count: int, chosen: list[tuple[int, list[int]]], approaches: list[str],
                      clients: int) -> list[list[bytes]]:
    """``--translators``: each client a translator with sentences of their own, selecting span after span of one
    sentence before the next (the sentences dealt round the clients; each client's selections over and over),
    ``count`` requests in all."""
    by_sentence: dict[int, list[list[int]]] = {}
    for sentence, span in chosen:
        by_sentence.setdefault(sentence, []).append(span)
    sentences = sorted(by_sentence)
    own = [[(sentence, span) for sentence in sentences[n::clients] for span in by_sentence[sentence]]
           for n in range(clients)]
    shares = []
    for n, mine in enumerate(own):
        wanted = count // clients + (n < count % clients)
        shares.append([json.dumps({"sentence": sentence, "span": span,
                                   "approach": approaches[k % len(approaches)]}).encode()
                       for k, (sentence, span) in enumerate(mine[k % len(mine)] for k in range(wanted))])
    return shares


async def scenario(host: str, port: int, path: str, bodies: list[bytes] | list[list[bytes]], clients: int,
                   keep_alive: bool):
    """``bodies`` dealt round the clients, or (a list of lists) each client's own."""
    latencies: list[float] = []
    statuses: list[int] = []
    shares = bodies if bodies and isinstance(bodies[0], list) else [bodies[n::clients] for n in range(clients)]
    started = time.perf_counter()
    await asyncio.gather(*(client(host, port, path, share, keep_alive, latencies, statuses) for share in shares))
    return latencies, statuses, time.perf_counter() - started


async def idle_connections(host: str, port: int) -> list:
    held = []
    for _ in range(IDLE_CONNECTIONS):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(http_request(host, "/health", None, close=False))
        await read_answer(reader)
        held.append((reader, writer))
    return held


async def still_served(host: str, held: list) -> int:
    served = 0
    for reader, writer in held:
        writer.write(http_request(host, "/health", None, close=False))
        try:
            status, _ = await asyncio.wait_for(read_answer(reader), 60)
            served += status == 200
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.TimeoutError):
            pass
        writer.close()
    return served


async def measure(host: str, port: int, args) -> None:
    chosen = selections(args.graph)
    held = await idle_connections(host, port)
    print(f"{IDLE_CONNECTIONS} keep-alive connections open and idle beside the clients; {args.requests} requests "
          f"per row; /suggest: {len(chosen)} selections{' on ' + args.graph if args.graph else ''}"
          f"{', each client a translator with sentences of their own' if args.translators else ''}")
    print("| endpoint | approach | clients | connections | p50 ms | p95 ms | max ms | requests/s | not 200 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    used = 0
    rows = [("/suggest", [name]) for name in args.approach] if args.approach else [("/suggest", ALTERNATING)]
    rows = [row for row in rows if "suggest" in args.only] + ([("/translate", [])] if "translate" in args.only else [])
    for path, approaches in rows:
        for clients in args.clients:
            for keep_alive in (True, False):
                if path == "/suggest" and args.translators:
                    bodies = translator_shares(args.requests, chosen, approaches, clients)
                elif path == "/suggest":
                    bodies = suggest_bodies(args.requests, chosen, approaches)
                else:
                    bodies = translate_bodies(args.requests, used)
                    used += args.requests
                latencies, statuses, seconds = await scenario(host, port, path, bodies, clients, keep_alive)
                bad = sum(status != 200 for status in statuses)
                print(f"| {path} | {' and '.join(approaches) or '–'} | {clients} | "
                      f"{'keep-alive' if keep_alive else 'fresh'} | {percentile(latencies, 0.5):.1f} | "
                      f"{percentile(latencies, 0.95):.1f} | {max(latencies):.1f} | {len(latencies) / seconds:.0f} | "
                      f"{bad} |", flush=True)
    print(f"idle connections still served at the end: {await still_served(host, held)} of {IDLE_CONNECTIONS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--graph", help="the graphs /suggest is measured on (default: the bundled round-trip graphs)")
    parser.add_argument("--approach", nargs="+", help="rows of /suggest for each (default: approaches 1 and 10 "
                        "alternating in one row)")
    parser.add_argument("--only", nargs="+", choices=("suggest", "translate"), default=["suggest", "translate"])
    parser.add_argument("--workers", type=int, default=2, help="the server's --workers (default 2)")
    parser.add_argument("--translators", action="store_true",
                        help="/suggest as translators ask it: each client its own sentences, span after span of one "
                             "before the next (default: every client the selections in turn, sentence after sentence)")
    args = parser.parse_args()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "parastudio", "serve", "--port", "0", "--keep-alive", "600",
                               "--workers", str(args.workers), *(["--graph", args.graph] if args.graph else [])],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        print(f"server ready after {time.perf_counter() - started:.1f} s (table, LM, graphs and SciPy loaded once)")
        host, port = line.split("http://")[1].split()[0].rsplit(":", 1)
        asyncio.run(measure(host, int(port), args))
    finally:
        server.terminate()
        server.wait(60)


if __name__ == "__main__":
    main()
