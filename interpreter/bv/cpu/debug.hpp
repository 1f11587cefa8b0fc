// The debugging aids Triton users know, inside kernels: print_if and breakpoint_if on program ids,
// watch, device_assert; and check_tensors_ready on the host. On the GPU they compile to cheap
// equivalents or to nothing, so a kernel never has to be edited before deployment.
#pragma once
#include <functional>
#include <source_location>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "bv/condition.hpp"
#include "bv/cpu/block.hpp"
#include "bv/cpu/program.hpp"
#include "bv/cpu/render.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/tensor.hpp"

namespace bv {

// Which programs a debug aid applies to: a condition string ("=0,>1": pid 0 equals 0 and pid 1
// is above 1; the grammar is in bv/condition.hpp and docs/language.md) or a predicate on the
// program ids. It also remembers where in the kernel it was written.
//
// A string literal arrives as a cond_literal, already parsed and checked by the compiler; a string
// made at run time (a kernel argument, BV_BREAK) is parsed here, and a malformed one becomes a
// bad-condition diagnostic when a program tests it.
struct pid_cond {
  std::string text;
  std::function<bool(int, int, int)> pred;
  std::source_location loc;
  parsed_cond parsed;  // the text's constraints, or why it is malformed

  pid_cond(const cond_literal& c) : text(c.text), loc(c.loc), parsed(c.parsed) {}
  // Not for arrays: a string literal must take the checked cond_literal path above.
  template <class S>
  requires(std::is_convertible_v<S, std::string_view> && !std::is_array_v<std::remove_cvref_t<S>>)
      pid_cond(S&& s, std::source_location l = std::source_location::current())
      : text(std::string_view(s)),
        loc(l),
        parsed(parse_cond(text.data(), clamp_size(text.size()))) {}
  template <class F>
  requires std::is_invocable_r_v<bool, F, int, int, int> pid_cond(
      F f, std::source_location l = std::source_location::current())
      : pred(std::move(f)), loc(l) {}
  template <class F>
  requires(std::is_invocable_r_v<bool, F, int> && !std::is_invocable_r_v<bool, F, int, int, int>)
      pid_cond(F f, std::source_location l = std::source_location::current())
      : pred([f](int a, int, int) { return f(a); }), loc(l) {}

  bool matches(const std::array<int, 3>& pid) const;

 private:
  // A text longer than an int can count is cut there; the parse then reports what it sees.
  static int clamp_size(std::size_t n) { return n > 0x7fffffff ? 0x7fffffff : static_cast<int>(n); }
};

// Parses a condition string and tests it on pid; false and a message naming the bad part (the
// bad-condition diagnostic's text) if it is malformed.
bool parse_pid_cond(const std::string& text, const std::array<int, 3>& pid, bool& result,
                    std::string& error);
// The message for a malformed condition: the text, what is wrong and the part that is.
std::string cond_error_message(std::string_view text, const parsed_cond& c);

namespace detail {
void debug_print(const program_state& s, const pid_cond& c, const std::string& text);
void debug_break(program_state& s, const pid_cond& c);
// A breakpoint_if ran: programs keep their ops' values from now on where a prompt may show them.
void note_breakpoint();
void debug_watch(program_state& s, const char* name, std::string value);
void debug_assert_failed(program_state& s, const std::source_location& loc, const char* msg,
                         int lanes_failed, int first_lane);
}  // namespace detail

// print_if(p, cond, "x", x, "y", y): prints the values for the programs that match, with the
// program id and source line (tl.device_print behind a pid test).
template <int W, class... V>
void print_if(const program<W>& p, const pid_cond& cond, const V&... values) {
  if (!cond.matches(p.s->pid)) return;
  std::string text;
  // Appending in two steps: `" " + std::string` trips a GCC 12 -Wrestrict false positive.
  ((text += (text.empty() ? "" : " "), text += detail::render(values)), ...);
  detail::debug_print(*p.s, cond, text);
}
// A string literal: checked when the kernel compiles, and only the matching programs pay for
// building a pid_cond.
template <int W, class... V>
void print_if(const program<W>& p, const cond_literal& cond, const V&... values) {
  const auto& id = p.s->pid;
  if (cond.matches(id[0], id[1], id[2])) print_if(p, pid_cond(cond), values...);
}

// breakpoint_if(p, cond): stops the matching programs; the CLI offers a prompt.
template <int W>
void breakpoint_if(const program<W>& p, const pid_cond& cond) {
  detail::note_breakpoint();
  if (cond.matches(p.s->pid)) detail::debug_break(*p.s, cond);
}
template <int W>
void breakpoint_if(const program<W>& p, const cond_literal& cond) {
  detail::note_breakpoint();
  const auto& id = p.s->pid;
  if (cond.matches(id[0], id[1], id[2])) detail::debug_break(*p.s, pid_cond(cond));
}

// watch(p, "acc", acc): makes a value printable at the debugger's prompt (and in traces).
template <int W, class X>
void watch(const program<W>& p, const char* name, const X& x) {
  if (detail::hooks.load(std::memory_order_relaxed))
    detail::debug_watch(*p.s, name, detail::render(x));
}

// device_assert(p, cond, "message"): every active lane of cond must hold.
template <int W, class X>
void device_assert(const program<W>& p, const X& cond, const char* msg,
                   std::source_location loc = std::source_location::current()) {
  if constexpr (Block<X>) {
    if (cond.known_uniform() == 1) return;
    const auto& cv = cond.vals();
    for (int i = 0; i < X::size; ++i)
      if (!static_cast<bool>(cv[i])) {
        int n = 0;
        for (int j = 0; j < X::size; ++j) n += !static_cast<bool>(cv[j]);
        detail::debug_assert_failed(*p.s, loc, msg, n, i);
        return;
      }
  } else {
    if (!static_cast<bool>(cond)) detail::debug_assert_failed(*p.s, loc, msg, 1, 0);
  }
}

// check_tensors_ready(a, b, ...): Triton users' check_tensors_gpu_ready. Every tensor must be
// contiguous (and, in a GPU build, on the device). Reports each one that is not as an error
// diagnostic and returns false.
namespace detail {
bool tensor_ready(const alloc_info& a, const std::source_location& loc);
}
template <class... T>
bool check_tensors_ready(const tensor<T>&... ts) {
  const auto loc = std::source_location::current();
  bool ok = true;
  ((ok = detail::tensor_ready(*ts.info(), loc) && ok), ...);
  return ok;
}

// Contiguity hints (tl.multiple_of, tl.max_contiguous). The interpreter verifies them: a hint
// that does not hold would make the GPU compiler generate wrong vector loads.
namespace detail {
void hint_violated(const char* hint, int value, int lane, int64_t got,
                   const std::source_location& loc);
}
template <class X>
X multiple_of(const X& x, int n, std::source_location loc = std::source_location::current()) {
  if (detail::hooks.load(std::memory_order_relaxed) && (config().enabled & checks::contiguity)) {
    if constexpr (Block<X>) {
      // Triton's meaning: the first element of every contiguous run (x[i] != x[i-1] + 1) is a
      // multiple of n, which is what lets the compiler issue aligned vector loads.
      const auto& xv = x.vals();
      for (int i = 0; i < X::size; ++i) {
        const bool run_start = i == 0 || xv[i] != xv[i - 1] + 1;
        if (run_start && static_cast<int64_t>(xv[i]) % n != 0) {
          detail::hint_violated("multiple_of", n, i, static_cast<int64_t>(xv[i]), loc);
          break;
        }
      }
    } else if (static_cast<int64_t>(x) % n != 0) {
      detail::hint_violated("multiple_of", n, 0, static_cast<int64_t>(x), loc);
    }
  }
  return x;
}
template <class X>
requires Block<X> X max_contiguous(const X& x, int n,
                                   std::source_location loc = std::source_location::current()) {
  if (detail::hooks.load(std::memory_order_relaxed) && (config().enabled & checks::contiguity)) {
    const auto& xv = x.vals();
    for (int i = 0; i < X::size; ++i)
      if (i % n != 0 && (i % X::cols) != 0 && xv[i] != xv[i - 1] + 1) {
        detail::hint_violated("max_contiguous", n, i, static_cast<int64_t>(xv[i]), loc);
        break;
      }
  }
  return x;
}

}  // namespace bv
