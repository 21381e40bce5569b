// The search graph of the beam core (beam_core.cpp includes it): the Lattice a decode leaves (every hypothesis
// kept, its recombination arcs, the stacks best first) and what Python reads of it: the best final hypothesis, a
// path's options, and every hypothesis as columns (CompiledDecodeResult builds search graphs from them).

#ifndef PARASTUDIO_BEAM_SEARCH_GRAPH_HH
#define PARASTUDIO_BEAM_SEARCH_GRAPH_HH

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "beam_recombination.hh"

namespace parastudio::beam {
namespace {  // beam_core.cpp is the one translation unit: internal linkage, as the compiler inlined before the split

namespace py = pybind11;

struct Lattice {
  std::vector<Hyp> hyps;
  std::vector<std::vector<int32_t>> stacks;
  std::vector<std::vector<double>> future;
  int64_t hypotheses_created = 0;
  int n = 0;
  std::vector<int32_t> option_end;
  std::vector<std::vector<int32_t>> option_tokens;  // per option: the caller's token ids of its target
};

// The best hypothesis of the final stack, -1 if it is empty: max() in Python, the first of equal scores.
int32_t Best(const Lattice &lattice) {
  const auto &final_stack = lattice.stacks[lattice.n];
  int32_t best = -1;
  for (int32_t h : final_stack)
    if (best < 0 || lattice.hyps[h].score > lattice.hyps[best].score) best = h;
  return best;
}

// The option of each hypothesis on a path.
std::vector<int32_t> PathOptions(const Lattice &lattice, const std::vector<int32_t> &edges) {
  std::vector<int32_t> options;
  options.reserve(edges.size());
  for (int32_t e : edges) options.push_back(lattice.hyps[e].option);
  return options;
}

// Every stored hypothesis as columns, for building Python Hypothesis objects (search graphs).
py::dict Columns(const Lattice &lattice) {
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
    arcs[i] = ArcsOf(lattice.hyps, static_cast<int32_t>(i));
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
}

// A number as the graph file's "%.6g" gives it back to a reader (decoded_graph.as_written): both printf and strtod
// round correctly, as Python's float formatting and float() do; zero of either sign reads as 0.0.
double AsWritten(double value) {
  if (value == 0) return 0.0;
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", value);
  return std::strtod(text, nullptr);
}

// The connected search graph as Moses writes it, one entry per line of the graph file: every winner
// from which a final hypothesis is reachable, in stack order (GetConnectedGraph), each followed by the hypotheses
// recombined into it; for each, the best continuation of its winner and that continuation's score
// (GetSearchGraph's forward and fscore). DecodeResult.connected and search_graph.forward_scores do the same in
// Python over Hypothesis objects, in the same order and with the same additions; score, transition and fscore
// come rounded as the graph file writes them (AsWritten). A service's /translate builds its graph from these
// lines without making an object per hypothesis.
py::tuple GraphLines(const Lattice &lattice) {
  const size_t count = lattice.hyps.size();
  std::vector<char> keep(count, 0);
  std::vector<int32_t> frontier(lattice.stacks[lattice.n].begin(), lattice.stacks[lattice.n].end());
  while (!frontier.empty()) {
    const int32_t h = frontier.back();
    frontier.pop_back();
    if (keep[h]) continue;
    keep[h] = 1;
    const Hyp &hyp = lattice.hyps[h];
    if (hyp.back >= 0 && !keep[hyp.back]) frontier.push_back(hyp.back);
    ForEachArc(lattice.hyps, h, [&](int32_t arc) {
      const int32_t back = lattice.hyps[arc].back;
      if (back >= 0 && !keep[back]) frontier.push_back(back);
    });
  }
  std::vector<int32_t> connected;
  for (const auto &stack : lattice.stacks)
    for (int32_t h : stack)
      if (keep[h]) connected.push_back(h);

  std::vector<char> scored(count, 0);
  std::vector<double> fscore(count, 0.0);
  std::vector<int64_t> forward(count, -1);
  for (int32_t h : lattice.stacks[lattice.n])
    if (keep[h]) scored[h] = 1;  // forward -1, fscore 0
  for (auto it = connected.rbegin(); it != connected.rend(); ++it) {
    const int32_t h = *it;
    if (!scored[h]) continue;
    const Hyp &hyp = lattice.hyps[h];
    auto relax = [&](int32_t edge) {
      const Hyp &e = lattice.hyps[edge];
      if (e.back < 0) return;
      const double candidate = fscore[h] + e.transition;
      if (!scored[e.back] || fscore[e.back] < candidate) {
        scored[e.back] = 1;
        fscore[e.back] = candidate;
        forward[e.back] = e.id;
      }
    };
    relax(h);
    ForEachArc(lattice.hyps, h, relax);
  }

  // Each line's fields up to the option's place (decoded_graph.Row: hyp, stack, back, score, transition,
  // recombined, forward, fscore), and its option apart: Python adds the option's start, end and words.
  py::list heads;
  std::vector<int32_t> options;
  auto line = [&](int32_t h) {
    const Hyp &hyp = lattice.hyps[h];
    options.push_back(hyp.option);
    if (hyp.back < 0) {  // the root: no back, no scores, no continuation
      heads.append(py::make_tuple(hyp.id, 0, py::none(), 0.0, 0.0, py::none(), py::none(), py::none()));
      return;
    }
    const int32_t winner = hyp.winner >= 0 ? hyp.winner : h;  // a recombined loser continues along its winner
    py::object recombined = hyp.winner >= 0 ? py::object(py::int_(lattice.hyps[hyp.winner].id)) : py::none();
    heads.append(py::make_tuple(hyp.id, hyp.covered, lattice.hyps[hyp.back].id, AsWritten(hyp.score),
                                AsWritten(hyp.transition), recombined, scored[winner] ? forward[winner] : -1,
                                scored[winner] ? AsWritten(fscore[winner]) : 0.0));
  };
  for (int32_t h : connected) {
    line(h);
    ForEachArc(lattice.hyps, h, line);
  }
  return py::make_tuple(heads, options);
}

// One hypothesis: (id, back, option, covered, score, transition, future).
py::tuple Hypothesis(const Lattice &lattice, int32_t index) {
  const Hyp &h = lattice.hyps.at(index);
  return py::make_tuple(h.id, h.back, h.option, h.covered, h.score, h.transition, h.future);
}

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_SEARCH_GRAPH_HH
