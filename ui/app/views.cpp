#include "views.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "bv/layout.hpp"

namespace bvv {

namespace {
QColor wave_colour(int wave, int waves, int lane, int wave_size) {
  const int hue = (200 + wave * 360 / std::max(waves, 1)) % 360;
  const int light = 120 + 90 * lane / std::max(wave_size, 1);
  return QColor::fromHsl(hue, 150, std::min(light, 215));
}
const QColor k_red(215, 40, 40);
}  // namespace

// ---- block_picture / block_grid -------------------------------------------------------------

void block_picture::fill_layout() {
  const size_t n = static_cast<size_t>(rows) * cols;
  wave.assign(n, 0);
  lane.assign(n, 0);
  bv::target t = wave_size == 32 ? bv::target::sm_90 : bv::default_target;
  bv::parse_target(target.c_str(), t);
  const auto L = bv::layout::map_for(t, rank, rows, cols, waves);
  wave_size = L.wave_size();
  if (static_cast<size_t>(L.size()) == n)
    for (int e = 0; e < L.size(); ++e) {
      const bv::layout::slot h = L.holder(e);
      wave[static_cast<size_t>(e)] = h.wave;
      lane[static_cast<size_t>(e)] = h.lane;
    }
  active_lanes = 0;
  std::vector<std::set<int64_t>> segs(static_cast<size_t>(std::max(waves, 1)));
  std::vector<int> per_wave(segs.size(), 0);
  for (size_t i = 0; i < n && i < addr.size(); ++i) {
    if (!active[i]) continue;
    ++active_lanes;
    const size_t w = static_cast<size_t>(wave[i]) % segs.size();
    segs[w].insert(addr[i] * elem_bytes / 128);
    ++per_wave[w];
  }
  segments = ideal_segments = 0;
  for (size_t w = 0; w < segs.size(); ++w) {
    segments += static_cast<int>(segs[w].size());
    ideal_segments += (per_wave[w] * elem_bytes + 127) / 128;
  }
}

block_grid::block_grid(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 120);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}
void block_grid::set_block(const block_picture* b) {
  b_ = b;
  update();
}
void block_grid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!b_ || b_->rows == 0 || b_->cols == 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("select an op"));
    return;
  }
  // Long 1-D blocks wrap into rows of 32 so that each lane stays visible.
  int rows = b_->rows, cols = b_->cols;
  if (rows == 1 && cols > 64) cols = 32, rows = (b_->cols + 31) / 32;
  const double cw = std::max(1.0, (width() - 8.0) / cols),
               ch = std::max(1.0, (height() - 8.0) / rows);
  const double cs = std::min(cw, ch);
  const bool text = cs >= 30;
  QFont f = font();
  f.setPointSizeF(std::max(6.0, cs / 5));
  p.setFont(f);
  const size_t n = static_cast<size_t>(b_->rows) * b_->cols;
  for (size_t i = 0; i < n && i < b_->addr.size(); ++i) {
    const int r = static_cast<int>(i) / cols, c = static_cast<int>(i) % cols;
    const QRectF cell(4 + c * cs, 4 + r * cs, cs, cs);
    const bool on = b_->active[i];
    const int64_t a = b_->addr[i];
    const bool outside = a < 0 || a >= b_->numel;
    if (on) {
      p.fillRect(cell, wave_colour(b_->wave[i], b_->waves, b_->lane[i], b_->wave_size));
    } else {
      p.fillRect(cell, QColor(225, 225, 225));
      p.fillRect(cell, QBrush(QColor(150, 150, 150), Qt::BDiagPattern));
    }
    if (on && outside) {
      p.setPen(QPen(k_red, std::max(1.5, cs / 8)));
      p.drawRect(cell.adjusted(1, 1, -1, -1));
    } else if (cs >= 6) {
      p.setPen(QPen(QColor(255, 255, 255), 0.5));
      p.drawRect(cell);
    }
    if (text) {
      p.setPen(on ? Qt::black : QColor(110, 110, 110));
      p.drawText(cell, Qt::AlignCenter,
                 i < b_->value.size() ? QString::fromStdString(b_->value[i]) : QString::number(a));
    }
  }
}

// ---- op_inspector ---------------------------------------------------------------------------

op_inspector::op_inspector(trace_document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(4, 4, 4, 4);
  title_ = new QLabel(this);
  title_->setTextFormat(Qt::RichText);
  grid_ = new block_grid(this);
  figures_ = new QLabel(this);
  figures_->setWordWrap(true);
  watched_ = new QPlainTextEdit(this);
  watched_->setReadOnly(true);
  watched_->setMaximumHeight(90);
  watched_->setPlaceholderText(tr("watched values and prints of this program appear here"));
  v->addWidget(title_);
  v->addWidget(grid_, 1);
  v->addWidget(figures_);
  v->addWidget(watched_);
  connect(doc_, &trace_document::op_changed, this, &op_inspector::refresh);
  refresh();
}

void op_inspector::refresh() {
  const bvt::op_info* o = doc_->op();
  pic_ = {};
  watched_->clear();
  if (!o || !doc_->launch()) {
    title_->setText(tr("<b>Op inspector</b>: no op selected"));
    figures_->clear();
    grid_->set_block(nullptr);
    return;
  }
  const bvt::tensor_info* t = doc_->tensor(o->tensor_id);
  const bvt::site_info* s = doc_->site(o->site_id);
  pic_.rows = o->rows;
  pic_.cols = o->cols;
  pic_.waves = o->waves;
  pic_.wave_size = doc_->launch()->launch.wave_size;
  pic_.target = doc_->launch()->launch.target;
  pic_.rank = o->rank;
  pic_.elem_bytes = t ? t->elem_bytes : 4;
  pic_.numel = t ? t->numel : 0;
  pic_.store = o->kind != bvt::op_kind::load;
  try {
    pic_.addr = o->addresses();
  } catch (const std::exception& e) {
    title_->setText(QString::fromStdString(e.what()).toHtmlEscaped());
    grid_->set_block(nullptr);
    return;
  }
  pic_.active.resize(static_cast<size_t>(o->lanes));
  for (int i = 0; i < o->lanes; ++i) pic_.active[static_cast<size_t>(i)] = o->lane_active(i);
  pic_.fill_layout();
  const auto* p = doc_->program_info();
  title_->setText(
      tr("<b>op %1</b> of program (%2,%3,%4): <b>%5</b> %6 line %7, block %8x%9, %10 waves")
          .arg(o->seq)
          .arg(p ? p->pid[0] : 0)
          .arg(p ? p->pid[1] : 0)
          .arg(p ? p->pid[2] : 0)
          .arg(s ? QString::fromStdString(s->op) : QString("?"))
          .arg(t ? QString::fromStdString(t->name).toHtmlEscaped() : QString("(no tensor)"))
          .arg(s ? s->line : 0)
          .arg(o->rows)
          .arg(o->cols)
          .arg(o->waves));
  const double util = 100.0 * pic_.active_lanes / std::max(1, o->lanes);
  const double coal = pic_.segments ? 100.0 * pic_.ideal_segments / pic_.segments : 100.0;
  figures_->setText(
      tr("lane utilisation %1% (%2 of %3 lanes active)   coalescing %4% (%5 "
         "128-byte segments touched, %6 ideal)%7")
          .arg(util, 0, 'f', 1)
          .arg(pic_.active_lanes)
          .arg(o->lanes)
          .arg(coal, 0, 'f', 0)
          .arg(pic_.segments)
          .arg(pic_.ideal_segments)
          .arg(o->oob ? tr("   <font color=#d72828><b>%1 lanes outside the tensor</b></font>")
                            .arg(o->oob)
                      : QString()));
  figures_->setTextFormat(Qt::RichText);
  QString w;
  for (auto& e : doc_->events())
    if (e.after_seq <= o->seq + 1)
      w += QString("[%1 after op %2] %3%4\n")
               .arg(QString::fromStdString(e.kind))
               .arg(e.after_seq)
               .arg(e.name.empty() ? QString() : QString::fromStdString(e.name) + " = ")
               .arg(QString::fromStdString(e.text).left(2000));
  watched_->setPlainText(w);
  grid_->set_block(&pic_);
}

// ---- source_view ----------------------------------------------------------------------------

source_view::source_view(trace_document* doc, QWidget* parent) : QPlainTextEdit(parent), doc_(doc) {
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont f("monospace");
  f.setStyleHint(QFont::TypeWriter);
  f.setPointSize(9);
  setFont(f);
  setPlaceholderText(tr("the kernel's source appears here"));
  connect(doc_, &trace_document::op_changed, this, &source_view::refresh);
  connect(doc_, &trace_document::diagnostic_changed, this, &source_view::refresh);
  connect(doc_, &trace_document::launch_changed, this, &source_view::refresh);
}

void source_view::show_source(int64_t id) {
  if (id == shown_) return;
  shown_ = id;
  const bvt::source_info* s = doc_->source(id);
  if (!s)
    setPlainText({});
  else if (s->has_text)
    setPlainText(QString::fromStdString(s->text));
  else
    setPlainText(
        tr("// the trace does not hold the text of %1").arg(QString::fromStdString(s->path)));
}

void source_view::refresh() {
  if (!doc_->launch()) return;
  int64_t src = doc_->focus_source();
  // Before anything is selected: the source of the launch's first op site.
  if (!src && !doc_->launch()->site_stats.empty())
    if (auto* s = doc_->site(doc_->launch()->site_stats.front().site_id)) src = s->source_id;
  show_source(src);
  line_ = doc_->focus_source() == src ? doc_->focus_line() : 0;
  notes_.clear();
  op_lines_.clear();
  for (auto& st : doc_->launch()->site_stats)
    if (auto* s = doc_->site(st.site_id); s && s->source_id == src)
      op_lines_[s->line] += static_cast<int>(st.ops);
  const bvt::source_info* si = doc_->source(src);
  for (auto& d : doc_->launch()->diagnostics)
    if (si && d.file == si->path && d.line > 0 && !notes_.count(d.line))
      notes_[d.line] = QString::fromStdString(d.kind + ": " + d.headline);
  QList<QTextEdit::ExtraSelection> sel;
  auto mark = [&](int line, QColor c) {
    QTextBlock b = document()->findBlockByNumber(line - 1);
    if (!b.isValid()) return;
    QTextEdit::ExtraSelection x;
    x.cursor = QTextCursor(b);
    x.format.setBackground(c);
    x.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.append(x);
  };
  for (auto& [l, n] : op_lines_) mark(l, QColor(222, 235, 250));
  for (auto& [l, t] : notes_) mark(l, QColor(252, 222, 222));
  if (line_ > 0) {
    mark(line_, QColor(255, 236, 160));
    QTextBlock b = document()->findBlockByNumber(std::max(0, line_ - 6));
    if (b.isValid()) {
      verticalScrollBar()->setValue(b.blockNumber());
    }
  }
  setExtraSelections(sel);
  viewport()->update();
}

void source_view::paintEvent(QPaintEvent* e) {
  QPlainTextEdit::paintEvent(e);
  // Inline notes at the end of lines: op counts in grey, diagnostics in red.
  QPainter p(viewport());
  QTextBlock b = firstVisibleBlock();
  const QFontMetrics fm(font());
  while (b.isValid()) {
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() > viewport()->height()) break;
    const int line = b.blockNumber() + 1;
    const int x = static_cast<int>(r.left()) + fm.horizontalAdvance(b.text()) + 24;
    if (auto it = notes_.find(line); it != notes_.end()) {
      p.setPen(k_red);
      p.drawText(QPointF(x, r.top() + fm.ascent()), QString::fromUtf8("\u25c0 ") + it->second);
    } else if (auto jt = op_lines_.find(line); jt != op_lines_.end()) {
      p.setPen(QColor(90, 120, 160));
      p.drawText(
          QPointF(x, r.top() + fm.ascent()),
          QString::fromUtf8("\u25c0 %1 op%2").arg(jt->second).arg(jt->second == 1 ? "" : "s"));
    }
    b = b.next();
  }
}

// ---- grid_view ------------------------------------------------------------------------------

grid_view::grid_view(trace_document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  setMinimumSize(160, 120);
  connect(doc_, &trace_document::launch_changed, this, [this] {
    layout_cells();
    update();
  });
  connect(doc_, &trace_document::program_changed, this, qOverload<>(&QWidget::update));
}
void grid_view::set_colour_by(colour_by c) {
  by_ = c;
  update();
}
void grid_view::layout_cells() {
  const launch_data* L = doc_->launch();
  if (!L) return;
  const auto& g = L->launch.grid;
  const int64_t n = static_cast<int64_t>(L->programs.size());
  if (g[1] > 1) {
    cols_ = g[0];
    rows_ = static_cast<int>(std::max<int64_t>(1, (n + cols_ - 1) / cols_));
  } else {
    // A 1-D grid wraps into a near-square block of cells.
    cols_ = static_cast<int>(std::max<int64_t>(1, std::ceil(std::sqrt(double(n) * 1.6))));
    cols_ = std::min<int64_t>(cols_, n);
    rows_ = static_cast<int>((n + cols_ - 1) / std::max(cols_, 1));
  }
}
QRect grid_view::cell_rect(int64_t program) const {
  const int cs = std::max(
      2, std::min((width() - 4) / std::max(cols_, 1), (height() - 4) / std::max(rows_, 1)));
  const int c = static_cast<int>(program % cols_), r = static_cast<int>(program / cols_);
  return QRect(2 + c * cs, 2 + r * cs, cs, cs);
}
int64_t grid_view::program_at(QPoint pt) const {
  const launch_data* L = doc_->launch();
  if (!L || L->programs.empty()) return -1;
  const QRect r0 = cell_rect(0);
  const int cs = r0.width();
  const int c = (pt.x() - 2) / cs, r = (pt.y() - 2) / cs;
  if (pt.x() < 2 || pt.y() < 2 || c >= cols_ || r >= rows_) return -1;
  const int64_t p = int64_t(r) * cols_ + c;
  return p < static_cast<int64_t>(L->programs.size()) ? p : -1;
}
void grid_view::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const launch_data* L = doc_->launch();
  if (!L) {
    p.drawText(rect(), Qt::AlignCenter, tr("no launch"));
    return;
  }
  int64_t max_v = 1;
  for (auto& pr : L->programs)
    max_v = std::max<int64_t>(max_v, by_ == colour_by::ops        ? pr.ops
                                     : by_ == colour_by::accesses ? pr.accesses
                                                                  : pr.diagnostics);
  for (auto& pr : L->programs) {
    const QRect r = cell_rect(pr.program);
    const int64_t v = by_ == colour_by::ops        ? pr.ops
                      : by_ == colour_by::accesses ? pr.accesses
                                                   : pr.diagnostics;
    QColor c;
    if (by_ == colour_by::diagnostics)
      c = pr.diagnostics ? QColor(225, 60, 60) : QColor(150, 200, 150);
    else
      c = QColor::fromHsl(210, 140, 230 - static_cast<int>(150.0 * v / max_v));
    p.fillRect(r.adjusted(0, 0, r.width() > 4 ? -1 : 0, r.height() > 4 ? -1 : 0), c);
    if (r.width() >= 26) {
      p.setPen(Qt::black);
      QFont f = font();
      f.setPointSizeF(std::max(5.0, r.width() / 5.0));
      p.setFont(f);
      p.drawText(r, Qt::AlignCenter,
                 L->launch.grid[1] > 1 ? QString("%1,%2").arg(pr.pid[0]).arg(pr.pid[1])
                                       : QString::number(pr.program));
    }
  }
  if (doc_->program() >= 0) {
    p.setPen(QPen(Qt::black, 2.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cell_rect(doc_->program()).adjusted(1, 1, -1, -1));
  }
}
void grid_view::mousePressEvent(QMouseEvent* e) {
  const int64_t p = program_at(e->pos());
  if (p >= 0) doc_->select_program(p);
}

// ---- heat_view / memory_view ----------------------------------------------------------------

heat_view::heat_view(trace_document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  setMinimumSize(200, 140);
  connect(doc_, &trace_document::heat_changed, this, qOverload<>(&QWidget::update));
  connect(doc_, &trace_document::diagnostic_changed, this, qOverload<>(&QWidget::update));
}

void heat_view::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const heat_map* h = doc_->heat();
  if (!h) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, doc_->busy() ? tr("loading...") : tr("no tensor"));
    return;
  }
  const int rows = h->rows_total();
  QImage img(h->cols, rows, QImage::Format_RGB32);
  const double lmax = std::log1p(double(std::max<uint32_t>(h->max_count, 1)));
  for (int r = 0; r < rows; ++r) {
    const bool margin = r < h->margin_before || r >= h->margin_before + h->rows;
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(r));
    for (int c = 0; c < h->cols; ++c) {
      const size_t i = static_cast<size_t>(r) * h->cols + c;
      const int64_t first_elem = (int64_t(r - h->margin_before) * h->cols + c) * h->bin;
      const bool past = !margin && first_elem >= h->numel;
      QColor col = margin || past ? QColor(253, 238, 238) : QColor(238, 238, 238);
      const uint32_t rd = h->reads[i], wr = h->writes[i];
      if (h->outside[i]) {
        col = k_red;
      } else if (rd || wr) {
        const double t = 0.35 + 0.65 * std::log1p(double(std::max(rd, wr))) / lmax;
        // reads blue, writes orange, both purple
        const QColor base = rd && wr ? QColor(140, 60, 170)
                            : rd     ? QColor(40, 110, 210)
                                     : QColor(235, 130, 20);
        col = QColor(static_cast<int>(255 - t * (255 - base.red())),
                     static_cast<int>(255 - t * (255 - base.green())),
                     static_cast<int>(255 - t * (255 - base.blue())));
      } else if (h->masked[i]) {
        col = QColor(190, 190, 190);
      }
      line[c] = col.rgb();
    }
  }
  const double sx = (width() - 8.0) / h->cols, sy = (height() - 8.0) / rows;
  double s = std::min(sx, sy);
  // Very flat tensors (one long row) stretch vertically rather than becoming a hairline.
  const double sh = std::min(sy, std::max(s, std::min(sy, 24.0)));
  const QRectF target(4, 4, h->cols * s, rows * sh);
  p.drawImage(target, img);
  // The tensor's edge.
  p.setPen(QPen(Qt::black, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(4, 4 + h->margin_before * sh, h->cols * s, h->rows * sh));
  // Elements named by diagnostics on this tensor: outlined, the selected diagnostic's thicker.
  if (const launch_data* L = doc_->launch()) {
    for (auto& d : L->diagnostics) {
      if (d.tensor_id != h->tensor_id) continue;
      if (h->program >= 0 && d.program != h->program) continue;
      const bool sel = d.id == doc_->diagnostic();
      const QColor c = d.kind.find("race") != std::string::npos     ? QColor(200, 0, 200)
                       : d.kind.find("uninit") != std::string::npos ? QColor(230, 180, 0)
                                                                    : QColor(120, 0, 0);
      p.setPen(QPen(c, sel ? 2.5 : 1.2));
      for (int64_t e : d.offsets) {
        const int64_t cell = h->cell_of(e);
        if (cell < 0) continue;
        const int r = static_cast<int>(cell / h->cols), c2 = static_cast<int>(cell % h->cols);
        const QRectF rr(4 + c2 * s, 4 + r * sh, std::max(s, 3.0), std::max(sh, 3.0));
        p.drawRect(rr.adjusted(-1, -1, 1, 1));
      }
    }
  }
}

memory_view::memory_view(trace_document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(4, 4, 4, 4);
  auto* top = new QHBoxLayout;
  tensor_ = new QComboBox(this);
  only_program_ = new QCheckBox(tr("selected program only"), this);
  top->addWidget(new QLabel(tr("<b>Memory</b> tensor:"), this));
  top->addWidget(tensor_, 1);
  top->addWidget(only_program_);
  heat_ = new heat_view(doc_, this);
  info_ = new QLabel(this);
  info_->setTextFormat(Qt::RichText);
  info_->setWordWrap(true);
  v->addLayout(top);
  v->addWidget(heat_, 1);
  v->addWidget(info_);
  connect(doc_, &trace_document::launch_changed, this, &memory_view::refill);
  connect(doc_, &trace_document::heat_changed, this, &memory_view::refill);
  connect(tensor_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
    doc_->select_memory(tensor_->itemData(i).toLongLong(), !only_program_->isChecked());
  });
  connect(only_program_, &QCheckBox::toggled, this,
          [this](bool on) { doc_->select_memory(doc_->memory_tensor(), !on); });
  connect(doc_, &trace_document::program_changed, this, [this] {
    if (only_program_->isChecked()) doc_->select_memory(doc_->memory_tensor(), false);
  });
}

void memory_view::refill() {
  const launch_data* L = doc_->launch();
  QSignalBlocker b(tensor_);
  tensor_->clear();
  if (!L) return;
  for (auto& t : L->tensors) {
    QString shape;
    for (size_t i = 0; i < t.shape.size(); ++i)
      shape += (i ? "x" : "") + QString::number(t.shape[i]);
    tensor_->addItem(
        QString("%1  %2[%3]")
            .arg(QString::fromStdString(t.name), QString::fromStdString(t.dtype), shape),
        QVariant::fromValue<qlonglong>(t.id));
    if (t.id == doc_->memory_tensor()) tensor_->setCurrentIndex(tensor_->count() - 1);
  }
  const heat_map* h = doc_->heat();
  const QString legend =
      tr("<font color=#286ed2>&#9632;</font> read &nbsp;<font color=#eb8214>&#9632;</font> written "
         "&nbsp;<font color=#8c3caa>&#9632;</font> both &nbsp;<font color=#bebebe>&#9632;</font> "
         "masked-off lanes &nbsp;<font color=#d72828>&#9632;</font> outside the tensor (rows past "
         "its edge) &nbsp;&#9633; elements named by diagnostics");
  if (h)
    info_->setText(
        legend +
        tr("<br>%1 ops, %2 accesses%3; %4 element(s) per cell%5")
            .arg(h->ops)
            .arg(h->accesses)
            .arg(h->oob ? tr(", <b><font color=#d72828>%1 outside</font></b>").arg(h->oob)
                        : QString())
            .arg(h->bin)
            .arg(h->program >= 0 ? tr(", program %1 only").arg(h->program) : tr(", all programs")));
  else
    info_->setText(legend);
}

}  // namespace bvv
