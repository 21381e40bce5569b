// MCPG's tree search (seed 003 §3, seed 000 §4.1 true-score mode) in C++: core/engine/decoders/mcpg/search.py's
// TreeSearch.descend, the uniform playout of playouts.py and the true-score objective of finals.py, operation
// for operation, so that the same inputs and seed give the same tree (visits, values) and the same outputs
// (tests/test_mcpg_native.py checks both against the Python reference with hypothesis).
//
// What is the same bits as the reference and why:
// * random numbers: the counter-based SplitMix64 stream of core/engine/decoders/mcpg/counter_random.py;
// * rewards: the scalar pow / min / max of Finals.reward, cached per maximum as search.py caches them;
// * the selection index: the same expression in the same order (the extension is built with
//   -ffp-contract=off, so no fused multiply-add changes a rounding), four actions at a time where AVX runs
//   (mcpg_select.hh);
// * the language model: KenLM's C++ model summed in a float, as the kenlm module's score() does;
// * the true score: best_rules_log10's backward dynamic program, each cell the max of log_p + rest (a max
//   does not depend on the order of its candidates, so only the cells reachable from (0, 0) are filled;
//   mcpg_true_score.hh).
// The action space (rules at places, their order) is built in Python (ActionSpace) and passed in.
// It is the `mcpg` submodule of core.engine._search_cores (search_cores.cpp), whose Model it takes.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kenlm_model.hh"
#include "kenlm_score_cache.hh"
#include "mcpg_arena.hh"
#include "mcpg_select.hh"
#include "mcpg_true_score.hh"
#include "search_cores.hh"

namespace py = pybind11;

namespace {

constexpr int32_t kStop = -1;
constexpr double kUnseen = -std::numeric_limits<double>::infinity();
// finals.py's _CACHE_LIMIT: distinct finals kept before KeepBest trims them (settable for the tests, which
// cross it on small searches with finals.py's set the same).
size_t g_final_limit = 200000;

// ---- random numbers (core/engine/decoders/mcpg/counter_random.py) ----------------------------------------------------
uint64_t Mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

class CounterRandom {
 public:
  explicit CounterRandom(uint64_t seed) : seed_key_(Mix(seed)) { Start(0); }
  void Start(uint64_t episode) {
    episode_key_ = Mix(seed_key_ ^ episode);
    draws_ = 0;
  }
  double Random() { return Unit(Mix(episode_key_ ^ draws_++)); }

 private:
  uint64_t seed_key_, episode_key_ = 0, draws_ = 0;
};

// ---- keys -------------------------------------------------------------------------------------------------
using Words = std::vector<int32_t>;


// ---- the language model: the one model class of the compiled searches (kenlm_model.hh) ----------------------
using Model = parastudio::KenlmModel;

using parastudio::Arena;
using parastudio::FlatTable;
using parastudio::Span;
using parastudio::TrueRules;

// ---- tree states (search.py's Node) ------------------------------------------------------------------------
// A state's statistics of its tried actions (search.py's count, reward_sum, reward_squares, best, best_reward,
// and spread = reward_squares / count - mean * mean): six lanes in one block, grown (doubling) as actions are
// first tried, so a state takes one allocation per growth instead of six.
class TriedStats {
 public:
  enum Lane { kCount, kRewardSum, kRewardSquares, kSpread, kBest, kBestReward, kLanes };

  double *operator[](Lane lane) { return block_ + static_cast<size_t>(lane) * capacity_; }
  const double *operator[](Lane lane) const { return block_ + static_cast<size_t>(lane) * capacity_; }

  // The entries of the action tried next (`tried` are tried so far, at most `most` can be).
  void Start(int32_t tried, int32_t most, Arena &arena) {
    if (tried == capacity_) Grow(tried, most, arena);
    double *entry = block_ + tried;
    for (int lane = 0; lane < kLanes; ++lane) entry[static_cast<size_t>(lane) * capacity_] = 0.0;
    (*this)[kBest][tried] = -std::numeric_limits<double>::infinity();
  }

  std::vector<double> Values(Lane lane, int32_t tried) const {
    return tried == 0 ? std::vector<double>() : std::vector<double>((*this)[lane], (*this)[lane] + tried);
  }

 private:
  // The old block stays in the arena (at most as much again as the last one) until the search is freed.
  void Grow(int32_t tried, int32_t most, Arena &arena) {
    const int32_t capacity = std::max(tried + 1, std::min(most, std::max(4, 2 * capacity_)));
    double *block = arena.Make<double>(static_cast<size_t>(kLanes) * capacity);
    for (int lane = 0; lane < kLanes; ++lane)
      std::copy_n(block_ + static_cast<size_t>(lane) * capacity_, tried, block + static_cast<size_t>(lane) * capacity);
    block_ = block;
    capacity_ = capacity;
  }

  double *block_ = nullptr;
  int32_t capacity_ = 0;
};

// A state; its arrays live in the search's arena (Search::nodes_ holds the states themselves).
struct Node {
  Span<int32_t> applied;  // sorted action indexes
  uint64_t covered = 0;
  bool may_stop = false;
  bool allocated = false;
  int64_t visits = 0;
  int32_t tried = 0;
  Span<int32_t> actions;  // once allocated: STOP first when it may stop, then the free actions in order
  // The tried actions' statistics (the first `tried` of actions: they are tried in order), grown one entry as
  // an action is first tried: most states are left after a few tries, so they never hold the hundreds of
  // entries of their untried actions (search.py allocates them all; NodeSnapshot gives their values).
  TriedStats stats;
  Span<double> rave_best, rave_reward;  // every action's, tried or not
  std::vector<std::pair<int32_t, double>> pending;  // RAVE maxima before allocation (search.py's pending_rave)
};

using Tree = FlatTable<Node *>;  // by key (search.py's key)

struct Final {
  double objective, model;
  Span<const int32_t> applied;
};
using FinalTable = FlatTable<Final>;  // by sentence

// The states, a chunk of 4,096 at a time: freed together when the search restarts or ends.
class NodePool {
 public:
  Node *Make() {
    if (used_ == kChunk) {
      chunks_.emplace_back(new Node[kChunk]);
      used_ = 0;
    }
    return &chunks_.back()[used_++];
  }
  void Clear() {
    chunks_.clear();
    used_ = kChunk;
  }

 private:
  static constexpr size_t kChunk = 4096;
  std::vector<std::unique_ptr<Node[]>> chunks_;
  size_t used_ = kChunk;
};

struct Settings {
  int64_t eta;
  int64_t limit;  // -1: none
  double exploration;
  bool widening;
  double widening_c, widening_alpha;
  bool log_reward;
  double half_over_scale;
  bool restart;
  int64_t nbest;
  uint64_t seed;
  // Translator mode (seed 000 §4.1): a state is its set of actions, stop only once they cover the sentence,
  // the objective the channel score lm + sum terms[a] (terms: log10 p, or seed 003's ratio per rule).
  bool translator;
};

class Search {
 public:
  Search(const Model *model, std::vector<std::string> words, Words source, std::vector<int32_t> starts,
         std::vector<int32_t> ends, const std::vector<int32_t> &target_words, const std::vector<int32_t> &target_offsets,
         std::vector<int32_t> order, TrueRules rules, double source_lm, Settings settings, std::vector<double> terms,
         std::vector<double> log_p)
      : model_(model), words_(std::move(words)), source_(std::move(source)), starts_(std::move(starts)),
        ends_(std::move(ends)), order_(std::move(order)), terms_(std::move(terms)), log_p_(std::move(log_p)),
        rules_(std::move(rules)), source_lm_(source_lm), settings_(settings), rng_(settings.seed) {
    const size_t actions = starts_.size();
    if (ends_.size() != actions || target_offsets.size() != actions + 1 || order_.size() != actions)
      throw std::invalid_argument("action arrays of different lengths");
    if (settings_.translator && (terms_.size() != actions || log_p_.size() != actions))
      throw std::invalid_argument("translator mode needs terms and log_p per action");
    if (source_.size() > 64) throw std::invalid_argument("the compiled MCPG takes sentences of at most 64 words");
    for (size_t a = 0; a < actions; ++a) {
      targets_.emplace_back(target_words.begin() + target_offsets[a], target_words.begin() + target_offsets[a + 1]);
      if (starts_[a] < 0 || starts_[a] >= ends_[a] || ends_[a] > static_cast<int32_t>(source_.size()))
        throw std::invalid_argument("an action outside the source");
      const int width = ends_[a] - starts_[a];
      masks_.push_back((width == 64 ? ~0ULL : ((1ULL << width) - 1)) << starts_[a]);
    }
    full_mask_ = source_.size() == 64 ? ~0ULL : ((1ULL << source_.size()) - 1);
    starting_.assign(source_.size(), -1);
    rank_.assign(actions, 0);
    for (size_t i = 0; i < actions; ++i) rank_.at(order_[i]) = static_cast<int32_t>(i);
    if (model_ != nullptr) {
      lm_index_ = model_->Indices(words_);
      model_->Prefixes(source_, lm_index_, prefix_states_, prefix_sums_, source_scores_, source_end_);
      context_ = model_->Order() - 1;
      lm_cache_ = parastudio::KenlmScoreCache(16);
    }
  }

  void AddKnown(const Words &sentence, double objective) {
    const uint64_t hash = parastudio::KeyHash(sentence.data(), sentence.size());
    auto *found = by_sentence_.Find(sentence.data(), sentence.size(), hash);
    if (found == nullptr) AddFinal(sentence, hash, Final{objective, objective, {}});
    else if (objective > found->value.objective) found->value = Final{objective, objective, {}};
  }

  // generate_mcpg's loop: descents from the source (restarted while restart_until_budget and episodes are left).
  void Run(double time_budget) {
    started_ = std::chrono::steady_clock::now();
    time_budget_ = time_budget;
    if (source_.empty() || starts_.empty()) return;
    while (!Descend()) {
      if (!settings_.restart || settings_.limit < 0) break;
      ++restarts_;
    }
  }

  // Only episodes from the source, no commit (tests compare single episodes' trees).
  void Episodes(int64_t count) {
    if (tree_.empty()) {
      root_ = State({}, 0, true);
      root_key_ = Key({});
      AddState(root_key_, parastudio::KeyHash(root_key_.data(), root_key_.size()), root_);
    }
    for (int64_t e = 0; e < count; ++e) {
      Allocate(*root_);
      if (root_->actions.empty()) break;
      Episode();
    }
  }

  double Draw(uint64_t episode, int64_t index) const {
    CounterRandom stream(settings_.seed);
    stream.Start(episode);
    double value = 0.0;
    for (int64_t i = 0; i <= index; ++i) value = stream.Random();
    return value;
  }

  // The sentence's start shared with the source resumes from the source's state and sum; in its end shared
  // with the source, the words after the first order - 1 have the source's scores (an n-gram model's state is
  // a function of the last order - 1 words).
  //
  // log10 P(<s> words </s>) summed in a float, as kenlm's ScoreSentence does: the same additions in the same
  // order give the same bits, whether a word's score comes from the model, from the source's or from the
  // cache of (state, word) -> (score, next state) (a state is its context words, KenLM's own equality).
  double LmScore(const Words &sentence) const {
    if (model_ == nullptr) return 0.0;
    const size_t m = sentence.size(), n = source_.size();
    size_t same = 0;
    while (same < m && same < n && sentence[same] == source_[same]) ++same;
    size_t tail = 0;
    while (tail < m && tail < n && sentence[m - 1 - tail] == source_[n - 1 - tail]) ++tail;
    size_t known = m + 1;  // none: every word and the end are scored here
    if (tail >= context_ && m - tail + context_ >= same) known = m - tail + context_;
    lm::ngram::State states[2];
    lm::ngram::State *state = &states[0], *next = &states[1];
    *state = prefix_states_[same];
    float total = prefix_sums_[same];
    size_t p = same;
    for (const size_t asked = std::min(known, m); p < asked; ++p) {
      total += CachedScore(*state, lm_index_[sentence[p]], *next);
      std::swap(state, next);
    }
    if (known <= m) {
      for (const float *scores = source_scores_.data() + (n - (m - known)); p < m; ++p) total += *scores++;
      return total + source_end_;
    }
    return total + CachedScore(*state, model_->EndSentence(), *next);
  }

  float CachedScore(const lm::ngram::State &in, lm::WordIndex word, lm::ngram::State &out) const {
    return lm_cache_.Score(*model_, in, word, out);
  }
  double TrueRulesLog10(const Words &sentence) { return rules_.Best(sentence); }

  py::list TreeSnapshot() const {
    py::list out;
    tree_.ForEach([&](const Tree::Entry &entry) { out.append(NodeSnapshot(entry.Key().Vector(), *entry.value)); });
    return out;
  }
  py::tuple RootSnapshot() const { return NodeSnapshot(root_key_, *root_); }

  py::list Finals() const {
    py::list out;
    by_sentence_.ForEach([&](const FinalTable::Entry &entry) {
      out.append(py::make_tuple(entry.Key().Vector(), entry.value.objective, entry.value.model,
                                entry.value.applied.Vector()));
    });
    return out;
  }

  // The `count` best finals as finals.py's ranked() orders them (the unreachable left out): only what the
  // caller outputs crosses into Python.
  py::list BestFinals(size_t count) const {
    std::vector<Item> items;
    by_sentence_.ForEach([&](const FinalTable::Entry &entry) {
      if (entry.value.objective != kUnseen) items.push_back(&entry);
    });
    count = std::min(count, items.size());
    std::partial_sort(items.begin(), items.begin() + count, items.end(),
                      [this](const Item &x, const Item &y) { return Better(x, y); });
    py::list out;
    for (size_t i = 0; i < count; ++i)
      out.append(py::make_tuple(items[i]->Key().Vector(), items[i]->value.objective, items[i]->value.model,
                                items[i]->value.applied.Vector()));
    return out;
  }

  size_t FinalCount() const { return by_sentence_.size(); }

  int64_t episodes_ = 0, commits_ = 0, restarts_ = 0, tree_states_ = 0;
  bool cut_ = false;
  std::vector<int32_t> committed_;  // root actions committed, -1 for stop
  std::vector<int64_t> etas_;

 private:
  // ---- states --------------------------------------------------------------------------------------------
  Node *State(const std::vector<int32_t> &applied, uint64_t covered, bool is_root) {
    Node *node = nodes_.Make();
    node->applied = Span<int32_t>::Copy(tree_arena_, applied.data(), applied.size());
    node->covered = covered;
    node->may_stop = settings_.translator ? covered == full_mask_ : !is_root;
    return node;
  }

  // The free actions of covered, in order, and the union of their masks.
  uint64_t Free(uint64_t covered, std::vector<int32_t> &pool) const {
    pool.clear();
    uint64_t reach = 0;
    for (int32_t a : order_)
      if (!(masks_[a] & covered)) {
        pool.push_back(a);
        reach |= masks_[a];
      }
    return reach;
  }

  void Allocate(Node &node) {
    if (node.allocated) return;
    node.allocated = true;
    std::vector<int32_t> &actions = allocate_;
    actions.clear();
    if (node.may_stop) actions.push_back(kStop);
    if (!(settings_.translator && node.may_stop))  // translator: a covered state only stops
      for (int32_t a : order_)
        if (!(masks_[a] & node.covered)) actions.push_back(a);
    const size_t size = actions.size();
    node.actions = Span<int32_t>::Copy(tree_arena_, actions.data(), size);
    node.rave_best = {tree_arena_.Make<double>(size), static_cast<int32_t>(size)};
    node.rave_reward = {tree_arena_.Make<double>(size), static_cast<int32_t>(size)};
    std::fill(node.rave_best.begin(), node.rave_best.end(), std::numeric_limits<double>::quiet_NaN());
    std::fill(node.rave_reward.begin(), node.rave_reward.end(), std::numeric_limits<double>::quiet_NaN());
    for (const auto &item : node.pending) {
      const int32_t i = Local(node, item.first);
      if (i >= 0) {
        node.rave_best[i] = item.second;
        node.rave_reward[i] = Reward(item.second);
      }
    }
    node.pending.clear();
    node.pending.shrink_to_fit();
  }

  // The slot of action a in node.actions (-1 when it is not there): the free actions are in order.
  int32_t Local(const Node &node, int32_t a) const {
    const int32_t first = node.may_stop ? 1 : 0;
    const int32_t target = rank_[a];
    const int32_t *begin = node.actions.begin() + first;
    const int32_t *found = std::lower_bound(begin, static_cast<const int32_t *>(node.actions.end()), target,
                                  [this](int32_t b, int32_t r) { return rank_[b] < r; });
    if (found == node.actions.end() || *found != a) return -1;
    return static_cast<int32_t>(found - node.actions.begin());
  }

  Words Sentence(const std::vector<int32_t> &applied) const {
    Words out;
    SentenceInto(applied, out);
    return out;
  }

  // A state's key (search.py's key): its sentence, or in translator mode its sorted actions.
  void KeyInto(const std::vector<int32_t> &applied, Words &out) const {
    if (settings_.translator) out.assign(applied.begin(), applied.end());
    else SentenceInto(applied, out);
  }
  Words Key(const std::vector<int32_t> &applied) const {
    Words out;
    KeyInto(applied, out);
    return out;
  }

  // The source with the applied actions' targets in place of their spans (disjoint), read left to right: each
  // action is marked at its start, so no sort is needed.
  void SentenceInto(const std::vector<int32_t> &applied, Words &out) const {
    for (int32_t a : applied) starting_[starts_[a]] = a;
    out.clear();
    const int32_t n = static_cast<int32_t>(source_.size());
    for (int32_t position = 0; position < n;) {
      const int32_t a = starting_[position];
      if (a < 0) {
        out.push_back(source_[position++]);
        continue;
      }
      starting_[position] = -1;
      out.insert(out.end(), targets_[a].begin(), targets_[a].end());
      position = ends_[a];
    }
  }

  void ChildInto(const Node &node, int32_t action, std::vector<int32_t> &applied, uint64_t &covered) const {
    applied.assign(node.applied.begin(), node.applied.end());
    applied.insert(std::upper_bound(applied.begin(), applied.end(), action), action);
    covered = node.covered | masks_[action];
  }

  std::vector<int32_t> Child(const Node &node, int32_t action, uint64_t &covered) const {
    std::vector<int32_t> applied;
    ChildInto(node, action, applied, covered);
    return applied;
  }

  // ---- rewards (finals.py) -------------------------------------------------------------------------------
  double Reward(double log_value) const {
    const double gap = log_value - source_lm_;
    if (settings_.log_reward) return std::min(1.0, std::max(0.0, 0.5 + gap * settings_.half_over_scale));
    return gap >= 0.0 ? 1.0 : std::pow(10.0, gap);
  }

  // finals.py's evaluate. Its cache of true scores is by_sentence itself here: a sentence's objective is the
  // same bits whenever it is computed (add_known computes it as evaluate does), so a final already recorded
  // keeps its entry (objective > known is false) and one trimmed by KeepBest is computed again.
  std::pair<double, double> Evaluate(const std::vector<int32_t> &applied) {
    SentenceInto(applied, sentence_);
    if (sentence_ == source_) return {kUnseen, 0.0};
    if (settings_.translator) return EvaluateChannel(applied);
    const uint64_t hash = parastudio::KeyHash(sentence_.data(), sentence_.size());
    const auto *known = by_sentence_.Find(sentence_.data(), sentence_.size(), hash);
    if (known != nullptr) return {known->value.objective, Reward(known->value.objective)};
    const double objective = rules_.Best(sentence_) + LmScore(sentence_);
    AddFinal(sentence_, hash, Final{objective, objective, Applied(applied)});
    if (by_sentence_.size() >= g_final_limit) KeepBest();
    return {objective, Reward(objective)};
  }

  // finals.py's evaluate in translator mode: the channel score of the state's own actions (Python's sum over
  // the sorted actions from 0, then added to the LM part); the best per sentence kept.
  std::pair<double, double> EvaluateChannel(const std::vector<int32_t> &applied) {
    const double lm_part = LmScore(sentence_);
    double terms = 0.0, log_p = 0.0;
    for (int32_t a : applied) terms += terms_[a];
    for (int32_t a : applied) log_p += log_p_[a];
    const double objective = lm_part + terms;
    const uint64_t hash = parastudio::KeyHash(sentence_.data(), sentence_.size());
    auto *known = by_sentence_.Find(sentence_.data(), sentence_.size(), hash);
    if (known == nullptr) {
      AddFinal(sentence_, hash, Final{objective, lm_part + log_p, Applied(applied)});
      if (by_sentence_.size() >= g_final_limit) KeepBest();
    } else if (objective > known->value.objective) {
      known->value = Final{objective, lm_part + log_p, Applied(applied)};
    }
    return {objective, Reward(objective)};
  }

  // finals.py's _keep_best: the best by (objective, model) descending, then the sentence's words in order.
  // A total order on distinct sentences (distinct ids are distinct words), so neither the table's order nor
  // the sort's stability changes which finals are kept or output.
  using Item = const FinalTable::Entry *;

  bool Better(const Item &x, const Item &y) const {
    if (x->value.objective != y->value.objective) return x->value.objective > y->value.objective;
    if (x->value.model != y->value.model) return x->value.model > y->value.model;
    const Span<const int32_t> a = x->Key(), b = y->Key();
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [this](int32_t u, int32_t v) { return words_[u] < words_[v]; });
  }

  // The kept finals move to a new table and arena; the old ones are freed whole.
  void KeepBest() {
    std::vector<Item> items;
    by_sentence_.ForEach([&](const FinalTable::Entry &entry) { items.push_back(&entry); });
    std::sort(items.begin(), items.end(), [this](const Item &x, const Item &y) { return Better(x, y); });
    const size_t keep = std::min(items.size(), static_cast<size_t>(std::max<int64_t>(1000, 10 * settings_.nbest)));
    Arena arena;
    FinalTable kept;
    for (size_t i = 0; i < keep; ++i) {
      const FinalTable::Entry &entry = *items[i];
      Final final = entry.value;
      final.applied = Span<const int32_t>::Copy(arena, final.applied.data(), final.applied.size());
      const Span<const int32_t> key = Span<const int32_t>::Copy(arena, entry.key, static_cast<size_t>(entry.length));
      kept.Insert(key.data(), key.size(), entry.hash, final);
    }
    by_sentence_ = std::move(kept);
    finals_arena_ = std::move(arena);
  }

  void AddFinal(const Words &sentence, uint64_t hash, Final final) {
    const Span<const int32_t> key = Span<const int32_t>::Copy(finals_arena_, sentence.data(), sentence.size());
    by_sentence_.Insert(key.data(), key.size(), hash, final);
  }
  Span<const int32_t> Applied(const std::vector<int32_t> &applied) {
    return Span<const int32_t>::Copy(finals_arena_, applied.data(), applied.size());
  }
  void AddState(const Words &key, uint64_t hash, Node *node) {
    const Span<const int32_t> copy = Span<const int32_t>::Copy(tree_arena_, key.data(), key.size());
    tree_.Insert(copy.data(), copy.size(), hash, node);
  }

  // ---- selection (search.py's select) --------------------------------------------------------------------
  int32_t Offered(const Node &node) const {
    const int32_t size = static_cast<int32_t>(node.actions.size());
    if (!settings_.widening) return size;
    const double open = std::ceil(settings_.widening_c * std::pow(static_cast<double>(node.visits + 1),
                                                                   settings_.widening_alpha));
    return static_cast<int32_t>(std::min<double>(size, std::max(1.0, open)));
  }

  int32_t Select(Node &node) {
    Allocate(node);
    if (node.tried < Offered(node)) {  // the next untried action: its statistics start
      node.stats.Start(node.tried, static_cast<int32_t>(node.actions.size()), tree_arena_);
      return node.tried++;
    }
    const parastudio::SelectTerms terms = parastudio::TermsFor(node.visits, settings_.exploration);
    index_.resize(node.tried);
    return parastudio::SelectArgmax(terms, node.tried, node.stats[TriedStats::kCount], node.stats[TriedStats::kSpread],
                                    node.stats[TriedStats::kBestReward],
                                    node.rave_reward.data(), index_.data());
  }

  // ---- the uniform playout (playouts.py's uniform) -------------------------------------------------------
  void Playout(const Node &node, std::vector<int32_t> &taken) {
    taken.clear();
    const uint64_t reach = Free(node.covered, pool_);
    const int64_t m = static_cast<int64_t>(pool_.size());
    // Translator mode draws no stop: the walk goes on until every word is covered (identities included).
    const int64_t limit = settings_.translator ? m : static_cast<int64_t>(rng_.Random() * static_cast<double>(m + 1));
    uint64_t covered = node.covered;
    for (int64_t i = 0; i < limit; ++i) {
      if ((covered & reach) == reach) break;  // every remaining action is blocked
      const int64_t j = i + static_cast<int64_t>(rng_.Random() * static_cast<double>(m - i));
      const int32_t a = pool_[j];
      pool_[j] = pool_[i];
      if (!(masks_[a] & covered)) {
        taken.push_back(a);
        covered |= masks_[a];
      }
    }
  }

  // ---- one episode (search.py's episode) -----------------------------------------------------------------
  void Episode() {
    path_.clear();
    on_path_.clear();
    Node *node = root_;
    on_path_.push_back(node);
    playout_.clear();
    std::vector<int32_t> &applied = applied_;
    applied.assign(node->applied.begin(), node->applied.end());
    rng_.Start(static_cast<uint64_t>(episodes_));
    while (true) {
      Allocate(*node);
      if (node->actions.empty()) break;
      const int32_t index = Select(*node);
      path_.emplace_back(node, index);
      const int32_t action = node->actions[index];
      if (action == kStop) break;
      uint64_t covered;
      ChildInto(*node, action, applied, covered);
      KeyInto(applied, key_);
      const uint64_t hash = parastudio::KeyHash(key_.data(), key_.size());
      const Tree::Entry *found = tree_.Find(key_.data(), key_.size(), hash);
      if (found == nullptr) {
        Node *child = State(applied, covered, false);
        AddState(key_, hash, child);
        ++tree_states_;
        Playout(*child, playout_);
        path_.emplace_back(child, -2);
        applied.insert(applied.end(), playout_.begin(), playout_.end());
        std::sort(applied.begin(), applied.end());
        break;
      }
      // Back to an earlier sentence of this episode. A key has one state in the tree, so the states compare as
      // the keys would; but a committed root can be pruned out of the tree (search.py's descend keeps the
      // states covering the committed action's span, and the root found by its sentence may cover others):
      // then its sentence is compared as well.
      if (std::find(on_path_.begin(), on_path_.end(), found->value) != on_path_.end() ||
          (!root_in_tree_ && key_ == root_key_))
        break;
      node = found->value;
      on_path_.push_back(node);
      applied.assign(node->applied.begin(), node->applied.end());
    }
    const auto [objective, reward] = Evaluate(applied);
    later_.assign(playout_.begin(), playout_.end());
    for (auto step = path_.rbegin(); step != path_.rend(); ++step) {
      Node &at = *step->first;
      const int32_t index = step->second;
      at.visits += 1;
      if (index >= 0) {
        const int32_t action = at.actions[index];
        if (action != kStop) later_.push_back(action);
        TriedStats &stats = at.stats;
        double &count = stats[TriedStats::kCount][index], &sum = stats[TriedStats::kRewardSum][index],
               &squares = stats[TriedStats::kRewardSquares][index];
        count += 1.0;
        sum += reward;
        squares += reward * reward;
        const double mean = sum / count;
        stats[TriedStats::kSpread][index] = squares / count - mean * mean;
        double &best = stats[TriedStats::kBest][index];
        if (objective > best) {
          best = objective;
          stats[TriedStats::kBestReward][index] = reward;
        }
      }
      if (!at.allocated) {
        for (int32_t a : later_) {
          auto it = std::find_if(at.pending.begin(), at.pending.end(), [a](const auto &p) { return p.first == a; });
          const double known = it == at.pending.end() ? kUnseen : it->second;
          if (objective > known) {
            if (it == at.pending.end()) at.pending.emplace_back(a, objective);
            else it->second = objective;
          }
        }
      } else {
        for (int32_t a : later_) {
          const int32_t i = Local(at, a);
          if (i >= 0 && !(objective <= at.rave_best[i])) {  // NaN (unseen) compares false
            at.rave_best[i] = objective;
            at.rave_reward[i] = reward;
          }
        }
      }
    }
    ++episodes_;
  }

  int32_t BestRootAction(const Node &root) const {
    if (!root.allocated || root.tried == 0) return kStop;
    const double *best = root.stats[TriedStats::kBest], *count = root.stats[TriedStats::kCount];
    int32_t chosen = 0;
    for (int32_t i = 1; i < root.tried; ++i)
      if (best[i] > best[chosen] || (best[i] == best[chosen] && count[i] > count[chosen]))
        chosen = i;
    return root.actions[chosen];
  }

  bool OutOfLimits() {
    if (settings_.limit >= 0 && episodes_ >= settings_.limit) return true;
    if (time_budget_ >= 0.0 && !cut_) {
      const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started_;
      if (spent.count() >= time_budget_) cut_ = true;
    }
    return cut_;
  }

  // search.py's descend: sample, commit every eta episodes; true when a limit ended it.
  bool Descend() {
    tree_.Clear();  // a restart: the earlier tree's states and arrays are freed whole
    nodes_.Clear();
    tree_arena_.Clear();
    root_ = State({}, 0, true);
    root_key_ = Key({});
    root_in_tree_ = true;
    AddState(root_key_, parastudio::KeyHash(root_key_.data(), root_key_.size()), root_);
    int64_t since_commit = 0;
    while (true) {
      Allocate(*root_);
      if (root_->actions.empty()) break;
      Episode();
      ++since_commit;
      if (OutOfLimits()) return true;
      if (since_commit >= settings_.eta) {
        etas_.push_back(since_commit);
        since_commit = 0;
        const int32_t action = BestRootAction(*root_);
        ++commits_;
        committed_.push_back(action);
        if (action == kStop) return false;
        uint64_t covered;
        std::vector<int32_t> applied = Child(*root_, action, covered);
        root_key_ = Key(applied);
        const uint64_t hash = parastudio::KeyHash(root_key_.data(), root_key_.size());
        const Tree::Entry *found = tree_.Find(root_key_.data(), root_key_.size(), hash);
        if (found == nullptr) {  // pruned at an earlier commit (search.py's descend): a new state
          root_ = State(applied, covered, false);
          AddState(root_key_, hash, root_);
          ++tree_states_;
        } else {
          root_ = found->value;
        }
        if (settings_.translator && covered == full_mask_) return false;  // only stop is left
        // Keep only the new root's subtree (pruned states stay in the arena until a restart or the end).
        tree_.Keep([covered](const Tree::Entry &entry) { return (entry.value->covered & covered) == covered; });
        root_in_tree_ = (root_->covered & covered) == covered;
      }
    }
    return false;
  }

  py::tuple NodeSnapshot(const Words &key, const Node &node) const {
    py::dict pending;
    for (const auto &item : node.pending) pending[py::int_(item.first)] = item.second;
    if (!node.allocated)
      return py::make_tuple(key, node.applied.Vector(), node.covered, node.visits, node.tried, py::none(), py::none(), py::none(),
                            py::none(), py::none(), py::none(), pending);
    // Untried actions' statistics as search.py's arrays hold them: count and sums 0, maxima -inf.
    const size_t size = node.actions.size();
    auto padded = [size](std::vector<double> values, double untried) {
      values.resize(size, untried);
      return values;
    };
    return py::make_tuple(key, node.applied.Vector(), node.covered, node.visits, node.tried, node.actions.Vector(),
                          padded(node.stats.Values(TriedStats::kCount, node.tried), 0.0),
                          padded(node.stats.Values(TriedStats::kRewardSum, node.tried), 0.0),
                          padded(node.stats.Values(TriedStats::kRewardSquares, node.tried), 0.0),
                          padded(node.stats.Values(TriedStats::kBest, node.tried), kUnseen), node.rave_best.Vector(),
                          pending);
  }

  const Model *model_;
  std::vector<std::string> words_;
  Words source_;
  std::vector<int32_t> starts_, ends_, order_, rank_;
  std::vector<double> terms_, log_p_;  // translator mode: the objective's and the model score's term per action
  uint64_t full_mask_ = 0;
  std::vector<Words> targets_;
  std::vector<uint64_t> masks_;
  TrueRules rules_;
  double source_lm_;
  Settings settings_;
  CounterRandom rng_;
  std::vector<lm::WordIndex> lm_index_;
  std::vector<lm::ngram::State> prefix_states_;
  std::vector<float> prefix_sums_, source_scores_;
  float source_end_ = 0.0f;
  size_t context_ = 0;  // the model's order - 1
  mutable parastudio::KenlmScoreCache lm_cache_;
  std::chrono::steady_clock::time_point started_;
  double time_budget_ = -1.0;

  Arena tree_arena_, finals_arena_;  // keys and arrays of the states; keys and actions of the finals
  NodePool nodes_;
  Tree tree_;
  Node *root_ = nullptr;
  Words root_key_;
  bool root_in_tree_ = true;  // false once pruning after a commit took the root itself out of the tree
  FinalTable by_sentence_;

  // scratch buffers
  std::vector<std::pair<Node *, int32_t>> path_;
  std::vector<const Node *> on_path_;  // the states this episode went through
  std::vector<int32_t> playout_, later_, pool_, applied_, allocate_;
  std::vector<double> index_;
  Words key_, sentence_;
  mutable std::vector<int32_t> starting_;  // SentenceInto's scratch: the applied action starting at each position, or -1
};

}  // namespace

void parastudio::BindMcpg(py::module_ &module) {
  module.doc() = "MCPG's tree search (core/engine/decoders/mcpg/search.py, true-score mode, uniform playout) in C++.";
  module.attr("INTERFACE") = 2;
  module.def("draw", [](uint64_t seed, uint64_t episode, uint64_t index) { return Unit(Mix(Mix(Mix(seed) ^ episode) ^ index)); },
             py::arg("seed"), py::arg("episode"), py::arg("index"));
  module.def("_set_final_limit", [](size_t limit) { g_final_limit = limit; }, py::arg("limit"));
  module.def("_final_limit", []() { return g_final_limit; });
  // The selection's argmax alone (the tests compare it, vectorised and not, with search.py's numpy select).
  module.def(
      "select_argmax",
      [](const std::vector<double> &count, const std::vector<double> &spread, const std::vector<double> &q,
         const std::vector<double> &rave, int64_t visits, double exploration, bool vectorised) {
        const size_t tried = count.size();
        if (tried == 0 || spread.size() != tried || q.size() != tried || rave.size() != tried)
          throw std::invalid_argument("select_argmax: expected four arrays of the same positive length");
        std::vector<double> index(tried);
        return parastudio::SelectArgmax(parastudio::TermsFor(visits, exploration), static_cast<int32_t>(tried),
                                        count.data(), spread.data(), q.data(), rave.data(), index.data(), vectorised);
      },
      py::arg("count"), py::arg("spread"), py::arg("q"), py::arg("rave"), py::arg("visits"), py::arg("exploration"),
      py::arg("vectorised") = true);
  py::class_<Search>(module, "Search")
      .def(py::init([](const Model *model, std::vector<std::string> words, Words source, std::vector<int32_t> starts,
                       std::vector<int32_t> ends, const std::vector<int32_t> &target_words,
                       const std::vector<int32_t> &target_offsets, std::vector<int32_t> order,
                       const std::vector<int32_t> &rule_words, const std::vector<int32_t> &rule_offsets,
                       const std::vector<int32_t> &rule_group, const std::vector<int32_t> &rule_start,
                       const std::vector<int32_t> &rule_end, const std::vector<double> &rule_log_p, double source_lm,
                       int64_t eta, int64_t limit, double exploration, std::optional<std::pair<double, double>> widening,
                       bool log_reward, double half_over_scale, bool restart, int64_t nbest, uint64_t seed,
                       bool translator, std::vector<double> terms, std::vector<double> log_p) {
             const int32_t vocabulary = static_cast<int32_t>(words.size());
             TrueRules rules(source, rule_words, rule_offsets, rule_group, rule_start, rule_end, rule_log_p, vocabulary);
             Settings settings{eta, limit, exploration, widening.has_value(), widening ? widening->first : 0.0,
                               widening ? widening->second : 0.0, log_reward, half_over_scale, restart, nbest, seed,
                               translator};
             return std::make_unique<Search>(model, std::move(words), std::move(source), std::move(starts),
                                             std::move(ends), target_words, target_offsets, std::move(order),
                                             std::move(rules), source_lm, settings, std::move(terms),
                                             std::move(log_p));
           }),
           py::arg("model").none(true), py::arg("words"), py::arg("source"), py::arg("starts"), py::arg("ends"),
           py::arg("target_words"), py::arg("target_offsets"), py::arg("order"), py::arg("rule_words"),
           py::arg("rule_offsets"), py::arg("rule_group"), py::arg("rule_start"), py::arg("rule_end"),
           py::arg("rule_log_p"), py::arg("source_lm"), py::arg("eta"), py::arg("limit"), py::arg("exploration"),
           py::arg("widening").none(true), py::arg("log_reward"), py::arg("half_over_scale"), py::arg("restart"),
           py::arg("nbest"), py::arg("seed"), py::arg("translator") = false,
           py::arg("terms") = std::vector<double>(), py::arg("log_p") = std::vector<double>(), py::keep_alive<1, 2>())
      .def("add_known", &Search::AddKnown, py::arg("sentence"), py::arg("objective"))
      .def("run", &Search::Run, py::arg("time_budget"), py::call_guard<py::gil_scoped_release>())
      .def("run_episodes", &Search::Episodes, py::arg("count"))
      .def("draw", &Search::Draw, py::arg("episode"), py::arg("index"))
      .def("lm_score", &Search::LmScore, py::arg("sentence"))
      .def("true_rules_log10", &Search::TrueRulesLog10, py::arg("sentence"))
      .def("tree", &Search::TreeSnapshot)
      .def("root", &Search::RootSnapshot)
      .def("finals", &Search::Finals)
      .def("best_finals", &Search::BestFinals, py::arg("count"))
      .def_property_readonly("final_count", &Search::FinalCount)
      .def_readonly("episodes", &Search::episodes_)
      .def_readonly("commits", &Search::commits_)
      .def_readonly("restarts", &Search::restarts_)
      .def_readonly("tree_states", &Search::tree_states_)
      .def_readonly("cut", &Search::cut_)
      .def_readonly("committed", &Search::committed_)
      .def_readonly("etas", &Search::etas_);
}
