// The exact true score's dynamic program (seed 000, Algorithm 1) in C++: core/engine/model/truescore.py's
// best_derivation, operation for operation, so that scores are the same bits and derivations the same
// segments (tests/test_truescore_native.py checks both against the Python reference with hypothesis).
//
// A RuleIndex holds the rules applicable to one source, keyed by their target phrase (word ids given by
// the caller). best(target) builds the edges in the reference's order (identity edges by target position,
// then rule edges by target length, target position and insertion order), fills the cells from the last
// source position down, and keeps a cell's first best edge unless a later one scores higher or, on an
// exactly equal score, makes fewer rewrites.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

struct Entry {
  int start, end;
  double log_p;
  int rule;  // the caller's rule number; -1 stands for an identity rule
};

struct Group {
  std::vector<int> target;
  std::vector<Entry> entries;
};

uint64_t hash_ids(const int *ids, size_t length) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a over the ids' bytes
  for (size_t i = 0; i < length; ++i) {
    uint32_t v = static_cast<uint32_t>(ids[i]);
    for (int b = 0; b < 4; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

struct Edge {
  int end, k, k_end;
  double log_p;
  int changes;
  int rule;
};

struct Cell {
  double score;
  int changes;  // minus the rewrites, as the reference keeps it (more is better)
  int edge;     // index into the edges of its source position; -1 for the goal cell
  bool set = false;
};

class RuleIndex {
 public:
  // Flat arrays (pybind11 converts a list of ints far faster than a list of tuples): target phrase g is
  // target_words[target_offsets[g] : target_offsets[g + 1]]; rule r (the caller's rule number) has target
  // phrase rule_group[r], source span [rule_start[r], rule_end[r]) and log10 probability rule_log_p[r].
  // Rules of one target phrase keep their order, as the reference's lists do.
  RuleIndex(std::vector<int> source, const std::vector<int> &target_words, const std::vector<int> &target_offsets,
            const std::vector<int> &rule_group, const std::vector<int> &rule_start, const std::vector<int> &rule_end,
            const std::vector<double> &rule_log_p)
      : source_(std::move(source)) {
    const size_t group_count = target_offsets.empty() ? 0 : target_offsets.size() - 1;
    if (rule_start.size() != rule_group.size() || rule_end.size() != rule_group.size() ||
        rule_log_p.size() != rule_group.size())
      throw std::invalid_argument("rule arrays of different lengths");
    groups_.resize(group_count);
    for (size_t g = 0; g < group_count; ++g) {
      if (target_offsets[g] > target_offsets[g + 1] || target_offsets[g + 1] > static_cast<int>(target_words.size()))
        throw std::invalid_argument("target offsets out of order");
      groups_[g].target.assign(target_words.begin() + target_offsets[g], target_words.begin() + target_offsets[g + 1]);
      buckets_[hash_ids(groups_[g].target.data(), groups_[g].target.size())].push_back(static_cast<int>(g));
      const size_t length = groups_[g].target.size();
      lengths_present_.resize(std::max(lengths_present_.size(), length + 1), false);
      lengths_present_[length] = true;
    }
    const int n = static_cast<int>(source_.size());
    for (size_t r = 0; r < rule_group.size(); ++r) {
      if (rule_group[r] < 0 || rule_group[r] >= static_cast<int>(group_count) || rule_start[r] < 0 ||
          rule_start[r] >= rule_end[r] || rule_end[r] > n)
        throw std::invalid_argument("a rule outside the source or its targets");
      groups_[rule_group[r]].entries.push_back(
          Entry{rule_start[r], rule_end[r], rule_log_p[r], static_cast<int>(r)});
    }
    for (size_t length = 0; length < lengths_present_.size(); ++length)
      if (lengths_present_[length]) lengths_.push_back(static_cast<int>(length));
  }

  // (log10 score, [(i, j, k, l, rule)]) of the best derivation, or None when the target is unreachable.
  std::optional<std::pair<double, std::vector<std::tuple<int, int, int, int, int>>>> best(
      const std::vector<int> &target) const {
    const int n = static_cast<int>(source_.size());
    const int m = static_cast<int>(target.size());
    std::vector<std::vector<Edge>> edges(n);
    for (int k = 0; k < m; ++k)
      for (int i = 0; i < n; ++i)
        if (source_[i] == target[k] && target[k] >= 0) edges[i].push_back(Edge{i + 1, k, k + 1, 0.0, 0, -1});
    for (int length : lengths_) {
      if (length > m) break;
      for (int k = 0; k + length <= m; ++k) {
        int group = find(target.data() + k, length);
        if (group < 0) continue;
        for (const Entry &e : groups_[group].entries)
          edges[e.start].push_back(Edge{e.end, k, k + length, e.log_p, 1, e.rule});
      }
    }
    const int width = m + 1;
    std::vector<Cell> cells(static_cast<size_t>(n + 1) * width);
    Cell &goal = cells[static_cast<size_t>(n) * width + m];
    goal.score = 0.0;
    goal.changes = 0;
    goal.edge = -1;
    goal.set = true;
    for (int i = n - 1; i >= 0; --i) {
      const auto &out = edges[i];
      for (size_t e = 0; e < out.size(); ++e) {
        const Edge &edge = out[e];
        const Cell &rest = cells[static_cast<size_t>(edge.end) * width + edge.k_end];
        if (!rest.set) continue;
        const double score = edge.log_p + rest.score;
        const int changes = rest.changes - edge.changes;
        Cell &current = cells[static_cast<size_t>(i) * width + edge.k];
        if (!current.set || score > current.score || (score == current.score && changes > current.changes)) {
          current.score = score;
          current.changes = changes;
          current.edge = static_cast<int>(e);
          current.set = true;
        }
      }
    }
    const Cell &root = cells[0];
    if (!root.set) return std::nullopt;
    std::vector<std::tuple<int, int, int, int, int>> segments;
    int i = 0, k = 0;
    while (!(i == n && k == m)) {
      const Edge &edge = edges[i][cells[static_cast<size_t>(i) * width + k].edge];
      segments.emplace_back(i, edge.end, edge.k, edge.k_end, edge.rule);
      i = edge.end;
      k = edge.k_end;
    }
    return std::make_pair(root.score, std::move(segments));
  }

 private:
  int find(const int *ids, size_t length) const {
    auto bucket = buckets_.find(hash_ids(ids, length));
    if (bucket == buckets_.end()) return -1;
    for (int group : bucket->second) {
      const auto &target = groups_[group].target;
      if (target.size() == length && std::equal(target.begin(), target.end(), ids)) return group;
    }
    return -1;
  }

  std::vector<int> source_;
  std::vector<Group> groups_;
  std::unordered_map<uint64_t, std::vector<int>> buckets_;
  std::vector<bool> lengths_present_;
  std::vector<int> lengths_;
};

}  // namespace

PYBIND11_MODULE(_truescore_core, module) {
  module.doc() = "The exact true score's dynamic program (core/engine/model/truescore.py's best_derivation) in C++.";
  module.attr("INTERFACE") = 1;
  py::class_<RuleIndex>(module, "RuleIndex")
      .def(py::init<std::vector<int>, const std::vector<int> &, const std::vector<int> &, const std::vector<int> &,
                    const std::vector<int> &, const std::vector<int> &, const std::vector<double> &>(),
           py::arg("source"), py::arg("target_words"), py::arg("target_offsets"), py::arg("rule_group"),
           py::arg("rule_start"), py::arg("rule_end"), py::arg("rule_log_p"))
      .def("best", &RuleIndex::best, py::arg("target"));
}
