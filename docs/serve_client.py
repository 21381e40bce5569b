"""A translation tool's side of ``parastudio serve``: translate a sentence, then ask for paraphrases of a span.

Copy it freely: it needs only Python's standard library. With the service running (``parastudio serve``)::

    python3 docs/serve_client.py "and he said unto them , go ye into the city ." 2 4
    python3 docs/serve_client.py --url http://127.0.0.1:8741 --feedback "go into" "and he said ..." 2 4

The contract: docs/CLI.md ("parastudio serve: seed 001's service for a CAT tool") and GET /openapi.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request


class ServiceError(Exception):
    """The service's JSON error: ``status``, ``field`` and its message."""

    def __init__(self, status: int, message: str, field: str | None):
        super().__init__(f"{status}: {message}")
        self.status, self.field = status, field


class ParaphraseService:
    def __init__(self, url: str = "http://127.0.0.1:8741", timeout: float = 60.0):
        self.url, self.timeout = url.rstrip("/"), timeout

    def translate(self, source: str, ident: str | int | None = None) -> dict:
        """The 1-best with its segmentation, and the key its search graph is kept under."""
        return self._post("/translate", {"source": source, **({"id": ident} if ident is not None else {})})

    def suggest(self, source: str, start: int, end: int, **options) -> dict:
        """Paraphrases of tokens ``start`` to ``end - 1`` of ``source``'s translation (``options``: text, approach,
        top, feedback, request). A sentence the service no longer keeps is sent again, then asked again."""
        request = {"source": source, "span": [start, end], **options}
        try:
            return self._post("/suggest", request)
        except ServiceError as error:
            if error.status != 404 or error.field != "source":
                raise
            self.translate(source)
            return self._post("/suggest", request)

    def _post(self, path: str, payload: dict, tries: int = 3) -> dict:
        request = urllib.request.Request(self.url + path, data=json.dumps(payload).encode("utf-8"),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as error:
            problem = json.load(error)
            if error.code == 503 and tries > 1:  # busy: wait as it says, then try again
                time.sleep(float(error.headers.get("Retry-After", "1")))
                return self._post(path, payload, tries - 1)
            raise ServiceError(error.code, problem["error"], problem["field"]) from None


def main() -> int:
    parser = argparse.ArgumentParser(description="translate a sentence, then paraphrase a span of its translation")
    parser.add_argument("source", help="the sentence, tokenized (tokens separated by spaces)")
    parser.add_argument("start", type=int)
    parser.add_argument("end", type=int)
    parser.add_argument("--url", default="http://127.0.0.1:8741")
    parser.add_argument("--feedback", help="a suggestion to move towards (\"more like this\")")
    args = parser.parse_args()
    service = ParaphraseService(args.url)
    try:
        translated = service.translate(args.source)
        print(f"translation: {translated['translation']}")
        tokens = translated["translation"].split()
        print(f"selection:   {' '.join(tokens[args.start:args.end])}")
        options = {"feedback": args.feedback} if args.feedback else {}
        for suggestion in service.suggest(args.source, args.start, args.end, **options)["suggestions"]:
            print(f"  {suggestion['rank']}. {suggestion['text']}")
    except ServiceError as error:
        print(f"serve_client: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # no service there
        print(f"serve_client: {args.url}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
