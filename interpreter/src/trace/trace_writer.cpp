// The trace writer: an observer of the memory-event stream that records every op of every program
// in an SQLite database (docs/trace-format.md). Programs append to per-thread buffers with no lock;
// full buffers go to one writer thread that inserts them in a transaction each, so the parallel
// schedule needs no lock per access and SQLite sees one connection on one thread.
#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "bv/cpu/check.hpp"
#include "bv/cpu/runtime.hpp"
#include "trace/codec.hpp"
#include "trace/schema.hpp"

namespace bv::detail::trace {
namespace {

struct op_row {
  int64_t launch, program, seq;
  int kind, site, tensor;  // tensor 0: none (NULL)
  int rows, cols, waves, rank, lanes, active, oob, has_other;
  int64_t first, lo, hi;
  size_t mask_at, mask_len, addr_at, addr_len;  // into the batch's arena
};
struct event_row {
  int64_t launch, program, after_seq;
  const char* kind;
  int site;
  std::string name, text;
};
// What one buffer hands to the writer: rows plus rarely used statements run in order first.
struct batch {
  std::vector<std::function<void(sqlite3*)>> misc;
  std::vector<op_row> ops;
  std::vector<event_row> events;
  std::string arena;
};

void warn_sql(sqlite3* db, const std::string& path, const char* what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr, "blockvec: trace '%s': %s failed: %s (the trace is incomplete)\n",
                 path.c_str(), what, db ? sqlite3_errmsg(db) : "cannot open");
  });
}

template <class V>
std::string json_ints(const V& v) {
  std::string s(1, '[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s.push_back(',');
    s.append(std::to_string(v[i]));
  }
  s.push_back(']');
  return s;
}

// Sites are (source location, op name) pairs; source_location objects are static per call site,
// so their address identifies them (the op name is a literal fixed per call site too).
struct site_key {
  const void* loc;
  const char* op;
  bool operator==(const site_key&) const = default;
};
struct site_hash {
  size_t operator()(const site_key& k) const {
    return std::hash<const void*>()(k.loc) * 31 + std::hash<const void*>()(k.op);
  }
};

// One SQLite file and its writer thread. A process writes one trace file at a time; launches
// append to it until the trace path changes.
class database {
 public:
  static database* for_path(const std::string& path) {
    std::lock_guard lk(g_mu);
    if (g_db && g_db->path_ == path && g_db->db_) return g_db.get();
    g_db.reset();
    auto d = std::unique_ptr<database>(new database(path));
    if (!d->db_) return nullptr;
    g_db = std::move(d);
    return g_db.get();
  }
  ~database() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (db_) sqlite3_close(db_);
  }

  int64_t next_launch() { return ++launches_; }
  int new_site_id() { return ++sites_; }
  int new_tensor_id() { return ++tensors_; }
  // The id of a source file's row; the first time, its text is read (by the writer thread).
  int source_id(const char* file) {
    std::lock_guard lk(src_mu_);
    auto [it, fresh] = sources_.try_emplace(file, static_cast<int>(sources_.size()) + 1);
    if (fresh) {
      auto b = std::make_unique<batch>();
      const int id = it->second;
      b->misc.push_back([id, path = std::string(file)](sqlite3* db) {
        std::string text;
        bool have = false;
        std::ifstream in(path, std::ios::binary);
        if (in) {
          std::ostringstream ss;
          ss << in.rdbuf();
          text = ss.str();
          have = text.size() <= (8u << 20);  // a generated file that large is not worth keeping
        }
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "INSERT INTO sources(id, path, text) VALUES(?,?,?)", -1, &st,
                           nullptr);
        sqlite3_bind_int(st, 1, id);
        sqlite3_bind_text(st, 2, path.c_str(), -1, SQLITE_TRANSIENT);
        if (have)
          sqlite3_bind_text(st, 3, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_finalize(st);
      });
      submit(std::move(b));
    }
    return it->second;
  }

  void submit(std::unique_ptr<batch> b) {
    {
      std::lock_guard lk(mu_);
      queue_.push_back(std::move(b));
    }
    cv_.notify_all();
  }
  // Waits until everything submitted so far is committed.
  void sync() {
    std::unique_lock lk(mu_);
    idle_cv_.wait(lk, [&] { return queue_.empty() && !busy_; });
  }
  const std::string& path() const { return path_; }

 private:
  explicit database(const std::string& path) : path_(path) {
    std::remove(path.c_str());  // a trace describes one run: never append to an old one
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      std::fprintf(stderr, "blockvec: cannot write the trace '%s': %s\n", path.c_str(),
                   db_ ? sqlite3_errmsg(db_) : "out of memory");
      if (db_) sqlite3_close(db_);
      db_ = nullptr;
      return;
    }
    // A trace is rebuilt by running again: speed matters more than surviving a power cut.
    sqlite3_exec(db_, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA page_size=8192;",
                 nullptr, nullptr, nullptr);
    char* err = nullptr;
    if (sqlite3_exec(db_, schema_sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::fprintf(stderr, "blockvec: cannot write the trace '%s': %s\n", path.c_str(),
                   err ? err : "?");
      sqlite3_free(err);
      sqlite3_close(db_);
      db_ = nullptr;
      return;
    }
    std::time_t now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    const std::string meta =
        "INSERT INTO meta VALUES('format','blockvec-trace'),('schema_version','" +
        std::to_string(schema_version) +
        "'),('writer','blockvec 0.1.0'),"
        "('created','" +
        when + "');";
    sqlite3_exec(db_, meta.c_str(), nullptr, nullptr, nullptr);
    thread_ = std::thread([this] { run(); });
  }

  void run() {
    sqlite3_stmt* ins_op = nullptr;
    sqlite3_stmt* ins_ev = nullptr;
    sqlite3_prepare_v2(db_,
                       "INSERT INTO ops(launch_id,program,seq,kind,site_id,tensor_id,rows,cols,"
                       "waves,lanes,active,oob,has_other,first,lo,hi,mask,addrs,rank) "
                       "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       -1, &ins_op, nullptr);
    sqlite3_prepare_v2(db_,
                       "INSERT INTO events(launch_id,program,after_seq,kind,site_id,name,text) "
                       "VALUES(?,?,?,?,?,?,?)",
                       -1, &ins_ev, nullptr);
    for (;;) {
      std::unique_ptr<batch> b;
      {
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) break;
        b = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
      }
      if (!failed_) write(*b, ins_op, ins_ev);
      {
        std::lock_guard lk(mu_);
        busy_ = false;
      }
      idle_cv_.notify_all();
    }
    sqlite3_finalize(ins_op);
    sqlite3_finalize(ins_ev);
  }

  void write(const batch& b, sqlite3_stmt* ins_op, sqlite3_stmt* ins_ev) {
    sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
    for (auto& f : b.misc) f(db_);
    for (const op_row& r : b.ops) {
      sqlite3_reset(ins_op);
      sqlite3_bind_int64(ins_op, 1, r.launch);
      sqlite3_bind_int64(ins_op, 2, r.program);
      sqlite3_bind_int64(ins_op, 3, r.seq);
      sqlite3_bind_int(ins_op, 4, r.kind);
      sqlite3_bind_int(ins_op, 5, r.site);
      if (r.tensor)
        sqlite3_bind_int(ins_op, 6, r.tensor);
      else
        sqlite3_bind_null(ins_op, 6);
      sqlite3_bind_int(ins_op, 7, r.rows);
      sqlite3_bind_int(ins_op, 8, r.cols);
      sqlite3_bind_int(ins_op, 9, r.waves);
      sqlite3_bind_int(ins_op, 10, r.lanes);
      sqlite3_bind_int(ins_op, 11, r.active);
      sqlite3_bind_int(ins_op, 12, r.oob);
      sqlite3_bind_int(ins_op, 13, r.has_other);
      sqlite3_bind_int64(ins_op, 14, r.first);
      if (r.active) {
        sqlite3_bind_int64(ins_op, 15, r.lo);
        sqlite3_bind_int64(ins_op, 16, r.hi);
      } else {
        sqlite3_bind_null(ins_op, 15);
        sqlite3_bind_null(ins_op, 16);
      }
      if (r.mask_len)
        sqlite3_bind_blob(ins_op, 17, b.arena.data() + r.mask_at, static_cast<int>(r.mask_len),
                          SQLITE_STATIC);
      else
        sqlite3_bind_null(ins_op, 17);
      // A zero-length blob, not NULL, for a one-lane op: addrs is NOT NULL.
      sqlite3_bind_blob(ins_op, 18, r.addr_len ? b.arena.data() + r.addr_at : "",
                        static_cast<int>(r.addr_len), SQLITE_STATIC);
      sqlite3_bind_int(ins_op, 19, r.rank);
      if (sqlite3_step(ins_op) != SQLITE_DONE) return fail("inserting an op");
    }
    for (const event_row& e : b.events) {
      sqlite3_reset(ins_ev);
      sqlite3_bind_int64(ins_ev, 1, e.launch);
      sqlite3_bind_int64(ins_ev, 2, e.program);
      sqlite3_bind_int64(ins_ev, 3, e.after_seq);
      sqlite3_bind_text(ins_ev, 4, e.kind, -1, SQLITE_STATIC);
      if (e.site)
        sqlite3_bind_int(ins_ev, 5, e.site);
      else
        sqlite3_bind_null(ins_ev, 5);
      sqlite3_bind_text(ins_ev, 6, e.name.data(), static_cast<int>(e.name.size()), SQLITE_STATIC);
      sqlite3_bind_text(ins_ev, 7, e.text.data(), static_cast<int>(e.text.size()), SQLITE_STATIC);
      if (sqlite3_step(ins_ev) != SQLITE_DONE) return fail("inserting an event");
    }
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) fail("commit");
  }
  void fail(const char* what) {
    warn_sql(db_, path_, what);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    failed_ = true;
  }

  static inline std::mutex g_mu;
  static inline std::unique_ptr<database> g_db;

  std::string path_;
  sqlite3* db_ = nullptr;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::unique_ptr<batch>> queue_;
  bool stop_ = false, busy_ = false, failed_ = false;
  std::atomic<int64_t> launches_{0};
  std::atomic<int> sites_{0}, tensors_{0};
  std::mutex src_mu_;
  std::map<std::string, int> sources_;

 public:
  std::mutex site_mu;  // guards sites
  std::unordered_map<site_key, int, site_hash> sites;
};

class trace_observer final : public observer {
 public:
  explicit trace_observer(database* db) : db_(db), gen_(++g_gen) {}
  uint32_t bit() const override { return 0; }

  void begin(launch_state& L) override {
    t0_ = std::chrono::steady_clock::now();
    launch_ = db_->next_launch();
    ops_.assign(L.programs.size(), 0);
    accesses_.assign(L.programs.size(), 0);
    const options& o = config();
    auto b = std::make_unique<batch>();
    const launch_desc& d = *L.desc;
    b->misc.push_back([id = launch_, k = L.kernel, g = d.g, w = d.waves, ws = o.wave_size,
                       sch = schedule_name(o.sched), chk = o.enabled, seed = o.seed,
                       tgt = target_name(o.tgt)](sqlite3* db) {
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db,
                         "INSERT INTO launches(id,kernel,grid_x,grid_y,grid_z,waves,wave_size,"
                         "schedule,checks,seed,target) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                         -1, &st, nullptr);
      sqlite3_bind_int64(st, 1, id);
      sqlite3_bind_text(st, 2, k.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(st, 3, g.x);
      sqlite3_bind_int(st, 4, g.y);
      sqlite3_bind_int(st, 5, g.z);
      sqlite3_bind_int(st, 6, w);
      sqlite3_bind_int(st, 7, ws);
      sqlite3_bind_text(st, 8, sch, -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, 9, chk);
      sqlite3_bind_int64(st, 10, static_cast<int64_t>(seed));
      sqlite3_bind_text(st, 11, tgt, -1, SQLITE_STATIC);
      sqlite3_step(st);
      sqlite3_finalize(st);
    });
    int arg = 0;
    for (const alloc_info* a : d.tensors) add_tensor(*b, a, arg++);
    db_->submit(std::move(b));
  }

  void on_access(const access& a, const bool*, program_state& s) override {
    buffer& tb = local();
    const int site = site_of(tb, a.loc, a.op);
    int tensor = 0;
    if (a.alloc) {
      auto it = tb.tensors.find(a.alloc);
      if (it == tb.tensors.end()) it = tb.tensors.emplace(a.alloc, tensor_of(a.alloc)).first;
      tensor = it->second;
    }
    const size_t prog = static_cast<size_t>(s.linear);
    op_row r{};
    r.launch = launch_;
    r.program = s.linear;
    r.seq = prog < ops_.size() ? ops_[prog]++ : 0;
    r.kind = static_cast<int>(a.kind);
    r.site = site;
    r.tensor = tensor;
    r.rows = a.rows;
    r.cols = a.cols;
    r.waves = a.waves;
    r.rank = a.rank;
    r.lanes = a.lanes;
    r.has_other = a.has_other;
    r.first = a.base + a.off[0];
    std::string& ar = tb.b->arena;
    r.mask_at = ar.size();
    int active = a.lanes;
    encode_mask(ar, a.mask, a.lanes, active);
    r.mask_len = ar.size() - r.mask_at;
    r.active = active;
    r.addr_at = ar.size();
    encode_addresses(ar, a.off, a.lanes);
    r.addr_len = ar.size() - r.addr_at;
    const int64_t numel = a.alloc ? a.alloc->numel : 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int oob = 0;
    for (int i = 0; i < a.lanes; ++i) {
      if (a.mask && !a.mask[i]) continue;
      const int64_t e = a.base + a.off[i];
      lo = e < lo ? e : lo;
      hi = e > hi ? e : hi;
      oob += e < 0 || e >= numel;
    }
    r.lo = lo;
    r.hi = hi;
    r.oob = oob;
    r.active = active;
    if (prog < accesses_.size()) accesses_[prog] += static_cast<uint64_t>(active);
    tb.b->ops.push_back(r);
    if (ar.size() > (4u << 20) || tb.b->ops.size() >= 16384) flush(tb);
  }

  void on_debug(const program_state& s, const debug_event& e) override {
    buffer& tb = local();
    static const char* const names[] = {"print", "stop", "watch"};
    const char* kind = names[static_cast<int>(e.what)];
    const size_t prog = static_cast<size_t>(s.linear);
    event_row ev{launch_,
                 s.linear,
                 prog < ops_.size() ? ops_[prog] : 0,
                 kind,
                 e.loc ? site_of(tb, e.loc, kind) : 0,
                 std::string(e.name),
                 std::string(e.text)};
    tb.b->events.push_back(std::move(ev));
  }

  void end(launch_state& L) override {
    // Every worker thread has joined: their buffers are ours to flush.
    for (auto& tb : buffers_) flush(*tb);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    auto b = std::make_unique<batch>();
    std::vector<int> diag_count(L.programs.size(), 0);
    std::vector<diagnostic> diags;
    std::string kernel;
    int errors = 0, warnings = 0;
    {
      std::lock_guard lk(L.mu);
      diags = L.diags;
      kernel = L.kernel;
    }
    for (auto& d : diags) {
      errors += d.sev == severity::error;
      warnings += d.sev == severity::warning;
    }
    const auto& g = L.desc->g;
    auto linear_of = [&](const diagnostic& d) -> int64_t {
      if (!d.has_pid) return -1;
      const int64_t l = d.pid[0] + int64_t(g.x) * (d.pid[1] + int64_t(g.y) * d.pid[2]);
      return l >= 0 && l < static_cast<int64_t>(L.programs.size()) ? l : -1;
    };
    for (auto& d : diags)
      if (int64_t l = linear_of(d); l >= 0) ++diag_count[static_cast<size_t>(l)];
    // Programs: one row each, in one prepared statement.
    b->misc.push_back([this, &L, &diag_count](sqlite3* db) {
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db, "INSERT INTO programs VALUES(?,?,?,?,?,?,?,?)", -1, &st, nullptr);
      for (size_t i = 0; i < L.programs.size(); ++i) {
        const auto& p = L.programs[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, launch_);
        sqlite3_bind_int64(st, 2, static_cast<int64_t>(i));
        sqlite3_bind_int(st, 3, p.pid[0]);
        sqlite3_bind_int(st, 4, p.pid[1]);
        sqlite3_bind_int(st, 5, p.pid[2]);
        sqlite3_bind_int64(st, 6, ops_[i]);
        sqlite3_bind_int64(st, 7, static_cast<int64_t>(accesses_[i]));
        sqlite3_bind_int(st, 8, diag_count[i]);
        sqlite3_step(st);
      }
      sqlite3_finalize(st);
    });
    int64_t total_ops = 0, total_acc = 0;
    for (size_t i = 0; i < ops_.size(); ++i) total_ops += ops_[i], total_acc += accesses_[i];
    b->misc.push_back([&, id = launch_, seconds, total_ops, total_acc, errors,
                       warnings](sqlite3* db) {
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db,
                         "UPDATE launches SET kernel=?, programs=?, ops=?, accesses=?, seconds=?, "
                         "errors=?, warnings=? WHERE id=?",
                         -1, &st, nullptr);
      sqlite3_bind_text(st, 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 2, static_cast<int64_t>(L.programs.size()));
      sqlite3_bind_int64(st, 3, total_ops);
      sqlite3_bind_int64(st, 4, total_acc);
      sqlite3_bind_double(st, 5, seconds);
      sqlite3_bind_int(st, 6, errors);
      sqlite3_bind_int(st, 7, warnings);
      sqlite3_bind_int64(st, 8, id);
      sqlite3_step(st);
      sqlite3_finalize(st);
      sqlite3_exec(db, index_sql, nullptr, nullptr, nullptr);
      // Diagnostics: the op they came from is the first op of their program at their line.
      sqlite3_prepare_v2(
          db,
          "INSERT INTO diagnostics(launch_id,kind,severity,headline,kernel,file,line,program,"
          "pid_x,pid_y,pid_z,tensor_id,op_id,lanes,offsets,detail,hint,json) "
          "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
          "(SELECT id FROM tensors WHERE launch_id=?1 AND name=?12 ORDER BY id LIMIT 1),"
          "(SELECT o.id FROM ops o JOIN sites s ON s.id=o.site_id WHERE o.launch_id=?1 AND "
          "o.program=?8 AND s.line=?7 ORDER BY o.seq LIMIT 1),?13,?14,?15,?16,?17)",
          -1, &st, nullptr);
      for (auto& d : diags) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, d.kind.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3,
                          d.sev == severity::error     ? "error"
                          : d.sev == severity::warning ? "warning"
                                                       : "note",
                          -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, d.headline.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 5, (d.kernel.empty() ? kernel : d.kernel).c_str(), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 6, d.file.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 7, d.line);
        if (const int64_t l = linear_of(d); l >= 0) {
          sqlite3_bind_int64(st, 8, l);
          sqlite3_bind_int(st, 9, d.pid[0]);
          sqlite3_bind_int(st, 10, d.pid[1]);
          sqlite3_bind_int(st, 11, d.pid[2]);
        }
        if (d.has_tensor) sqlite3_bind_text(st, 12, d.tensor.name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 13, json_ints(d.lanes).c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 14, json_ints(d.offsets).c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 15, d.detail.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 16, d.hint.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 17, d.json().c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_step(st);
      }
      sqlite3_finalize(st);
    });
    db_->submit(std::move(b));
    // The closures above refer to this launch's state: wait until they ran. It also makes the
    // file complete after every launch, so a viewer or a crash later in the program sees it.
    db_->sync();
  }

 private:
  struct buffer {
    std::unique_ptr<batch> b = std::make_unique<batch>();
    std::unordered_map<site_key, int, site_hash> sites;
    std::unordered_map<const alloc_info*, int> tensors;
  };
  struct tls_slot {
    uint64_t gen = 0;
    buffer* buf = nullptr;
  };

  buffer& local() {
    thread_local tls_slot slot;
    if (slot.gen != gen_) {
      auto nb = std::make_unique<buffer>();
      slot.buf = nb.get();
      slot.gen = gen_;
      std::lock_guard lk(mu_);
      buffers_.push_back(std::move(nb));
    }
    return *slot.buf;
  }
  void flush(buffer& tb) {
    if (tb.b->ops.empty() && tb.b->events.empty() && tb.b->misc.empty()) return;
    db_->submit(std::move(tb.b));
    tb.b = std::make_unique<batch>();
  }

  int site_of(buffer& tb, const std::source_location* loc, const char* op) {
    const site_key k{loc, op};
    if (auto it = tb.sites.find(k); it != tb.sites.end()) return it->second;
    int id;
    {
      std::lock_guard lk(db_->site_mu);
      auto& m = db_->sites;
      auto it = m.find(k);
      if (it != m.end()) {
        id = it->second;
      } else {
        id = db_->new_site_id();
        m.emplace(k, id);
        const int src = loc ? db_->source_id(loc->file_name()) : db_->source_id("?");
        auto b = std::make_unique<batch>();
        b->misc.push_back([id, src, line = loc ? static_cast<int>(loc->line()) : 0,
                           col = loc ? static_cast<int>(loc->column()) : 0,
                           fn = std::string(loc ? loc->function_name() : ""),
                           name = std::string(op ? op : "?")](sqlite3* db) {
          sqlite3_stmt* st = nullptr;
          sqlite3_prepare_v2(db, "INSERT INTO sites VALUES(?,?,?,?,?,?)", -1, &st, nullptr);
          sqlite3_bind_int(st, 1, id);
          sqlite3_bind_int(st, 2, src);
          sqlite3_bind_int(st, 3, line);
          sqlite3_bind_int(st, 4, col);
          sqlite3_bind_text(st, 5, fn.c_str(), -1, SQLITE_TRANSIENT);
          sqlite3_bind_text(st, 6, name.c_str(), -1, SQLITE_TRANSIENT);
          sqlite3_step(st);
          sqlite3_finalize(st);
        });
        // Submitted at once (not in this thread's buffer) so the site row precedes its ops.
        db_->submit(std::move(b));
      }
    }
    tb.sites.emplace(k, id);
    return id;
  }

  int tensor_of(const alloc_info* a) {
    std::lock_guard lk(mu_);
    if (auto it = tensor_ids_.find(a); it != tensor_ids_.end()) return it->second;
    auto b = std::make_unique<batch>();
    const int id = add_tensor(*b, a, -1);
    db_->submit(std::move(b));
    return id;
  }
  // Called under mu_ or before any program runs.
  int add_tensor(batch& b, const alloc_info* a, int arg) {
    if (auto it = tensor_ids_.find(a); it != tensor_ids_.end()) return it->second;
    const int id = db_->new_tensor_id();
    tensor_ids_.emplace(a, id);
    // Views of one buffer share its shadow state: that names the buffer across views.
    const auto buf = reinterpret_cast<int64_t>(a->shadow ? static_cast<const void*>(a->shadow.get())
                                                         : a->buffer);
    b.misc.push_back([id, launch = launch_, arg, buf, name = a->name, dtype = std::string(a->dtype),
                      eb = a->elem_bytes, shape = json_ints(a->shape),
                      strides = json_ints(a->strides), vo = a->view_offset, n = a->numel,
                      contig = a->contiguous](sqlite3* db) {
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db, "INSERT INTO tensors VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
                         nullptr);
      sqlite3_bind_int(st, 1, id);
      sqlite3_bind_int64(st, 2, launch);
      if (arg >= 0)
        sqlite3_bind_int(st, 3, arg);
      else
        sqlite3_bind_null(st, 3);
      sqlite3_bind_int64(st, 4, buf);
      sqlite3_bind_text(st, 5, name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 6, dtype.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(st, 7, eb);
      sqlite3_bind_text(st, 8, shape.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 9, strides.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 10, vo);
      sqlite3_bind_int64(st, 11, n);
      sqlite3_bind_int(st, 12, contig);
      sqlite3_step(st);
      sqlite3_finalize(st);
    });
    return id;
  }

  static inline std::atomic<uint64_t> g_gen{0};

  database* db_;
  uint64_t gen_;
  int64_t launch_ = 0;
  std::chrono::steady_clock::time_point t0_;
  std::vector<int64_t> ops_;
  std::vector<uint64_t> accesses_;
  std::mutex mu_;  // guards buffers_ and tensor_ids_
  std::vector<std::unique_ptr<buffer>> buffers_;
  std::unordered_map<const alloc_info*, int> tensor_ids_;
};

}  // namespace
}  // namespace bv::detail::trace

namespace bv::detail {
std::unique_ptr<observer> make_trace_observer() {
  trace::database* db = trace::database::for_path(config().trace_path);
  if (!db) return nullptr;
  return std::make_unique<trace::trace_observer>(db);
}
}  // namespace bv::detail
