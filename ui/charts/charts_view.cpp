#include "charts_view.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

namespace bvv {

namespace {
const QColor k_blue(40, 110, 210), k_orange(230, 140, 30), k_red(215, 40, 40), k_green(30, 150, 70),
    k_grey(110, 110, 110);

QChart* new_chart(const QString& title) {
  auto* c = new QChart;
  c->setTitle(title);
  c->setAnimationOptions(QChart::NoAnimation);  // screenshots and tests see the final picture
  c->legend()->setAlignment(Qt::AlignBottom);
  c->setMargins(QMargins(4, 4, 4, 4));
  return c;
}

QTableView* small_table(QAbstractItemModel* m) {
  auto* t = new QTableView;
  t->setModel(m);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(18);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setAlternatingRowColors(true);
  t->setMaximumHeight(130);
  return t;
}

}  // namespace

charts_view::charts_view(trace_document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  bench_ = new bench_model(this);
  errors_ = new errors_model(this);
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  pages_ = new QTabWidget(this);
  pages_->setTabPosition(QTabWidget::South);
  v->addWidget(pages_);
  const QString titles[3] = {tr("Lane utilisation"), tr("Benchmark"), tr("Error vs reference")};
  for (int p = 0; p < 3; ++p) {
    auto* page_w = new QWidget;
    auto* pv = new QVBoxLayout(page_w);
    pv->setContentsMargins(2, 2, 2, 2);
    pv->setSpacing(2);
    if (p != lanes_page) {
      auto* row = new QHBoxLayout;
      auto* open =
          new QPushButton(p == bench_page ? tr("Open benchmark...") : tr("Open error results..."));
      const bool is_bench = p == bench_page;
      connect(open, &QPushButton::clicked, this, [this, is_bench] {
        const QString f = QFileDialog::getOpenFileName(
            this,
            is_bench ? tr("Open the output of blockvec bench --json")
                     : tr("Open outputs of blockvec run KERNEL --json"),
            {}, tr("JSON (*.json);;All files (*)"));
        if (f.isEmpty()) return;
        if (is_bench)
          open_bench(f);
        else
          open_errors(f);
      });
      row->addWidget(open);
      notes_[p] = new QLabel;
      row->addWidget(notes_[p], 1);
      pv->addLayout(row);
    } else {
      notes_[p] = new QLabel;
      pv->addWidget(notes_[p]);
    }
    notes_[p]->setWordWrap(true);
    views_[p] = new QChartView(new_chart(titles[p]));
    views_[p]->setRenderHint(QPainter::Antialiasing);
    views_[p]->setMinimumSize(240, 160);
    pv->addWidget(views_[p], 1);
    if (p == bench_page) pv->addWidget(small_table(bench_));
    if (p == errors_page) pv->addWidget(small_table(errors_));
    pages_->addTab(page_w, titles[p]);
  }
  say(lanes_page, tr("Open a trace: the chart shows each memory op of its current launch."), false);
  say(bench_page,
      tr("Open the output of <tt>blockvec bench --json &gt; bench.json</tt> "
         "(or run <tt>blockvec-viewer --bench bench.json</tt>)."),
      false);
  say(errors_page,
      tr("Open outputs of <tt>blockvec run KERNEL --json</tt>: one, an array, or several "
         "appended to one file (<tt>blockvec-viewer --errors runs.json</tt>)."),
      false);
  connect(doc_, &trace_document::launch_changed, this, &charts_view::refresh_lanes);
}

charts_view::~charts_view() = default;

QChart* charts_view::lanes_chart() const { return views_[lanes_page]->chart(); }
QChart* charts_view::bench_chart() const { return views_[bench_page]->chart(); }
QChart* charts_view::errors_chart() const { return views_[errors_page]->chart(); }
QString charts_view::message(page p) const { return notes_[p]->text(); }
void charts_view::show_page(page p) { pages_->setCurrentIndex(p); }

void charts_view::say(page p, const QString& text, bool bad) {
  notes_[p]->setText(bad ? "<font color=#c00>" + text.toHtmlEscaped() + "</font>" : text);
}

void charts_view::open_bench(const QString& path) { load(bench_page, path); }
void charts_view::open_errors(const QString& path) { load(errors_page, path); }

void charts_view::load(page p, const QString& path) {
  ++pending_;
  say(p, tr("reading %1...").arg(path), false);
  show_page(p);
  // Reading and parsing happen off the UI thread: a file on a slow disk, or a wrong and large
  // one, must not freeze the window.
  auto* w = new QFutureWatcher<parsed>(this);
  connect(w, &QFutureWatcher<parsed>::finished, this, [this, w, p, path] {
    parsed r = w->result();
    w->deleteLater();
    --pending_;
    const QString name = QFileInfo(path).fileName();
    if (!r.error.isEmpty()) {
      const QString m = QString("%1: %2").arg(name, r.error);
      say(p, m, true);
      emit failed(m);
      return;
    }
    if (p == bench_page) {
      bench_->set(std::move(r.bench));
      draw_bench();
    } else {
      errors_->set(std::move(r.runs));
      draw_errors();
    }
    emit loaded(p);
  });
  w->setFuture(QtConcurrent::run([p, path] {
    parsed r;
    std::string text;
    if (!read_small_file(path, text, r.error)) return r;
    if (p == bench_page)
      r.bench = parse_bench(text, r.error);
    else
      r.runs = parse_errors(text, r.error);
    return r;
  }));
}

void charts_view::refresh_lanes() {
  QChart* c = lanes_chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) c->removeAxis(a), delete a;
  const launch_data* L = doc_->launch();
  bars_ = L ? static_cast<int>(L->site_stats.size()) : 0;
  if (!bars_) {
    say(lanes_page, L ? tr("This launch has no memory ops.") : QString(), false);
    return;
  }
  c->setTitle(
      tr("Lane utilisation per memory op: %1").arg(QString::fromStdString(L->launch.kernel)));
  auto* active = new QBarSet(tr("active lanes %"));
  auto* outside = new QBarSet(tr("lanes outside the tensor %"));
  active->setColor(k_blue);
  outside->setColor(k_red);
  QStringList cats;
  for (const auto& st : L->site_stats) {
    const double lanes = double(std::max<int64_t>(1, st.lanes));
    *active << 100.0 * double(st.active) / lanes;
    *outside << 100.0 * double(st.oob) / lanes;
    const bvt::site_info* s = doc_->site(st.site_id);
    cats << QString("%1 L%2 (%3 ops)")
                .arg(s ? QString::fromStdString(s->op) : QString("?"))
                .arg(s ? s->line : 0)
                .arg(st.ops);
  }
  auto* series = new QBarSeries;
  series->append(active);
  series->append(outside);
  series->setLabelsVisible(true);
  series->setLabelsFormat("@value");
  series->setLabelsPrecision(3);
  c->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(cats);
  auto* y = new QValueAxis;
  y->setRange(0, 110);
  y->setTickCount(12);
  y->setLabelFormat("%d%%");
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  say(lanes_page,
      tr("Share of lanes active (blue) and outside their tensor (red), over every program of "
         "launch %1.")
          .arg(L->launch.id),
      false);
}

void charts_view::draw_bench() {
  const bench_data& d = bench_->data_();
  QChart* c = bench_chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) c->removeAxis(a), delete a;
  c->setTitle(tr("Interpreter time over native C++ (lower is better)"));
  auto* off = new QBarSet(tr("checks off / native"));
  auto* all = new QBarSet(tr("every check / native"));
  off->setColor(k_blue);
  all->setColor(k_orange);
  QStringList cats;
  double top = 1.0;
  int misses = 0;
  for (const bench_row& r : d.rows) {
    *off << r.off_ratio;
    *all << r.all_ratio;
    cats << r.kernel;
    top = std::max({top, r.off_ratio, r.all_ratio});
    misses += !r.match;
  }
  auto* bars = new QBarSeries;
  bars->append(off);
  bars->append(all);
  c->addSeries(bars);
  const int n = static_cast<int>(d.rows.size());
  auto* x = new QBarCategoryAxis;
  x->append(cats);
  auto* y = new QValueAxis;
  y->setRange(0, std::ceil(top * 1.1));
  y->setLabelFormat("%.1fx");
  y->setTitleText(tr("time / native"));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : c->series()) s->attachAxis(x), s->attachAxis(y);
  say(bench_page,
      tr("%1 kernel(s)%2%3: %4")
          .arg(n)
          .arg(d.cpu.isEmpty() ? QString() : " on " + d.cpu)
          .arg(d.date.isEmpty() ? QString() : ", " + d.date)
          .arg(misses ? tr("%1 did not match the reference (their times are void)").arg(misses)
                      : tr("every result matched its reference")),
      misses > 0);
}

void charts_view::draw_errors() {
  const auto& runs = errors_->runs();
  QChart* c = errors_chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) c->removeAxis(a), delete a;
  c->setTitle(tr("Relative L2 error against the reference, per run (log scale)"));
  // A log axis cannot show 0: exact results sit on a floor a decade below the smallest value
  // shown, and the table says "0 (exact)".
  double lo = 1e300, hi = 0;
  for (const error_run& r : runs) {
    if (r.rel_error > 0) lo = std::min(lo, r.rel_error), hi = std::max(hi, r.rel_error);
    if (r.tolerance > 0) lo = std::min(lo, r.tolerance), hi = std::max(hi, r.tolerance);
  }
  if (hi == 0) lo = 1e-8, hi = 1e-6;
  const double floor = lo / 10;
  auto* ok = new QScatterSeries;
  ok->setName(tr("within tolerance"));
  ok->setColor(k_green);
  ok->setMarkerSize(11);
  auto* bad = new QScatterSeries;
  bad->setName(tr("over tolerance / mismatch"));
  bad->setColor(k_red);
  bad->setMarkerSize(13);
  bad->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  auto* tol = new QLineSeries;
  tol->setName(tr("tolerance"));
  tol->setPen(QPen(k_grey, 2, Qt::DashLine));
  auto* x = new QCategoryAxis;
  x->setStartValue(-0.5);
  int over = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const error_run& r = runs[i];
    const double xi = double(i);
    const bool within = r.match && (r.tolerance < 0 || r.rel_error <= r.tolerance);
    over += !within;
    (within ? ok : bad)->append(xi, std::max(r.rel_error, floor));
    // The tolerance as a step per run (a run from the GPU backend prints none).
    if (r.tolerance > 0) tol->append(xi - 0.45, r.tolerance), tol->append(xi + 0.45, r.tolerance);
    x->append(QString("%1 %2").arg(i).arg(r.kernel), xi + 0.5);  // the table has the rest
  }
  for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(ok), static_cast<QAbstractSeries*>(bad),
                             static_cast<QAbstractSeries*>(tol)})
    c->addSeries(s);
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setLabelFormat("%.0e");
  y->setRange(floor / 2, hi * 20);
  y->setMinorTickCount(-1);
  y->setTitleText(tr("rel L2 error"));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : c->series()) s->attachAxis(x), s->attachAxis(y);
  // Attaching the series fits the axis to the points; keep half a run of margin on both sides.
  x->setRange(-0.5, double(runs.size()) - 0.5);
  say(errors_page,
      tr("%1 run(s): %2")
          .arg(runs.size())
          .arg(over ? tr("%1 over tolerance").arg(over) : tr("all within tolerance")),
      over > 0);
}

}  // namespace bvv
