// A binary table's arrays (core/engine/tables/table_binary.py) as the compiled cores read them: a buffer's data,
// and a target's UTF-8 text by its number. Shared by the beam core (beam_table_options.hh) and the true-score
// core (truescore_core.cpp), which both read the rule arrays without a Rule object per row.

#ifndef PARASTUDIO_BINARY_TABLE_ARRAYS_HH
#define PARASTUDIO_BINARY_TABLE_ARRAYS_HH

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string_view>

namespace parastudio {

template <class T>
inline const T *BufferData(const pybind11::buffer &buffer) {
  return static_cast<const T *>(buffer.request().ptr);
}

struct TargetTexts {
  const uint8_t *text;
  const uint64_t *offsets;
  std::string_view operator()(uint32_t target) const {
    return std::string_view(reinterpret_cast<const char *>(text) + offsets[target], offsets[target + 1] - offsets[target]);
  }
};

}  // namespace parastudio

#endif  // PARASTUDIO_BINARY_TABLE_ARRAYS_HH
