#include "document.hpp"

#include <QBrush>
#include <QColor>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

namespace bvv {

namespace {
// A result or the message of the trace_error that stopped the query.
template <class R>
struct outcome {
  std::shared_ptr<R> value;
  QString error;
};
}  // namespace

int64_t heat_map::cell_of(int64_t e) const {
  // Element e sits at row (e / bin) / cols relative to the first real row.
  const int64_t b = e >= 0 ? e / bin : -((-e + bin - 1) / bin);
  int64_t row = b >= 0 ? b / cols : -((-b + cols - 1) / cols);
  const int64_t col = b - row * cols;
  if (row < -margin_before) row = -margin_before;
  if (row >= rows + margin_after) row = rows + margin_after - 1;
  return (row + margin_before) * cols + col;
}

trace_document::trace_document(QObject* parent) : QObject(parent) {}
trace_document::~trace_document() {
  // Workers only touch their own SQLite connection and return values; nothing to cancel.
  QThreadPool::globalInstance()->waitForDone();
}

template <class R, class F, class D>
void trace_document::run(F work, D done) {
  ++busy_;
  emit busy_changed(busy_);
  auto* w = new QFutureWatcher<outcome<R>>(this);
  const QString path = path_;
  connect(w, &QFutureWatcher<outcome<R>>::finished, this, [this, w, done] {
    const outcome<R> r = w->result();
    w->deleteLater();
    --busy_;
    if (r.error.isEmpty())
      done(r.value);
    else {
      error_ = r.error;
      emit failed(r.error);
    }
    emit busy_changed(busy_);
  });
  w->setFuture(QtConcurrent::run([path, work]() -> outcome<R> {
    outcome<R> o;
    try {
      auto db = bvt::trace_db::open(path.toStdString());
      o.value = std::make_shared<R>(work(*db));
    } catch (const std::exception& e) {
      o.error = QString::fromStdString(e.what());
    }
    return o;
  }));
}

void trace_document::open(const QString& path, bool last_launch) {
  path_ = path;
  last_launch_ = last_launch;
  error_.clear();
  summary_.reset();
  launch_.reset();
  op_.reset();
  heat_.reset();
  program_ = diagnostic_ = memory_tensor_ = -1;
  ++gen_launch_;
  run<trace_summary>(
      [](bvt::trace_db& db) {
        trace_summary s;
        s.schema_version = db.schema_version();
        s.launches = db.launches();
        s.sites = db.sites();
        s.sources = db.sources();
        return s;
      },
      [this](std::shared_ptr<trace_summary> s) {
        summary_ = std::make_unique<trace_summary>(std::move(*s));
        site_index_.clear();
        source_index_.clear();
        for (size_t i = 0; i < summary_->sites.size(); ++i) site_index_[summary_->sites[i].id] = i;
        for (size_t i = 0; i < summary_->sources.size(); ++i)
          source_index_[summary_->sources[i].id] = i;
        emit opened();
        if (summary_->launches.empty()) {
          error_ = tr("the trace holds no launch: did the program run a kernel while tracing?");
          emit failed(error_);
          return;
        }
        // The launch with the most diagnostics is the interesting one; else the first.
        int best = 0;
        for (size_t i = 0; i < summary_->launches.size(); ++i)
          if (summary_->launches[i].errors + summary_->launches[i].warnings >
              summary_->launches[best].errors + summary_->launches[best].warnings)
            best = static_cast<int>(i);
        if (last_launch_) best = static_cast<int>(summary_->launches.size()) - 1;
        select_launch(best);
      });
}

const bvt::site_info* trace_document::site(int64_t id) const {
  auto it = site_index_.find(id);
  return it == site_index_.end() ? nullptr : &summary_->sites[it->second];
}
const bvt::source_info* trace_document::source(int64_t id) const {
  auto it = source_index_.find(id);
  return it == source_index_.end() ? nullptr : &summary_->sources[it->second];
}
const bvt::tensor_info* trace_document::tensor(int64_t id) const {
  if (!launch_) return nullptr;
  for (auto& t : launch_->tensors)
    if (t.id == id) return &t;
  return nullptr;
}
const bvt::program_info* trace_document::program_info() const {
  if (!launch_ || program_ < 0 || program_ >= static_cast<int64_t>(launch_->programs.size()))
    return nullptr;
  return &launch_->programs[static_cast<size_t>(program_)];
}
const bvt::diagnostic_info* trace_document::diagnostic_info() const {
  if (!launch_) return nullptr;
  for (auto& d : launch_->diagnostics)
    if (d.id == diagnostic_) return &d;
  return nullptr;
}

void trace_document::select_launch(int index) {
  if (!summary_ || index < 0 || index >= static_cast<int>(summary_->launches.size())) return;
  launch_index_ = index;
  load_launch();
}

void trace_document::load_launch() {
  const int64_t id = summary_->launches[static_cast<size_t>(launch_index_)].id;
  const uint64_t gen = ++gen_launch_;
  run<launch_data>(
      [id](bvt::trace_db& db) {
        launch_data d;
        for (auto& l : db.launches())
          if (l.id == id) d.launch = l;
        d.tensors = db.tensors(id);
        d.programs = db.programs(id);
        d.diagnostics = db.diagnostics(id, 20000);
        d.site_stats = db.site_stats(id);
        return d;
      },
      [this, gen](std::shared_ptr<launch_data> d) {
        if (gen != gen_launch_) return;
        launch_ = std::make_unique<launch_data>(std::move(*d));
        program_ = -1;
        diagnostic_ = -1;
        op_.reset();
        heat_.reset();
        memory_tensor_ = launch_->tensors.empty() ? -1 : launch_->tensors.back().id;
        // The last tensor argument is usually the output; with diagnostics, their tensor.
        for (auto& dg : launch_->diagnostics)
          if (dg.tensor_id >= 0) {
            memory_tensor_ = dg.tensor_id;
            break;
          }
        emit launch_changed();
        int64_t first = 0;
        for (auto& p : launch_->programs)
          if (p.diagnostics) {
            first = p.program;
            break;
          }
        if (!launch_->programs.empty()) select_program(first);
        request_heat();
      });
}

void trace_document::select_program(int64_t linear) {
  if (!launch_ || linear < 0 || linear >= static_cast<int64_t>(launch_->programs.size())) return;
  if (linear == program_) return;
  program_ = linear;
  op_.reset();
  events_.clear();
  emit program_changed();
  emit op_changed();
  const int64_t lid = launch_->launch.id;
  const uint64_t gen = ++gen_program_;
  run<std::vector<bvt::event_info>>(
      [lid, linear](bvt::trace_db& db) { return db.events(lid, linear); },
      [this, gen](std::shared_ptr<std::vector<bvt::event_info>> ev) {
        if (gen != gen_program_) return;
        events_ = std::move(*ev);
        emit op_changed();
      });
  if (!memory_all_) request_heat();
  if (!keep_op_) select_op_seq(0);
}

bool trace_document::select_program_pid(int x, int y, int z) {
  if (!launch_) return false;
  for (auto& p : launch_->programs)
    if (p.pid[0] == x && p.pid[1] == y && p.pid[2] == z) {
      select_program(p.program);
      return true;
    }
  return false;
}

void trace_document::select_op_seq(int64_t seq) {
  if (!launch_ || program_ < 0) return;
  const int64_t lid = launch_->launch.id, prog = program_;
  const uint64_t gen = ++gen_op_;
  run<std::vector<bvt::op_info>>(
      [lid, prog, seq](bvt::trace_db& db) { return db.ops_of_program(lid, prog, seq, 1); },
      [this, gen](std::shared_ptr<std::vector<bvt::op_info>> ops) {
        if (gen != gen_op_) return;
        if (ops->empty()) {
          op_.reset();
        } else {
          op_ = std::make_unique<bvt::op_info>((*ops)[0]);
          if (auto* s = site(op_->site_id)) focus_source_ = s->source_id, focus_line_ = s->line;
        }
        emit op_changed();
      });
}

void trace_document::select_op(int64_t op_id) {
  const uint64_t gen = ++gen_op_;
  run<bvt::op_info>(
      [op_id](bvt::trace_db& db) {
        bvt::op_info o;
        if (!db.op_by_id(op_id, o))
          throw bvt::trace_error("op " + std::to_string(op_id) + " is not in the trace");
        return o;
      },
      [this, gen](std::shared_ptr<bvt::op_info> o) {
        if (gen != gen_op_) return;
        if (o->program != program_) {
          keep_op_ = true;  // keep select_program from picking op 0
          select_program(o->program);
          keep_op_ = false;
        }
        op_ = std::make_unique<bvt::op_info>(*o);
        if (auto* s = site(op_->site_id)) focus_source_ = s->source_id, focus_line_ = s->line;
        emit op_changed();
      });
}

void trace_document::select_diagnostic(int64_t id) {
  diagnostic_ = id;
  const bvt::diagnostic_info* d = diagnostic_info();
  if (!d) return;
  // Its source line: the source whose path matches the diagnostic's file.
  for (auto& s : summary_->sources)
    if (s.path == d->file) focus_source_ = s.id, focus_line_ = d->line;
  if (d->tensor_id >= 0 && d->tensor_id != memory_tensor_) {
    memory_tensor_ = d->tensor_id;
    request_heat();
  }
  if (d->op_id >= 0)
    select_op(d->op_id);
  else if (d->program >= 0)
    select_program(d->program);
  emit diagnostic_changed();
}

void trace_document::select_memory(int64_t tensor_id, bool all_programs) {
  memory_tensor_ = tensor_id;
  memory_all_ = all_programs;
  request_heat();
}

void trace_document::request_heat() {
  const bvt::tensor_info* t = tensor(memory_tensor_);
  if (!t) {
    heat_.reset();
    emit heat_changed();
    return;
  }
  const bvt::tensor_info ti = *t;
  const int64_t prog = memory_all_ ? -1 : program_;
  if (!memory_all_ && prog < 0) return;
  const uint64_t gen = ++gen_heat_;
  run<heat_map>(
      [ti, prog](bvt::trace_db& db) {
        heat_map h;
        h.tensor_id = ti.id;
        h.program = prog;
        h.numel = std::max<int64_t>(ti.numel, 1);
        // 2-D and higher: one row per index of the leading dimensions; 1-D: a square-ish wrap.
        int64_t cols;
        if (ti.shape.size() >= 2 && ti.contiguous && ti.shape.back() > 0)
          cols = ti.shape.back();
        else if (ti.shape.size() >= 2 && ti.strides.size() >= 2 &&
                 ti.strides[ti.shape.size() - 2] > 0)
          cols = ti.strides[ti.shape.size() - 2];
        else
          cols = std::max<int64_t>(
              16, static_cast<int64_t>(std::ceil(std::sqrt(double(h.numel)) / 16.0)) * 16);
        cols = std::min<int64_t>(cols, h.numel);
        int64_t bin = 1;
        while ((h.numel / bin) > (4 << 20) || cols / bin > 4096) bin *= 2;
        h.bin = bin;
        h.cols = static_cast<int>(std::max<int64_t>(1, (cols + bin - 1) / bin));
        const int64_t cells = (h.numel + bin - 1) / bin;
        h.rows = static_cast<int>((cells + h.cols - 1) / h.cols);
        // First pass over op bounds: how far outside the tensor accesses go.
        int64_t lo = 0, hi = h.numel - 1;
        db.for_each_op_of_tensor(ti.id, prog, [&](const bvt::op_info& o) {
          if (o.active) lo = std::min(lo, o.lo), hi = std::max(hi, o.hi);
          return true;
        });
        const int64_t per_row = int64_t(h.cols) * bin;
        const int max_margin = std::max(2, h.rows / 4);
        h.margin_before =
            lo < 0 ? static_cast<int>(std::min<int64_t>(max_margin, (-lo + per_row - 1) / per_row))
                   : 0;
        h.margin_after =
            hi >= h.numel
                ? static_cast<int>(std::min<int64_t>(max_margin, (hi - h.numel) / per_row + 1))
                : 0;
        const size_t total = static_cast<size_t>(h.rows_total()) * h.cols;
        h.reads.assign(total, 0);
        h.writes.assign(total, 0);
        h.masked.assign(total, 0);
        h.outside.assign(total, 0);
        std::vector<int64_t> addr;
        db.for_each_op_of_tensor(ti.id, prog, [&](const bvt::op_info& o) {
          if (!bvt::decode_addresses(o.first, o.addrs, o.lanes, addr))
            throw bvt::trace_error("the trace is damaged: op " + std::to_string(o.id) +
                                   " has an address blob that does not decode");
          ++h.ops;
          for (int i = 0; i < o.lanes; ++i) {
            const int64_t c = h.cell_of(addr[static_cast<size_t>(i)]);
            if (c < 0 || c >= static_cast<int64_t>(total)) continue;
            const auto ci = static_cast<size_t>(c);
            if (!o.lane_active(i)) {
              ++h.masked[ci];
              continue;
            }
            ++h.accesses;
            const int64_t e = addr[static_cast<size_t>(i)];
            if (e < 0 || e >= h.numel) ++h.outside[ci], ++h.oob;
            uint32_t& n = o.kind == bvt::op_kind::load ? h.reads[ci] : h.writes[ci];
            ++n;
            h.max_count = std::max(h.max_count, n);
          }
          return true;
        });
        return h;
      },
      [this, gen](std::shared_ptr<heat_map> h) {
        if (gen != gen_heat_) return;
        heat_ = std::make_unique<heat_map>(std::move(*h));
        emit heat_changed();
      });
}

// ---- ops_model -------------------------------------------------------------------------------

ops_model::ops_model(trace_document* doc, QObject* parent)
    : QAbstractTableModel(parent), doc_(doc) {
  connect(doc_, &trace_document::program_changed, this, &ops_model::reset);
  connect(doc_, &trace_document::launch_changed, this, &ops_model::reset);
}
void ops_model::reset() {
  beginResetModel();
  rows_.clear();
  ++gen_;
  fetching_ = false;
  const bvt::program_info* p = doc_->program_info();
  total_ = p ? p->ops : 0;
  endResetModel();
}
int ops_model::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
bool ops_model::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && static_cast<int64_t>(rows_.size()) < total_ && !fetching_;
}
void ops_model::fetchMore(const QModelIndex&) {
  if (fetching_ || !doc_->launch()) return;
  fetching_ = true;
  const int64_t lid = doc_->launch()->launch.id, prog = doc_->program(),
                offset = static_cast<int64_t>(rows_.size());
  const uint64_t gen = gen_;
  const std::string path = doc_->path().toStdString();
  auto* w = new QFutureWatcher<std::vector<bvt::op_info>>(this);
  connect(w, &QFutureWatcher<std::vector<bvt::op_info>>::finished, this, [this, w, gen] {
    auto page = w->result();
    w->deleteLater();
    if (gen != gen_) return;
    fetching_ = false;
    if (page.empty()) {
      total_ = static_cast<int64_t>(rows_.size());
      return;
    }
    beginInsertRows({}, static_cast<int>(rows_.size()),
                    static_cast<int>(rows_.size() + page.size()) - 1);
    for (auto& o : page) rows_.push_back(std::move(o));
    endInsertRows();
  });
  w->setFuture(QtConcurrent::run([path, lid, prog, offset]() {
    try {
      auto db = bvt::trace_db::open(path);
      return db->ops_of_program(lid, prog, offset, 256);
    } catch (const std::exception&) {
      return std::vector<bvt::op_info>{};  // the document reports file errors
    }
  }));
}
const bvt::op_info* ops_model::at(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? &rows_[static_cast<size_t>(row)]
                                                          : nullptr;
}
int ops_model::row_of_op(int64_t op_id) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].id == op_id) return static_cast<int>(i);
  return -1;
}
QVariant ops_model::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "op", "line", "tensor", "active", "outside"};
  return tr(names[section]);
}
QVariant ops_model::data(const QModelIndex& index, int role) const {
  const bvt::op_info* o = at(index.row());
  if (!o) return {};
  if (role == Qt::ForegroundRole && o->oob) return QBrush(QColor(200, 30, 30));
  if (role != Qt::DisplayRole) return {};
  const bvt::site_info* s = doc_->site(o->site_id);
  switch (index.column()) {
    case 0:
      return QString::number(o->seq);
    case 1:
      return s ? QString::fromStdString(s->op) : QString("?");
    case 2:
      return s ? QString::number(s->line) : QString();
    case 3: {
      const bvt::tensor_info* t = doc_->tensor(o->tensor_id);
      return t ? QString::fromStdString(t->name) : QString("-");
    }
    case 4:
      return QString("%1/%2").arg(o->active).arg(o->lanes);
    case 5:
      return o->oob ? QString::number(o->oob) : QString();
  }
  return {};
}

// ---- diagnostics_model -----------------------------------------------------------------------

diagnostics_model::diagnostics_model(trace_document* doc, QObject* parent)
    : QAbstractTableModel(parent), doc_(doc) {
  connect(doc_, &trace_document::launch_changed, this, [this] {
    beginResetModel();
    endResetModel();
  });
}
int diagnostics_model::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !doc_->launch() ? 0
                                             : static_cast<int>(doc_->launch()->diagnostics.size());
}
int diagnostics_model::row_of(int64_t id) const {
  if (!doc_->launch()) return -1;
  const auto& ds = doc_->launch()->diagnostics;
  for (size_t i = 0; i < ds.size(); ++i)
    if (ds[i].id == id) return static_cast<int>(i);
  return -1;
}
int64_t diagnostics_model::id_at(int row) const {
  if (row < 0 || row >= rowCount()) return -1;
  return doc_->launch()->diagnostics[static_cast<size_t>(row)].id;
}
QVariant diagnostics_model::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"severity", "kind", "program", "line", "message"};
  return tr(names[section]);
}
QVariant diagnostics_model::data(const QModelIndex& index, int role) const {
  if (index.row() < 0 || index.row() >= rowCount()) return {};
  const auto& d = doc_->launch()->diagnostics[static_cast<size_t>(index.row())];
  if (role == Qt::ForegroundRole && index.column() == 0)
    return QBrush(d.severity == "error" ? QColor(200, 30, 30) : QColor(180, 120, 0));
  if (role == Qt::ToolTipRole)
    return QString::fromStdString(d.headline + (d.hint.empty() ? "" : "\nhint: " + d.hint));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case 0:
      return QString::fromStdString(d.severity);
    case 1:
      return QString::fromStdString(d.kind);
    case 2:
      return d.program >= 0 ? QString("(%1,%2,%3)").arg(d.pid[0]).arg(d.pid[1]).arg(d.pid[2])
                            : QString("-");
    case 3:
      return d.line ? QString::number(d.line) : QString();
    case 4:
      return QString::fromStdString(d.headline);
  }
  return {};
}

}  // namespace bvv
