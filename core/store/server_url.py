"""A study server's URL, checked before anything connects, and how its connections are made (issue 39).

A URL whose password holds an unescaped ``@`` would put the password's tail into the host name every error
prints; a port outside 1-65535 is a driver's traceback. Both are refused here, in words that show no credential.
A server that accepts a connection and never answers is given up on after :data:`CONNECT_TIMEOUT_S`.
"""

from __future__ import annotations

from sqlalchemy import make_url

from parastudio.core.errors import InputFileError


def checked_url(text: str):
    """``text`` parsed as a database URL, or InputFileError saying what is wrong without showing the credentials
    (an '@' in a password would otherwise move its tail into the host name that errors print)."""
    scheme, _, rest = text.partition("://")
    where = rest.split("/", 1)[0]
    shown = f"{scheme}://{where.rpartition('@')[2]}/..."
    expected = "a database URL (postgresql+psycopg://USER:PASSWORD@HOST:PORT/DB, with '@', ':' and '/' in the " \
               "user or password written %40, %3A, %2F)"
    if where.count("@") > 1:
        raise InputFileError(shown, expected, "an '@' in the user or the password, not written %40")
    try:
        url = make_url(text)
        port = url.port
    except (ValueError, TypeError):
        raise InputFileError(shown, expected, "a URL that does not parse (a port that is not a number?)") from None
    if port is not None and not 0 < port < 65536:
        raise InputFileError(shown, expected, f"port {port}, not one from 1 to 65535")
    return url


# Seconds a server may take to answer a connection: one that never answers is an error, not a hang.
CONNECT_TIMEOUT_S = 10


def server_options(url: str) -> dict:
    """A server's engine: a connection is tried before use (one the server dropped, on a restart or a lost
    network, is replaced instead of failing the next write), and connecting gives up after a while."""
    if not url.startswith("postgresql"):
        return {}
    return {"pool_pre_ping": True, "connect_args": {"connect_timeout": CONNECT_TIMEOUT_S}}
