#include "trace_db.hpp"

#include <sqlite3.h>

#include <cstring>

namespace bvt {

namespace {
// Blocks hold at most 64K elements; a row claiming more is damage, not a block (and must not make
// the reader allocate gigabytes).
constexpr int max_lanes = 1 << 20;

struct stmt {
  sqlite3_stmt* s = nullptr;
  explicit stmt(sqlite3_stmt* p) : s(p) {}
  ~stmt() { sqlite3_finalize(s); }
  stmt(const stmt&) = delete;
  operator sqlite3_stmt*() const { return s; }
};

std::string text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(s, col)))
           : std::string();
}
std::string blob(sqlite3_stmt* s, int col) {
  const void* b = sqlite3_column_blob(s, col);
  const int n = sqlite3_column_bytes(s, col);
  return b && n > 0 ? std::string(static_cast<const char*>(b), static_cast<size_t>(n))
                    : std::string();
}
int64_t i64(sqlite3_stmt* s, int col, int64_t null_value = 0) {
  return sqlite3_column_type(s, col) == SQLITE_NULL ? null_value : sqlite3_column_int64(s, col);
}
int clamp_int(int64_t v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : static_cast<int>(v));
}

bool get_varint(const std::string& b, size_t& at, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= b.size()) return false;
    const auto c = static_cast<uint8_t>(b[at++]);
    v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

const char* op_cols =
    "id,launch_id,program,seq,kind,site_id,tensor_id,rows,cols,waves,lanes,active,oob,"
    "has_other,first,lo,hi,mask,addrs";
// ops.rank came after the first traces: without it, a one-row block is taken for a 1-D one (the
// common case; a 1xN 2-D block is rare).
const char* op_rank_default = "CASE WHEN rows=1 THEN 1 ELSE 2 END";

op_info read_op(sqlite3_stmt* s) {
  op_info o;
  o.id = i64(s, 0);
  o.launch_id = i64(s, 1);
  o.program = i64(s, 2);
  o.seq = i64(s, 3);
  o.kind = static_cast<op_kind>(clamp_int(i64(s, 4), 0, 2));
  o.site_id = i64(s, 5);
  o.tensor_id = i64(s, 6, -1);
  o.rows = clamp_int(i64(s, 7), 1, max_lanes);
  o.cols = clamp_int(i64(s, 8), 1, max_lanes);
  o.waves = clamp_int(i64(s, 9), 1, 64);
  o.lanes = clamp_int(i64(s, 10), 1, max_lanes);
  o.active = clamp_int(i64(s, 11), 0, o.lanes);
  o.oob = clamp_int(i64(s, 12), 0, o.lanes);
  o.has_other = i64(s, 13) != 0;
  o.first = i64(s, 14);
  o.lo = i64(s, 15);
  o.hi = i64(s, 16);
  o.mask = blob(s, 17);
  o.addrs = blob(s, 18);
  o.rank = clamp_int(i64(s, 19, 2), 1, 2);
  // A block's shape and its lane count must agree; the views index rows x cols.
  if (static_cast<int64_t>(o.rows) * o.cols != o.lanes) {
    o.rows = 1;
    o.cols = o.lanes;
    o.rank = 1;
  }
  if (o.rank == 1 && o.rows != 1) o.rank = 2;
  return o;
}
}  // namespace

bool decode_addresses(int64_t first, const std::string& b, int n, std::vector<int64_t>& out) {
  if (n < 1 || n > max_lanes) return false;
  out.resize(static_cast<size_t>(n));
  out[0] = first;
  size_t at = 0;
  int i = 1;
  while (i < n) {
    uint64_t z, rep;
    if (!get_varint(b, at, z) || !get_varint(b, at, rep)) return false;
    const int64_t d = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
    if (rep >= static_cast<uint64_t>(n - i)) return false;
    for (uint64_t r = 0; r <= rep; ++r, ++i)
      out[static_cast<size_t>(i)] = static_cast<int64_t>(
          static_cast<uint64_t>(out[static_cast<size_t>(i - 1)]) + static_cast<uint64_t>(d));
  }
  return at == b.size();
}

bool parse_int_list(const std::string& s, std::vector<int64_t>& out) {
  out.clear();
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  skip();
  if (i >= s.size() || s[i++] != '[') return false;
  skip();
  if (i < s.size() && s[i] == ']') return ++i, true;
  while (i < s.size()) {
    skip();
    bool neg = false;
    if (i < s.size() && s[i] == '-') neg = true, ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    uint64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (1ull << 62)) return false;
      v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
    }
    out.push_back(neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v));
    if (out.size() > (1u << 22)) return false;
    skip();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == ']') return true;
    return false;
  }
  return false;
}

bool op_info::lane_active(int i) const {
  if (mask.empty()) return true;
  const size_t byte = static_cast<size_t>(i) / 8;
  return byte < mask.size() && (static_cast<uint8_t>(mask[byte]) >> (i % 8)) & 1;
}
std::vector<int64_t> op_info::addresses() const {
  std::vector<int64_t> out;
  if (!decode_addresses(first, addrs, lanes, out))
    throw trace_error("the trace is damaged: op " + std::to_string(id) +
                      " has an address blob that does not decode for " + std::to_string(lanes) +
                      " lanes");
  return out;
}

std::unique_ptr<trace_db> trace_db::open(const std::string& path) {
  std::unique_ptr<trace_db> t(new trace_db);
  t->path_ = path;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw trace_error("cannot open '" + path + "': " + std::strerror(errno));
  char head[16] = {};
  const size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (got == 0) throw trace_error("'" + path + "' is empty: not a blockvec trace");
  if (got < 16 || std::memcmp(head, "SQLite format 3", 16) != 0)
    throw trace_error("'" + path +
                      "' is not a blockvec trace (not an SQLite database); record one with "
                      "BV_TRACE=FILE or `blockvec run KERNEL --trace FILE`");
  if (sqlite3_open_v2(path.c_str(), &t->db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK)
    t->fail("opening it");
  t->check();
  return t;
}

std::unique_ptr<trace_db> trace_db::open_memory(const unsigned char* data, size_t size) {
  std::unique_ptr<trace_db> t(new trace_db);
  t->path_ = "<memory>";
  if (sqlite3_open_v2(":memory:", &t->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK)
    t->fail("opening it");
  if (sqlite3_deserialize(t->db_, "main", const_cast<unsigned char*>(data),
                          static_cast<sqlite3_int64>(size), static_cast<sqlite3_int64>(size),
                          SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
    t->fail("reading it");
  t->check();
  return t;
}

trace_db::~trace_db() {
  if (db_) sqlite3_close(db_);
}

void trace_db::fail(const std::string& what) {
  const int code = db_ ? sqlite3_errcode(db_) : SQLITE_NOMEM;
  const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
  if (code == SQLITE_NOTADB)
    throw trace_error("'" + path_ + "' is not a blockvec trace (not an SQLite database)");
  if (code == SQLITE_CORRUPT)
    throw trace_error("the trace '" + path_ + "' is damaged (truncated or overwritten) while " +
                      what + ": " + msg);
  throw trace_error("cannot read the trace '" + path_ + "' while " + what + ": " + msg);
}

sqlite3_stmt* trace_db::prepare(const char* sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) {
    const std::string msg = sqlite3_errmsg(db_);
    if (sqlite3_errcode(db_) == SQLITE_ERROR && msg.find("no such") != std::string::npos)
      throw trace_error("'" + path_ + "' is not a complete blockvec trace (" + msg +
                        "): written by a different tool or an incompatible version");
    fail("preparing a query");
  }
  return s;
}

void trace_db::check() {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key='format'", -1, &raw, nullptr) !=
      SQLITE_OK) {
    const int code = sqlite3_errcode(db_);
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) fail("reading its header");
    sqlite3_finalize(raw);
    throw trace_error("'" + path_ +
                      "' is an SQLite database but not a blockvec trace (it has no meta table)");
  }
  stmt s(raw);
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW ? text(s, 0) != "blockvec-trace" : rc == SQLITE_DONE)
    throw trace_error("'" + path_ + "' is an SQLite database but not a blockvec trace");
  if (rc != SQLITE_ROW) fail("reading its header");
  const std::string v = meta("schema_version");
  version_ = std::atoi(v.c_str());
  if (version_ < 1)
    throw trace_error("the trace '" + path_ + "' has no valid schema_version ('" + v + "')");
  if (version_ > supported_schema)
    throw trace_error("the trace '" + path_ + "' has schema version " + std::to_string(version_) +
                      "; this viewer reads version " + std::to_string(supported_schema) +
                      " and older: update the viewer");
  // The tables the views read must all be there.
  for (const char* table :
       {"launches", "tensors", "sites", "sources", "programs", "ops", "events", "diagnostics"}) {
    stmt q(prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?"));
    sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(q) != SQLITE_ROW) fail("listing its tables");
    if (sqlite3_column_int(q, 0) != 1)
      throw trace_error("the trace '" + path_ + "' lacks its '" + table +
                        "' table: it was not written completely");
  }
  op_cols_ = std::string(op_cols) + "," + (has_column("ops", "rank") ? "rank" : op_rank_default);
  launch_target_ = has_column("launches", "target") ? "target" : "'gfx942'";
}

bool trace_db::has_column(const char* table, const char* column) {
  stmt q(prepare("SELECT count(*) FROM pragma_table_info(?) WHERE name=?"));
  sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(q, 2, column, -1, SQLITE_STATIC);
  if (sqlite3_step(q) != SQLITE_ROW) fail("listing the columns of its tables");
  return sqlite3_column_int(q, 0) > 0;
}

std::string trace_db::meta(const std::string& key) {
  stmt s(prepare("SELECT value FROM meta WHERE key=?"));
  sqlite3_bind_text(s, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) return text(s, 0);
  if (rc != SQLITE_DONE) fail("reading meta");
  return {};
}

// Runs a query to its end, calling row() for each row; any error is a trace_error.
#define BVT_ROWS(st, what, body)       \
  for (;;) {                           \
    const int rc_ = sqlite3_step(st);  \
    if (rc_ == SQLITE_DONE) break;     \
    if (rc_ != SQLITE_ROW) fail(what); \
    body                               \
  }

std::vector<launch_info> trace_db::launches() {
  const std::string sql =
      "SELECT id,kernel,grid_x,grid_y,grid_z,waves,wave_size,schedule,programs,ops,accesses,"
      "seconds,errors,warnings," +
      launch_target_ + " FROM launches ORDER BY id";
  stmt s(prepare(sql.c_str()));
  std::vector<launch_info> out;
  BVT_ROWS(s, "reading launches", {
    launch_info l;
    l.id = i64(s, 0);
    l.kernel = text(s, 1);
    for (int d = 0; d < 3; ++d) l.grid[d] = clamp_int(i64(s, 2 + d), 1, 1 << 30);
    l.waves = clamp_int(i64(s, 5), 1, 64);
    l.wave_size = clamp_int(i64(s, 6), 1, 1024);
    l.schedule = text(s, 7);
    l.programs = i64(s, 8);
    l.ops = i64(s, 9);
    l.accesses = i64(s, 10);
    l.seconds = sqlite3_column_double(s, 11);
    l.errors = clamp_int(i64(s, 12), 0, 1 << 30);
    l.warnings = clamp_int(i64(s, 13), 0, 1 << 30);
    l.target = text(s, 14);
    out.push_back(std::move(l));
  })
  return out;
}

std::vector<tensor_info> trace_db::tensors(int64_t launch) {
  stmt s(
      prepare("SELECT id,launch_id,arg,name,dtype,elem_bytes,shape,strides,view_offset,numel,"
              "contiguous FROM tensors WHERE launch_id=? ORDER BY id"));
  sqlite3_bind_int64(s, 1, launch);
  std::vector<tensor_info> out;
  BVT_ROWS(s, "reading tensors", {
    tensor_info t;
    t.id = i64(s, 0);
    t.launch_id = i64(s, 1);
    t.arg = static_cast<int>(i64(s, 2, -1));
    t.name = text(s, 3);
    t.dtype = text(s, 4);
    t.elem_bytes = clamp_int(i64(s, 5), 1, 16);
    if (!parse_int_list(text(s, 6), t.shape) || !parse_int_list(text(s, 7), t.strides))
      throw trace_error("the trace is damaged: tensor '" + t.name + "' has an unreadable shape");
    t.view_offset = i64(s, 8);
    t.numel = i64(s, 9);
    if (t.numel < 0) t.numel = 0;
    t.contiguous = i64(s, 10) != 0;
    out.push_back(std::move(t));
  })
  return out;
}

std::vector<site_info> trace_db::sites() {
  stmt s(prepare("SELECT id,source_id,line,col,function,op FROM sites ORDER BY id"));
  std::vector<site_info> out;
  BVT_ROWS(s, "reading sites", {
    site_info x;
    x.id = i64(s, 0);
    x.source_id = i64(s, 1);
    x.line = clamp_int(i64(s, 2), 0, 1 << 30);
    x.col = clamp_int(i64(s, 3), 0, 1 << 30);
    x.function = text(s, 4);
    x.op = text(s, 5);
    out.push_back(std::move(x));
  })
  return out;
}

std::vector<source_info> trace_db::sources(bool with_text) {
  stmt s(prepare(with_text ? "SELECT id,path,text FROM sources ORDER BY id"
                           : "SELECT id,path,NULL FROM sources ORDER BY id"));
  std::vector<source_info> out;
  BVT_ROWS(s, "reading sources", {
    source_info x;
    x.id = i64(s, 0);
    x.path = text(s, 1);
    x.has_text = sqlite3_column_type(s, 2) != SQLITE_NULL;
    x.text = text(s, 2);
    out.push_back(std::move(x));
  })
  return out;
}

std::vector<program_info> trace_db::programs(int64_t launch) {
  stmt s(
      prepare("SELECT program,pid_x,pid_y,pid_z,ops,accesses,diagnostics FROM programs "
              "WHERE launch_id=? ORDER BY program"));
  sqlite3_bind_int64(s, 1, launch);
  std::vector<program_info> out;
  BVT_ROWS(s, "reading programs", {
    program_info p;
    p.program = i64(s, 0);
    for (int d = 0; d < 3; ++d) p.pid[d] = clamp_int(i64(s, 1 + d), 0, 1 << 30);
    p.ops = i64(s, 4);
    p.accesses = i64(s, 5);
    p.diagnostics = clamp_int(i64(s, 6), 0, 1 << 30);
    out.push_back(p);
  })
  return out;
}

std::vector<op_info> trace_db::ops_of_program(int64_t launch, int64_t program, int64_t offset,
                                              int64_t limit) {
  const std::string sql = "SELECT " + op_cols_ +
                          " FROM ops WHERE launch_id=? AND program=? ORDER BY seq LIMIT ? OFFSET ?";
  stmt s(prepare(sql.c_str()));
  sqlite3_bind_int64(s, 1, launch);
  sqlite3_bind_int64(s, 2, program);
  sqlite3_bind_int64(s, 3, limit);
  sqlite3_bind_int64(s, 4, offset);
  std::vector<op_info> out;
  BVT_ROWS(s, "reading ops", { out.push_back(read_op(s)); })
  return out;
}

bool trace_db::op_by_id(int64_t id, op_info& out) {
  const std::string sql = "SELECT " + op_cols_ + " FROM ops WHERE id=?";
  stmt s(prepare(sql.c_str()));
  sqlite3_bind_int64(s, 1, id);
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    out = read_op(s);
    return true;
  }
  if (rc != SQLITE_DONE) fail("reading an op");
  return false;
}

void trace_db::for_each_op_of_tensor(int64_t tensor, int64_t program,
                                     const std::function<bool(const op_info&)>& f) {
  const std::string sql =
      "SELECT " + op_cols_ + " FROM ops WHERE tensor_id=?" + (program >= 0 ? " AND program=?" : "");
  stmt s(prepare(sql.c_str()));
  sqlite3_bind_int64(s, 1, tensor);
  if (program >= 0) sqlite3_bind_int64(s, 2, program);
  BVT_ROWS(s, "reading ops", {
    if (!f(read_op(s))) break;
  })
}

std::vector<event_info> trace_db::events(int64_t launch, int64_t program) {
  stmt s(
      prepare("SELECT id,program,after_seq,site_id,kind,name,text FROM events WHERE "
              "launch_id=? AND program=? ORDER BY id LIMIT 10000"));
  sqlite3_bind_int64(s, 1, launch);
  sqlite3_bind_int64(s, 2, program);
  std::vector<event_info> out;
  BVT_ROWS(s, "reading events", {
    event_info e;
    e.id = i64(s, 0);
    e.program = i64(s, 1);
    e.after_seq = i64(s, 2);
    e.site_id = i64(s, 3);
    e.kind = text(s, 4);
    e.name = text(s, 5);
    e.text = text(s, 6);
    out.push_back(std::move(e));
  })
  return out;
}

std::vector<diagnostic_info> trace_db::diagnostics(int64_t launch, int64_t limit) {
  stmt s(
      prepare("SELECT id,launch_id,kind,severity,headline,kernel,file,line,program,pid_x,pid_y,"
              "pid_z,tensor_id,op_id,lanes,offsets,detail,hint FROM diagnostics WHERE "
              "launch_id=? ORDER BY id LIMIT ?"));
  sqlite3_bind_int64(s, 1, launch);
  sqlite3_bind_int64(s, 2, limit);
  std::vector<diagnostic_info> out;
  BVT_ROWS(s, "reading diagnostics", {
    diagnostic_info d;
    d.id = i64(s, 0);
    d.launch_id = i64(s, 1);
    d.kind = text(s, 2);
    d.severity = text(s, 3);
    d.headline = text(s, 4);
    d.kernel = text(s, 5);
    d.file = text(s, 6);
    d.line = clamp_int(i64(s, 7), 0, 1 << 30);
    d.program = i64(s, 8, -1);
    for (int k = 0; k < 3; ++k) d.pid[k] = clamp_int(i64(s, 9 + k), 0, 1 << 30);
    d.tensor_id = i64(s, 12, -1);
    d.op_id = i64(s, 13, -1);
    // Lists that do not parse are shown as empty rather than refusing the whole trace.
    if (!parse_int_list(text(s, 14), d.lanes)) d.lanes.clear();
    if (!parse_int_list(text(s, 15), d.offsets)) d.offsets.clear();
    d.detail = text(s, 16);
    d.hint = text(s, 17);
    out.push_back(std::move(d));
  })
  return out;
}

std::vector<site_stat> trace_db::site_stats(int64_t launch) {
  stmt s(
      prepare("SELECT site_id,count(*),sum(active),sum(lanes),sum(oob) FROM ops WHERE "
              "launch_id=? GROUP BY site_id ORDER BY site_id"));
  sqlite3_bind_int64(s, 1, launch);
  std::vector<site_stat> out;
  BVT_ROWS(s, "reading op statistics", {
    site_stat x;
    x.site_id = i64(s, 0);
    x.ops = i64(s, 1);
    x.active = i64(s, 2);
    x.lanes = i64(s, 3);
    x.oob = i64(s, 4);
    out.push_back(x);
  })
  return out;
}

}  // namespace bvt
