// The viewer's models: the open trace, what is selected, and the tables the views show. The
// document owns the data; every query runs on a worker thread (QtConcurrent) with its own SQLite
// connection, and results come back as signals, so the UI thread never waits on the file.
#pragma once
#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "trace/trace_db.hpp"

namespace bvv {

// Everything about one launch that the views need up front (small: no op rows).
struct launch_data {
  bvt::launch_info launch;
  std::vector<bvt::tensor_info> tensors;
  std::vector<bvt::program_info> programs;
  std::vector<bvt::diagnostic_info> diagnostics;
  std::vector<bvt::site_stat> site_stats;
};
struct trace_summary {
  std::vector<bvt::launch_info> launches;
  std::vector<bvt::site_info> sites;
  std::vector<bvt::source_info> sources;
  int schema_version = 0;
};

// Reads and writes of one tensor, binned to at most ~4M cells, with rows past either end for
// accesses outside the tensor (clamped to `margin` rows each side).
struct heat_map {
  int64_t tensor_id = -1, program = -1;
  int cols = 1, rows = 0, margin_before = 0, margin_after = 0;
  int64_t bin = 1;                                       // elements per cell
  int64_t numel = 0;                                     // the tensor's (buffer's) elements
  std::vector<uint32_t> reads, writes, masked, outside;  // per cell, rows_total * cols
  uint32_t max_count = 0;
  int64_t ops = 0, accesses = 0, oob = 0;
  int rows_total() const { return rows + margin_before + margin_after; }
  // The cell of element e (may lie in a margin row), or -1 beyond the margins.
  int64_t cell_of(int64_t e) const;
};

class trace_document : public QObject {
  Q_OBJECT
 public:
  explicit trace_document(QObject* parent = nullptr);
  ~trace_document() override;

  // last_launch: show the trace's newest launch (live mode appends one per run) rather than the
  // one with the most diagnostics.
  void open(const QString& path, bool last_launch = false);
  const QString& path() const { return path_; }
  bool is_open() const { return summary_ != nullptr; }
  int busy() const { return busy_; }
  const QString& error() const { return error_; }

  const trace_summary* summary() const { return summary_.get(); }
  const launch_data* launch() const { return launch_.get(); }
  int launch_index() const { return launch_index_; }
  const bvt::site_info* site(int64_t id) const;
  const bvt::source_info* source(int64_t id) const;
  const bvt::tensor_info* tensor(int64_t id) const;

  // Selection.
  int64_t program() const { return program_; }
  const bvt::program_info* program_info() const;
  const bvt::op_info* op() const { return op_ ? op_.get() : nullptr; }
  const std::vector<bvt::event_info>& events() const { return events_; }
  int64_t diagnostic() const { return diagnostic_; }
  const bvt::diagnostic_info* diagnostic_info() const;
  int64_t memory_tensor() const { return memory_tensor_; }
  bool memory_all_programs() const { return memory_all_; }
  const heat_map* heat() const { return heat_.get(); }
  // The source line to show (from the op or the diagnostic), 0 if none.
  int64_t focus_source() const { return focus_source_; }
  int focus_line() const { return focus_line_; }

  void select_launch(int index);
  void select_program(int64_t linear);
  bool select_program_pid(int x, int y, int z);
  void select_op(int64_t op_id);
  // The seq-th op of the selected program.
  void select_op_seq(int64_t seq);
  void select_diagnostic(int64_t id);
  void select_memory(int64_t tensor_id, bool all_programs);

 signals:
  void opened();
  void failed(const QString& message);
  void launch_changed();
  void program_changed();
  void op_changed();
  void diagnostic_changed();
  void heat_changed();
  void busy_changed(int busy);

 private:
  template <class R, class F, class D>
  void run(F work, D done);
  void load_launch();
  void request_heat();

  QString path_, error_;
  bool last_launch_ = false;
  std::unique_ptr<trace_summary> summary_;
  std::unique_ptr<launch_data> launch_;
  int launch_index_ = -1;
  int64_t program_ = -1, diagnostic_ = -1, memory_tensor_ = -1;
  bool memory_all_ = true;
  std::unique_ptr<bvt::op_info> op_;
  std::vector<bvt::event_info> events_;
  std::unique_ptr<heat_map> heat_;
  int64_t focus_source_ = 0;
  int focus_line_ = 0;
  std::vector<int64_t> pending_highlight_;
  bool keep_op_ = false;
  int busy_ = 0;
  uint64_t gen_launch_ = 0, gen_program_ = 0, gen_op_ = 0, gen_heat_ = 0;
  std::map<int64_t, size_t> site_index_, source_index_;
};

// The ops of the selected program, fetched page by page as the table scrolls.
class ops_model : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit ops_model(trace_document* doc, QObject* parent = nullptr);
  int rowCount(const QModelIndex& = {}) const override;
  int columnCount(const QModelIndex& = {}) const override { return 6; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;
  const bvt::op_info* at(int row) const;
  int row_of_op(int64_t op_id) const;

 private:
  void reset();
  trace_document* doc_;
  std::vector<bvt::op_info> rows_;
  int64_t total_ = 0;
  bool fetching_ = false;
  uint64_t gen_ = 0;
};

class diagnostics_model : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit diagnostics_model(trace_document* doc, QObject* parent = nullptr);
  int rowCount(const QModelIndex& = {}) const override;
  int columnCount(const QModelIndex& = {}) const override { return 5; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  int row_of(int64_t id) const;
  int64_t id_at(int row) const;

 private:
  trace_document* doc_;
};

}  // namespace bvv
