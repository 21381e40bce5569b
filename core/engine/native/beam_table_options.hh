// Options straight from a binary table's arrays (core/engine/tables/table_binary.py; the reference is
// translation_options.OptionCache.ranked, tests/test_table_options_native.py), for the beam core (beam_core.cpp
// includes it): rules ranked and registered with an OptionStore through a Vocabulary, the rules toward wanted
// targets, and their columns for the true score's dynamic program.

#ifndef PARASTUDIO_BEAM_TABLE_OPTIONS_HH
#define PARASTUDIO_BEAM_TABLE_OPTIONS_HH

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "beam_search.hh"
#include "binary_table_arrays.hh"

namespace parastudio::beam {
namespace {  // beam_core.cpp is the one translation unit: internal linkage, as the compiler inlined before the split

// compiled_search.py's _Vocabulary in C++: word -> token id (tells strings apart) and KenLM index, grown as
// words arrive. A binary table's targets then reach the OptionStore as bytes, never as Python strings; `words`
// (token id -> str) is the one Python list an n-best list reads its words from.
class Vocabulary {
 public:
  explicit Vocabulary(const Model *model) : model_(model) {}

  // The token id of the UTF-8 word [data, data + size), added (with its KenLM index) when new.
  int32_t Token(const char *data, size_t size) {
    key_.assign(data, size);
    auto found = token_.find(key_);
    if (found != token_.end()) return found->second;
    py::object word = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(size), nullptr));
    if (!word) throw py::error_already_set();
    const int32_t token = static_cast<int32_t>(lm_index_.size());
    words_.append(word);
    lm_index_.push_back(model_ != nullptr ? model_->Indices({key_})[0] : 0);
    token_.emplace(key_, token);
    return token;
  }

  WordIndex LmIndex(int32_t token) const { return lm_index_[static_cast<size_t>(token)]; }

  // _Vocabulary.ids: (token ids, KenLM indices) of Python strings.
  py::tuple Ids(const py::sequence &words) {
    std::vector<int32_t> tokens;
    std::vector<WordIndex> indices;
    tokens.reserve(py::len(words));
    indices.reserve(py::len(words));
    for (const py::handle &word : words) {
      Py_ssize_t size = 0;
      const char *data = PyUnicode_AsUTF8AndSize(word.ptr(), &size);
      if (data == nullptr) throw py::error_already_set();
      tokens.push_back(Token(data, static_cast<size_t>(size)));
      indices.push_back(LmIndex(tokens.back()));
    }
    return py::make_tuple(tokens, indices);
  }

  const py::list &Words() const { return words_; }

  // KenLM's score of a target phrase of the table this vocabulary's options come from (RankRules), by target
  // index: most targets are the targets of many phrases.
  std::unordered_map<uint32_t, float> phrase_scores;

 private:
  const Model *model_;
  std::unordered_map<std::string, int32_t> token_;
  std::vector<WordIndex> lm_index_;
  py::list words_;
  std::string key_;
};

// Registers the kept rules' targets (split on ' ' as BinaryTable._words splits them) with `store`: the phrase
// id, or -1 without a store.
int32_t Register(OptionStore *store, Vocabulary *vocabulary, const TargetTexts &texts, const uint32_t *targets,
                 const std::vector<int64_t> &rules, const std::vector<double> &scores,
                 const std::vector<double> &estimates) {
  if (store == nullptr || vocabulary == nullptr) return -1;
  std::vector<int32_t> lengths, tokens;
  std::vector<uint32_t> words;
  for (int64_t r : rules) {
    const std::string_view text = texts(targets[r]);
    int32_t length = 0;
    size_t i = 0;
    while (true) {
      const size_t j = std::min(text.find(' ', i), text.size());
      tokens.push_back(vocabulary->Token(text.data() + i, j - i));
      words.push_back(vocabulary->LmIndex(tokens.back()));
      ++length;
      if (j == text.size()) break;
      i = j + 1;
    }
    lengths.push_back(length);
  }
  return store->Add(scores, estimates, lengths, words, tokens);
}

// The distinct targets of rules [first, last), each with its best rule (ties: the first), ranked by estimate
// (stable: ties keep table order) and limited: (rule numbers, rule scores, estimates packed, phrase id), the phrase id
// that of the options registered with `store` (through `vocabulary`) when given, else -1.
py::tuple RankRules(const Model *model, const py::buffer &rule_prob, const py::buffer &rule_target,
                    const py::buffer &target_text, const py::buffer &target_offsets, int64_t first, int64_t last,
                    const py::object &merged_target, double phrase_weight, double word_penalty, double lm_weight,
                    int64_t limit, OptionStore *store, Vocabulary *vocabulary) {
  const double *probs = BufferData<double>(rule_prob);
  const uint32_t *targets = BufferData<uint32_t>(rule_target);
  const TargetTexts texts{BufferData<uint8_t>(target_text), BufferData<uint64_t>(target_offsets)};
  const bool merging = !merged_target.is_none();
  const std::string merged = merging ? std::string(py::bytes(merged_target)) : std::string();
  std::unordered_map<uint32_t, size_t> seen;
  std::vector<int64_t> rules;
  std::vector<double> scores;
  for (int64_t r = first; r < last; ++r) {
    const std::string_view text = texts(targets[r]);
    if (merging && text == merged) continue;  // the word's own slot keeps it
    const double words = static_cast<double>(std::count(text.begin(), text.end(), ' ') + 1);
    const double weighted = phrase_weight * std::log10(probs[r]);
    const double penalty = word_penalty * words;
    const double score = weighted - penalty;
    auto found = seen.find(targets[r]);
    if (found == seen.end()) {
      seen.emplace(targets[r], rules.size());
      rules.push_back(r);
      scores.push_back(score);
    } else if (score > scores[found->second]) {
      rules[found->second] = r;
      scores[found->second] = score;
    }
  }
  std::vector<double> estimates(rules.size());
  for (size_t i = 0; i < rules.size(); ++i) {
    double lm_estimate = 0.0;
    if (model != nullptr) {
      const std::string_view text = texts(targets[rules[i]]);
      if (vocabulary == nullptr) {
        lm_estimate = model->PhraseScore(text.data(), text.size());
      } else {
        auto known = vocabulary->phrase_scores.find(targets[rules[i]]);
        if (known == vocabulary->phrase_scores.end())
          known = vocabulary->phrase_scores.emplace(targets[rules[i]], model->PhraseScore(text.data(), text.size())).first;
        lm_estimate = known->second;
      }
    }
    const double weighted_lm = lm_weight * lm_estimate;
    estimates[i] = scores[i] + weighted_lm;
  }
  std::vector<size_t> order(rules.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return -estimates[a] < -estimates[b]; });
  if (limit >= 0 && static_cast<size_t>(limit) < order.size()) order.resize(limit);
  std::vector<int64_t> kept_rules;
  std::vector<double> kept_scores, kept_estimates;
  for (size_t i : order) {
    kept_rules.push_back(rules[i]);
    kept_scores.push_back(scores[i]);
    kept_estimates.push_back(estimates[i]);
  }
  const int32_t phrase = Register(store, vocabulary, texts, targets, kept_rules, kept_scores, kept_estimates);
  // Packed (rule numbers as int64, then scores and estimates as doubles, native order), not three lists: a
  // decoder keeps every phrase it met, and the lists' Python numbers were most of a generate's memory (issue 40).
  const size_t n = kept_rules.size();
  std::string packed(n * 24, '\0');
  std::memcpy(packed.data(), kept_rules.data(), n * 8);
  std::memcpy(packed.data() + n * 8, kept_scores.data(), n * 8);
  std::memcpy(packed.data() + n * 16, kept_estimates.data(), n * 8);
  return py::make_tuple(py::bytes(packed), phrase);
}

// RankRules for each range [firsts[i], lasts[i]) (merged[i]: its merged target or None), in one call: a sentence's
// new phrases.
py::list RankRulesMany(const Model *model, const py::buffer &rule_prob, const py::buffer &rule_target,
                       const py::buffer &target_text, const py::buffer &target_offsets,
                       const std::vector<int64_t> &firsts, const std::vector<int64_t> &lasts,
                       const py::list &merged, double phrase_weight, double word_penalty, double lm_weight,
                       int64_t limit, OptionStore *store, Vocabulary *vocabulary) {
  if (lasts.size() != firsts.size() || merged.size() != firsts.size())
    throw std::invalid_argument("firsts, lasts and merged must have one entry per phrase");
  py::list out;
  for (size_t i = 0; i < firsts.size(); ++i)
    out.append(RankRules(model, rule_prob, rule_target, target_text, target_offsets, firsts[i], lasts[i],
                         py::reinterpret_borrow<py::object>(merged[i]), phrase_weight, word_penalty, lm_weight, limit,
                         store, vocabulary));
  return out;
}

// Per range [firsts[i], lasts[i]): the rules whose target text is one of ``wanted``, in table order.
std::vector<std::vector<int64_t>> RulesToward(const py::buffer &rule_target, const py::buffer &target_text,
                                              const py::buffer &target_offsets,
                                              const std::vector<int64_t> &firsts,
                                              const std::vector<int64_t> &lasts,
                                              const std::vector<std::string> &wanted) {
  const uint32_t *targets = BufferData<uint32_t>(rule_target);
  const TargetTexts texts{BufferData<uint8_t>(target_text), BufferData<uint64_t>(target_offsets)};
  std::unordered_set<std::string_view> wanted_texts(wanted.begin(), wanted.end());
  std::unordered_map<uint32_t, bool> known;  // target -> wanted
  std::vector<std::vector<int64_t>> found(firsts.size());
  for (size_t i = 0; i < firsts.size(); ++i) {
    for (int64_t r = firsts[i]; r < lasts[i]; ++r) {
      auto at = known.find(targets[r]);
      if (at == known.end()) at = known.emplace(targets[r], wanted_texts.count(texts(targets[r])) > 0).first;
      if (at->second) found[i].push_back(r);
    }
  }
  return found;
}

// RulesToward as columns for the true score's dynamic program (truescore_paths.py): per rule whose target text is
// wanted, in range order then table order: (its range's position in firsts, its group, rule number, log10 p), and
// per group (targets numbered as first met) the position of its text in `wanted`.
py::tuple RuleColumnsToward(const py::buffer &rule_target, const py::buffer &rule_prob,
                            const py::buffer &target_text, const py::buffer &target_offsets,
                            const std::vector<int64_t> &firsts, const std::vector<int64_t> &lasts,
                            const std::vector<std::string> &wanted) {
  const uint32_t *targets = BufferData<uint32_t>(rule_target);
  const double *probs = BufferData<double>(rule_prob);
  const TargetTexts texts{BufferData<uint8_t>(target_text), BufferData<uint64_t>(target_offsets)};
  std::unordered_map<std::string_view, int32_t> wanted_texts;
  for (size_t g = 0; g < wanted.size(); ++g) wanted_texts.emplace(wanted[g], static_cast<int32_t>(g));
  std::unordered_map<uint32_t, int32_t> known;  // target -> its group, -1 if not wanted
  std::vector<int32_t> spans, groups, used;  // used[g]: the position in `wanted` of group g's target
  std::vector<int64_t> numbers;
  std::vector<double> log_ps;
  for (size_t i = 0; i < firsts.size(); ++i) {
    for (int64_t r = firsts[i]; r < lasts[i]; ++r) {
      auto at = known.find(targets[r]);
      if (at == known.end()) {
        auto part = wanted_texts.find(texts(targets[r]));
        int32_t group = -1;
        if (part != wanted_texts.end()) {
          group = static_cast<int32_t>(used.size());
          used.push_back(part->second);
        }
        at = known.emplace(targets[r], group).first;
      }
      if (at->second < 0) continue;
      spans.push_back(static_cast<int32_t>(i));
      groups.push_back(at->second);
      numbers.push_back(r);
      log_ps.push_back(std::log10(probs[r]));  // Rule.log10_prob: math.log10 is the C library's log10
    }
  }
  return py::make_tuple(spans, groups, numbers, log_ps, used);
}

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_TABLE_OPTIONS_HH
