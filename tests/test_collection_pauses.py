"""parastudio.core.engine.candidates.collection_pauses: fewer collector passes inside, the collector as it was outside."""

import gc
import weakref

from parastudio.core.engine.candidates.collection_pauses import YOUNG_THRESHOLD, fewer_collections


def test_objects_made_before_are_frozen_and_young_passes_rarer_inside():
    before = gc.get_threshold()
    kept = [[i] for i in range(1000)]  # live objects the loop would otherwise rescan
    with fewer_collections():
        assert gc.get_freeze_count() >= len(kept)
        assert gc.get_threshold()[0] >= YOUNG_THRESHOLD
        assert gc.get_threshold()[1:] == before[1:]
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_collector_is_restored_when_the_loop_fails():
    before = gc.get_threshold()
    try:
        with fewer_collections():
            raise ValueError("a sentence failed")
    except ValueError:
        pass
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_cycles_made_inside_are_still_collected():
    class Node:
        pass

    with fewer_collections():
        node = Node()
        node.self = node
        alive = [node]
        del node
        watch = weakref.ref(alive.pop())
        gc.collect()
        assert watch() is None
