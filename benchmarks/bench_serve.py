"""``parastudio serve``: 1,000 suggestion requests over HTTP, as a translation tool's plugin would send them.

Starts ``python -m core serve --port 0`` (the demo's round-trip graph and LM), then sends the bundled
round-trip cases (sentence, span) one after the other over one keep-alive connection, cycling through them
to 1,000 requests, with approach 1 and approach 10 alternating. Prints, in milliseconds: the client's
round trip (request written to answer read, so it includes HTTP and JSON) and the server's own
``milliseconds`` field (the paraphraser alone), p50, p95 and max; and, beside it, what one request costs
through ``parastudio suggest`` (a whole process). The target (issue 26) is p95 <= 100 ms over the transport.

    python3 benchmarks/bench_serve.py [--requests 1000]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.demo import demo_files  # noqa: E402
from core.engine.decoders.cat.autoeval import read_cases  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    cases = read_cases(demo_files().roundtrip_cases)
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "core", "serve", "--port", "0"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        ready = time.perf_counter() - started
        host_port = line.split("http://")[1].split()[0]
        host, port = host_port.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        client, server_ms, errors = [], [], 0
        for number in range(args.requests):
            case = cases[number % len(cases)]
            body = json.dumps({"sentence": case.sentence_id, "span": list(case.span),
                               "approach": "approach-10" if number % 2 else "approach-1"})
            sent = time.perf_counter()
            connection.request("POST", "/suggest", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            answer = json.loads(response.read())
            client.append(1000 * (time.perf_counter() - sent))
            if response.status != 200 or answer.get("error"):
                errors += 1
            server_ms.append(answer.get("milliseconds", 0.0))
        connection.close()
    finally:
        server.terminate()
        server.wait(30)
    print(f"server ready after {ready:.1f} s (graph, LM and SciPy loaded once)")
    print(f"{args.requests} requests over {len(cases)} round-trip cases, {errors} answered with an error")
    print("| measured | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- |")
    for name, values in (("client round trip (HTTP + JSON + paraphraser)", client),
                         ("server 'milliseconds' (paraphraser alone)", server_ms)):
        print(f"| {name} | {statistics.median(values):.2f} | {percentile(values, 0.95):.2f} | {max(values):.2f} |")
    case = cases[0]
    walls = []
    for _ in range(3):
        sent = time.perf_counter()
        subprocess.run([sys.executable, "-m", "core", "suggest", "--sentence", str(case.sentence_id), "--span",
                        str(case.span[0]), str(case.span[1]), "--json"], cwd=ROOT, capture_output=True, check=True)
        walls.append(1000 * (time.perf_counter() - sent))
    print(f"| one request as a `parastudio suggest` process (3 runs) | {statistics.median(walls):.0f} | | "
          f"{max(walls):.0f} |")
    print(f"p95 over the transport / target 100 ms: {percentile(client, 0.95) / 100:.3f}")


if __name__ == "__main__":
    main()
