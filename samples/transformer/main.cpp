// samples/transformer: a TinyLlama-style decoder block from the kernel library, forward and
// backward, checked against a double-precision reference of the whole block.
//   transformer_block [SEQ [HEADS [FFN]]]     (defaults 64 2 256; head dim 64)
#include <cstdio>
#include <cstdlib>

#include "check.hpp"

int main(int argc, char** argv) {
  using namespace bv::samples::transformer;
  block_config c;
  bv::config().quiet = true;  // the summary below, not each launch's diagnostics
  if (argc > 1) c.seq = std::atoll(argv[1]);
  if (argc > 2) c.heads = std::atoll(argv[2]);
  if (argc > 3) c.ffn = std::atoll(argv[3]);
  std::printf("decoder block: seq %lld, heads %lld x %d (dim %lld), SwiGLU ffn %lld\n",
              (long long)c.seq, (long long)c.heads, head_dim, (long long)c.dim(),
              (long long)c.ffn);
  const auto rep = run_and_check(c, 2024);
  double secs = 0;
  int errors = 0, warnings = 0, notes = 0;
  for (auto& l : rep.launches) {
    secs += l.seconds;
    errors += l.errors;
    warnings += l.warnings;
    notes += l.notes;
  }
  std::printf("%zu kernel launches, %.1f ms on the interpreter, %d error / %d warning / %d note "
              "diagnostics%s\n\n",
              rep.launches.size(), secs * 1e3, errors, warnings, notes,
              bv::config().notes ? "" : " (notes off: BV_NOTES=1 turns them on)");
  std::printf("%-14s %12s %12s\n", "tensor", "rel L2", "max abs");
  for (auto& o : rep.outputs)
    std::printf("%-14s %12.3e %12.3e%s\n", o.name.c_str(), o.rel_l2, o.max_abs,
                o.finite ? "" : "  (non-finite!)");
  const bool ok = rep.worst() <= tolerance && errors == 0;
  std::printf("\n%s (tolerance %.0e)\n", ok ? "forward and backward match the reference"
                                             : "MISMATCH",
              tolerance);
  return ok ? 0 : 1;
}
