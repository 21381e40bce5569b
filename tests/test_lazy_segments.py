"""A derivation built when first read (core.engine.model.derivation.LazySegments): generate writes most candidates
without reading it, and one that is read, compared, hashed or sent to another process is its tuple of segments."""

from __future__ import annotations

import pickle

from parastudio.core.engine.candidates.candidate import Candidate
from parastudio.core.engine.model.derivation import LazySegments, Segment
from parastudio.core.engine.tables.rules import Rule, identity_rule

SEGMENTS = (Segment(0, 1, 0, 1, identity_rule("a"), True), Segment(1, 3, 1, 2, Rule(("b", "c"), ("x",), 0.25)))


def counted():
    calls = []

    def load():
        calls.append(1)
        return list(SEGMENTS)

    return LazySegments(load), calls


def test_nothing_is_built_until_read_and_it_is_built_once():
    lazy, calls = counted()
    assert calls == []
    assert lazy[1].rule.target == ("x",) and len(lazy) == 2 and list(lazy) == list(SEGMENTS)
    assert calls == [1]


def test_it_compares_and_hashes_as_its_tuple_both_ways():
    lazy, _ = counted()
    assert lazy == SEGMENTS and SEGMENTS == lazy and hash(lazy) == hash(SEGMENTS)
    assert lazy != SEGMENTS[:1] and lazy == counted()[0]
    assert repr(lazy) == repr(SEGMENTS)


def test_it_pickles_as_its_tuple_though_its_loader_cannot_be_pickled():
    lazy, _ = counted()  # a closure: pickle refuses it, as it would a decoder's C++ lattice
    candidate = Candidate(sentence_id=0, system="beam", rank=1, text="a x", model_score=-1.0, true_score=-1.0,
                          derivation=lazy)
    back = pickle.loads(pickle.dumps(candidate))
    assert type(back.derivation) is tuple and back.derivation == SEGMENTS and back == candidate
    assert back.to_json()["derivation"] == [segment.to_json() for segment in SEGMENTS]
