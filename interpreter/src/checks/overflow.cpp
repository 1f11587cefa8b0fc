// overflow: int32 overflow in index arithmetic. i32 block +, -, * compute the wrapped result the
// GPU computes, and, while this check is on, the exact one too (bv/cpu/block.hpp); the first
// overflow of a program is held on the program and reported at its next memory operation (whose
// source line and tensor it names, since operators have no source location), or at its end.
// Scalar C++ int arithmetic (p.id(0) * BLOCK) is plain C++ and not seen: use i64 there yourself.
#include "checks/common.hpp"

namespace bv::detail {
namespace {

// Per program: the first overflow noted and not reported yet (op 0: none), and the last access,
// for a report at the program's end.
struct overflow_program {
  char op;
  int lanes;
  int64_t a, b;
  std::source_location last_access;
};

struct overflow_check final : observer {
  uint32_t bit() const override { return checks::overflow; }

  static diagnostic make(program_state& s) {
    auto& c = program_scratch<overflow_program>(s);
    const int64_t a = c.a, b = c.b;
    const int64_t exact = c.op == '+' ? a + b : c.op == '-' ? a - b : a * b;
    diagnostic d;
    d.kind = "int32-overflow";
    d.headline = "int32 overflow in index arithmetic: " + std::to_string(a) + " " + c.op + " " +
                 std::to_string(b) + " = " + std::to_string(exact) + " does not fit in i32 (" +
                 plural(c.lanes, "lane") + " wrapped), before this operation";
    d.hint =
        "offsets wrap around to wrong (often negative) addresses on the GPU: compute them in "
        "i64 (offs.to(bv::i64) * stride) or pass the stride as int64_t";
    c.op = 0;
    return d;
  }

  void on_access(const access& a, const bool*, program_state& s) override {
    auto& c = program_scratch<overflow_program>(s);
    if (a.loc) c.last_access = *a.loc;  // a copy: a.loc lives on the program's stack
    if (!c.op) return;
    diagnostic d = make(s);
    if (a.alloc) {
      d.has_tensor = true;
      d.tensor = a.alloc->describe();
    }
    complete(d, a.loc);
    report(std::move(d));
  }

  void on_program_end(program_state& s) override {
    const auto& c = program_scratch<overflow_program>(s);
    if (!c.op) return;
    const std::source_location last = c.last_access;
    diagnostic d = make(s);
    complete(d, &last);
    d.pid = s.pid;
    report_in(*s.launch, std::move(d));  // on the scheduler's stack: no current program
  }
};

}  // namespace

std::unique_ptr<observer> make_overflow_check() { return std::make_unique<overflow_check>(); }

void note_i32_overflow(char op, int64_t a, int64_t b, int lanes) {
  program_state* s = current();
  if (!s) return;
  auto& c = program_scratch<overflow_program>(*s);
  if (c.op) return;  // the first one until it is reported
  c.op = op;
  c.a = a;
  c.b = b;
  c.lanes = lanes;
}

}  // namespace bv::detail
