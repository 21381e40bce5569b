"""The judging protocols, one registry: a criterion's scale names its protocol here, and the store, the desk, the
screen, the assignment, the report and the dev set export read what the protocol declares
(:class:`~core.judging.protocols.protocol.JudgingProtocol`). A new protocol is a module and a line below."""

from __future__ import annotations

from parastudio.core.judging.protocols.choice import CHOICE
from parastudio.core.judging.protocols.direct_assessment import DIRECT_ASSESSMENT
from parastudio.core.judging.protocols.error_spans import ERROR_SPANS
from parastudio.core.judging.protocols.levels import CATEGORICAL, REPLACEMENT, YES_NO
from parastudio.core.judging.protocols.mqm import MQM
from parastudio.core.judging.protocols.preference import PREFERENCE
from parastudio.core.judging.protocols.protocol import JudgingProtocol

# Scale -> its protocol.
PROTOCOLS: dict[str, JudgingProtocol] = {
    "binary": YES_NO,
    "replacement": REPLACEMENT,
    "3-point": CATEGORICAL,
    "5-point": CATEGORICAL,
    "custom": CATEGORICAL,
    "choice": CHOICE,
    "preference": PREFERENCE,
    "da": DIRECT_ASSESSMENT,
    "esa": ERROR_SPANS,
    "mqm": MQM,
}


def protocol_of(scale: str) -> JudgingProtocol:
    """The protocol of a criterion's scale; ValueError naming the scales there are."""
    try:
        return PROTOCOLS[scale]
    except KeyError:
        raise ValueError(f"no judging protocol for the scale {scale!r}; the scales are "
                         f"{', '.join(PROTOCOLS)}") from None


def scales_where(**declared) -> tuple[str, ...]:
    """The scales whose protocol declares every given value, e.g. ``scales_where(answer=SCORE)``."""
    return tuple(scale for scale, protocol in PROTOCOLS.items()
                 if all(getattr(protocol, name) == value for name, value in declared.items()))
