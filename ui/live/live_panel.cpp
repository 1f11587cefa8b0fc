#include "live_panel.hpp"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "bv/bv.hpp"
#include "bv/cpu/check.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace bvv {

QStringList live_panel::kernels() { return {"add", "copy", "softmax", "matmul"}; }

live_panel::live_panel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(4, 4, 4, 4);
  auto* form = new QHBoxLayout;
  kernel_ = new QComboBox(this);
  kernel_->addItems(kernels());
  size_ = new QSpinBox(this);
  size_->setRange(1, 1 << 20);
  size_->setValue(3000);
  cond_ = new QLineEdit("=1", this);
  cond_->setToolTip(
      tr("program-id condition, as BV_BREAK: \"=1\", \"=0,>1\"; empty: every program"));
  line_ = new QSpinBox(this);
  line_->setRange(0, 100000);
  line_->setToolTip(tr("stop at this source line; 0: at each matching program's first memory op"));
  form->addWidget(new QLabel(tr("kernel"), this));
  form->addWidget(kernel_);
  form->addWidget(new QLabel(tr("size"), this));
  form->addWidget(size_);
  form->addWidget(new QLabel(tr("break at programs"), this));
  form->addWidget(cond_);
  form->addWidget(new QLabel(tr("line"), this));
  form->addWidget(line_);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run"), this);
  cont_ = new QPushButton(tr("Continue"), this);
  step_ = new QPushButton(tr("Step"), this);
  stop_ = new QPushButton(tr("Stop"), this);
  for (auto* b : {run_, cont_, step_, stop_}) buttons->addWidget(b);
  buttons->addStretch(1);
  status_ = new QLabel(tr("Run a library kernel on the interpreter; it stops at the breakpoint, "
                          "then Step goes op by op."),
                       this);
  status_->setWordWrap(true);
  grid_ = new block_grid(this);
  watched_ = new QPlainTextEdit(this);
  watched_->setReadOnly(true);
  watched_->setMaximumHeight(70);
  v->addLayout(form);
  v->addLayout(buttons);
  v->addWidget(status_);
  v->addWidget(grid_, 1);
  v->addWidget(watched_);
  connect(run_, &QPushButton::clicked, this,
          [this] { run(kernel_->currentText(), size_->value(), cond_->text(), line_->value()); });
  connect(cont_, &QPushButton::clicked, this, [this] { resume_with(0); });
  connect(step_, &QPushButton::clicked, this, [this] { resume_with(1); });
  connect(stop_, &QPushButton::clicked, this, [this] { resume_with(2); });
  set_buttons();
}

live_panel::~live_panel() {
  {
    std::lock_guard lk(mu_);
    action_ = 2;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  bv::detail::set_stop_handler({});
}

void live_panel::set_buttons() {
  run_->setEnabled(finished_);
  cont_->setEnabled(waiting_);
  step_->setEnabled(waiting_);
  stop_->setEnabled(!finished_);
}

void live_panel::resume_with(int action) {
  {
    std::lock_guard lk(mu_);
    if (!waiting_) return;
    action_ = action;
    waiting_ = false;
  }
  cv_.notify_all();
  status_->setText(action == 2 ? tr("stopping...") : tr("running..."));
  set_buttons();
}

void live_panel::run(const QString& kernel, int size, const QString& break_cond, int break_line) {
  if (!finished_) return;
  if (worker_.joinable()) worker_.join();
  finished_ = false;
  stops_ = 0;
  trace_path_ = QDir::temp().filePath(
      QString("blockvec-live-%1.bvtrace").arg(QCoreApplication::applicationPid()));
  auto& cfg = bv::config();
  // Live runs are deterministic and on one thread: a stop holds the launch, not a pool of threads.
  cfg.sched = bv::schedule::sequential;
  cfg.quiet = true;
  cfg.interactive = false;
  cfg.trace_path = trace_path_.toStdString();
  cfg.break_cond =
      break_cond.toStdString() + (break_line > 0 ? "@:" + std::to_string(break_line) : "");
  if (cfg.break_cond.empty()) cfg.break_cond = ",";  // every program, at its first memory op
  bv::detail::set_stop_handler([this](bv::detail::program_state& s, const std::source_location* loc,
                                      const char* why, const bv::detail::access* a) {
    block_picture pic;
    if (a) {
      pic.rows = a->rows;
      pic.cols = a->cols;
      pic.waves = a->waves;
      pic.wave_size = bv::config().wave_size;
      pic.elem_bytes = a->alloc ? a->alloc->elem_bytes : 4;
      pic.numel = a->alloc ? a->alloc->numel : 0;
      pic.store = a->kind != bv::detail::access_kind::load;
      pic.addr.resize(static_cast<size_t>(a->lanes));
      pic.active.resize(static_cast<size_t>(a->lanes));
      for (int i = 0; i < a->lanes; ++i) {
        pic.addr[static_cast<size_t>(i)] = a->base + a->off[i];
        pic.active[static_cast<size_t>(i)] = !a->mask || a->mask[i];
      }
      pic.fill_layout();
    }
    const QString where =
        QString("program (%1,%2,%3) %4 at line %5: %6%7")
            .arg(s.pid[0])
            .arg(s.pid[1])
            .arg(s.pid[2])
            .arg(QString::fromUtf8(why))
            .arg(loc ? loc->line() : 0)
            .arg(a ? QString::fromUtf8(a->op) : QString("op"))
            .arg(a && a->alloc ? " " + QString::fromStdString(a->alloc->name) : QString());
    QString watched;
    for (auto& [k, val] : s.watched)
      if (k[0] != '#') watched += QString::fromStdString(k + " = " + val) + "\n";
    std::unique_lock lk(mu_);
    waiting_ = true;
    action_ = -1;
    QMetaObject::invokeMethod(
        this, [this, pic, where, watched] { show_stop(pic, where, watched); },
        Qt::QueuedConnection);
    cv_.wait(lk, [&] { return action_ >= 0; });
    waiting_ = false;
    const int act = action_;
    return act == 2   ? bv::detail::stop_action::quit
           : act == 1 ? bv::detail::stop_action::step
                      : bv::detail::stop_action::resume;
  });
  status_->setText(tr("running %1...").arg(kernel));
  set_buttons();
  worker_ = std::thread([this, kernel, size] {
    bv::launch_result r;
    const uint64_t seed = 7;
    if (kernel == "add" || kernel == "copy") {
      auto x = bv::tensor<float>::randn("x", {size}, seed),
           y = bv::tensor<float>::randn("y", {size}, seed + 1);
      auto o = bv::tensor<float>::empty("out", {size});
      r = kernel == "add" ? bv::kernels::add(x, y, o) : bv::kernels::copy(x, o);
    } else if (kernel == "softmax") {
      const int rows = std::max(1, size / 256), cols = std::min(size, 256);
      auto x = bv::tensor<float>::randn("x", {rows, cols}, seed);
      auto o = bv::tensor<float>::empty("out", {rows, cols});
      r = bv::kernels::softmax(x, o);
    } else {
      const int m = std::max(1, std::min(size, 256));
      auto a = bv::tensor<float>::randn("a", {m, m}, seed),
           b = bv::tensor<float>::randn("b", {m, m}, seed + 1);
      auto c = bv::tensor<float>::empty("c", {m, m});
      r = bv::kernels::matmul<32, 32, 16, 2>(a, b, c);
    }
    const QString summary = QString("%1: %2 programs in %3 s, %4 error(s)%5")
                                .arg(QString::fromStdString(r.kernel))
                                .arg(r.programs)
                                .arg(r.seconds, 0, 'f', 3)
                                .arg(r.errors)
                                .arg(r.quit ? ", stopped by the user" : "");
    QMetaObject::invokeMethod(
        this, [this, summary] { finish(summary); }, Qt::QueuedConnection);
  });
}

void live_panel::show_stop(const block_picture& pic, const QString& where, const QString& watched) {
  ++stops_;
  pic_ = pic;
  grid_->set_block(pic_.rows ? &pic_ : nullptr);
  status_->setText(tr("stopped: %1 (%2 of %3 lanes active)")
                       .arg(where)
                       .arg(pic_.active_lanes)
                       .arg(pic_.addr.size()));
  watched_->setPlainText(watched);
  set_buttons();
  emit stopped_at(0);
}

void live_panel::finish(const QString& summary) {
  finished_ = true;
  waiting_ = false;
  if (worker_.joinable()) worker_.join();
  bv::detail::set_stop_handler({});
  auto& cfg = bv::config();
  cfg.trace_path.clear();
  cfg.break_cond.clear();
  status_->setText(tr("finished %1; its trace is open in the other views").arg(summary));
  set_buttons();
  emit trace_ready(trace_path_);
}

}  // namespace bvv
