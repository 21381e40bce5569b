// The K best paths of seed 001's finite state machine, compiled: core/engine/decoders/cat/fsm.py's kbest_paths
// and _n_cheapest step for step (the same costs, added in the same order, and the same ties), bound as
// core.engine._search_cores.fsm.kbest_paths. At stack 200 with 100 options a request's machine has ~1,000
// transitions, and the Python merge over each state's predecessors was a quarter of approach 1's time (issue 45).

#ifndef PARASTUDIO_FSM_KBEST_HH
#define PARASTUDIO_FSM_KBEST_HH

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace parastudio::fsm {

namespace py = pybind11;

struct Reached {
  double cost;
  int32_t source;  // -1 for the start's own empty path
  int32_t rank;    // the rank of the path extended, in the source's list
};

// Python's ``(cost, source, rank)`` tuple order: the heap of _n_cheapest pops the smallest.
struct Later {
  bool operator()(const std::tuple<double, int32_t, int32_t, double> &a,
                  const std::tuple<double, int32_t, int32_t, double> &b) const {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
    if (std::get<2>(a) != std::get<2>(b)) return std::get<2>(a) > std::get<2>(b);
    return std::get<3>(a) > std::get<3>(b);  // (a machine with one source twice: Python then compares the steps)
  }
};

// The machine: states 0 (start) to ``states - 1``; transition t goes from ``from[t]`` to ``to[t]`` with score
// ``score[t]``; ``order``: every state but the start, predecessors first; ``ends``: the end states. Returns, for
// each end in order, its ``n`` cheapest paths ``(cost, states after the start)``, cheapest first.
inline py::list KbestPaths(int64_t n, int64_t states, const std::vector<int32_t> &from, const std::vector<int32_t> &to,
                           const std::vector<double> &score, const std::vector<int32_t> &order,
                           const std::vector<int32_t> &ends, double min_score) {
  if (states < 1) throw std::invalid_argument("a machine has at least its start state");
  if (from.size() != to.size() || from.size() != score.size())
    throw std::invalid_argument("from, to and score must have one entry per transition");
  const auto valid = [states](int64_t state) { return state >= 0 && state < states; };
  for (size_t t = 0; t < from.size(); ++t)
    if (!valid(from[t]) || !valid(to[t])) throw std::invalid_argument("a transition names a state out of range");
  for (int32_t state : order)
    if (!valid(state)) throw std::invalid_argument("order names a state out of range");
  for (int32_t state : ends)
    if (!valid(state)) throw std::invalid_argument("ends names a state out of range");
  py::list out;
  if (n <= 0) {
    for (size_t e = 0; e < ends.size(); ++e) out.append(py::list());
    return out;
  }
  // Incoming transitions per state, as (source, -ln max(score, min_score)), in the order fsm.py appends them.
  std::vector<int64_t> first(states + 1, 0);
  for (int32_t target : to) ++first[target + 1];
  for (int64_t s = 0; s < states; ++s) first[s + 1] += first[s];
  std::vector<int64_t> filled(first.begin(), first.end() - 1);
  std::vector<std::pair<int32_t, double>> incoming(from.size());
  for (size_t t = 0; t < from.size(); ++t) {
    const double floor = min_score > score[t] ? min_score : score[t];
    incoming[filled[to[t]]++] = {from[t], -std::log(floor)};
  }
  std::vector<std::vector<Reached>> best(states);
  best[0].push_back({0.0, -1, -1});
  std::priority_queue<std::tuple<double, int32_t, int32_t, double>,
                      std::vector<std::tuple<double, int32_t, int32_t, double>>, Later> heap;
  for (int32_t state : order) {
    if (state == 0) continue;
    std::vector<Reached> &cheapest = best[state];
    const int64_t begin = first[state], end = first[state + 1];
    if (end - begin == 1) {  // one predecessor: its list moved by one step
      const auto [source, step] = incoming[begin];
      const std::vector<Reached> &paths = best[source];
      const int64_t count = std::min<int64_t>(n, static_cast<int64_t>(paths.size()));
      for (int64_t rank = 0; rank < count; ++rank)
        cheapest.push_back({paths[rank].cost + step, source, static_cast<int32_t>(rank)});
      continue;
    }
    for (int64_t i = begin; i < end; ++i) {
      const auto [source, step] = incoming[i];
      if (!best[source].empty()) heap.emplace(best[source][0].cost + step, source, 0, step);
    }
    while (!heap.empty() && static_cast<int64_t>(cheapest.size()) < n) {
      const auto [cost, source, rank, step] = heap.top();
      heap.pop();
      cheapest.push_back({cost, source, rank});
      const std::vector<Reached> &paths = best[source];
      if (static_cast<size_t>(rank) + 1 < paths.size()) heap.emplace(paths[rank + 1].cost + step, source, rank + 1, step);
    }
    heap = decltype(heap)();
  }
  for (int32_t end : ends) {
    py::list found;
    const std::vector<Reached> &paths = best[end];
    for (size_t rank = 0; rank < paths.size(); ++rank) {
      std::vector<int32_t> walk;
      int32_t state = end, at = static_cast<int32_t>(rank);
      while (state != 0) {
        walk.push_back(state);
        const Reached &step = best[state][at];
        state = step.source;
        at = step.rank;
      }
      py::tuple states_after(walk.size());
      for (size_t i = 0; i < walk.size(); ++i) states_after[i] = py::int_(walk[walk.size() - 1 - i]);
      found.append(py::make_tuple(paths[rank].cost, states_after));
    }
    out.append(found);
  }
  return out;
}

inline void BindFsm(py::module_ &module) {
  module.attr("INTERFACE") = 1;
  module.def("kbest_paths", &KbestPaths, py::arg("n"), py::arg("states"), py::arg("from_states"),
             py::arg("to_states"), py::arg("scores"), py::arg("order"), py::arg("ends"), py::arg("min_score"),
             "Each end state's n cheapest paths from the start, as core/engine/decoders/cat/fsm.py's kbest_paths.");
}

}  // namespace parastudio::fsm

#endif  // PARASTUDIO_FSM_KBEST_HH
