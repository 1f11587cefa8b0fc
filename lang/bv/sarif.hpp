// Diagnostics as a SARIF 2.1.0 log: what code-scanning services show on a pull request. One run of
// one tool (blockvec), a rule per diagnostic kind (its check, a one-line description and its
// default level), a result per diagnostic with its level, message, source location and the
// program, lanes and tensor as properties. Defined by the interpreter library (sarif.cpp); the
// blockvec command writes it with `--sarif FILE`, any program with BV_SARIF=FILE at exit.
#pragma once
#include <string>
#include <vector>

#include "bv/diagnostic.hpp"

namespace bv {

struct sarif_options {
  // Source files under this directory get URIs relative to it (uriBaseId SRCROOT), as code
  // scanning wants them; others, absolute file URIs. Empty: the current directory.
  std::string source_root;
  std::string command_line;  // the invocation, recorded as it was run
  bool successful = true;    // whether the tool ran to its end (a failed check still succeeds)
};

// The SARIF log of `diags`, as JSON text.
std::string sarif_log(const std::vector<diagnostic>& diags, const sarif_options& o = {});

// Writes sarif_log(diags, o) to path; false with a message on failure.
bool write_sarif(const std::string& path, const std::vector<diagnostic>& diags,
                 const sarif_options& o, std::string& error);

}  // namespace bv
