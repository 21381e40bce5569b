// A binary table's sources by key, for the beam core (beam_core.cpp includes it): the BLAKE2b hash they are stored
// under (table_binary.key_hash) and BinaryTable.find over the table's slots.

#ifndef PARASTUDIO_BEAM_SOURCE_HASH_HH
#define PARASTUDIO_BEAM_SOURCE_HASH_HH

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "beam_table_options.hh"

namespace parastudio::beam {
namespace {  // beam_core.cpp is the one translation unit: internal linkage, as the compiler inlined before the split

// BLAKE2b (RFC 7693) with an 8-byte digest, no key: table_binary.key_hash, the hash a binary table's sources are
// stored under (hashlib.blake2b(key, digest_size=8) read as a little-endian integer).
namespace blake2b {
constexpr uint64_t kIv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                             0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                             0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

inline uint64_t Rotate(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

inline void Mix(uint64_t *v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = Rotate(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = Rotate(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = Rotate(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = Rotate(v[b] ^ v[c], 63);
}

void Compress(uint64_t *h, const uint8_t *block, uint64_t counted, bool last) {
  uint64_t v[16], m[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= counted;  // the byte counter's high word stays 0 (keys are far shorter than 2^64 bytes)
  if (last) v[14] = ~v[14];
  for (int i = 0; i < 16; ++i) {
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) word = (word << 8) | block[8 * i + b];
    m[i] = word;
  }
  for (int round = 0; round < 12; ++round) {
    const uint8_t *s = kSigma[round];
    Mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    Mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    Mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    Mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    Mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    Mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    Mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    Mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

uint64_t Hash8(std::string_view key) {
  uint64_t h[8];
  for (int i = 0; i < 8; ++i) h[i] = kIv[i];
  h[0] ^= 0x01010000ULL ^ 8;  // parameter block: digest length 8, no key, fanout 1, depth 1
  size_t at = 0;
  const uint8_t *data = reinterpret_cast<const uint8_t *>(key.data());
  while (key.size() - at > 128) {
    Compress(h, data + at, at + 128, false);
    at += 128;
  }
  uint8_t block[128] = {0};
  std::copy(data + at, data + key.size(), block);
  Compress(h, block, key.size(), true);
  return h[0];  // the digest's 8 bytes, read little-endian
}
}  // namespace blake2b

// BinaryTable.find for each key: the index of the source stored under it, -1 if none (linear probing over
// `slots`, a power-of-two table of source index + 1, 0 empty).
std::vector<int64_t> FindSources(const py::buffer &source_text, const py::buffer &source_offsets,
                                 const py::buffer &source_hash, const py::buffer &slots_buffer,
                                 const std::vector<std::string> &keys) {
  const char *text = BufferData<char>(source_text);
  const uint64_t *offsets = BufferData<uint64_t>(source_offsets);
  const uint64_t *hashes = BufferData<uint64_t>(source_hash);
  const py::buffer_info slots_info = slots_buffer.request();
  const uint32_t *slots = static_cast<const uint32_t *>(slots_info.ptr);
  const uint64_t mask = static_cast<uint64_t>(slots_info.size) - 1;
  std::vector<int64_t> found;
  found.reserve(keys.size());
  for (const std::string &key : keys) {
    const uint64_t value = blake2b::Hash8(key);
    int64_t index = -1;
    for (uint64_t slot = value & mask; slots[slot] != 0; slot = (slot + 1) & mask) {
      const uint64_t candidate = slots[slot] - 1;
      if (hashes[candidate] == value &&
          std::string_view(text + offsets[candidate], offsets[candidate + 1] - offsets[candidate]) == key) {
        index = static_cast<int64_t>(candidate);
        break;
      }
    }
    found.push_back(index);
  }
  return found;
}

// A key's hash as table_binary.key_hash computes it (for the test that the two agree).
uint64_t SourceHash(const std::string &key) { return blake2b::Hash8(key); }

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_SOURCE_HASH_HH
