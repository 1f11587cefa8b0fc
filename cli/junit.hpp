// JUnit XML results for CI (`blockvec run|demo --junit FILE`): a test case per kernel run, failed
// when its result does not match the reference or an error diagnostic fired, errored when it
// could not run; the diagnostics as the case's output.
#pragma once
#include <string>
#include <vector>

#include "bv/diagnostic.hpp"

namespace bv::cli {

struct case_report {
  std::string kernel, size, target, backend;
  double seconds = 0;
  bool passed = true;
  std::string failure;  // why it failed (mismatch, errors), when it did
  std::string error;    // why it could not run (an exception), when it could not
  std::vector<diagnostic> diags;
};

// Writes the cases of `suite` ("blockvec run", "blockvec demo") to path; false with a message.
bool write_junit(const std::string& path, const std::string& suite,
                 const std::vector<case_report>& cases, std::string& error);

}  // namespace bv::cli
