"""The order in which Moses expands a stack's hypotheses, reproduced so that the beam threshold keeps what it keeps.

Moses applies the beam threshold when a hypothesis is inserted, against the
best inserted so far (``HypothesisStackNormal::AddPrune``), so what a stack
keeps depends on the order of insertions, hence on the order in which the
previous stacks were expanded. ``SearchNormal::ProcessOneStack`` expands a
stack by iterating its container, a ``boost::unordered_set<Hypothesis*>``
hashed by ``Hypothesis::hash()``: an order fixed by the hashes and the history
of insertions and erasures, neither by score nor by creation. This module
computes the same hashes and keeps the same singly linked list and buckets as
Boost 1.74's table (``boost/unordered/detail/implementation.hpp``:
``add_node_unique``, ``erase_nodes_unique``/``fix_bucket``,
``reserve_for_insert``, ``rehash_impl``; ``mix64_policy``, power-of-two bucket
counts, maximum load factor 1), and ``core/engine/native/beam_core.cpp`` does
the same in C++ (``MosesOrder``).

``Hypothesis::hash()`` combines (``boost::hash_combine``) the hash of its
coverage bitmap (``std::vector<char>``, ``boost::hash_range``), then each
stateful feature's state hash in the order of the moses.ini: ``Distortion``
(the end of the last source phrase) and the KenLM state
(``lm::ngram::hash_value``), the model ``bench_vs_moses.py`` writes.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_M = 0xC6A4A7935BD1E995
_START = -1  # the list's head link (Boost's dummy start bucket)


def hash_combine(seed: int, value: int) -> int:
    """``boost::hash_detail::hash_combine_impl`` for 64-bit ``size_t`` (Boost 1.74)."""
    k = (value * _M) & _MASK
    k ^= k >> 47
    k = (k * _M) & _MASK
    h = ((seed ^ k) * _M) & _MASK
    return (h + 0xE6546B64) & _MASK


def bitmap_hash(covered: int, length: int) -> int:
    """``Bitmap::hash()``: ``boost::hash_range`` over ``covered`` ones then zeros, ``length`` chars in all."""
    seed = 0
    for position in range(length):
        seed = hash_combine(seed, 1 if position < covered else 0)
    return seed


def hypothesis_hash(bitmap: int, covered: int, lm_hash: int) -> int:
    """``Hypothesis::hash()`` of a monotone hypothesis covering ``[0, covered)``: bitmap, Distortion, KenLM."""
    return hash_combine(hash_combine(bitmap, (covered - 1) & _MASK), lm_hash & _MASK)


def mix64(key: int) -> int:
    """``boost::unordered::detail::mix64_policy::apply_hash``: the bucket hash of a pointer set."""
    key = ((~key) + (key << 21)) & _MASK
    key ^= key >> 24
    key = (key + (key << 3) + (key << 8)) & _MASK
    key ^= key >> 14
    key = (key + (key << 2) + (key << 4)) & _MASK
    key ^= key >> 28
    return (key + (key << 31)) & _MASK


def _bucket_count_for(minimum: int) -> int:
    """``mix64_policy::new_bucket_count``: the next power of two, at least 4."""
    return 4 if minimum <= 4 else 1 << (minimum - 1).bit_length()


class MosesOrder:
    """A Boost 1.74 ``unordered_set``'s iteration order over nodes named by integers, each with its hash."""

    __slots__ = ("bucket_count", "buckets", "next", "bucket_of", "hash_of", "size")

    def __init__(self):
        self.bucket_count = _bucket_count_for(11)  # default_bucket_count; created at the first insertion
        self.buckets: list | None = None  # per bucket: the link before its first node, or None
        self.next: dict[int, int | None] = {_START: None}
        self.bucket_of: dict[int, int] = {}
        self.hash_of: dict[int, int] = {}
        self.size = 0

    def __iter__(self):
        node = self.next[_START]
        while node is not None:
            yield node
            node = self.next[node]

    def insert(self, node: int, hypothesis_hash_value: int) -> None:
        """``insert`` of a key not present (``resize_and_add_node_unique``)."""
        self.hash_of[node] = mix64(hypothesis_hash_value)
        self._reserve_for_insert(self.size + 1)
        self._add(node)

    def erase(self, node: int) -> None:
        """``erase(iterator)`` (``erase_nodes_unique`` with ``fix_bucket``)."""
        index = self.bucket_of[node]
        prev = self.buckets[index]
        while self.next[prev] != node:
            prev = self.next[prev]
        following = self.next.pop(node)
        self.next[prev] = following
        self.size -= 1
        if following is not None:
            other = self.bucket_of[following]
            if other == index:
                return
            self.buckets[other] = prev
        if self.buckets[index] == prev:
            self.buckets[index] = None

    def clear(self) -> None:
        """Every node erased one by one, as ``PruneToSize`` detaches them: empty, the buckets kept."""
        self.next = {_START: None}
        self.bucket_of.clear()
        self.hash_of.clear()
        if self.buckets is not None:
            self.buckets = [None] * self.bucket_count
        self.size = 0

    def _add(self, node: int) -> None:
        index = self.hash_of[node] & (self.bucket_count - 1)
        self.bucket_of[node] = index
        prev = self.buckets[index]
        if prev is None:
            first = self.next[_START]
            if first is not None:
                self.buckets[self.bucket_of[first]] = node
            self.buckets[index] = _START
            self.next[node] = first
            self.next[_START] = node
        else:
            self.next[node] = self.next[prev]
            self.next[prev] = node
        self.size += 1

    def _reserve_for_insert(self, size: int) -> None:
        if self.buckets is None:
            self.bucket_count = max(self.bucket_count, _bucket_count_for(size + 1))
            self.buckets = [None] * self.bucket_count
        elif size > self.bucket_count:  # max_load_ = ceil(1.0 * bucket_count)
            count = _bucket_count_for(max(size, self.size + (self.size >> 1)) + 1)
            if count != self.bucket_count:
                self._rehash(count)

    def _rehash(self, count: int) -> None:
        """``rehash_impl``: each node moves to the front of its new bucket's run, or stays, opening a run."""
        self.bucket_count = count
        self.buckets = [None] * count
        prev = _START
        while self.next[prev] is not None:
            node = self.next[prev]
            index = self.hash_of[node] & (count - 1)
            self.bucket_of[node] = index
            before = self.buckets[index]
            if before is None:
                self.buckets[index] = prev
                prev = node
            else:
                following = self.next[node]
                self.next[node] = self.next[before]
                self.next[before] = node
                self.next[prev] = following


def expansion_options(options) -> list[int]:
    """Indices of one start's options (``TranslationOption``) in the order Moses tries them: by span end
    (``SearchNormal::ProcessOneHypothesis``), each span's best estimate first (``TranslationOptionCollection::Sort``;
    ties in the order given)."""
    return sorted(range(len(options)), key=lambda index: (options[index].end, -options[index].estimate))


def beats(a, b, tails) -> bool:
    """Moses' ``Hypothesis::beats``, the order ``PruneToSize`` sorts a stack in: the better future score, then the
    better future cost (``tails[covered]``), then the same for the hypotheses they extend; a hypothesis that
    extends one beats the root."""
    while True:
        if a.future_score != b.future_score:
            return a.future_score > b.future_score
        if tails[a.covered] != tails[b.covered]:
            return tails[a.covered] > tails[b.covered]
        if a.back is None:
            return False
        if b.back is None:
            return True
        a, b = a.back, b.back
