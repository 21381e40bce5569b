// The exact true score's dynamic program (seed 000, Algorithm 1) in C++: core/engine/model/truescore.py's
// best_derivation, operation for operation, so that scores are the same bits and derivations the same
// segments (tests/test_truescore_native.py checks both against the Python reference with hypothesis).
//
// A RuleIndex holds the rules applicable to one source, keyed by their target phrase (word ids given by
// the caller). best(target) builds the edges in the reference's order (identity edges by target position,
// then rule edges by target length, target position and insertion order), fills the cells from the last
// source position down, and keeps a cell's first best edge unless a later one scores higher or, on an
// exactly equal score, makes fewer rewrites.
//
// RuleIndex.from_table builds the same index straight from a mapped binary table's rule arrays (a source's spans,
// each span's rules in table order, as SourceRuleIndex.by_target lists them), its words interned here: no Rule or
// Python string per rule, which cost generate more than the search (issue 40). Its rule numbers are the table's.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "binary_table_arrays.hh"

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

constexpr uint64_t kFnvOffset = 1469598103934665603ULL;

// FNV-1a over one more id's four bytes: hash_ids of a phrase is hash_more applied word by word from kFnvOffset.
inline uint64_t hash_more(uint64_t h, int id) {
  const uint32_t v = static_cast<uint32_t>(id);
  for (int b = 0; b < 4; ++b) {
    h ^= (v >> (8 * b)) & 0xff;
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t hash_ids(const int *ids, size_t length) {
  uint64_t h = kFnvOffset;
  for (size_t i = 0; i < length; ++i) h = hash_more(h, ids[i]);
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

  // The index of `source`'s spans [span_starts[s], span_ends[s]) whose rules are [firsts[s], lasts[s]) of a binary
  // table's rule arrays: one group per target text (numbered as first met), each group's rules in span order then
  // table order, log10 p as Rule.log10_prob computes it (math.log10 is the C library's log10).
  static RuleIndex FromTable(const py::list &source, const py::buffer &rule_target, const py::buffer &rule_prob,
                             const py::buffer &target_text, const py::buffer &target_offsets,
                             const std::vector<int> &span_starts, const std::vector<int> &span_ends,
                             const std::vector<int64_t> &firsts, const std::vector<int64_t> &lasts) {
    if (span_ends.size() != span_starts.size() || firsts.size() != span_starts.size() ||
        lasts.size() != span_starts.size())
      throw std::invalid_argument("span arrays of different lengths");
    RuleIndex index;
    for (const py::handle word : source) index.source_.push_back(index.Intern(word));
    const uint32_t *targets = parastudio::BufferData<uint32_t>(rule_target);
    const double *probs = parastudio::BufferData<double>(rule_prob);
    const parastudio::TargetTexts texts{parastudio::BufferData<uint8_t>(target_text),
                                        parastudio::BufferData<uint64_t>(target_offsets)};
    const int n = static_cast<int>(index.source_.size());
    std::unordered_map<uint32_t, int> group_of;  // target text number -> its group
    for (size_t s = 0; s < span_starts.size(); ++s) {
      if (span_starts[s] < 0 || span_starts[s] >= span_ends[s] || span_ends[s] > n || firsts[s] > lasts[s])
        throw std::invalid_argument("a span outside the source");
      for (int64_t r = firsts[s]; r < lasts[s]; ++r) {
        auto found = group_of.find(targets[r]);
        if (found == group_of.end()) {
          found = group_of.emplace(targets[r], static_cast<int>(index.groups_.size())).first;
          index.groups_.emplace_back();
          index.SplitInto(texts(targets[r]), index.groups_.back().target);
        }
        index.groups_[found->second].entries.push_back(
            Entry{span_starts[s], span_ends[s], std::log10(probs[r]), static_cast<int>(r)});
      }
    }
    index.Finish();
    return index;
  }

  // best() of a target given as words (str): each word's id as interned, -1 for a word no rule or source has.
  auto BestWords(const py::list &target) const {
    std::vector<int> ids;
    ids.reserve(target.size());
    for (const py::handle word : target) {
      auto found = words_.find(Utf8(word, scratch_));
      ids.push_back(found == words_.end() ? -1 : found->second);
    }
    return best(ids);
  }

  // (log10 score, [(i, j, k, l, rule)]) of the best derivation, or None when the target is unreachable.
  // The edges of a source position come in the reference's order: identity edges by target position, then rule
  // edges by target length, target position and the group's order; the first best edge of a cell is kept.
  // Scratch arrays live in the index (the GIL serialises calls): an n-best list scores a hundred targets of one
  // source, and allocating per target cost as much as the program.
  std::optional<std::pair<double, std::vector<std::tuple<int, int, int, int, int>>>> best(
      const std::vector<int> &target) const {
    const int n = static_cast<int>(source_.size());
    const int m = static_cast<int>(target.size());
    // matched_[length position * (m + 1) + k]: the group whose target is target[k : k + length], or -1. Each
    // start's hash grows a word at a time (hash_ids of a prefix continued), not recomputed per length.
    const int longest = lengths_.empty() ? 0 : lengths_.back();
    const int columns = m + 1;
    matched_.assign(lengths_.size() * static_cast<size_t>(columns), -1);
    std::vector<int> &position_of = position_of_;
    position_of.assign(static_cast<size_t>(longest) + 1, -1);
    for (size_t p = 0; p < lengths_.size(); ++p) position_of[lengths_[p]] = static_cast<int>(p);
    for (int k = 0; k <= m; ++k) {
      uint64_t h = kFnvOffset;
      if (position_of[0] >= 0) matched_[static_cast<size_t>(position_of[0]) * columns + k] = find_hashed(h, target.data() + k, 0);
      for (int length = 1; length <= longest && k + length <= m; ++length) {
        const int word = target[k + length - 1];
        if (word < 0) break;  // an unknown word: no group holds it, nor any longer phrase through it
        h = hash_more(h, word);
        const int p = position_of[length];
        if (p >= 0) matched_[static_cast<size_t>(p) * columns + k] = find_hashed(h, target.data() + k, length);
      }
    }
    // Edges counted per source position, then laid out flat in the reference's order (a stable placement).
    counts_.assign(static_cast<size_t>(n) + 1, 0);
    auto for_each_edge = [&](auto &&visit) {
      for (int k = 0; k < m; ++k)
        if (target[k] >= 0)
          for (int i = 0; i < n; ++i)
            if (source_[i] == target[k]) visit(i, Edge{i + 1, k, k + 1, 0.0, 0, -1});
      for (size_t p = 0; p < lengths_.size(); ++p) {
        const int length = lengths_[p];
        if (length > m) break;
        for (int k = 0; k + length <= m; ++k) {
          const int group = matched_[p * columns + k];
          if (group < 0) continue;
          for (const Entry &e : groups_[group].entries) visit(e.start, Edge{e.end, k, k + length, e.log_p, 1, e.rule});
        }
      }
    };
    for_each_edge([&](int i, const Edge &) { ++counts_[static_cast<size_t>(i) + 1]; });
    for (int i = 0; i < n; ++i) counts_[static_cast<size_t>(i) + 1] += counts_[i];
    edges_.resize(counts_[n]);
    fill_.assign(counts_.begin(), counts_.end() - 1);
    for_each_edge([&](int i, const Edge &edge) { edges_[fill_[i]++] = edge; });

    const int width = m + 1;
    cells_.assign(static_cast<size_t>(n + 1) * width, Cell{});
    Cell &goal = cells_[static_cast<size_t>(n) * width + m];
    goal.score = 0.0;
    goal.changes = 0;
    goal.edge = -1;
    goal.set = true;
    for (int i = n - 1; i >= 0; --i) {
      for (int e = counts_[i]; e < counts_[i + 1]; ++e) {
        const Edge &edge = edges_[e];
        const Cell &rest = cells_[static_cast<size_t>(edge.end) * width + edge.k_end];
        if (!rest.set) continue;
        const double score = edge.log_p + rest.score;
        const int changes = rest.changes - edge.changes;
        Cell &current = cells_[static_cast<size_t>(i) * width + edge.k];
        if (!current.set || score > current.score || (score == current.score && changes > current.changes)) {
          current.score = score;
          current.changes = changes;
          current.edge = e;
          current.set = true;
        }
      }
    }
    const Cell &root = cells_[0];
    if (!root.set) return std::nullopt;
    std::vector<std::tuple<int, int, int, int, int>> segments;
    int i = 0, k = 0;
    while (!(i == n && k == m)) {
      const Edge &edge = edges_[cells_[static_cast<size_t>(i) * width + k].edge];
      segments.emplace_back(i, edge.end, edge.k, edge.k_end, edge.rule);
      i = edge.end;
      k = edge.k_end;
    }
    return std::make_pair(root.score, std::move(segments));
  }

 private:
  RuleIndex() = default;

  // A word's UTF-8 bytes; a lone surrogate (which no table word holds) passed through, so it stays itself.
  static std::string_view Utf8(py::handle word, std::string &scratch) {
    Py_ssize_t size = 0;
    const char *data = PyUnicode_AsUTF8AndSize(word.ptr(), &size);
    if (data != nullptr) return std::string_view(data, static_cast<size_t>(size));
    PyErr_Clear();
    py::object encoded = py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(word.ptr(), "utf-8", "surrogatepass"));
    if (!encoded) throw py::error_already_set();
    scratch.assign(PyBytes_AS_STRING(encoded.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(encoded.ptr())));
    return scratch;
  }

  int Intern(py::handle word) { return InternBytes(Utf8(word, scratch_)); }

  int InternBytes(std::string_view bytes) {
    auto found = words_.find(bytes);
    if (found != words_.end()) return found->second;
    const int id = static_cast<int>(words_.size());
    words_.emplace(spellings_.emplace_back(bytes), id);
    return id;
  }

  // A stored target text's words (single spaces between them, as the binary table writes them).
  void SplitInto(std::string_view text, std::vector<int> &out) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t space = text.find(' ', start);
      if (space == std::string_view::npos) space = text.size();
      out.push_back(InternBytes(text.substr(start, space - start)));
      start = space + 1;
    }
  }

  // The groups' hash buckets and the target lengths present, once the groups are complete.
  void Finish() {
    for (size_t g = 0; g < groups_.size(); ++g) {
      buckets_[hash_ids(groups_[g].target.data(), groups_[g].target.size())].push_back(static_cast<int>(g));
      const size_t length = groups_[g].target.size();
      lengths_present_.resize(std::max(lengths_present_.size(), length + 1), false);
      lengths_present_[length] = true;
    }
    for (size_t length = 0; length < lengths_present_.size(); ++length)
      if (lengths_present_[length]) lengths_.push_back(static_cast<int>(length));
  }

  int find_hashed(uint64_t hash, const int *ids, size_t length) const {
    auto bucket = buckets_.find(hash);
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
  std::deque<std::string> spellings_;                // from_table's words (a deque: views into it stay valid)
  std::unordered_map<std::string_view, int> words_;  // word -> id, viewing spellings_
  mutable std::string scratch_;
  // best()'s scratch arrays, kept between calls
  mutable std::vector<int> matched_, position_of_, counts_, fill_;
  mutable std::vector<Edge> edges_;
  mutable std::vector<Cell> cells_;
};

}  // namespace

PYBIND11_MODULE(_truescore_core, module) {
  module.doc() = "The exact true score's dynamic program (core/engine/model/truescore.py's best_derivation) in C++.";
  module.attr("INTERFACE") = 2;
  py::class_<RuleIndex>(module, "RuleIndex")
      .def(py::init<std::vector<int>, const std::vector<int> &, const std::vector<int> &, const std::vector<int> &,
                    const std::vector<int> &, const std::vector<int> &, const std::vector<double> &>(),
           py::arg("source"), py::arg("target_words"), py::arg("target_offsets"), py::arg("rule_group"),
           py::arg("rule_start"), py::arg("rule_end"), py::arg("rule_log_p"))
      .def_static("from_table", &RuleIndex::FromTable, py::arg("source"), py::arg("rule_target"),
                  py::arg("rule_prob"), py::arg("target_text"), py::arg("target_offsets"), py::arg("span_starts"),
                  py::arg("span_ends"), py::arg("firsts"), py::arg("lasts"))
      .def("best", &RuleIndex::best, py::arg("target"))
      .def("best_words", &RuleIndex::BestWords, py::arg("target"));
}
