#include "main_window.hpp"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QToolBar>
#include <QVBoxLayout>

namespace bvv {

namespace {
QWidget* titled(const QString& title, QWidget* w) {
  auto* box = new QWidget;
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(2, 2, 2, 2);
  v->setSpacing(2);
  auto* l = new QLabel("<b>" + title + "</b>");
  v->addWidget(l);
  v->addWidget(w, 1);
  return box;
}
QTableView* table(QAbstractItemModel* m) {
  auto* t = new QTableView;
  t->setModel(m);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(20);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setAlternatingRowColors(true);
  return t;
}
}  // namespace

main_window::main_window(QWidget* parent) : QMainWindow(parent) {
  doc_ = new trace_document(this);
  grid_ = new grid_view(doc_);
  source_ = new source_view(doc_);
  memory_ = new memory_view(doc_);
  inspector_ = new op_inspector(doc_);
  charts_ = new charts_view(doc_);
  diag_model_ = new diagnostics_model(doc_, this);
  ops_model_ = new ops_model(doc_, this);
  diags_ = table(diag_model_);
  ops_ = table(ops_model_);
  diags_->setColumnWidth(0, 60);
  diags_->setColumnWidth(1, 100);
  diags_->setColumnWidth(2, 70);
  diags_->setColumnWidth(3, 40);
  for (int c = 0; c < 5; ++c) ops_->setColumnWidth(c, c == 1 ? 80 : 50);

  auto* tb = addToolBar(tr("Trace"));
  tb->setMovable(false);
  tb->addAction(tr("Open..."), this, [this] {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Open a blockvec trace"), {},
        tr("blockvec traces (*.bvtrace *.sqlite *.db);;All files (*)"));
    if (!f.isEmpty()) open_trace(f);
  });
  tb->addSeparator();
  tb->addWidget(new QLabel(tr(" launch ")));
  launches_ = new QComboBox;
  launches_->setMinimumContentsLength(40);
  tb->addWidget(launches_);
  tb->addWidget(new QLabel(tr("  colour programs by ")));
  colour_ = new QComboBox;
  colour_->addItems({tr("diagnostics"), tr("ops"), tr("accesses")});
  tb->addWidget(colour_);
  status_ = new QLabel;
  statusBar()->addWidget(status_, 1);

  tabs_ = new QTabWidget;
  tabs_->addTab(memory_, tr("Memory"));
  tabs_->addTab(charts_, tr("Charts"));

  auto* left = new QSplitter(Qt::Vertical);
  left->addWidget(titled(tr("Programs"), grid_));
  left->addWidget(titled(tr("Ops of the selected program"), ops_));
  auto* mid = new QSplitter(Qt::Vertical);
  mid->addWidget(titled(tr("Source"), source_));
  mid->addWidget(tabs_);
  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(inspector_);
  right->addWidget(titled(tr("Diagnostics"), diags_));
  auto* main = new QSplitter(Qt::Horizontal);
  main->addWidget(left);
  main->addWidget(mid);
  main->addWidget(right);
  main->setStretchFactor(0, 2);
  main->setStretchFactor(1, 4);
  main->setStretchFactor(2, 3);
  setCentralWidget(main);
  resize(1500, 900);
  main->setSizes({330, 640, 530});
  mid->setSizes({380, 520});
  right->setSizes({560, 340});
  left->setSizes({420, 480});

  connect(colour_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    grid_->set_colour_by(i == 0   ? grid_view::colour_by::diagnostics
                         : i == 1 ? grid_view::colour_by::ops
                                  : grid_view::colour_by::accesses);
  });
  connect(launches_, qOverload<int>(&QComboBox::activated), doc_, &trace_document::select_launch);
  connect(doc_, &trace_document::opened, this, [this] {
    QSignalBlocker b(launches_);
    launches_->clear();
    for (auto& l : doc_->summary()->launches)
      launches_->addItem(QString("%1: %2  (%3 programs, %4 errors)")
                             .arg(l.id)
                             .arg(QString::fromStdString(l.kernel))
                             .arg(l.programs)
                             .arg(l.errors));
  });
  connect(doc_, &trace_document::launch_changed, this, [this] {
    QSignalBlocker b(launches_);
    launches_->setCurrentIndex(doc_->launch_index());
    update_title();
  });
  connect(doc_, &trace_document::failed, this, [this](const QString& m) {
    status_->setText("<font color=#c00>" + m.toHtmlEscaped() + "</font>");
    if (!QApplication::platformName().contains("offscreen"))
      QMessageBox::warning(this, tr("blockvec viewer"), m);
  });
  connect(doc_, &trace_document::busy_changed, this, [this](int n) {
    if (n)
      status_->setText(tr("reading the trace..."));
    else if (doc_->error().isEmpty())
      update_title();
  });
  connect(ops_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) {
            if (const bvt::op_info* o = ops_model_->at(i.row());
                o && (!doc_->op() || doc_->op()->id != o->id))
              doc_->select_op(o->id);
          });
  connect(doc_, &trace_document::op_changed, this, [this] {
    if (!doc_->op()) return;
    const int r = ops_model_->row_of_op(doc_->op()->id);
    if (r >= 0 && ops_->currentIndex().row() != r) {
      QSignalBlocker b(ops_->selectionModel());
      ops_->selectRow(r);
    }
  });
  connect(diags_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) {
            const int64_t id = diag_model_->id_at(i.row());
            if (id >= 0 && id != doc_->diagnostic()) doc_->select_diagnostic(id);
          });
  connect(doc_, &trace_document::diagnostic_changed, this, [this] {
    const int r = diag_model_->row_of(doc_->diagnostic());
    if (r >= 0 && diags_->currentIndex().row() != r) {
      QSignalBlocker b(diags_->selectionModel());
      diags_->selectRow(r);
    }
  });
  update_title();
}

void main_window::add_tab(QWidget* w, const QString& title) { tabs_->addTab(w, title); }

void main_window::open_trace(const QString& path) {
  status_->setText(tr("opening %1...").arg(path));
  doc_->open(path);
}

void main_window::open_live_trace(const QString& path) {
  status_->setText(tr("opening %1...").arg(path));
  doc_->open(path, true);
}

bool main_window::wait_idle(int timeout_ms) {
  QElapsedTimer t;
  t.start();
  // Idle means no query (nor chart file) in flight for a few consecutive passes (a finished query
  // may start the next one from its result).
  int quiet = 0;
  while (t.elapsed() < timeout_ms) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    if (charts_->busy())
      quiet = 0;
    else if (doc_->busy() == 0 && !ops_model_->canFetchMore({}))
      ++quiet;
    else if (doc_->busy() == 0 && ops_model_->canFetchMore({}))
      ops_model_->fetchMore({}), quiet = 0;
    else
      quiet = 0;
    if (quiet > 5) return true;
    QThread::msleep(5);
  }
  return false;
}

void main_window::update_title() {
  QString t = tr("blockvec viewer");
  if (!doc_->path().isEmpty()) t += " - " + doc_->path();
  setWindowTitle(t);
  if (const launch_data* L = doc_->launch())
    status_->setText(tr("%1: grid (%2,%3,%4), %5 programs, %6 ops, %7 accesses, %8 error(s), %9 "
                        "warning(s); schema v%10")
                         .arg(QString::fromStdString(L->launch.kernel))
                         .arg(L->launch.grid[0])
                         .arg(L->launch.grid[1])
                         .arg(L->launch.grid[2])
                         .arg(L->launch.programs)
                         .arg(L->launch.ops)
                         .arg(L->launch.accesses)
                         .arg(L->launch.errors)
                         .arg(L->launch.warnings)
                         .arg(doc_->summary() ? doc_->summary()->schema_version : 0));
}

}  // namespace bvv
