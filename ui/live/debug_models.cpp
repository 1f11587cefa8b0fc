#include "debug_models.hpp"

#include <QFileInfo>
#include <algorithm>

namespace bvv {

// ---- program_states_model -----------------------------------------------------------------------

int program_states_model::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(v_.programs.size());
}
int program_states_model::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : n_columns;
}

QString program_states_model::pid_text(const std::array<int, 3>& pid) {
  return QString("(%1,%2,%3)").arg(pid[0]).arg(pid[1]).arg(pid[2]);
}

QString program_states_model::name(status s) {
  switch (s) {
    case status::not_started:
      return tr("not started");
    case status::running:
      return tr("running");
    case status::waiting:
      return tr("parked at a wait");
    case status::stopped:
      return tr("stopped");
    case status::done:
      return tr("done");
    case status::error:
      return tr("error");
  }
  return "?";
}

QColor program_states_model::colour(status s) {
  switch (s) {
    case status::not_started:
      return {225, 225, 225};
    case status::running:
      return {110, 170, 240};
    case status::waiting:
      return {240, 200, 90};
    case status::stopped:
      return {250, 130, 40};
    case status::done:
      return {120, 200, 120};
    case status::error:
      return {215, 50, 50};
  }
  return Qt::gray;
}

QVariant program_states_model::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount()) return {};
  const auto& p = v_.programs[static_cast<size_t>(i.row())];
  if (role == state_role) return static_cast<int>(p.state);
  if (role == Qt::BackgroundRole) return colour(p.state);
  if (role != Qt::DisplayRole) return {};
  switch (i.column()) {
    case col_program:
      return pid_text(p.pid);
    case col_state:
      return name(p.state);
    case col_line:
      return p.line ? QVariant(p.line) : QVariant();
  }
  return {};
}

QVariant program_states_model::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  static const char* names[] = {"program", "state", "line"};
  return section >= 0 && section < n_columns ? tr(names[section]) : QVariant();
}

void program_states_model::set_view(const bv::debug::launch_view& v) {
  // A new launch (or a new size) changes the rows; a later report of the same launch only the
  // states, which views redraw without losing their selection.
  if (v.serial != v_.serial || v.programs.size() != v_.programs.size()) {
    beginResetModel();
    v_ = v;
    endResetModel();
    return;
  }
  v_ = v;
  if (!v_.programs.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, n_columns - 1));
}

void program_states_model::clear() {
  beginResetModel();
  v_ = {};
  endResetModel();
}

int program_states_model::count(status s) const {
  return static_cast<int>(std::count_if(v_.programs.begin(), v_.programs.end(),
                                        [s](const auto& p) { return p.state == s; }));
}

int program_states_model::index_of(int x, int y, int z) const {
  const auto& g = v_.grid;
  if (x < 0 || y < 0 || z < 0 || x >= g[0] || y >= g[1] || z >= g[2]) return -1;
  const int64_t i = x + int64_t(g[0]) * (y + int64_t(g[1]) * z);
  return i < static_cast<int64_t>(v_.programs.size()) ? static_cast<int>(i) : -1;
}

// ---- blocks_model -------------------------------------------------------------------------------

namespace {
int dtype_bytes(const std::string& d) {
  if (d == "f64" || d == "i64") return 8;
  if (d == "f16" || d == "bf16" || d == "i16") return 2;
  if (d == "i8" || d == "u8" || d == "bool") return 1;
  return 4;
}
}  // namespace

int blocks_model::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(blocks_.size());
}

QVariant blocks_model::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount()) return {};
  const auto& b = blocks_[static_cast<size_t>(i.row())];
  const block_picture& pic = pics_[static_cast<size_t>(i.row())];
  if (role == Qt::ToolTipRole) return QString::fromStdString(bv::debug::block_text(b));
  if (role != Qt::DisplayRole) return {};
  if (b.value.empty())
    return tr("@%1 %2 = %3")
        .arg(b.line)
        .arg(QString::fromStdString(b.op), QString::fromStdString(b.text));
  return tr("@%1 %2 %3: %4x%5, %6 active")
      .arg(b.line)
      .arg(QString::fromStdString(b.op), QString::fromStdString(b.tensor))
      .arg(b.rows)
      .arg(b.cols)
      .arg(pic.active_lanes);
}

void blocks_model::set_blocks(std::vector<bv::debug::live_block> blocks, const std::string& target,
                              int wave_size) {
  beginResetModel();
  blocks_ = std::move(blocks);
  pics_.clear();
  for (const auto& b : blocks_) {
    block_picture p;
    if (!b.value.empty()) {
      p.rows = b.rows;
      p.cols = b.cols;
      p.waves = b.waves;
      p.wave_size = wave_size;
      p.target = target;
      p.rank = b.rank;
      p.elem_bytes = dtype_bytes(b.dtype);
      p.numel = b.numel;
      p.store = b.store;
      p.addr = b.element;
      p.active = b.active;
      p.value = b.value;
      p.fill_layout();
    }
    pics_.push_back(std::move(p));
  }
  endResetModel();
}

void blocks_model::clear() { set_blocks({}, "gfx942", 64); }

int blocks_model::row_of_line(int line) const {
  for (size_t i = 0; i < blocks_.size(); ++i)
    if (static_cast<int>(blocks_[i].line) == line) return static_cast<int>(i);
  return -1;
}

// ---- memory_model -------------------------------------------------------------------------------

int memory_model::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(t_.size());
}
int memory_model::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : n_columns;
}

namespace {
int64_t sum(const std::vector<uint32_t>& v) {
  int64_t s = 0;
  for (uint32_t x : v) s += x;
  return s;
}
}  // namespace

QVariant memory_model::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount() || role != Qt::DisplayRole) return {};
  const auto& t = t_[static_cast<size_t>(i.row())];
  switch (i.column()) {
    case col_tensor:
      return QString::fromStdString(t.name);
    case col_elements:
      return QVariant::fromValue<qlonglong>(t.numel);
    case col_reads:
      return QVariant::fromValue<qlonglong>(sum(t.reads));
    case col_writes:
      return QVariant::fromValue<qlonglong>(sum(t.writes));
    case col_mine_r:
      return QVariant::fromValue<qlonglong>(sum(t.program_reads));
    case col_mine_w:
      return QVariant::fromValue<qlonglong>(sum(t.program_writes));
  }
  return {};
}

QVariant memory_model::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  switch (section) {
    case col_tensor:
      return tr("tensor");
    case col_elements:
      return tr("elements");
    case col_reads:
      return tr("reads");
    case col_writes:
      return tr("writes");
    case col_mine_r:
      return tr("reads by %1").arg(program_);
    case col_mine_w:
      return tr("writes by %1").arg(program_);
  }
  return {};
}

void memory_model::set_accesses(std::vector<bv::debug::tensor_accesses> t, const QString& program) {
  beginResetModel();
  t_ = std::move(t);
  std::sort(t_.begin(), t_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  program_ = program;
  endResetModel();
  emit headerDataChanged(Qt::Horizontal, col_mine_r, col_mine_w);
}

void memory_model::clear() { set_accesses({}, {}); }

int memory_model::row_of(const QString& name) const {
  for (size_t i = 0; i < t_.size(); ++i)
    if (QString::fromStdString(t_[i].name) == name) return static_cast<int>(i);
  return -1;
}

int64_t memory_model::touched(int row, bool mine) const {
  const auto& t = tensor(row);
  const auto& r = mine ? t.program_reads : t.reads;
  const auto& w = mine ? t.program_writes : t.writes;
  int64_t n = 0;
  for (size_t e = 0; e < r.size(); ++e) n += r[e] || w[e];
  return n;
}

// ---- breakpoint_model ---------------------------------------------------------------------------

int breakpoint_model::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(b_.size());
}

QVariant breakpoint_model::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount() || role != Qt::DisplayRole) return {};
  const auto& b = b_[static_cast<size_t>(i.row())];
  return tr("%1:%2 %3")
      .arg(QFileInfo(QString::fromStdString(b.file)).fileName())
      .arg(b.line)
      .arg(b.cond.empty() ? tr("every program")
                          : tr("programs %1").arg(QString::fromStdString(b.cond)));
}

bool breakpoint_model::toggle(const QString& file, int line, const QString& cond) {
  const std::string f = file.toStdString();
  for (size_t i = 0; i < b_.size(); ++i)
    if (b_[i].file == f && b_[i].line == line) {
      beginRemoveRows({}, static_cast<int>(i), static_cast<int>(i));
      b_.erase(b_.begin() + static_cast<std::ptrdiff_t>(i));
      endRemoveRows();
      emit breakpoints_changed();
      return false;
    }
  beginInsertRows({}, rowCount(), rowCount());
  b_.push_back({f, line, cond.trimmed().toStdString()});
  endInsertRows();
  emit breakpoints_changed();
  return true;
}

bool breakpoint_model::has(const QString& file, int line) const {
  const std::string f = file.toStdString();
  return std::any_of(b_.begin(), b_.end(),
                     [&](const auto& b) { return b.file == f && b.line == line; });
}

QString breakpoint_model::condition(const QString& file, int line) const {
  const std::string f = file.toStdString();
  for (const auto& b : b_)
    if (b.file == f && b.line == line) return QString::fromStdString(b.cond);
  return {};
}

void breakpoint_model::clear() {
  beginResetModel();
  b_.clear();
  endResetModel();
  emit breakpoints_changed();
}

std::vector<bv::debug::line_breakpoint> breakpoint_model::list() const { return b_; }

}  // namespace bvv
