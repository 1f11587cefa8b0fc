// Program-id conditions: the strings that print_if and breakpoint_if (and BV_BREAK) take to pick
// the programs they apply to. One parser and one evaluator, constexpr and free of allocation, so
// the interpreter, device code and the compiler (for string literals) all read a condition the
// same way.
//
// The grammar ("whitespace" is spaces and tabs):
//
//   condition := part ("," part)*           at most three parts: part i tests program id i
//   part      := ws* [op ws* number ws*]    a part that is empty or only whitespace: any id
//   op        := "=" | "==" | "!=" | "<" | "<=" | ">" | ">="      ("=" and "==" are the same)
//   number    := ["+" | "-"] digit+         decimal, from -2147483648 to 2147483647
//
// A condition holds when every part holds; missing trailing parts are "any", so "" and ",,"
// match every program and "=0,>1" is pid 0 equals 0 and pid 1 above 1. An operator's characters
// are written together ("> =" is malformed) and so are a sign and its digits. Negative numbers
// are accepted although no program id is negative (">-1" is every program): a condition computed
// from a grid size stays well formed at the edges. A number outside the int range is an error
// rather than a comparison that is always true or always false: it is almost surely a typo.
#pragma once
#include <cstddef>
#include <source_location>

#include "bv/config.hpp"

namespace bv {

enum class pid_cmp : unsigned char { any, eq, ne, lt, le, gt, ge };

// Why a condition is malformed; the position and length in parsed_cond say where.
enum class cond_error : unsigned char {
  none,
  too_many_parts,  // a fourth comma-separated part
  no_comparison,   // a part that does not start with =, !, < or >
  bad_comparison,  // operator characters that are not one of the six ("=>", "<>", "!", "===")
  no_number,       // a comparison without a number after it
  out_of_range,    // a number outside the int range
  trailing_text,   // something after the number other than whitespace or a comma
};

// The sentence that says what is wrong, for messages that quote the offending text after it.
BV_HD constexpr const char* cond_error_text(cond_error e) {
  switch (e) {
    case cond_error::none:
      return "well formed";
    case cond_error::too_many_parts:
      return "has more than three comma-separated parts (one per program axis)";
    case cond_error::no_comparison:
      return "has a part that does not start with a comparison (=, ==, !=, <, <=, >, >=)";
    case cond_error::bad_comparison:
      return "has a comparison that is not one of =, ==, !=, <, <=, >, >=";
    case cond_error::no_number:
      return "has a comparison without a whole number after it (like =0 or >1)";
    case cond_error::out_of_range:
      return "has a number outside the range of a program id (a 32-bit int)";
    case cond_error::trailing_text:
      return "has text after a number; parts are separated by commas";
  }
  return "is malformed";
}

BV_HD constexpr bool pid_compare(pid_cmp op, int id, int v) {
  switch (op) {
    case pid_cmp::any:
      return true;
    case pid_cmp::eq:
      return id == v;
    case pid_cmp::ne:
      return id != v;
    case pid_cmp::lt:
      return id < v;
    case pid_cmp::le:
      return id <= v;
    case pid_cmp::gt:
      return id > v;
    case pid_cmp::ge:
      return id >= v;
  }
  return false;
}

struct pid_constraint {
  pid_cmp op = pid_cmp::any;
  int value = 0;
};

// A parsed condition: one constraint per program axis, or why the text is malformed. A malformed
// condition matches no program (the interpreter also reports it).
struct parsed_cond {
  pid_constraint axis[3] = {};
  cond_error error = cond_error::none;
  int error_pos = 0;   // offset of the offending text in the condition
  int error_len = 0;   // its length (at least 1 unless the text ended there)
  int error_part = 0;  // the comma-separated part it is in, from 0

  BV_HD constexpr bool ok() const { return error == cond_error::none; }
  BV_HD constexpr bool matches(int p0, int p1, int p2) const {
    return ok() && pid_compare(axis[0].op, p0, axis[0].value) &&
           pid_compare(axis[1].op, p1, axis[1].value) && pid_compare(axis[2].op, p2, axis[2].value);
  }
};

// Not bv::detail: the GPU backend's inline namespace has a detail of its own, and reopening
// bv::detail after it is ambiguous.
namespace condition_detail {
BV_HD constexpr bool cond_space(char c) { return c == ' ' || c == '\t'; }
BV_HD constexpr bool cond_digit(char c) { return c >= '0' && c <= '9'; }
BV_HD constexpr bool cond_op_char(char c) { return c == '=' || c == '!' || c == '<' || c == '>'; }
}  // namespace condition_detail

// Parses the n characters at s (a NUL before them ends the text too).
BV_HD constexpr parsed_cond parse_cond(const char* s, int n) {
  using namespace condition_detail;
  parsed_cond r;
  const auto at = [&](int i) { return i < n ? s[i] : '\0'; };
  for (int i = 0; i < n; ++i)
    if (s[i] == '\0') n = i;
  const auto fail = [&](cond_error e, int pos, int len, int part) {
    r.error = e;
    r.error_pos = pos;
    r.error_len = len;
    r.error_part = part;
    for (auto& a : r.axis) a = {};
    return r;
  };
  int i = 0;
  for (int part = 0;; ++part) {
    if (part == 3) return fail(cond_error::too_many_parts, i - 1, n - i + 1, part);
    while (cond_space(at(i))) ++i;
    if (i < n && at(i) != ',') {
      // The operator: the longest run of operator characters, which must be one of the six.
      const int op_start = i;
      while (cond_op_char(at(i))) ++i;
      const int op_len = i - op_start;
      if (op_len == 0) {
        int end = i;
        while (end < n && at(end) != ',' && !cond_space(at(end))) ++end;
        return fail(cond_error::no_comparison, op_start, end - op_start, part);
      }
      const char a = s[op_start], b = op_len > 1 ? s[op_start + 1] : '\0';
      pid_cmp op = pid_cmp::any;
      if (op_len == 1 && a == '=') op = pid_cmp::eq;
      if (op_len == 2 && a == '=' && b == '=') op = pid_cmp::eq;
      if (op_len == 2 && a == '!' && b == '=') op = pid_cmp::ne;
      if (op_len == 1 && a == '<') op = pid_cmp::lt;
      if (op_len == 2 && a == '<' && b == '=') op = pid_cmp::le;
      if (op_len == 1 && a == '>') op = pid_cmp::gt;
      if (op_len == 2 && a == '>' && b == '=') op = pid_cmp::ge;
      if (op == pid_cmp::any) return fail(cond_error::bad_comparison, op_start, op_len, part);
      while (cond_space(at(i))) ++i;
      // The number, accumulated in 64 bits and stopped once past the int range (no overflow
      // however many digits follow).
      const int num_start = i;
      bool neg = false;
      if (at(i) == '+' || at(i) == '-') neg = at(i++) == '-';
      if (!cond_digit(at(i))) {
        int end = i;
        while (end < n && at(end) != ',' && !cond_space(at(end))) ++end;
        return fail(cond_error::no_number, num_start, end - num_start, part);
      }
      long long v = 0;
      bool too_big = false;
      for (; cond_digit(at(i)); ++i) {
        if (!too_big) v = v * 10 + (at(i) - '0');
        too_big = too_big || v > 2147483648LL;
      }
      if (too_big || (!neg && v > 2147483647LL))
        return fail(cond_error::out_of_range, num_start, i - num_start, part);
      r.axis[part] = {op, static_cast<int>(neg ? -v : v)};
      while (cond_space(at(i))) ++i;
      if (i < n && at(i) != ',') {
        int end = i;
        while (end < n && at(end) != ',') ++end;
        return fail(cond_error::trailing_text, i, end - i, part);
      }
    }
    if (i >= n) return r;
    ++i;  // the comma
  }
}

// A NUL-terminated condition.
BV_HD constexpr parsed_cond parse_cond(const char* s) {
  int n = 0;
  while (s[n]) ++n;
  return parse_cond(s, n);
}

namespace condition_detail {
// Deliberately not constexpr: a malformed string literal reaches one of these while the compiler
// evaluates cond_literal's constructor, and the error names the function, which says what is
// wrong. They are never called at run time and have no definition.
void malformed_program_id_condition__more_than_three_parts();
void malformed_program_id_condition__part_does_not_start_with_a_comparison();
void malformed_program_id_condition__comparison_is_not_one_of_eq_eqeq_ne_lt_le_gt_ge();
void malformed_program_id_condition__comparison_without_a_number();
void malformed_program_id_condition__number_out_of_int_range();
void malformed_program_id_condition__text_after_a_number();

consteval void reject_condition(cond_error e) {
  switch (e) {
    case cond_error::none:
      return;
    case cond_error::too_many_parts:
      malformed_program_id_condition__more_than_three_parts();
      return;
    case cond_error::no_comparison:
      malformed_program_id_condition__part_does_not_start_with_a_comparison();
      return;
    case cond_error::bad_comparison:
      malformed_program_id_condition__comparison_is_not_one_of_eq_eqeq_ne_lt_le_gt_ge();
      return;
    case cond_error::no_number:
      malformed_program_id_condition__comparison_without_a_number();
      return;
    case cond_error::out_of_range:
      malformed_program_id_condition__number_out_of_int_range();
      return;
    case cond_error::trailing_text:
      malformed_program_id_condition__text_after_a_number();
      return;
  }
}
}  // namespace condition_detail

// A condition written as a string literal, as in print_if(p, "=0,>1", ...): parsed while the
// kernel compiles, so a malformed one is a compile error on both backends and the program only
// compares. It remembers the text and, for the interpreter's messages, where it was written.
// Conditions made at run time (a kernel argument, BV_BREAK) go through parse_cond instead.
struct cond_literal {
  parsed_cond parsed;
  const char* text;
  std::source_location loc;

  template <std::size_t N>
  consteval cond_literal(const char (&s)[N],
                         std::source_location l = std::source_location::current())
      : parsed(parse_cond(s, static_cast<int>(N))), text(s), loc(l) {
    condition_detail::reject_condition(parsed.error);
  }

  BV_HD constexpr bool matches(int p0, int p1, int p2) const { return parsed.matches(p0, p1, p2); }
};

}  // namespace bv
