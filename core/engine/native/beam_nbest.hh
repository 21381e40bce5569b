// The n-best lists of the beam core (beam_core.cpp includes it): core/engine/decoders/kbest.py's lazy k-best
// (KBestPaths) on a search's Lattice, and the distinct n-best of DecodeResult.nbest on top of it.

#ifndef PARASTUDIO_BEAM_NBEST_HH
#define PARASTUDIO_BEAM_NBEST_HH

#include <algorithm>
#include <cstdint>
#include <memory>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "beam_search_graph.hh"

namespace parastudio::beam {
namespace {  // beam_core.cpp is the one translation unit: internal linkage, as the compiler inlined before the split

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
    const auto &hyps = lattice_.hyps;
    std::vector<int32_t> arcs = ArcsOf(hyps, index);
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

// Distinct n-best (DecodeResult.nbest): the best path of each output string, at most `limit` paths tried;
// per entry its score, edges and the caller's token ids of its output. (Inline: it was a member function defined
// in its class before the split, and the compiler inlines as it did then.)
inline std::vector<std::tuple<double, std::vector<int32_t>, std::vector<int32_t>>> NBest(
    const Lattice &lattice, int64_t n_wanted, bool distinct, int64_t factor) {
  std::vector<std::tuple<double, std::vector<int32_t>, std::vector<int32_t>>> out;
  if (n_wanted <= 0) return out;
  KBest paths(lattice);
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
      const auto &target = lattice.option_tokens[lattice.hyps[edge].option];
      tokens.insert(tokens.end(), target.begin(), target.end());
    }
    if (distinct && !seen.insert(tokens).second) continue;
    out.emplace_back(score, edges, std::move(tokens));
    if (static_cast<int64_t>(out.size()) >= n_wanted) break;
  }
  return out;
}

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_NBEST_HH
