// The live debugger's models. Each owns a copy of what the interpreter said at the last stop (or
// the last progress report): the views draw them and tests read them, and neither ever touches
// the running launch.
#pragma once
#include <QAbstractListModel>
#include <QAbstractTableModel>
#include <QColor>
#include <vector>

#include "app/views.hpp"
#include "bv/cpu/debug_query.hpp"

namespace bvv {

// Every program of the live launch and its state: not started, running, waiting (parked at a
// wait), stopped, done, error. Row = the program's linear index.
class program_states_model : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum column { col_program, col_state, col_line, n_columns };
  static constexpr int state_role = Qt::UserRole;  // int(bv::debug::program_status)
  using status = bv::debug::program_status;

  using QAbstractTableModel::QAbstractTableModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& i, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  void set_view(const bv::debug::launch_view& v);
  void clear();
  const bv::debug::launch_view& view() const { return v_; }
  status state_of(int program) const { return v_.programs.at(static_cast<size_t>(program)).state; }
  int count(status s) const;
  // The linear index of the program with this id, or -1.
  int index_of(int x, int y, int z) const;
  static QString pid_text(const std::array<int, 3>& pid);
  static QColor colour(status s);
  static QString name(status s);

 private:
  bv::debug::launch_view v_;
};

// The stopped program's live blocks, one row per source line it ran an op on: memory ops as
// pictures (element, mask, value, and the wave and lane holding each element on the target),
// reductions and dots as text.
class blocks_model : public QAbstractListModel {
  Q_OBJECT
 public:
  using QAbstractListModel::QAbstractListModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& i, int role) const override;

  void set_blocks(std::vector<bv::debug::live_block> blocks, const std::string& target,
                  int wave_size);
  void clear();
  const bv::debug::live_block& block(int row) const { return blocks_.at(static_cast<size_t>(row)); }
  const block_picture& picture(int row) const { return pics_.at(static_cast<size_t>(row)); }
  int row_of_line(int line) const;  // -1: no op at that line

 private:
  std::vector<bv::debug::live_block> blocks_;
  std::vector<block_picture> pics_;  // rows == 0 for a reduction's text
};

// The memory accesses of the live launch so far, one row per tensor: reads and writes by every
// program, and by the stopped one.
class memory_model : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum column {
    col_tensor,
    col_elements,
    col_reads,
    col_writes,
    col_mine_r,
    col_mine_w,
    n_columns
  };
  using QAbstractTableModel::QAbstractTableModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& i, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  void set_accesses(std::vector<bv::debug::tensor_accesses> t, const QString& program);
  void clear();
  const bv::debug::tensor_accesses& tensor(int row) const {
    return t_.at(static_cast<size_t>(row));
  }
  int row_of(const QString& name) const;  // -1: not accessed yet
  // Elements with at least one access (by every program / by the stopped one), a row's totals.
  int64_t touched(int row, bool mine) const;
  QString program() const { return program_; }

 private:
  std::vector<bv::debug::tensor_accesses> t_;
  QString program_;
};

// Line breakpoints set in the Source panel's margin: file, line and a program-id condition
// (empty: every program). The live panel hands the list to the interpreter whenever it changes.
class breakpoint_model : public QAbstractListModel {
  Q_OBJECT
 public:
  using QAbstractListModel::QAbstractListModel;
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& i, int role) const override;

  // Sets a breakpoint at file:line for `cond`, or clears the one there; true if it is set now.
  bool toggle(const QString& file, int line, const QString& cond);
  bool has(const QString& file, int line) const;
  QString condition(const QString& file, int line) const;
  void clear();
  std::vector<bv::debug::line_breakpoint> list() const;

 signals:
  void breakpoints_changed();

 private:
  std::vector<bv::debug::line_breakpoint> b_;
};

}  // namespace bvv
