// The true score's rules for the compiled MCPG (core/engine/model/truescore.py's SourceRuleIndex and
// best_rules_log10): the best sum of log10 p over disjoint rule sets that turn the source into a target,
// the same bits as the Python dynamic program (tests/test_mcpg_native.py).

#ifndef PARASTUDIO_MCPG_TRUE_SCORE_HH
#define PARASTUDIO_MCPG_TRUE_SCORE_HH

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace parastudio {

using Words = std::vector<int32_t>;

struct RuleEntry {
  int32_t start, end;
  double log_p;
};

class TrueRules {
 public:
  static constexpr double kUnseen = -std::numeric_limits<double>::infinity();

  TrueRules(Words source, const std::vector<int32_t> &target_words, const std::vector<int32_t> &target_offsets,
            const std::vector<int32_t> &rule_group, const std::vector<int32_t> &rule_start,
            const std::vector<int32_t> &rule_end, const std::vector<double> &rule_log_p, int32_t vocabulary_size)
      : source_(std::move(source)), positions_(vocabulary_size) {
    const size_t groups = target_offsets.empty() ? 0 : target_offsets.size() - 1;
    entries_.resize(groups);
    group_words_ = target_words;
    group_offsets_ = target_offsets;
    std::vector<bool> present;
    size_t slots = 16;
    while (slots < 2 * groups + 16) slots *= 2;
    slots_.assign(slots, Slot{0, -1});
    for (size_t g = 0; g < groups; ++g) {
      const int32_t length = target_offsets[g + 1] - target_offsets[g];
      if (static_cast<size_t>(length) >= present.size()) present.resize(length + 1, false);
      present[length] = true;
      uint64_t h = kHashStart;
      for (int32_t i = target_offsets[g]; i < target_offsets[g + 1]; ++i) h = HashStep(h, target_words[i]);
      size_t at = h & (slots_.size() - 1);
      while (slots_[at].group >= 0) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = Slot{h, static_cast<int32_t>(g)};
    }
    deletions_.resize(source_.size());
    std::vector<std::pair<uint64_t, StartRule>> starting;  // (source start, first target word), the rule
    for (size_t r = 0; r < rule_group.size(); ++r) {
      entries_.at(rule_group[r]).push_back(RuleEntry{rule_start[r], rule_end[r], rule_log_p[r]});
      const int32_t begin = target_offsets[rule_group[r]], length = target_offsets[rule_group[r] + 1] - begin;
      if (rule_start[r] < 0 || static_cast<size_t>(rule_start[r]) >= source_.size())
        throw std::out_of_range("a rule outside the source");
      const StartRule rule{rule_end[r], begin, length, length > 0 ? target_words[begin] : -1, rule_log_p[r]};
      if (length == 0) deletions_[rule_start[r]].push_back(rule);
      else starting.emplace_back(StartKey(rule_start[r], rule.first), rule);
    }
    IndexStartRules(std::move(starting));
    for (size_t length = 0; length < present.size(); ++length)
      if (present[length]) lengths_.push_back(static_cast<int32_t>(length));
    longest_ = lengths_.empty() ? 0 : lengths_.back();
    for (size_t i = 0; i < source_.size(); ++i) positions_.at(source_[i]).push_back(static_cast<int32_t>(i));
    empty_group_ = Find(kHashStart, source_.data(), 0);
    // Every cell of the source turned into itself: cell (i, j) is the best way to turn source[i:] into
    // source[j:], what a target whose end is source[j:] needs there.
    FillAll(source_);
    source_cells_ = cells_;
  }

  // Best sum of log10 p over disjoint rule sets turning the source into target; -inf when none. The edges are
  // made in best_rules_log10's order (rules by target length, then target position; then identities) and the
  // cells filled from the last source position down, each the max of log_p + rest.
  //
  // A cell's value depends only on source[i:] and target[k:], and a maximum does not depend on the order its
  // candidates come in, so the cells of the target's end shared with the source (k >= first) are the source's
  // own (source_cells_), and the phrases inside its start shared with the source are the source's.
  //
  // Only the cells reachable from (0, 0) can change its value, so they alone are filled: a first pass walks
  // the edges forward from (0, 0) by increasing source position (each source position's rules matched
  // against the target where the walk is), the second takes the maxima over those edges backwards.
  double Best(const Words &target) {
    const int n = static_cast<int>(source_.size()), m = static_cast<int>(target.size());
    int tail = 0;
    while (tail < m && tail < n && target[m - 1 - tail] == source_[n - 1 - tail]) ++tail;
    const int first = m - tail;
    const int shift = n - m, width = m + 1;
    if (first == 0) return source_cells_[static_cast<size_t>(shift)];  // cell (0, n - m) of the source's
    // A cell is reached in this call when its stamp is this call's: no array is cleared per call.
    const size_t size = static_cast<size_t>(n + 1) * width;
    if (stamp_.size() < size) {
      stamp_.resize(size, 0);
      cells_.resize(size);
    }
    if (++epoch_ == 0) {  // the stamps wrapped around: start them again
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
    if (static_cast<int>(open_.size()) < n + 1) open_.resize(n + 1);
    for (int i = 0; i <= n; ++i) open_[i].clear();
    walked_.clear();
    open_[0].push_back(0);
    stamp_[0] = epoch_;
    cells_[0] = kUnseen;
    auto reach = [&](int i, int k, int end, int k_end, double log_p) {
      walked_.push_back(Walked{i * width + k, end, k_end, log_p});
      const size_t to = static_cast<size_t>(end) * width + k_end;
      if (stamp_[to] == epoch_) return;
      stamp_[to] = epoch_;
      if (k_end >= first) {  // the target's end from here is the source's: the source's own cell
        cells_[to] = source_cells_[static_cast<size_t>(end) * (n + 1) + k_end + shift];
      } else {
        cells_[to] = kUnseen;
        open_[end].push_back(k_end);
      }
    };
    for (int i = 0; i < n; ++i) {
      for (int k : open_[i]) {
        if (k < m && target[k] == source_[i]) reach(i, k, i + 1, k + 1, 0.0);
        for (const StartRule &rule : deletions_[i]) reach(i, k, rule.end, k, rule.log_p);
        if (k == m) continue;
        for (const StartRule &rule : Starting(i, target[k])) {
          if (k + rule.length > m ||
              !std::equal(target.begin() + k + 1, target.begin() + k + rule.length, group_words_.begin() + rule.begin + 1))
            continue;
          reach(i, k, rule.end, k + rule.length, rule.log_p);
        }
      }
    }
    // The edges were walked by increasing source position and each goes to a larger one: backwards, every
    // cell is complete before an edge reads it.
    for (auto edge = walked_.rbegin(); edge != walked_.rend(); ++edge) {
      const double rest = cells_[static_cast<size_t>(edge->end) * width + edge->k_end];
      if (rest == kUnseen) continue;
      const double value = edge->log_p + rest;
      double &here = cells_[edge->from];
      if (value > here) here = value;
    }
    return cells_[0];
  }

 private:
  static constexpr uint64_t kHashStart = 1469598103934665603ULL;

  struct StartRule {  // a rule by its source start: source end, target phrase (in group_words_), log10 p
    int32_t end, begin, length, first;
    double log_p;
  };
  struct StartRange {  // the rules of one (source start, first target word) in start_rules_
    uint64_t key;
    int32_t begin, count;
  };
  struct Span {
    const StartRule *begin_, *end_;
    const StartRule *begin() const { return begin_; }
    const StartRule *end() const { return end_; }
  };

  static uint64_t StartKey(int32_t start, int32_t first) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(start)) << 32) | static_cast<uint32_t>(first);
  }
  size_t StartSlot(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ULL) >> start_shift_; }

  // The rules grouped by (source start, first target word), each group in the order the
  // rules came, found by open addressing: the DP looks up only the rules whose first word is the target's.
  void IndexStartRules(std::vector<std::pair<uint64_t, StartRule>> starting) {
    std::stable_sort(starting.begin(), starting.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    int bits = 4;
    while ((size_t{1} << bits) < 2 * starting.size() + 16) ++bits;
    start_shift_ = 64 - bits;
    start_slots_.assign(size_t{1} << bits, StartRange{0, 0, 0});  // count 0: an empty slot
    for (size_t r = 0; r < starting.size(); ++r) {
      start_rules_.push_back(starting[r].second);
      if (r > 0 && starting[r].first == starting[r - 1].first) continue;
      size_t at = StartSlot(starting[r].first);
      while (start_slots_[at].count > 0) at = (at + 1) & (start_slots_.size() - 1);
      size_t last = r;
      while (last + 1 < starting.size() && starting[last + 1].first == starting[r].first) ++last;
      start_slots_[at] = StartRange{starting[r].first, static_cast<int32_t>(r), static_cast<int32_t>(last - r + 1)};
    }
  }

  Span Starting(int32_t start, int32_t first) const {
    const uint64_t key = StartKey(start, first);
    for (size_t at = StartSlot(key);; at = (at + 1) & (start_slots_.size() - 1)) {
      const StartRange &range = start_slots_[at];
      if (range.count == 0) return Span{nullptr, nullptr};
      if (range.key == key) {
        const StartRule *begin = start_rules_.data() + range.begin;
        return Span{begin, begin + range.count};
      }
    }
  }

  // Every cell of best_rules_log10 in cells_ (width m + 1): edges in its order (rules by target length, then
  // target position; then identities), filled from the last source position down, each the max of
  // log_p + rest.
  void FillAll(const Words &target) {
    const int n = static_cast<int>(source_.size()), m = static_cast<int>(target.size());
    const int width = m + 1;
    if (static_cast<int>(edges_.size()) < n) edges_.resize(n);
    for (int i = 0; i < n; ++i) edges_[i].clear();
    // found_[k * (longest + 1) + length]: the target phrase group of target[k : k + length], -1 if none.
    const int stride = longest_ + 1;
    found_.assign(static_cast<size_t>(m) * stride, -1);
    for (int k = 0; k < m; ++k) {
      uint64_t h = kHashStart;
      for (int length = 1; length <= longest_ && k + length <= m; ++length) {
        h = HashStep(h, target[k + length - 1]);
        found_[static_cast<size_t>(k) * stride + length] = Find(h, target.data() + k, length);
      }
    }
    for (int32_t length : lengths_) {
      if (length > m) break;
      for (int k = 0; k + length <= m && k < width; ++k) {
        const int32_t group = length == 0 ? empty_group_ : found_[static_cast<size_t>(k) * stride + length];
        if (group < 0) continue;
        for (const RuleEntry &e : entries_[group]) edges_[e.start].push_back(Edge{e.end, k, k + length, e.log_p});
      }
    }
    for (int k = 0; k < m; ++k) {
      const int32_t word = target[k];
      if (word < 0 || word >= static_cast<int32_t>(positions_.size())) continue;
      for (int32_t i : positions_[word]) edges_[i].push_back(Edge{i + 1, k, k + 1, 0.0});
    }
    cells_.assign(static_cast<size_t>(n + 1) * width, kUnseen);  // an unset cell holds -inf: no set one can
    cells_[static_cast<size_t>(n) * width + m] = 0.0;
    for (int i = n - 1; i >= 0; --i) {
      for (const Edge &edge : edges_[i]) {
        const double rest = cells_[static_cast<size_t>(edge.end) * width + edge.k_end];
        if (rest == kUnseen) continue;
        const double value = edge.log_p + rest;
        double &here = cells_[static_cast<size_t>(i) * width + edge.k];
        if (value > here) here = value;
      }
    }
  }

  static uint64_t HashStep(uint64_t h, int32_t word) { return (h ^ static_cast<uint32_t>(word)) * 1099511628211ULL; }

  int32_t Find(uint64_t h, const int32_t *words, int length) const {
    for (size_t at = h & (slots_.size() - 1);; at = (at + 1) & (slots_.size() - 1)) {
      const Slot &slot = slots_[at];
      if (slot.group < 0) return -1;
      if (slot.hash != h) continue;
      const int32_t begin = group_offsets_[slot.group], end = group_offsets_[slot.group + 1];
      if (end - begin == length && std::equal(words, words + length, group_words_.begin() + begin)) return slot.group;
    }
  }

  struct Edge {
    int32_t end, k, k_end;
    double log_p;
  };
  struct Slot {
    uint64_t hash;
    int32_t group;
  };
  struct Walked {  // an edge from cell `from` (i * width + k) to (end, k_end)
    int32_t from, end, k_end;
    double log_p;
  };
  std::vector<StartRule> start_rules_;
  std::vector<std::vector<StartRule>> deletions_;  // the rules with an empty target, by source start
  std::vector<StartRange> start_slots_;
  int start_shift_ = 60;
  std::vector<std::vector<int32_t>> open_;
  std::vector<Walked> walked_;
  std::vector<uint32_t> stamp_;  // stamp_[cell] == epoch_: reached in this call of Best
  uint32_t epoch_ = 0;
  Words source_;
  std::vector<int32_t> group_words_, group_offsets_;
  std::vector<Slot> slots_;  // open addressing on the phrase's FNV-1a hash
  std::vector<std::vector<RuleEntry>> entries_;
  std::vector<int32_t> lengths_;
  int32_t longest_ = 0;
  std::vector<std::vector<int32_t>> positions_;  // word id -> its source positions, increasing
  std::vector<std::vector<Edge>> edges_;
  std::vector<int32_t> found_;
  int32_t empty_group_ = -1;
  std::vector<double> cells_, source_cells_;
};

}  // namespace parastudio

#endif  // PARASTUDIO_MCPG_TRUE_SCORE_HH
