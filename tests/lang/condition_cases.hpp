// The program-id condition table shared by the host test (test_condition.cpp) and the device
// compile test (condition_device.cu): every backend must give these answers. X-macros, so each
// text stays a string literal and can be checked as a cond_literal at compile time.
#pragma once

// X(text, pid0, pid1, pid2, expected)
#define BV_COND_VALID(X)                   \
  X("=0", 0, 0, 0, true)                   \
  X("=0", 1, 0, 0, false)                  \
  X("= 3", 3, 0, 0, true)                  \
  X("= 3", 3, 5, 7, true)                  \
  X("= 3", 2, 0, 0, false)                 \
  X("= 3", 4, 3, 3, false)                 \
  X("==3", 3, 1, 1, true)                  \
  X("==3", 30, 1, 1, false)                \
  X(" = 3 ", 3, 0, 0, true)                \
  X("=\t3", 3, 0, 0, true)                 \
  X("\t>=\t4\t", 4, 0, 0, true)            \
  X("\t>=\t4\t", 3, 0, 0, false)           \
  X("=0,>1", 0, 2, 0, true)                \
  X("=0,>1", 0, 1, 0, false)               \
  X("=0,>1", 1, 2, 0, false)               \
  X(">=2", 2, 0, 0, true)                  \
  X(">=2", 1, 0, 0, false)                 \
  X(">2", 2, 0, 0, false)                  \
  X(">2", 3, 0, 0, true)                   \
  X("<2", 1, 0, 0, true)                   \
  X("<2", 2, 0, 0, false)                  \
  X("<=2", 2, 0, 0, true)                  \
  X("<=2", 3, 0, 0, false)                 \
  X("!=0", 0, 0, 0, false)                 \
  X("!=0", 1, 0, 0, true)                  \
  X(",=1", 5, 1, 0, true)                  \
  X(",=1", 5, 0, 0, false)                 \
  X(",,=2", 9, 9, 2, true)                 \
  X(",,=2", 0, 0, 1, false)                \
  X("<2, >=1", 1, 1, 0, true)              \
  X("<2, >=1", 1, 0, 0, false)             \
  X("<2, >=1", 2, 1, 0, false)             \
  X("=1,", 1, 9, 9, true)                  \
  X("=1,", 0, 9, 9, false)                 \
  X("", 0, 0, 0, true)                     \
  X("", 7, 8, 9, true)                     \
  X("   ", 7, 8, 9, true)                  \
  X(",,", 4, 5, 6, true)                   \
  X(" , , ", 4, 5, 6, true)                \
  X("=-1", 0, 0, 0, false)                 \
  X(">-1", 0, 0, 0, true)                  \
  X("=+3", 3, 0, 0, true)                  \
  X("=007", 7, 0, 0, true)                 \
  X("=2147483647", 2147483647, 0, 0, true) \
  X("=2147483647", 0, 0, 0, false)         \
  X("<-2147483648", 0, 0, 0, false)        \
  X(">=-2147483648", 0, 0, 0, true)        \
  X("!=1 , != 2 , != 3", 0, 0, 0, true)    \
  X("!=1 , != 2 , != 3", 1, 0, 0, false)   \
  X("!=1 , != 2 , != 3", 0, 2, 0, false)   \
  X("!=1 , != 2 , != 3", 0, 0, 3, false)   \
  X("==0,==0,==0", 0, 0, 0, true)          \
  X("==0,==0,==0", 0, 0, 1, false)         \
  X("<=1,<=1,<=1", 1, 1, 1, true)          \
  X("<=1,<=1,<=1", 1, 1, 2, false)         \
  X(">0,>0,>0", 1, 1, 1, true)             \
  X(">0,>0,>0", 1, 0, 1, false)

// X(text, error, position of the offending text)
#define BV_COND_MALFORMED(X)           \
  X("=1,=2,=3,=4", too_many_parts, 8)  \
  X(",,,", too_many_parts, 2)          \
  X("= 3 ,, >1 ,", too_many_parts, 10) \
  X("=>1", bad_comparison, 0)          \
  X("=<1", bad_comparison, 0)          \
  X("<>1", bad_comparison, 0)          \
  X("!1", bad_comparison, 0)           \
  X("===1", bad_comparison, 0)         \
  X(",=0,=>1", bad_comparison, 4)      \
  X("~1", no_comparison, 0)            \
  X("1", no_comparison, 0)             \
  X("=1,x", no_comparison, 3)          \
  X("> = 3", no_number, 2)             \
  X("=x", no_number, 1)                \
  X(">", no_number, 1)                 \
  X("=", no_number, 1)                 \
  X("=- 3", no_number, 1)              \
  X("=3x", trailing_text, 2)           \
  X("=1 2", trailing_text, 3)          \
  X("=0;=1", trailing_text, 2)         \
  X("=2147483648", out_of_range, 1)    \
  X("=-2147483649", out_of_range, 1)   \
  X("=99999999999999999999999", out_of_range, 1)
