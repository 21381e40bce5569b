// KenLM for the compiled search cores (the beam core and the MCPG core, one extension module: search_cores.cpp):
// one model class, opened as the kenlm Python module opens it (LoadVirtual, default Config, no messages), with
// what both searches ask of it. One place, so both cores score with the same model the same way, and one object
// per file in a process (core/engine/lm/native_model.py keeps it; both cores take it).

#ifndef PARASTUDIO_KENLM_MODEL_HH
#define PARASTUDIO_KENLM_MODEL_HH

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lm/model.hh"
#include "lm/state.hh"
#include "lm/virtual_interface.hh"
#include "util/exception.hh"

namespace parastudio {

// The model at path; a file KenLM cannot read, or a model whose state is not an n-gram State, is a
// runtime_error naming the path.
inline std::unique_ptr<lm::base::Model> LoadKenlm(const std::string &path) {
  lm::ngram::Config config;
  config.messages = nullptr;
  std::unique_ptr<lm::base::Model> model;
  try {
    model.reset(lm::ngram::LoadVirtual(path.c_str(), config));
  } catch (const util::Exception &error) {
    throw std::runtime_error(path + ": " + error.what());
  }
  if (model->StateSize() != sizeof(lm::ngram::State))
    throw std::runtime_error(path + ": not an n-gram model KenLM's State fits");
  return model;
}

// How many KenlmModels this process has opened so far (the test that both cores share one reads it).
inline std::atomic<int64_t> kenlm_models_opened{0};

class KenlmModel {
 public:
  explicit KenlmModel(const std::string &path) : model_(LoadKenlm(path)) { ++kenlm_models_opened; }
  KenlmModel(const KenlmModel &) = delete;
  KenlmModel &operator=(const KenlmModel &) = delete;

  // The model's vocabulary id of each word (its <unk> id for a word it does not know).
  std::vector<lm::WordIndex> Indices(const std::vector<std::string> &words) const {
    std::vector<lm::WordIndex> out;
    out.reserve(words.size());
    const lm::base::Vocabulary &vocabulary = model_->BaseVocabulary();
    for (const std::string &word : words) out.push_back(vocabulary.Index(word));
    return out;
  }

  unsigned Order() const { return model_->Order(); }
  void Begin(lm::ngram::State &state) const { model_->BeginSentenceWrite(&state); }
  float Score(const lm::ngram::State &in, lm::WordIndex word, lm::ngram::State &out) const {
    return model_->BaseScore(&in, word, &out);
  }
  lm::WordIndex EndSentence() const { return model_->BaseVocabulary().EndSentence(); }

  // kenlm's Python Model.score(text, bos=False, eos=False): the bytes split on ASCII whitespace (bytes.split()),
  // each word's log10 probability summed in a float from the null context.
  float PhraseScore(const char *text, size_t size) const {
    const lm::base::Vocabulary &vocabulary = model_->BaseVocabulary();
    lm::ngram::State state, out;
    model_->NullContextWrite(&state);
    float total = 0;
    size_t i = 0;
    while (i < size) {
      while (i < size && IsAsciiSpace(text[i])) ++i;
      size_t j = i;
      while (j < size && !IsAsciiSpace(text[j])) ++j;
      if (j > i) {
        total += model_->BaseScore(&state, vocabulary.Index(StringPiece(text + i, j - i)), &out);
        state = out;
      }
      i = j;
    }
    return total;
  }

  // The words (vocabulary ids `index[source[p]]`) scored in order from <s>: the state and float partial sum after
  // each prefix, each word's score, and the end of sentence's (the MCPG core's source sentence).
  void Prefixes(const std::vector<int32_t> &source, const std::vector<lm::WordIndex> &index,
                std::vector<lm::ngram::State> &states, std::vector<float> &sums, std::vector<float> &scores,
                float &end) const {
    states.resize(source.size() + 1);
    sums.resize(source.size() + 1);
    scores.resize(source.size());
    model_->BeginSentenceWrite(&states[0]);
    sums[0] = 0.0f;
    for (size_t p = 0; p < source.size(); ++p) {
      scores[p] = model_->BaseScore(&states[p], index[source[p]], &states[p + 1]);
      sums[p + 1] = sums[p] + scores[p];
    }
    lm::ngram::State out;
    end = model_->BaseScore(&states[source.size()], model_->BaseVocabulary().EndSentence(), &out);
  }

 private:
  static bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

  std::unique_ptr<lm::base::Model> model_;
};

}  // namespace parastudio

#endif  // PARASTUDIO_KENLM_MODEL_HH
