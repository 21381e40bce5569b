// The parts of the extension module core.engine._search_cores (search_cores.cpp): each core binds its classes and
// functions into its own submodule.

#ifndef PARASTUDIO_SEARCH_CORES_HH
#define PARASTUDIO_SEARCH_CORES_HH

#include <pybind11/pybind11.h>

namespace parastudio {

void BindBeam(pybind11::module_ &module);  // beam_core.cpp: the beam decoder's search
void BindMcpg(pybind11::module_ &module);  // mcpg_core.cpp: MCPG's tree search

}  // namespace parastudio

#endif  // PARASTUDIO_SEARCH_CORES_HH
