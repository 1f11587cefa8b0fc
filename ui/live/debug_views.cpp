#include "debug_views.hpp"

#include <QFile>
#include <QMouseEvent>
#include <QPainter>
#include <QTextBlock>
#include <cmath>

namespace bvv {

// ---- programs_grid ------------------------------------------------------------------------------

namespace {
constexpr int k_legend_h = 52;  // the legend under the cells: three rows of two states
}

programs_grid::programs_grid(program_states_model* m, QWidget* parent) : QWidget(parent), m_(m) {
  setMinimumSize(160, 110);
  connect(m_, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
  connect(m_, &QAbstractItemModel::dataChanged, this, qOverload<>(&QWidget::update));
}

// Cells fill the area above the legend in a near-square layout, row-major in launch order.
QRect programs_grid::cell_rect(int program) const {
  const int n = m_->rowCount();
  if (n == 0 || program < 0 || program >= n) return {};
  const int w = width() - 8, h = std::max(8, height() - 8 - k_legend_h);
  int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(n) * w / h))));
  cols = std::min(cols, n);
  const int rows = (n + cols - 1) / cols;
  const int cs = std::max(2, std::min(w / cols, h / rows));
  return {4 + (program % cols) * cs, 4 + (program / cols) * cs, cs, cs};
}

void programs_grid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const int n = m_->rowCount();
  if (n == 0) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(0, 0, 0, -k_legend_h), Qt::AlignCenter,
               tr("programs appear when the launch starts"));
  }
  using st = program_states_model::status;
  for (int i = 0; i < n; ++i) {
    const QRect r = cell_rect(i);
    const st s = m_->state_of(i);
    p.fillRect(r, program_states_model::colour(s));
    if (r.width() >= 6) {
      p.setPen(QPen(palette().color(QPalette::Base), 1));
      p.drawRect(r);
    }
    if (s == st::stopped) {
      p.setPen(QPen(Qt::black, 2));
      p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (r.width() >= 26) {
      p.setPen(Qt::black);
      p.drawText(r, Qt::AlignCenter, QString::number(i));
    }
  }
  // The legend: every state with its count.
  const int y0 = height() - k_legend_h + 2;
  QFont f = font();
  f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
  p.setFont(f);
  int k = 0;
  for (st s : {st::not_started, st::running, st::waiting, st::stopped, st::done, st::error}) {
    const int x = 4 + (k % 2) * (width() / 2), y = y0 + (k / 2) * 16;
    ++k;
    const QString label = QString("%1 %2").arg(program_states_model::name(s)).arg(m_->count(s));
    p.fillRect(QRect(x, y + 2, 10, 10), program_states_model::colour(s));
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QPoint(x + 14, y + 11), label);
  }
}

void programs_grid::mousePressEvent(QMouseEvent* e) {
  for (int i = 0; i < m_->rowCount(); ++i)
    if (cell_rect(i).contains(e->position().toPoint())) {
      emit program_clicked(i);
      return;
    }
}

// ---- source_editor ------------------------------------------------------------------------------

// The margin left of the text: it only draws and takes clicks; the editor knows the lines.
class source_margin : public QWidget {
 public:
  explicit source_margin(source_editor* e) : QWidget(e), e_(e) {
    setCursor(Qt::PointingHandCursor);
    setToolTip(
        tr("click a line's margin to set or clear a breakpoint there (for the programs "
           "in 'break at programs'; empty: every program)"));
  }
  QSize sizeHint() const override { return {e_->margin_width(), 0}; }

 protected:
  void paintEvent(QPaintEvent* ev) override { e_->paint_margin(ev); }
  void mousePressEvent(QMouseEvent* ev) override {
    if (const int line = e_->line_at(static_cast<int>(ev->position().y())))
      emit e_->margin_clicked(line);
  }

 private:
  source_editor* e_;
};

source_editor::source_editor(breakpoint_model* bps, QWidget* parent)
    : QPlainTextEdit(parent), bps_(bps) {
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("monospace");
  mono.setStyleHint(QFont::TypeWriter);
  setFont(mono);
  margin_ = new source_margin(this);
  setViewportMargins(margin_width(), 0, 0, 0);
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& r, int dy) {
    if (dy)
      margin_->scroll(0, dy);
    else
      margin_->update(0, r.y(), margin_->width(), r.height());
  });
  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(margin_width(), 0, 0, 0); });
  connect(bps_, &QAbstractItemModel::rowsInserted, margin_, qOverload<>(&QWidget::update));
  connect(bps_, &QAbstractItemModel::rowsRemoved, margin_, qOverload<>(&QWidget::update));
  connect(bps_, &QAbstractItemModel::modelReset, margin_, qOverload<>(&QWidget::update));
}

int source_editor::margin_width() const {
  const int digits = QString::number(std::max(1, blockCount())).size();
  return 22 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void source_editor::resizeEvent(QResizeEvent* e) {
  QPlainTextEdit::resizeEvent(e);
  const QRect cr = contentsRect();
  margin_->setGeometry(QRect(cr.left(), cr.top(), margin_width(), cr.height()));
}

void source_editor::set_file(const QString& file) {
  if (file == file_) return;
  QFile f(file);
  setPlainText(f.open(QIODevice::ReadOnly | QIODevice::Text)
                   ? QString::fromUtf8(f.readAll())
                   : tr("(%1 cannot be read here)").arg(file));
  file_ = file;
  line_ = 0;
  highlight();
}

void source_editor::set_current_line(int line) {
  line_ = line;
  highlight();
  const QTextBlock b = document()->findBlockByNumber(line - 1);
  if (line > 0 && b.isValid()) {
    setTextCursor(QTextCursor(b));
    centerCursor();
  }
  margin_->update();
}

void source_editor::highlight() {
  QList<QTextEdit::ExtraSelection> marks;
  const QTextBlock b = document()->findBlockByNumber(line_ - 1);
  if (line_ > 0 && b.isValid()) {
    QTextEdit::ExtraSelection m;
    m.format.setBackground(QColor(255, 236, 150));
    m.format.setProperty(QTextFormat::FullWidthSelection, true);
    m.cursor = QTextCursor(b);
    marks << m;
  }
  setExtraSelections(marks);
}

int source_editor::line_at(int y) const {
  for (QTextBlock b = firstVisibleBlock(); b.isValid(); b = b.next()) {
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() > y) break;
    if (y < r.bottom()) return b.blockNumber() + 1;
  }
  return 0;
}

QRect source_editor::margin_rect(int line) const {
  const QTextBlock b = document()->findBlockByNumber(line - 1);
  if (!b.isValid() || !b.isVisible()) return {};
  const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
  if (r.bottom() < 0 || r.top() > viewport()->height()) return {};
  return QRect(0, static_cast<int>(r.top()), margin_width(), static_cast<int>(r.height()));
}

void source_editor::paint_margin(QPaintEvent* e) {
  QPainter p(margin_);
  p.fillRect(e->rect(), QColor(240, 240, 240));
  const int h = fontMetrics().height();
  for (QTextBlock b = firstVisibleBlock(); b.isValid(); b = b.next()) {
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() > e->rect().bottom()) break;
    const int line = b.blockNumber() + 1;
    const int top = static_cast<int>(r.top());
    if (bps_->has(file_, line)) {
      // A red dot; a condition shows as a ring around it.
      p.setRenderHint(QPainter::Antialiasing);
      p.setBrush(QColor(210, 40, 40));
      p.setPen(bps_->condition(file_, line).isEmpty() ? Qt::NoPen : QPen(Qt::black, 1.5));
      p.drawEllipse(QRectF(3, top + (h - 11) / 2.0, 11, 11));
      p.setRenderHint(QPainter::Antialiasing, false);
    }
    if (line == line_) {
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(250, 130, 40));
      const QPointF arrow[] = {{15, top + 2.0}, {15, top + h - 2.0}, {20, top + h / 2.0}};
      p.drawPolygon(arrow, 3);
    }
    p.setPen(line == line_ ? Qt::black : QColor(140, 140, 140));
    p.drawText(QRect(20, top, margin_->width() - 24, h), Qt::AlignRight, QString::number(line));
  }
}

// ---- memory_strip -------------------------------------------------------------------------------

memory_strip::memory_strip(memory_model* m, QWidget* parent) : QWidget(parent), m_(m) {
  setMinimumSize(160, 60);
  connect(m_, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
}

void memory_strip::set_row(int row) {
  row_ = row;
  update();
}

void memory_strip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (row_ < 0 || row_ >= m_->rowCount()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("no accesses yet"));
    return;
  }
  const auto& t = m_->tensor(row_);
  const int64_t n = t.numel;
  if (n <= 0) return;
  // Elements wrap into rows that keep cells near square; a huge tensor shares cells (the
  // strongest access in a cell wins).
  const int w = width() - 8, h = height() - 8;
  const int64_t cells = std::min<int64_t>(n, int64_t(w) * h / 4);
  int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(cells) * w / h))));
  const int64_t rows = (cells + cols - 1) / cols;
  const double cw = double(w) / cols, ch = double(h) / std::max<int64_t>(rows, 1);
  const double per = double(n) / cells;
  for (int64_t c = 0; c < cells; ++c) {
    const auto lo = static_cast<size_t>(c * per), hi = static_cast<size_t>((c + 1) * per);
    bool r_all = false, w_all = false, r_me = false, w_me = false;
    for (size_t e = lo; e < std::max(hi, lo + 1) && e < t.reads.size(); ++e) {
      r_all |= t.reads[e] != 0;
      w_all |= t.writes[e] != 0;
      r_me |= t.program_reads[e] != 0;
      w_me |= t.program_writes[e] != 0;
    }
    const bool me = r_me || w_me;
    const bool rd = me ? r_me : r_all, wr = me ? w_me : w_all;
    QColor col(248, 248, 248);
    if (rd || wr) {
      const int hue = rd && wr ? 280 : wr ? 30 : 215;
      col = QColor::fromHsl(hue, me ? 200 : 120, me ? 110 : 200);
    }
    const QRectF r(4 + (c % cols) * cw, 4 + (c / cols) * ch, cw, ch);
    p.fillRect(r, col);
  }
}

}  // namespace bvv
