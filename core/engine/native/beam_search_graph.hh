// The search graph of the beam core (beam_core.cpp includes it): the Lattice a decode leaves (every hypothesis
// kept, its recombination arcs, the stacks best first) and what Python reads of it: the best final hypothesis, a
// path's options, and every hypothesis as columns (CompiledDecodeResult builds search graphs from them).

#ifndef PARASTUDIO_BEAM_SEARCH_GRAPH_HH
#define PARASTUDIO_BEAM_SEARCH_GRAPH_HH

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
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
}

// One hypothesis: (id, back, option, covered, score, transition, future).
py::tuple Hypothesis(const Lattice &lattice, int32_t index) {
  const Hyp &h = lattice.hyps.at(index);
  return py::make_tuple(h.id, h.back, h.option, h.covered, h.score, h.transition, h.future);
}

}  // namespace
}  // namespace parastudio::beam

#endif  // PARASTUDIO_BEAM_SEARCH_GRAPH_HH
