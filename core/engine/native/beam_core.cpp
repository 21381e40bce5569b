// The beam decoder's search in C++: the expansion loop of core/engine/decoders/beam_decoder.py (hypothesis
// extension, recombination on KenLM states, Moses' threshold and histogram pruning) and the lazy k-best
// of core/engine/decoders/kbest.py, operation for operation, so that both give the same lattice and the same
// n-best lists (tests/test_beam_core.py compares them). The Python files are the reference: read them
// for the why; the comments here say only where C++ has to take care to stay identical.
//
// KenLM is called through its C++ interface (lm::base::Model, as the kenlm Python module does), built
// from the kenlm source distribution by setup.py.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <tuple>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kenlm_model.hh"

namespace py = pybind11;
using lm::WordIndex;
using lm::ngram::State;

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// How far under a stack's floor a partial score must be to stop scoring a target early: far above the
// rounding of sums of a few hundred log-probabilities, far below any difference the threshold could make.
constexpr double kMargin = 1e-9;

struct StateHash {
  size_t operator()(const State &state) const { return static_cast<size_t>(lm::ngram::hash_value(state)); }
};

// A KenLM model opened with the same loader as the kenlm Python module (LoadVirtual, default Config).
class Model {
 public:
  explicit Model(const std::string &path) : model_(parastudio::LoadKenlm(path)) {}

  std::vector<WordIndex> indices(const std::vector<std::string> &words) const {
    return parastudio::KenlmIndices(*model_, words);
  }

  unsigned order() const { return model_->Order(); }
  void Begin(State &state) const { model_->BeginSentenceWrite(&state); }
  float Score(const State &in, WordIndex word, State &out) const { return model_->BaseScore(&in, word, &out); }
  WordIndex EndSentence() const { return model_->BaseVocabulary().EndSentence(); }

  // kenlm's Python Model.score(text, bos=False, eos=False): the bytes split on ASCII whitespace (bytes.split()),
  // each word's log10 probability summed in a float from the null context.
  float PhraseScore(const char *text, size_t size) const {
    const lm::base::Vocabulary &vocabulary = model_->BaseVocabulary();
    State state, out;
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

  static bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

 private:
  std::unique_ptr<lm::base::Model> model_;
};

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
  std::vector<int32_t> arcs;
  int32_t next = -2;    // MosesOrder: the next winner of its stack in iteration order
  uint64_t mixed = 0;   // MosesOrder: its bucket hash
  uint64_t bucket = 0;  // MosesOrder: its bucket
};

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
    auto found = by_state_.find(hyp.state);
    if (found == by_state_.end()) {
      Insert(hyps, index);
      RaiseBest(hyp.future);
      if (size_ && static_cast<int64_t>(by_state_.size()) > 2 * static_cast<int64_t>(size_) - 1) PruneToSize(hyps);
    } else if (hyp.future > hyps[found->second].future) {
      const int32_t loser_index = found->second;
      Hyp &existing = hyps[loser_index];
      hyp.arcs = std::move(existing.arcs);
      existing.arcs.clear();
      hyp.arcs.push_back(loser_index);
      for (int32_t loser : hyp.arcs) hyps[loser].winner = index;
      order_.Erase(hyps, loser_index);
      by_state_.erase(found);
      Insert(hyps, index);
      RaiseBest(hyp.future);
    } else {
      hyp.winner = found->second;
      hyps[found->second].arcs.push_back(index);
    }
  }

  void PruneToSize(std::vector<Hyp> &hyps) {
    if (!size_ || static_cast<int64_t>(by_state_.size()) <= size_) return;
    const std::vector<int32_t> sorted = Sorted(hyps);
    by_state_.clear();
    order_.Clear();
    const double floor = best + width_;
    for (int32_t index : sorted) {
      const Hyp &hyp = hyps[index];
      if (static_cast<int64_t>(by_state_.size()) >= size_ || !(hyp.future > floor || hyp.future == best)) break;
      Insert(hyps, index);
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

  void Insert(std::vector<Hyp> &hyps, int32_t index) {
    by_state_.emplace(hyps[index].state, index);
    const uint64_t lm_hash = lm::ngram::hash_value(hyps[index].state);
    order_.Insert(hyps, index,
                  HashCombine(HashCombine(bitmap_, static_cast<uint64_t>(static_cast<int64_t>(covered_) - 1)), lm_hash));
  }

  std::unordered_map<State, int32_t, StateHash> by_state_;
  MosesOrder order_;
  int64_t size_;
  double width_;
  int covered_;
  uint64_t bitmap_;
  const std::vector<double> *tails_;  // per stack: its future cost
};

// The options of one start position as a prefix trie of their targets, so that a hypothesis scores
// each shared target prefix once (issue 17: options share prefixes, 78 % of LM lookups repeated).
struct PrefixTrie {
  std::vector<int32_t> parent;  // -1: a child of the hypothesis' own state
  std::vector<WordIndex> word;
  std::vector<int32_t> option_node;  // per option of this start: its last word's node, -1 for an empty target
};

class Lattice;

// core/engine/decoders/kbest.py's KBestPaths on a Lattice.
class KBest {
 public:
  explicit KBest(const Lattice &lattice);
  // Fills `edges` with the k-th best path's hypotheses (first phrase first); false when there is none.
  bool Path(int64_t k, double &score, std::vector<int32_t> &edges);
  int64_t entries = 0;

 private:
  struct Edge {
    int32_t tail;
    double weight;
    int32_t hyp;  // -1 for an edge into the goal
  };
  struct Candidate {
    double key;  // tail score + edge weight (Python pushes its negation; equal keys pop by tie)
    int64_t tie;
    int32_t index;
    int64_t j;
  };
  struct Worse {
    bool operator()(const Candidate &a, const Candidate &b) const {
      if (a.key != b.key) return a.key < b.key;
      return a.tie > b.tie;
    }
  };
  struct Derivation {
    double score;
    int32_t index;
    int64_t j;
  };
  struct Node {
    std::vector<Derivation> derivations;
    std::priority_queue<Candidate, std::vector<Candidate>, Worse> candidates;
    std::vector<Edge> edges;
    size_t next_edge = 0;
    bool has_successor = false;
    int32_t successor_index = 0;
    int64_t successor_j = 0;
    bool exhausted = false;
  };

  Node &NodeOf(int32_t hyp);
  double TailScore(const Edge &edge, int64_t j);
  void Push(Node &node, int32_t index, int64_t j);
  void PushNextEdge(Node &node);
  void Ensure(Node *start, size_t wanted);

  const Lattice &lattice_;
  int64_t tie_ = 0;
  std::unordered_map<int32_t, std::unique_ptr<Node>> nodes_;
  Node goal_;
};

class Lattice {
 public:
  std::vector<Hyp> hyps;
  std::vector<std::vector<int32_t>> stacks;
  std::vector<std::vector<double>> future;
  int64_t hypotheses_created = 0;
  int n = 0;
  std::vector<int32_t> option_end;
  std::vector<std::vector<int32_t>> option_tokens;  // per option: the caller's token ids of its target
  // Distinct n-best (DecodeResult.nbest): the best path of each output string, at most `limit` paths tried;
  // per entry its score, edges and the caller's token ids of its output.
  std::vector<std::tuple<double, std::vector<int32_t>, std::vector<int32_t>>> NBest(int64_t n_wanted, bool distinct,
                                                                                    int64_t factor) {
    std::vector<std::tuple<double, std::vector<int32_t>, std::vector<int32_t>>> out;
    if (n_wanted <= 0) return out;
    KBest paths(*this);
    struct TokensHash {
      size_t operator()(const std::vector<int32_t> &tokens) const {
        uint64_t h = 1469598103934665603ULL;
        for (int32_t t : tokens) h = (h ^ static_cast<uint32_t>(t)) * 1099511628211ULL;
        return static_cast<size_t>(h);
      }
    };
    std::unordered_set<std::vector<int32_t>, TokensHash> seen;
    const int64_t limit = distinct ? n_wanted * std::max<int64_t>(1, factor) : n_wanted;
    std::vector<int32_t> edges;
    for (int64_t k = 0; k < limit; ++k) {
      double score;
      if (!paths.Path(k, score, edges)) break;
      std::vector<int32_t> tokens;
      for (int32_t edge : edges) {
        const auto &target = option_tokens[hyps[edge].option];
        tokens.insert(tokens.end(), target.begin(), target.end());
      }
      if (distinct && !seen.insert(tokens).second) continue;
      out.emplace_back(score, edges, std::move(tokens));
      if (static_cast<int64_t>(out.size()) >= n_wanted) break;
    }
    return out;
  }
};

KBest::KBest(const Lattice &lattice) : lattice_(lattice) {
  const std::vector<int32_t> &final_stack = lattice.stacks[lattice.n];
  std::vector<Edge> finals;
  finals.reserve(final_stack.size());
  for (int32_t hyp : final_stack) finals.push_back(Edge{hyp, 0.0, -1});
  std::stable_sort(finals.begin(), finals.end(), [&lattice](const Edge &a, const Edge &b) {
    return -lattice.hyps[a.tail].score < -lattice.hyps[b.tail].score;
  });
  goal_.edges = std::move(finals);
  PushNextEdge(goal_);
}

KBest::Node &KBest::NodeOf(int32_t index) {
  auto found = nodes_.find(index);
  if (found != nodes_.end()) return *found->second;
  auto node = std::make_unique<Node>();
  const Hyp &hyp = lattice_.hyps[index];
  if (hyp.back < 0) {  // the root
    node->derivations.push_back(Derivation{0.0, -1, 0});
    node->exhausted = true;
  } else {
    std::vector<int32_t> arcs = hyp.arcs;
    const auto &hyps = lattice_.hyps;
    std::stable_sort(arcs.begin(), arcs.end(), [&hyps](int32_t a, int32_t b) {
      return -(hyps[hyps[a].back].score + hyps[a].transition) < -(hyps[hyps[b].back].score + hyps[b].transition);
    });
    node->edges.push_back(Edge{hyp.back, hyp.transition, index});
    for (int32_t arc : arcs) node->edges.push_back(Edge{hyps[arc].back, hyps[arc].transition, arc});
    node->derivations.push_back(Derivation{hyp.score, 0, 0});
    node->next_edge = 1;
    node->has_successor = true;
    node->successor_index = 0;
    node->successor_j = 0;
    PushNextEdge(*node);
  }
  entries += 1;
  Node &ref = *node;
  nodes_.emplace(index, std::move(node));
  return ref;
}

double KBest::TailScore(const Edge &edge, int64_t j) {
  if (j == 0) return lattice_.hyps[edge.tail].score;
  return nodes_.at(edge.tail)->derivations[j].score;
}

void KBest::Push(Node &node, int32_t index, int64_t j) {
  const Edge &edge = node.edges[index];
  tie_ += 1;
  // Python pushes -(tail + weight); negation is exact, so comparing the sums gives the same order.
  node.candidates.push(Candidate{TailScore(edge, j) + edge.weight, tie_, index, j});
  entries += 1;
}

void KBest::PushNextEdge(Node &node) {
  if (node.next_edge < node.edges.size()) {
    Push(node, static_cast<int32_t>(node.next_edge), 0);
    node.next_edge += 1;
  }
}

void KBest::Ensure(Node *start, size_t wanted) {
  std::vector<std::pair<Node *, size_t>> frames{{start, wanted}};
  while (!frames.empty()) {
    Node *node = frames.back().first;
    const size_t count = frames.back().second;
    if (node->derivations.size() >= count || node->exhausted) {
      frames.pop_back();
      continue;
    }
    if (node->has_successor) {
      const int32_t index = node->successor_index;
      const int64_t j = node->successor_j;
      Node &tail = NodeOf(node->edges[index].tail);
      if (static_cast<int64_t>(tail.derivations.size()) <= j + 1 && !tail.exhausted) {
        frames.emplace_back(&tail, static_cast<size_t>(j + 2));
        continue;
      }
      if (static_cast<int64_t>(tail.derivations.size()) > j + 1) Push(*node, index, j + 1);
      node->has_successor = false;
    }
    if (node->candidates.empty()) {
      node->exhausted = true;
      frames.pop_back();
      continue;
    }
    const Candidate best = node->candidates.top();
    node->candidates.pop();
    node->derivations.push_back(Derivation{best.key, best.index, best.j});
    entries += 1;
    node->has_successor = true;
    node->successor_index = best.index;
    node->successor_j = best.j;
    if (best.j == 0) PushNextEdge(*node);
  }
}

bool KBest::Path(int64_t k, double &score, std::vector<int32_t> &edges) {
  Ensure(&goal_, static_cast<size_t>(k + 1));
  if (static_cast<int64_t>(goal_.derivations.size()) <= k) return false;
  const Derivation &top = goal_.derivations[k];
  score = top.score;
  int32_t node = goal_.edges[top.index].tail;
  int64_t j = top.j;
  edges.clear();
  while (lattice_.hyps[node].back >= 0) {
    int32_t hyp;
    if (j == 0) {
      hyp = node;
      node = lattice_.hyps[node].back;
    } else {
      const Node &entry = *nodes_.at(node);
      const Derivation &derivation = entry.derivations[j];
      j = derivation.j;
      const Edge &edge = entry.edges[derivation.index];
      node = edge.tail;
      hyp = edge.hyp;
    }
    edges.push_back(hyp);
  }
  std::reverse(edges.begin(), edges.end());
  return true;
}

// TranslationOptions.future_costs, in the same order of operations.
std::vector<std::vector<double>> FutureCosts(int n, const int32_t *start, const int32_t *end, const double *estimate,
                                             size_t count) {
  std::vector<std::vector<double>> cost(n + 1, std::vector<double>(n + 1, kNegInf));
  for (int i = 0; i <= n; ++i) cost[i][i] = 0.0;
  for (size_t o = 0; o < count; ++o)
    if (estimate[o] > cost[start[o]][end[o]]) cost[start[o]][end[o]] = estimate[o];
  for (int length = 2; length <= n; ++length) {
    for (int i = 0; i + length <= n; ++i) {
      const int j = i + length;
      double best = cost[i][j];
      for (int k = i + 1; k < j; ++k) {
        const double combined = cost[i][k] + cost[k][j];
        if (combined > best) best = combined;
      }
      cost[i][j] = best;
    }
  }
  return cost;
}

// The options of every source phrase a decoder has met, registered once (OptionCache's ranked options,
// packed by compiled_search.py): a sentence then names its spans' phrases instead of passing arrays.
class OptionStore {
 public:
  // Registers one phrase's options (best first); returns its id. Option o's target is words/tokens
  // [sum of lengths before o, + lengths[o]).
  int32_t Add(const std::vector<double> &rule_scores, const std::vector<double> &estimates,
              const std::vector<int32_t> &lengths, const std::vector<uint32_t> &words,
              const std::vector<int32_t> &tokens) {
    const size_t count = rule_scores.size();
    size_t total = 0;
    for (int32_t length : lengths) {
      if (length < 0) throw std::invalid_argument("a target length is negative");
      total += static_cast<size_t>(length);
    }
    if (estimates.size() != count || lengths.size() != count || words.size() != total || tokens.size() != total)
      throw std::invalid_argument("rule_scores, estimates and lengths must have one entry per option, "
                                  "words and tokens one per target word");
    first_option_.push_back(static_cast<int32_t>(rule_score_.size()));
    size_t at = 0;
    for (size_t o = 0; o < count; ++o) {
      rule_score_.push_back(rule_scores[o]);
      estimate_.push_back(estimates[o]);
      word_begin_.push_back(static_cast<int32_t>(words_.size()));
      words_.insert(words_.end(), words.begin() + at, words.begin() + at + lengths[o]);
      tokens_.insert(tokens_.end(), tokens.begin() + at, tokens.begin() + at + lengths[o]);
      word_end_.push_back(static_cast<int32_t>(words_.size()));
      at += static_cast<size_t>(lengths[o]);
    }
    end_option_.push_back(static_cast<int32_t>(rule_score_.size()));
    return static_cast<int32_t>(first_option_.size()) - 1;
  }

  int32_t Count(int32_t phrase) const { return end_option_.at(phrase) - first_option_.at(phrase); }
  int32_t Phrases() const { return static_cast<int32_t>(first_option_.size()); }

  // Per option of phrase `phrase`: appends its scores, target offsets, words and tokens to a sentence's arrays.
  void Append(int32_t phrase, std::vector<double> &rule_score, std::vector<double> &estimate,
              std::vector<int32_t> &offset, std::vector<uint32_t> &words, std::vector<int32_t> &tokens) const {
    for (int32_t o = first_option_.at(phrase); o < end_option_[phrase]; ++o) {
      rule_score.push_back(rule_score_[o]);
      estimate.push_back(estimate_[o]);
      words.insert(words.end(), words_.begin() + word_begin_[o], words_.begin() + word_end_[o]);
      tokens.insert(tokens.end(), tokens_.begin() + word_begin_[o], tokens_.begin() + word_end_[o]);
      offset.push_back(static_cast<int32_t>(words.size()));
    }
  }

 private:
  std::vector<double> rule_score_, estimate_;
  std::vector<int32_t> word_begin_, word_end_;  // per option: where its target lies in words_ / tokens_
  std::vector<uint32_t> words_;
  std::vector<int32_t> tokens_;
  std::vector<int32_t> first_option_, end_option_;  // per phrase: its options [first, end)
};

// BeamDecoder.decode. The sentence's options are those of phrase `phrases[i]` placed at [starts[i], ends[i]),
// pieces in the order of TranslationOptions.by_start (by start; the identity slot first, then by end): option
// o covers [start[o], end[o]) and its target is words[offset[o] : offset[o + 1]] as LM word indices and
// tokens[...] as the caller's own token ids.
std::unique_ptr<Lattice> Decode(const Model *model, const OptionStore &store, int n, const std::vector<int32_t> &starts,
                                const std::vector<int32_t> &ends, const std::vector<int32_t> &phrases,
                                int64_t stack_size, double width, double lm_weight) {
  if (starts.size() != ends.size() || starts.size() != phrases.size())
    throw std::invalid_argument("starts, ends and phrases must have one entry per piece");
  std::vector<int32_t> start_vector, end_vector, offset_vector{0}, token_vector;
  std::vector<double> rule_vector, estimate_vector;
  std::vector<uint32_t> word_vector;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (phrases[i] < 0 || phrases[i] >= store.Phrases()) throw std::invalid_argument("unknown phrase id");
    if (starts[i] < 0 || ends[i] <= starts[i] || ends[i] > n || (i && starts[i] < starts[i - 1]))
      throw std::invalid_argument("options must be spans of the sentence, grouped by start");
    const size_t before = rule_vector.size();
    store.Append(phrases[i], rule_vector, estimate_vector, offset_vector, word_vector, token_vector);
    start_vector.insert(start_vector.end(), rule_vector.size() - before, starts[i]);
    end_vector.insert(end_vector.end(), rule_vector.size() - before, ends[i]);
  }
  const size_t count = rule_vector.size();
  const int32_t *start = start_vector.data();
  const int32_t *end = end_vector.data();
  const double *rule_score = rule_vector.data();
  const double *estimate = estimate_vector.data();
  const int32_t *offset = offset_vector.data();
  const uint32_t *words = word_vector.data();
  const int32_t *tokens = token_vector.data();

  auto lattice = std::make_unique<Lattice>();
  Lattice &out = *lattice;
  out.n = n;
  out.future = FutureCosts(n, start, end, estimate, count);
  out.option_end.assign(end, end + count);
  out.option_tokens.resize(count);
  for (size_t o = 0; o < count; ++o) out.option_tokens[o].assign(tokens + offset[o], tokens + offset[o + 1]);

  // Options by start, each start's targets as a prefix trie.
  std::vector<PrefixTrie> tries(n);
  std::vector<std::pair<size_t, size_t>> range(n, {0, 0});
  {
    size_t o = 0;
    for (int k = 0; k < n; ++k) {
      const size_t begin = o;
      while (o < count && start[o] == k) ++o;
      range[k] = {begin, o};
      PrefixTrie &trie = tries[k];
      std::unordered_map<uint64_t, int32_t> child;  // (parent + 1) << 32 | word -> node
      for (size_t p = begin; p < o; ++p) {
        int32_t node = -1;
        for (int32_t w = offset[p]; w < offset[p + 1]; ++w) {
          const uint64_t key = (static_cast<uint64_t>(node + 1) << 32) | words[w];
          auto found = child.find(key);
          if (found == child.end()) {
            trie.parent.push_back(node);
            trie.word.push_back(words[w]);
            const int32_t made = static_cast<int32_t>(trie.parent.size()) - 1;
            child.emplace(key, made);
            node = made;
          } else {
            node = found->second;
          }
        }
        trie.option_node.push_back(node);
      }
    }
  }

  std::vector<Stack> building;
  building.reserve(n + 1);
  std::vector<double> tails(n + 1);
  for (int k = 0; k <= n; ++k) tails[k] = out.future[k][n];
  for (int k = 0; k <= n; ++k) building.emplace_back(stack_size, width, k, n, &tails);
  int64_t ids = 0;
  Hyp root{ids++, -1, -1, 0, 0.0, 0.0, out.future[0][n], State()};
  if (model) {
    model->Begin(root.state);
  } else {
    root.state.length = 0;
  }
  out.hyps.reserve(static_cast<size_t>(n + 1) * static_cast<size_t>(std::min<int64_t>(stack_size ? stack_size : 64, 256)));
  out.hyps.push_back(root);
  building[0].Add(out.hyps, 0);
  out.stacks.assign(n + 1, {});
  const bool lm_never_adds = lm_weight >= 0;
  const WordIndex end_sentence = model ? model->EndSentence() : 0;

  std::vector<double> node_score;
  std::vector<State> node_state;
  std::vector<uint32_t> node_done;  // generation stamp: computed for the current hypothesis
  uint32_t generation = 0;
  std::vector<int32_t> chain;
  for (int k = 0; k <= n; ++k) {
    building[k].PruneToSize(out.hyps);
    out.stacks[k] = building[k].Sorted(out.hyps);
    if (k == n) break;
    const PrefixTrie &trie = tries[k];
    node_score.assign(trie.parent.size(), 0.0);
    node_state.resize(trie.parent.size());
    node_done.assign(trie.parent.size(), 0);
    generation = 0;
    // Moses' order: options by span end, each span's best estimate first; hypotheses as its hash set holds them.
    std::vector<size_t> tried;
    for (size_t p = range[k].first; p < range[k].second; ++p) tried.push_back(p);
    std::stable_sort(tried.begin(), tried.end(), [end, estimate](size_t a, size_t b) {
      if (end[a] != end[b]) return end[a] < end[b];
      return -estimate[a] < -estimate[b];
    });
    const std::vector<int32_t> stack = building[k].InOrder(out.hyps);
    for (int32_t h : stack) {
      ++generation;
      const double h_score = out.hyps[h].score;
      const State h_state = out.hyps[h].state;
      for (size_t p : tried) {
        const int32_t stop = end[p];
        Stack &target = building[stop];
        const double tail_future = out.future[stop][n];
        if (lm_never_adds && h_score + rule_score[p] + tail_future < target.worst) {
          ++ids;
          continue;
        }
        double lm_score = 0.0;
        State state = h_state;
        const int32_t last = trie.option_node[p - range[k].first];
        if (model && last >= 0) {
          // Score the target's prefix chain from the first node not yet scored for this hypothesis.
          chain.clear();
          int32_t node = last;
          while (node >= 0 && node_done[node] != generation) {
            chain.push_back(node);
            node = trie.parent[node];
          }
          double total = node >= 0 ? node_score[node] : 0.0;
          const State *context = node >= 0 ? &node_state[node] : &h_state;
          bool hopeless = false;
          for (size_t c = chain.size(); c-- > 0;) {
            // The words left can only lower the score (log-probabilities <= 0): once the prefix scored so far
            // puts the hypothesis clearly under the stack's floor, the threshold would drop it whatever they
            // are, so they need no lookup. (A shortcut only: the Python search scores them all and drops it.)
            if (lm_never_adds && h_score + rule_score[p] + lm_weight * total + tail_future < target.worst - kMargin) {
              hopeless = true;
              break;
            }
            const int32_t next = chain[c];
            total += static_cast<double>(model->Score(*context, trie.word[next], node_state[next]));
            node_score[next] = total;
            node_done[next] = generation;
            context = &node_state[next];
          }
          if (hopeless) {
            ++ids;
            continue;
          }
          lm_score = node_score[last];
          state = node_state[last];
        }
        if (model && stop == n) {
          // The state after </s> (KenLM's: empty) is what complete hypotheses recombine on, as in Moses.
          State after;
          lm_score += static_cast<double>(model->Score(state, end_sentence, after));
          state = after;
        }
        const double transition = rule_score[p] + lm_weight * lm_score;
        const double score = h_score + transition;
        const double future = score + tail_future;
        if (future < target.worst) {
          ++ids;
          continue;
        }
        out.hyps.push_back(Hyp{ids++, h, static_cast<int32_t>(p), stop, score, transition, future, state});
        target.Add(out.hyps, static_cast<int32_t>(out.hyps.size()) - 1);
      }
    }
  }
  out.hypotheses_created = ids;
  return lattice;
}

}  // namespace

// -- Options straight from a binary table's arrays (core/engine/tables/table_binary.py; the reference is
// translation_options.OptionCache.ranked, tests/test_table_options_native.py) ----------------------------------

template <class T>
const T *BufferData(const py::buffer &buffer) {
  return static_cast<const T *>(buffer.request().ptr);
}

struct TargetTexts {
  const uint8_t *text;
  const uint64_t *offsets;
  std::string_view operator()(uint32_t target) const {
    return std::string_view(reinterpret_cast<const char *>(text) + offsets[target], offsets[target + 1] - offsets[target]);
  }
};

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
    lm_index_.push_back(model_ != nullptr ? model_->indices({key_})[0] : 0);
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
// (stable: ties keep table order) and limited: (rule numbers, rule scores, estimates, phrase id), the phrase id
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
  return py::make_tuple(kept_rules, kept_scores, kept_estimates, phrase);
}

// RankRules for each range [firsts[i], lasts[i]) (merged[i]: its merged target or None), in one call: a sentence's
// new phrases.
py::list RankRulesMany(const Model *model, const py::buffer &rule_prob, const py::buffer &rule_target,
                       const py::buffer &target_text, const py::buffer &target_offsets,
                       const std::vector<int64_t> &firsts, const std::vector<int64_t> &lasts, const py::list &merged,
                       double phrase_weight, double word_penalty, double lm_weight, int64_t limit, OptionStore *store,
                       Vocabulary *vocabulary) {
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
                                              const py::buffer &target_offsets, const std::vector<int64_t> &firsts,
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

// RulesToward as columns for the true score's dynamic program (truescore_paths.py): per rule whose target text is
// wanted, in range order then table order: (its range's position in firsts, its group, rule number, log10 p), and
// per group (targets numbered as first met) the position of its text in `wanted`.
py::tuple RuleColumnsToward(const py::buffer &rule_target, const py::buffer &rule_prob, const py::buffer &target_text,
                            const py::buffer &target_offsets, const std::vector<int64_t> &firsts,
                            const std::vector<int64_t> &lasts, const std::vector<std::string> &wanted) {
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

PYBIND11_MODULE(_beam_core, module) {
  module.doc() = "The beam decoder's search and k-best in C++ (core/engine/native/beam_core.cpp).";
  // Raised whenever the Python interface or the search changes; compiled_search.py uses only a core of its own
  // version (3: Moses' expansion order and final recombination).
  module.attr("INTERFACE") = 3;

  py::class_<Model>(module, "Model")
      .def(py::init<const std::string &>(), py::arg("path"))
      .def("indices", &Model::indices, py::arg("words"))
      .def_property_readonly("order", &Model::order);

  module.def("rank_rules", &RankRules, py::arg("model").none(true), py::arg("rule_prob"), py::arg("rule_target"),
             py::arg("target_text"), py::arg("target_offsets"), py::arg("first"), py::arg("last"),
             py::arg("merged_target").none(true), py::arg("phrase_weight"), py::arg("word_penalty"),
             py::arg("lm_weight"), py::arg("limit"), py::arg("store").none(true) = py::none(),
             py::arg("vocabulary").none(true) = py::none());
  module.def("find_sources", &FindSources, py::arg("source_text"), py::arg("source_offsets"), py::arg("source_hash"),
             py::arg("slots"), py::arg("keys"));
  module.def("source_hash", &SourceHash, py::arg("key"));
  module.def("rule_columns_toward", &RuleColumnsToward, py::arg("rule_target"), py::arg("rule_prob"),
             py::arg("target_text"), py::arg("target_offsets"), py::arg("firsts"), py::arg("lasts"), py::arg("wanted"));
  py::class_<Vocabulary>(module, "Vocabulary")
      .def(py::init<const Model *>(), py::arg("model").none(true), py::keep_alive<1, 2>())
      .def("ids", &Vocabulary::Ids, py::arg("words"))
      .def_property_readonly("words", &Vocabulary::Words);
  module.def("rank_rules_many", &RankRulesMany, py::arg("model").none(true), py::arg("rule_prob"),
             py::arg("rule_target"), py::arg("target_text"), py::arg("target_offsets"), py::arg("firsts"),
             py::arg("lasts"), py::arg("merged"), py::arg("phrase_weight"), py::arg("word_penalty"),
             py::arg("lm_weight"), py::arg("limit"), py::arg("store"), py::arg("vocabulary"));
  module.def("rules_toward", &RulesToward, py::arg("rule_target"), py::arg("target_text"),
             py::arg("target_offsets"), py::arg("firsts"), py::arg("lasts"), py::arg("wanted"));

  py::class_<Lattice>(module, "Lattice")
      .def_readonly("hypotheses_created", &Lattice::hypotheses_created)
      .def_readonly("future", &Lattice::future)
      .def_readonly("stacks", &Lattice::stacks)
      .def("best", [](const Lattice &lattice) -> int32_t {
        const auto &final_stack = lattice.stacks[lattice.n];
        int32_t best = -1;
        for (int32_t h : final_stack)  // max() in Python: the first of equal scores
          if (best < 0 || lattice.hyps[h].score > lattice.hyps[best].score) best = h;
        return best;
      })
      .def("nbest", &Lattice::NBest, py::arg("n"), py::arg("distinct"), py::arg("factor"))
      .def("kbest", [](const Lattice &lattice) { return std::make_unique<KBest>(lattice); },
           py::keep_alive<0, 1>(), "A fresh lazy k-best extractor over this lattice.")
      .def("path_options", [](const Lattice &lattice, const std::vector<int32_t> &edges) {
        std::vector<int32_t> options;
        options.reserve(edges.size());
        for (int32_t e : edges) options.push_back(lattice.hyps[e].option);
        return options;
      })
      // Every stored hypothesis as columns, for building Python Hypothesis objects (search graphs).
      .def("columns", [](const Lattice &lattice) {
        const size_t count = lattice.hyps.size();
        std::vector<int64_t> id(count);
        std::vector<int32_t> back(count), option(count), covered(count), winner(count);
        std::vector<double> score(count), transition(count), future(count);
        std::vector<std::vector<int32_t>> arcs(count);
        std::vector<std::vector<uint32_t>> state(count);
        for (size_t i = 0; i < count; ++i) {
          const Hyp &h = lattice.hyps[i];
          id[i] = h.id;
          back[i] = h.back;
          option[i] = h.option;
          covered[i] = h.covered;
          winner[i] = h.winner;
          score[i] = h.score;
          transition[i] = h.transition;
          future[i] = h.future;
          arcs[i] = h.arcs;
          state[i].assign(h.state.words, h.state.words + h.state.length);
        }
        py::dict out;
        out["id"] = id;
        out["back"] = back;
        out["option"] = option;
        out["covered"] = covered;
        out["winner"] = winner;
        out["score"] = score;
        out["transition"] = transition;
        out["future"] = future;
        out["arcs"] = arcs;
        out["state"] = state;
        return out;
      })
      .def("hypothesis", [](const Lattice &lattice, int32_t index) {
        const Hyp &h = lattice.hyps.at(index);
        return py::make_tuple(h.id, h.back, h.option, h.covered, h.score, h.transition, h.future);
      });

  py::class_<KBest>(module, "KBest")
      .def("path", [](KBest &paths, int64_t k) -> py::object {
        double score;
        std::vector<int32_t> edges;
        if (!paths.Path(k, score, edges)) return py::none();
        return py::make_tuple(score, edges);
      })
      .def_readonly("entries", &KBest::entries);

  py::class_<OptionStore>(module, "OptionStore")
      .def(py::init<>())
      .def("add", &OptionStore::Add, py::arg("rule_scores"), py::arg("estimates"), py::arg("lengths"),
           py::arg("words"), py::arg("tokens"))
      .def("count", &OptionStore::Count, py::arg("phrase"))
      .def_property_readonly("phrases", &OptionStore::Phrases);

  module.def("decode", &Decode, py::arg("model"), py::arg("store"), py::arg("n"), py::arg("starts"),
             py::arg("ends"), py::arg("phrases"), py::arg("stack_size"), py::arg("width"), py::arg("lm_weight"));
}
