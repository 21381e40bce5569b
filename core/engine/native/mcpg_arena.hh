// The compiled MCPG search's memory (mcpg_core.cpp): a bump arena for the per-state and per-final arrays and a
// flat open-addressing table keyed by a sentence (a run of int32 ids) and its 64-bit hash.
//
// Why: at eta = 100,000 a verse's tree holds ~70,000 states and its finals ~95,000 sentences; as separate heap
// blocks (chained buckets, shared_ptr, one vector per key and array) they were ~900,000 blocks, slow to reach
// and ~15 % of the run to free. Here they are a few arena blocks and two slot arrays.
//
// Results never depend on the hash: a slot matches only when the full key is equal, and nothing the search
// outputs depends on the table's order (the callers sort, or keep a total order: see mcpg_core.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace parastudio {

// Bump allocation in blocks of 1 MiB (bigger requests get their own block); freed all at once.
class Arena {
 public:
  template <class T>
  T *Make(size_t count) {
    return static_cast<T *>(Bytes(count * sizeof(T)));
  }

  void Clear() {
    blocks_.clear();
    next_ = nullptr;
    left_ = 0;
  }

 private:
  static constexpr size_t kBlock = size_t(1) << 20;

  void *Bytes(size_t bytes) {
    bytes = (bytes + 7) & ~size_t(7);  // every array of 4- and 8-byte values stays aligned
    if (bytes > left_) {
      const size_t size = std::max(bytes, kBlock);
      blocks_.emplace_back(new uint64_t[size / 8]);
      next_ = reinterpret_cast<char *>(blocks_.back().get());
      left_ = size;
    }
    void *out = next_;
    next_ += bytes;
    left_ -= bytes;
    return out;
  }

  std::vector<std::unique_ptr<uint64_t[]>> blocks_;
  char *next_ = nullptr;
  size_t left_ = 0;
};

// An array that lives in an Arena.
template <class T>
struct Span {
  T *items = nullptr;
  int32_t length = 0;

  T *begin() const { return items; }
  T *end() const { return items + length; }
  T *data() const { return items; }
  size_t size() const { return static_cast<size_t>(length); }
  bool empty() const { return length == 0; }
  T &operator[](size_t i) const { return items[i]; }
  std::vector<std::remove_const_t<T>> Vector() const { return {begin(), end()}; }

  static Span Copy(Arena &arena, const T *from, size_t count) {
    std::remove_const_t<T> *items = arena.Make<std::remove_const_t<T>>(count);
    if (count) std::memcpy(items, from, count * sizeof(T));
    return Span{items, static_cast<int32_t>(count)};
  }
};

// FNV-1a over the ids, then SplitMix64's finaliser so that the low bits (the slot) are well spread.
inline uint64_t KeyHash(const int32_t *key, size_t length) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < length; ++i) {
    h ^= static_cast<uint32_t>(key[i]);
    h *= 1099511628211ULL;
  }
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  return h ^ (h >> 31);
}

// Linear probing over a power-of-two slot array at most half full. Keys are not owned: the caller puts them in
// an arena that outlives their entries. No single erase: Keep rebuilds the slots with the entries kept.
template <class Value>
class FlatTable {
 public:
  struct Entry {
    uint64_t hash;
    const int32_t *key;
    int32_t length;  // -1: an empty slot
    Value value;
    Span<const int32_t> Key() const { return {key, length}; }
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  Entry *Find(const int32_t *key, size_t length, uint64_t hash) {
    if (slots_.empty()) return nullptr;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Entry &entry = slots_[i];
      if (entry.length < 0) return nullptr;
      if (Same(entry, key, length, hash)) return &entry;
    }
  }

  // A new entry for a key not in the table (its ids stay where `key` points).
  Entry &Insert(const int32_t *key, size_t length, uint64_t hash, Value value) {
    if (2 * (size_ + 1) > slots_.size()) Resize(std::max<size_t>(64, 2 * slots_.size()));
    ++size_;
    return Place(Entry{hash, key, static_cast<int32_t>(length), std::move(value)});
  }

  template <class Visit>
  void ForEach(Visit visit) const {
    for (const Entry &entry : slots_)
      if (entry.length >= 0) visit(entry);
  }

  // Only the entries for which keep(entry) is true stay.
  template <class Predicate>
  void Keep(Predicate keep) {
    std::vector<Entry> old(slots_.size(), Empty());
    old.swap(slots_);
    size_ = 0;
    for (Entry &entry : old)
      if (entry.length >= 0 && keep(entry)) {
        ++size_;
        Place(std::move(entry));
      }
  }

  void Clear() {
    slots_.clear();
    size_ = 0;
    mask_ = 0;
  }

 private:
  static Entry Empty() {
    Entry entry{};
    entry.length = -1;
    return entry;
  }

  static bool Same(const Entry &entry, const int32_t *key, size_t length, uint64_t hash) {
    return entry.hash == hash && static_cast<size_t>(entry.length) == length &&
           (length == 0 || std::memcmp(entry.key, key, length * sizeof(int32_t)) == 0);
  }

  Entry &Place(Entry entry) {
    size_t i = entry.hash & mask_;
    while (slots_[i].length >= 0) i = (i + 1) & mask_;
    slots_[i] = std::move(entry);
    return slots_[i];
  }

  void Resize(size_t capacity) {
    std::vector<Entry> old(capacity, Empty());
    old.swap(slots_);
    mask_ = capacity - 1;
    for (Entry &entry : old)
      if (entry.length >= 0) Place(std::move(entry));
  }

  std::vector<Entry> slots_;
  size_t size_ = 0, mask_ = 0;
};

}  // namespace parastudio
