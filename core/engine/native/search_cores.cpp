// core.engine._search_cores: the compiled searches that score with KenLM, in one extension module so that a
// process holds one copy of KenLM and one model per file, whichever searches it runs (issue 42). The module's
// Model (kenlm_model.hh) is the one both take; core/engine/lm/native_model.py opens it once per file. Submodules:
// `beam`, the beam decoder's search (beam_core.cpp); `mcpg`, MCPG's tree search (mcpg_core.cpp); `fsm`, the K best
// paths of seed 001's suggestion machine (fsm_kbest.hh, no KenLM: a search with the others, built with them).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "fsm_kbest.hh"
#include "kenlm_model.hh"
#include "search_cores.hh"

namespace py = pybind11;

PYBIND11_MODULE(_search_cores, module) {
  module.doc() = "The compiled searches (core/engine/native/search_cores.cpp): beam, mcpg and fsm.";
  py::class_<parastudio::KenlmModel>(module, "Model")
      .def(py::init<const std::string &>(), py::arg("path"))
      .def("indices", &parastudio::KenlmModel::Indices, py::arg("words"))
      .def_property_readonly("order", &parastudio::KenlmModel::Order);
  module.def("models_opened", []() { return parastudio::kenlm_models_opened.load(); },
             "How many Models this process has opened so far (one per LM file when every caller shares them).");
  py::module_ beam = module.def_submodule("beam", "The beam decoder's search (core/engine/native/beam_core.cpp).");
  parastudio::BindBeam(beam);
  py::module_ mcpg = module.def_submodule("mcpg", "MCPG's tree search (core/engine/native/mcpg_core.cpp).");
  parastudio::BindMcpg(mcpg);
  py::module_ fsm = module.def_submodule("fsm", "Seed 001's FSM K best paths (core/engine/native/fsm_kbest.hh).");
  parastudio::fsm::BindFsm(fsm);
}
