// Reading blockvec traces (docs/trace-format.md) with SQLite: plain C++, no Qt, so that the viewer,
// its tests and the fuzzer share one reader. Every query is a small read; nothing loads a whole
// trace. One trace_db per thread (SQLite connections are not shared across threads here).
// Anything wrong with the file -- not SQLite, not a trace, a newer schema, damaged pages, blobs
// that do not decode -- throws trace_error with a sentence for people.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace bvt {

inline constexpr int supported_schema = 1;

struct trace_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class op_kind : int { load = 0, store = 1, atomic = 2 };

struct launch_info {
  int64_t id = 0;
  std::string kernel, schedule;
  int grid[3] = {1, 1, 1};
  int waves = 1, wave_size = 64;
  // The GPU target the interpreter ran ("gfx942", "gfx90a", "sm_90"): it picks the layout map
  // that places block elements on waves and lanes. Traces written before the column: "gfx942".
  std::string target = "gfx942";
  int64_t programs = 0, ops = 0, accesses = 0;
  double seconds = 0;
  int errors = 0, warnings = 0;
};
struct tensor_info {
  int64_t id = 0, launch_id = 0;
  int arg = -1;
  std::string name, dtype;
  int elem_bytes = 4;
  std::vector<int64_t> shape, strides;
  int64_t view_offset = 0, numel = 0;
  bool contiguous = true;
};
struct site_info {
  int64_t id = 0, source_id = 0;
  int line = 0, col = 0;
  std::string function, op;
};
struct source_info {
  int64_t id = 0;
  std::string path, text;
  bool has_text = false;
};
struct program_info {
  int64_t program = 0;
  int pid[3] = {0, 0, 0};
  int64_t ops = 0, accesses = 0;
  int diagnostics = 0;
};
struct op_info {
  int64_t id = 0, launch_id = 0, program = 0, seq = 0;
  op_kind kind = op_kind::load;
  int64_t site_id = 0, tensor_id = -1;
  int rows = 1, cols = 1, waves = 1, lanes = 1, active = 1, oob = 0;
  int rank = 1;  // the block's rank (1: N, 2: R x C); older traces: 1 when rows == 1
  bool has_other = false;
  int64_t first = 0, lo = 0, hi = 0;
  std::string mask, addrs;  // the raw blobs; decode with lane_active() / addresses()
  bool lane_active(int i) const;
  // Every lane's element index; throws trace_error if the blob is damaged.
  std::vector<int64_t> addresses() const;
};
struct event_info {
  int64_t id = 0, program = 0, after_seq = 0, site_id = 0;
  std::string kind, name, text;
};
struct diagnostic_info {
  int64_t id = 0, launch_id = 0;
  std::string kind, severity, headline, kernel, file, detail, hint;
  int line = 0;
  int64_t program = -1, tensor_id = -1, op_id = -1;
  int pid[3] = {0, 0, 0};
  std::vector<int64_t> lanes, offsets;
};
struct site_stat {
  int64_t site_id = 0;
  int64_t ops = 0, active = 0, lanes = 0, oob = 0;
};

// Decodes an address blob (lanes 1..n-1 as runs of zigzag deltas) into out[0..n). False if the
// blob is damaged (runs past its end, too many or too few lanes).
bool decode_addresses(int64_t first, const std::string& blob, int n, std::vector<int64_t>& out);
// Parses "[1,2,3]"; false on anything else.
bool parse_int_list(const std::string& s, std::vector<int64_t>& out);

class trace_db {
 public:
  // Opens a trace file read-only and checks that it is one (format and schema version).
  static std::unique_ptr<trace_db> open(const std::string& path);
  // The same over bytes in memory (the fuzzer; the bytes must outlive the object).
  static std::unique_ptr<trace_db> open_memory(const unsigned char* data, size_t size);
  ~trace_db();
  trace_db(const trace_db&) = delete;
  trace_db& operator=(const trace_db&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const { return version_; }
  std::string meta(const std::string& key);

  std::vector<launch_info> launches();
  std::vector<tensor_info> tensors(int64_t launch);
  std::vector<site_info> sites();
  std::vector<source_info> sources(bool with_text = true);
  std::vector<program_info> programs(int64_t launch);
  // At most `limit` ops of one program from its `offset`-th, in program order.
  std::vector<op_info> ops_of_program(int64_t launch, int64_t program, int64_t offset,
                                      int64_t limit);
  bool op_by_id(int64_t id, op_info& out);
  // Calls f for each op on a tensor (every program, or one) until it returns false.
  void for_each_op_of_tensor(int64_t tensor, int64_t program,
                             const std::function<bool(const op_info&)>& f);
  std::vector<event_info> events(int64_t launch, int64_t program);
  std::vector<diagnostic_info> diagnostics(int64_t launch, int64_t limit = 100000);
  std::vector<site_stat> site_stats(int64_t launch);

 private:
  trace_db() = default;
  void check();
  [[noreturn]] void fail(const std::string& what);
  sqlite3_stmt* prepare(const char* sql);
  bool has_column(const char* table, const char* column);

  sqlite3* db_ = nullptr;
  std::string path_;
  int version_ = 0;
  std::string op_cols_;        // the ops columns read_op reads, with defaults for older traces
  std::string launch_target_;  // launches.target, or the default for older traces
};

}  // namespace bvt
