// KenLM for the compiled cores (beam_core.cpp, mcpg_core.cpp): a model opened as the kenlm Python module
// opens it (LoadVirtual, default Config, no messages) and the vocabulary ids of words. One place, so both
// cores score with the same model the same way.

#ifndef PARASTUDIO_KENLM_MODEL_HH
#define PARASTUDIO_KENLM_MODEL_HH

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

// The model's vocabulary id of each word (its <unk> id for a word it does not know).
inline std::vector<lm::WordIndex> KenlmIndices(const lm::base::Model &model, const std::vector<std::string> &words) {
  std::vector<lm::WordIndex> out;
  out.reserve(words.size());
  const lm::base::Vocabulary &vocabulary = model.BaseVocabulary();
  for (const std::string &word : words) out.push_back(vocabulary.Index(word));
  return out;
}

}  // namespace parastudio

#endif  // PARASTUDIO_KENLM_MODEL_HH
