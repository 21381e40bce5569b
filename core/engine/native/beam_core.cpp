// The beam decoder's search in C++: the expansion loop of core/engine/decoders/beam_decoder.py (hypothesis
// extension, recombination on KenLM states, Moses' threshold and histogram pruning) and the lazy k-best
// of core/engine/decoders/kbest.py, operation for operation, so that both give the same lattice and the same
// n-best lists (tests/test_beam_core.py compares them). The Python files are the reference: read them
// for the why; the comments here say only where C++ has to take care to stay identical.
//
// KenLM is called through its C++ interface (lm::base::Model, as the kenlm Python module does), built
// from the kenlm source distribution by setup.py.
//
// The code lies in one header per concern, all compiled here as one translation unit (the decoder's speed, issue
// 40, depends on the inlining across them): beam_search.hh (the expansion loop, the options it reads),
// beam_recombination.hh (stacks: recombination and pruning), beam_nbest.hh (k-best and n-best lists),
// beam_search_graph.hh (the lattice a search leaves), beam_table_options.hh and beam_source_hash.hh (a binary
// table's options and sources). This file binds them to Python: the `beam` submodule of core.engine._search_cores
// (search_cores.cpp), whose Model they take.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "beam_nbest.hh"
#include "beam_search.hh"
#include "beam_search_graph.hh"
#include "beam_source_hash.hh"
#include "beam_table_options.hh"
#include "search_cores.hh"

namespace py = pybind11;

namespace parastudio {

using namespace beam;

void BindBeam(py::module_ &module) {
  module.doc() = "The beam decoder's search and k-best in C++ (core/engine/native/beam_core.cpp).";
  // Raised whenever the Python interface or the search changes; compiled_search.py uses only a core of its own
  // version (3: Moses' expansion order and final recombination; 4: ranked rules packed in bytes).
  module.attr("INTERFACE") = 4;

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
      .def("best", &Best)
      .def("nbest", &NBest, py::arg("n"), py::arg("distinct"), py::arg("factor"))
      .def("kbest", [](const Lattice &lattice) { return std::make_unique<KBest>(lattice); },
           py::keep_alive<0, 1>(), "A fresh lazy k-best extractor over this lattice.")
      .def("path_options", &PathOptions)
      .def("columns", &Columns)
      .def("graph_lines", &GraphLines)
      .def("hypothesis", &Hypothesis);

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

}  // namespace parastudio
