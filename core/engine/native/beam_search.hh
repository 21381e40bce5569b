// The search of the beam core (beam_core.cpp includes it): the expansion loop of
// core/engine/decoders/beam_decoder.py (BeamDecoder.decode) over the options of an OptionStore, with the future
// costs of TranslationOptions.future_costs; recombination and pruning are beam_recombination.hh's.

#ifndef PARASTUDIO_BEAM_SEARCH_HH
#define PARASTUDIO_BEAM_SEARCH_HH

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "beam_recombination.hh"
#include "kenlm_score_cache.hh"
#include "beam_search_graph.hh"

namespace parastudio::beam {
namespace {  // beam_core.cpp is the one translation unit: internal linkage, as the compiler inlined before the split

// How far under a stack's floor a partial score must be to stop scoring a target early: far above the
// rounding of sums of a few hundred log-probabilities, far below any difference the threshold could make.
constexpr double kMargin = 1e-9;

// The options of one start position as a prefix trie of their targets, so that a hypothesis scores
// each shared target prefix once (issue 17: options share prefixes, 78 % of LM lookups repeated).
// The options of one span [k, end) among those tried from stack k, and the best rule score among them.
struct SpanBlock {
  size_t first, last;
  double best_rule;
};

struct PrefixTrie {
  std::vector<int32_t> parent;  // -1: a child of the hypothesis' own state
  std::vector<WordIndex> word;
  std::vector<int32_t> option_node;  // per option of this start: its last word's node, -1 for an empty target
};

// TranslationOptions.future_costs, in the same order of operations.
std::vector<std::vector<double>> FutureCosts(int n, const int32_t *start, const int32_t *end,
                                             const double *estimate, size_t count) {
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
std::unique_ptr<Lattice> Decode(const Model *model, const OptionStore &store, int n,
                                const std::vector<int32_t> &starts, const std::vector<int32_t> &ends,
                                const std::vector<int32_t> &phrases, int64_t stack_size, double width,
                                double lm_weight) {
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

  KenlmScoreCache lookups(model ? 12 : 0);
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
    // The options of one span are consecutive in that order: a block, with its best rule score.
    std::vector<SpanBlock> blocks;
    for (size_t t = 0; t < tried.size(); ++t) {
      if (blocks.empty() || end[tried[t]] != end[tried[blocks.back().first]]) {
        blocks.push_back(SpanBlock{t, t, kNegInf});
      }
      blocks.back().last = t + 1;
      blocks.back().best_rule = std::max(blocks.back().best_rule, rule_score[tried[t]]);
    }
    const std::vector<int32_t> stack = building[k].InOrder(out.hyps);
    for (int32_t h : stack) {
      ++generation;
      const double h_score = out.hyps[h].score;
      const State h_state = out.hyps[h].state;
      for (const SpanBlock &block : blocks) {
        const int32_t stop = end[tried[block.first]];
        Stack &target = building[stop];
        const double tail_future = out.future[stop][n];
        // Rounding is monotone, so (h + best) + tail under the floor puts (h + rule) + tail of every option of
        // the span under it: each would fail the check below. They count as created hypotheses all the same.
        if (lm_never_adds && h_score + block.best_rule + tail_future < target.worst) {
          ids += static_cast<int64_t>(block.last - block.first);
          continue;
        }
        for (size_t t = block.first; t < block.last; ++t) {
          const size_t p = tried[t];
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
              total += static_cast<double>(lookups.Score(*model, *context, trie.word[next], node_state[next]));
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
            // </s> can only lower the score (a log-probability <= 0 under a weight >= 0), and rounding is monotone:
            // a hypothesis under the floor without it is under it with it, so it needs no lookup.
            if (lm_never_adds && h_score + (rule_score[p] + lm_weight * lm_score) + tail_future < target.worst) {
              ++ids;
              continue;
            }
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
  }
  out.hypotheses_created = ids;
  return lattice;
}

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_SEARCH_HH
