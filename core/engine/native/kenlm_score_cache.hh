// KenLM lookups (context, word) -> (score, context after), direct-mapped, for both search cores: the beam core
// keeps one per sentence, the MCPG core one per search. The context KenLM keeps after a word is often shorter than
// the one it was given (it backed off), so hypotheses or playouts with different histories meet the same
// (context, word) again. Exact: an entry holds what the same call returned.

#ifndef PARASTUDIO_KENLM_SCORE_CACHE_HH
#define PARASTUDIO_KENLM_SCORE_CACHE_HH

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kenlm_model.hh"

namespace parastudio {

class KenlmScoreCache {
 public:
  // 2^bits entries; 0 bits is one entry (a cache for a search that has no model).
  explicit KenlmScoreCache(int bits = 0)
      : shift_((64 - bits) & 63), mask_((uint64_t{1} << bits) - 1), entries_(size_t{1} << bits) {}

  float Score(const KenlmModel &model, const lm::ngram::State &in, lm::WordIndex word, lm::ngram::State &out) {
    Entry &entry = entries_[Slot(in, word)];
    if (entry.filled && entry.word == word && entry.in == in) {
      out = entry.out;
      return entry.score;
    }
    const float score = model.Score(in, word, out);
    entry.in = in;
    entry.out = out;
    entry.word = word;
    entry.score = score;
    entry.filled = true;
    return score;
  }

 private:
  struct Entry {
    lm::ngram::State in, out;
    lm::WordIndex word = 0;
    float score = 0.0f;
    bool filled = false;
  };

  // A multiplicative hash of the context's word ids and the word (KenLM's own hash_value is MurmurHash, several
  // times the cost; a slot only decides where an entry is looked for). Its top bits name the slot (none for 0 bits).
  size_t Slot(const lm::ngram::State &in, lm::WordIndex word) const {
    uint64_t h = (static_cast<uint64_t>(word) + 1) * 0x9E3779B97F4A7C15ULL;
    for (unsigned char j = 0; j < in.length; ++j) h = (h ^ in.words[j]) * 0xBF58476D1CE4E5B9ULL;
    return static_cast<size_t>((h >> shift_) & mask_);
  }

  unsigned shift_;
  uint64_t mask_;
  std::vector<Entry> entries_;
};

}  // namespace parastudio

#endif  // PARASTUDIO_KENLM_SCORE_CACHE_HH
