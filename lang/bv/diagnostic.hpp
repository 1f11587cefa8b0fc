// A diagnostic: what a check found, where, in which program and lanes, on which tensor. The one
// report type of every way a kernel runs (the interpreter's checks today), in text for people and
// JSON for tools; defined by the interpreter library (diagnostics.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace bv {

enum class severity { note, warning, error };

struct tensor_desc {
  std::string name, dtype;
  std::vector<int64_t> shape, strides;
  bool contiguous = true;
  int64_t valid_begin = 0, valid_end = 0;  // valid element offsets from the buffer start
};

struct diagnostic {
  std::string kind;  // "out-of-bounds", "race", ...
  severity sev = severity::error;
  std::string headline;  // "Invalid read of size 4 (3 of 64 active lanes)"
  std::string kernel, file, function;
  int line = 0;
  std::array<int, 3> pid{0, 0, 0};
  bool has_pid = true;
  std::vector<int> lanes;        // block element indices (lanes) involved
  std::vector<int> waves;        // wavefront of each lane, from the layout map
  std::vector<int64_t> offsets;  // offending element offsets from the tensor's start
  bool has_tensor = false;
  tensor_desc tensor;
  std::string detail;  // a second entity (the other side of a race), free text
  std::string hint;
  std::string text() const;
  std::string json() const;
};

}  // namespace bv
