// Recombination and pruning of the beam core (beam_core.cpp includes it): a stack of hypotheses that covered the
// same words, recombined on their KenLM states and pruned by Moses' threshold and histogram (_Stack of
// core/engine/decoders/beam_decoder.py), iterated in the order Moses' stacks are (moses_order.py).

#ifndef PARASTUDIO_BEAM_RECOMBINATION_HH
#define PARASTUDIO_BEAM_RECOMBINATION_HH

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "kenlm_model.hh"

namespace parastudio::beam {
namespace {  // beam_core.cpp is the one translation unit: internal linkage, as the compiler inlined before the split

using lm::WordIndex;
using lm::ngram::State;
using Model = KenlmModel;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Hyp {
  int64_t id;
  int32_t back;    // index in Lattice::hyps, -1 for the root
  int32_t option;  // index in the options, -1 for the root
  int32_t covered;
  double score;
  double transition;
  double future;
  State state;
  int32_t winner = -1;
  // The hypotheses recombined into this one, oldest first: a list threaded through their next_arc (a vector per
  // hypothesis cost an allocation per recombination, and kept the struct from being copied as plain bytes).
  int32_t first_arc = -1, last_arc = -1, next_arc = -1;
  int32_t next = -2;    // MosesOrder: the next winner of its stack in iteration order
  uint64_t mixed = 0;   // MosesOrder: its bucket hash
  uint64_t bucket = 0;  // MosesOrder: its bucket
  uint64_t state_hash = 0;  // KenLM's hash_value(state): computed once, read by the stack's index and MosesOrder
};

// A stack's winners by LM state: open addressing with linear probing over hypothesis indices, the hash kept
// beside each. A std::unordered_map allocated a node per insertion and freed them all at each histogram pruning
// (malloc and free were a tenth of a decode); this one allocates when it grows. Only looked up, never iterated:
// Moses' iteration order is MosesOrder's, so the table's layout reaches no result.
class StateIndex {
 public:
  // The slot holding a winner with ``state``, or the empty slot where it would go.
  size_t Find(const std::vector<Hyp> &hyps, const State &state, uint64_t hash) const {
    size_t slot = hash & mask_;
    while (slots_[slot].index >= 0) {
      if (slots_[slot].hash == hash && hyps[slots_[slot].index].state == state) return slot;
      slot = (slot + 1) & mask_;
    }
    return slot;
  }

  bool Holds(size_t slot) const { return slots_[slot].index >= 0; }
  int32_t At(size_t slot) const { return slots_[slot].index; }
  void Replace(size_t slot, int32_t index) { slots_[slot].index = index; }

  // Fills the empty ``slot`` that Find gave (for ``hash``); grows the table past half full.
  void Fill(size_t slot, int32_t index, uint64_t hash) {
    slots_[slot] = Slot{hash, index};
    if (++size_ * 2 > slots_.size()) Grow();
  }

  void Clear() {
    if (size_) std::fill(slots_.begin(), slots_.end(), Slot{});
    size_ = 0;
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    int32_t index = -1;
  };

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot &entry : old) {
      if (entry.index < 0) continue;
      size_t slot = entry.hash & mask_;
      while (slots_[slot].index >= 0) slot = (slot + 1) & mask_;
      slots_[slot] = entry;
    }
  }

  std::vector<Slot> slots_ = std::vector<Slot>(64);
  size_t mask_ = 63;
  size_t size_ = 0;
};

// Appends ``arc`` to the hypotheses recombined into ``winner``.
void AppendArc(std::vector<Hyp> &hyps, int32_t winner, int32_t arc) {
  hyps[arc].next_arc = -1;
  if (hyps[winner].last_arc < 0) {
    hyps[winner].first_arc = arc;
  } else {
    hyps[hyps[winner].last_arc].next_arc = arc;
  }
  hyps[winner].last_arc = arc;
}

// The hypotheses recombined into ``h``, oldest first.
template <class Visit>
void ForEachArc(const std::vector<Hyp> &hyps, int32_t h, Visit visit) {
  for (int32_t arc = hyps[h].first_arc; arc >= 0; arc = hyps[arc].next_arc) visit(arc);
}

std::vector<int32_t> ArcsOf(const std::vector<Hyp> &hyps, int32_t h) {
  std::vector<int32_t> arcs;
  ForEachArc(hyps, h, [&arcs](int32_t arc) { arcs.push_back(arc); });
  return arcs;
}

// core/engine/decoders/moses_order.py, the same operations: Moses' Hypothesis::hash() and the iteration order of its
// stacks' boost::unordered_set (Boost 1.74), so that stacks are expanded in the order Moses expands them.
uint64_t HashCombine(uint64_t seed, uint64_t value) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  uint64_t k = value * m;
  k ^= k >> 47;
  k *= m;
  return ((seed ^ k) * m) + 0xe6546b64ULL;
}

uint64_t BitmapHash(int covered, int length) {
  uint64_t seed = 0;
  for (int position = 0; position < length; ++position) seed = HashCombine(seed, position < covered ? 1 : 0);
  return seed;
}

uint64_t Mix64(uint64_t key) {
  key = (~key) + (key << 21);
  key = key ^ (key >> 24);
  key = (key + (key << 3)) + (key << 8);
  key = key ^ (key >> 14);
  key = (key + (key << 2)) + (key << 4);
  key = key ^ (key >> 28);
  return key + (key << 31);
}

uint64_t BucketCountFor(uint64_t minimum) {
  if (minimum <= 4) return 4;
  uint64_t count = 1;
  while (count < minimum) count <<= 1;
  return count;
}

class MosesOrder {
 public:
  static constexpr int32_t kStart = -1, kNone = -2;

  void Insert(std::vector<Hyp> &hyps, int32_t node, uint64_t hypothesis_hash) {
    hyps[node].mixed = Mix64(hypothesis_hash);
    ReserveForInsert(hyps, size_ + 1);
    const uint64_t index = hyps[node].mixed & (bucket_count_ - 1);
    hyps[node].bucket = index;
    const int32_t prev = buckets_[index];
    if (prev == kNone) {
      const int32_t first = head_;
      if (first != kNone) buckets_[hyps[first].bucket] = node;
      buckets_[index] = kStart;
      hyps[node].next = first;
      head_ = node;
    } else {
      hyps[node].next = Next(hyps, prev);
      Next(hyps, prev) = node;
    }
    ++size_;
  }

  void Erase(std::vector<Hyp> &hyps, int32_t node) {
    const uint64_t index = hyps[node].bucket;
    int32_t prev = buckets_[index];
    while (Next(hyps, prev) != node) prev = Next(hyps, prev);
    const int32_t following = hyps[node].next;
    Next(hyps, prev) = following;
    --size_;
    if (following != kNone) {
      const uint64_t other = hyps[following].bucket;
      if (other == index) return;
      buckets_[other] = prev;
    }
    if (buckets_[index] == prev) buckets_[index] = kNone;
  }

  void Clear() {
    head_ = kNone;
    if (!buckets_.empty()) std::fill(buckets_.begin(), buckets_.end(), kNone);
    size_ = 0;
  }

  std::vector<int32_t> Nodes(const std::vector<Hyp> &hyps) const {
    std::vector<int32_t> out;
    out.reserve(static_cast<size_t>(size_));
    for (int32_t node = head_; node != kNone; node = hyps[node].next) out.push_back(node);
    return out;
  }

 private:
  int32_t &Next(std::vector<Hyp> &hyps, int32_t link) { return link == kStart ? head_ : hyps[link].next; }

  void ReserveForInsert(std::vector<Hyp> &hyps, uint64_t size) {
    if (buckets_.empty()) {
      bucket_count_ = std::max(bucket_count_, BucketCountFor(size + 1));
      buckets_.assign(bucket_count_, kNone);
    } else if (size > bucket_count_) {
      const uint64_t count = BucketCountFor(std::max(size, size_ + (size_ >> 1)) + 1);
      if (count != bucket_count_) Rehash(hyps, count);
    }
  }

  void Rehash(std::vector<Hyp> &hyps, uint64_t count) {
    bucket_count_ = count;
    buckets_.assign(count, kNone);
    int32_t prev = kStart;
    while (Next(hyps, prev) != kNone) {
      const int32_t node = Next(hyps, prev);
      const uint64_t index = hyps[node].mixed & (count - 1);
      hyps[node].bucket = index;
      const int32_t before = buckets_[index];
      if (before == kNone) {
        buckets_[index] = prev;
        prev = node;
      } else {
        const int32_t following = hyps[node].next;
        hyps[node].next = Next(hyps, before);
        Next(hyps, before) = node;
        Next(hyps, prev) = following;
      }
    }
  }

  uint64_t bucket_count_ = 16;  // BucketCountFor(11), Boost's default; buckets made at the first insertion
  std::vector<int32_t> buckets_;  // per bucket: the link before its first node, kStart, or kNone
  int32_t head_ = kNone;
  uint64_t size_ = 0;
};

// _Stack of beam_decoder.py.
class Stack {
 public:
  Stack(int64_t size, double width, int covered, int length, const std::vector<double> *tails)
      : size_(size), width_(width), covered_(covered), bitmap_(BitmapHash(covered, length)), tails_(tails) {}

  void Add(std::vector<Hyp> &hyps, int32_t index) {
    Hyp &hyp = hyps[index];
    if (hyp.future < worst) return;
    hyp.state_hash = lm::ngram::hash_value(hyp.state);
    const size_t slot = by_state_.Find(hyps, hyp.state, hyp.state_hash);
    if (!by_state_.Holds(slot)) {
      by_state_.Fill(slot, index, hyp.state_hash);
      InsertInOrder(hyps, index);
      RaiseBest(hyp.future);
      if (size_ && static_cast<int64_t>(by_state_.size()) > 2 * static_cast<int64_t>(size_) - 1) PruneToSize(hyps);
    } else if (hyp.future > hyps[by_state_.At(slot)].future) {
      const int32_t loser_index = by_state_.At(slot);
      Hyp &existing = hyps[loser_index];
      hyp.first_arc = existing.first_arc;  // the loser's arcs, then the loser itself
      hyp.last_arc = existing.last_arc;
      existing.first_arc = existing.last_arc = -1;
      AppendArc(hyps, index, loser_index);
      ForEachArc(hyps, index, [&hyps, index](int32_t loser) { hyps[loser].winner = index; });
      order_.Erase(hyps, loser_index);
      by_state_.Replace(slot, index);  // the same state: the winner changes, not the key
      InsertInOrder(hyps, index);
      RaiseBest(hyp.future);
    } else {
      hyp.winner = by_state_.At(slot);
      AppendArc(hyps, hyp.winner, index);
    }
  }

  void PruneToSize(std::vector<Hyp> &hyps) {
    if (!size_ || static_cast<int64_t>(by_state_.size()) <= size_) return;
    const std::vector<int32_t> sorted = Sorted(hyps);
    by_state_.Clear();
    order_.Clear();
    const double floor = best + width_;
    for (int32_t index : sorted) {
      const Hyp &hyp = hyps[index];
      if (static_cast<int64_t>(by_state_.size()) >= size_ || !(hyp.future > floor || hyp.future == best)) break;
      by_state_.Fill(by_state_.Find(hyps, hyp.state, hyp.state_hash), index, hyp.state_hash);
      InsertInOrder(hyps, index);
      if (static_cast<int64_t>(by_state_.size()) == size_) worst = hyp.future;
    }
  }

  // The winners in Moses' iteration order: the order they are expanded in.
  std::vector<int32_t> InOrder(const std::vector<Hyp> &hyps) const { return order_.Nodes(hyps); }

  // The winners, best first as Moses sorts them (moses_order.beats), complete ties in iteration order.
  std::vector<int32_t> Sorted(const std::vector<Hyp> &hyps) const {
    std::vector<int32_t> out = order_.Nodes(hyps);
    const std::vector<double> &tails = *tails_;
    std::stable_sort(out.begin(), out.end(), [&hyps, &tails](int32_t a, int32_t b) {
      while (true) {
        const Hyp &x = hyps[a], &y = hyps[b];
        if (x.future != y.future) return x.future > y.future;
        if (tails[x.covered] != tails[y.covered]) return tails[x.covered] > tails[y.covered];
        if (x.back < 0) return false;
        if (y.back < 0) return true;
        a = x.back;
        b = y.back;
      }
    });
    return out;
  }

  double best = kNegInf;
  double worst = kNegInf;

 private:
  void RaiseBest(double future) {
    if (future > best) {
      best = future;
      worst = std::max(worst, best + width_);
    }
  }

  void InsertInOrder(std::vector<Hyp> &hyps, int32_t index) {
    order_.Insert(hyps, index, HashCombine(HashCombine(bitmap_, static_cast<uint64_t>(static_cast<int64_t>(covered_) - 1)),
                                           hyps[index].state_hash));
  }

  StateIndex by_state_;
  MosesOrder order_;
  int64_t size_;
  double width_;
  int covered_;
  uint64_t bitmap_;
  const std::vector<double> *tails_;  // per stack: its future cost
};

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_RECOMBINATION_HH
