"""Seed 001's service over HTTP: an ASGI application (Starlette) served by uvicorn (``parastudio serve``).

The server owns connections, timeouts and concurrency (:mod:`core.service.http_server`); the application
(:mod:`core.service.http_app`) reads each body within a size and a time, hands the work to a bounded pool of
worker processes (:mod:`core.service.work_pool`, :mod:`core.service.worker_process`) so the event loop never
decodes or searches, and answers JSON, errors included, as the contract says (:mod:`core.service.contract`: the OpenAPI document served at ``/openapi.json``).
What a request means is :mod:`core.engine.decoders.cat.suggestion_service`'s, which knows nothing of HTTP.
"""
