#include "live_panel.hpp"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QVBoxLayout>

#include "bv/bv.hpp"
#include "bv/cpu/check.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"
#include "bv/library/load.hpp"

namespace bvv {

QStringList live_panel::kernels() { return {"add", "copy", "softmax", "matmul"}; }

QStringList live_panel::all_kernels() const {
  QStringList all = kernels();
  for (const auto& p : plugin_kernels_) all << p.name;
  return all;
}

QString live_panel::status_text() const { return status_->text(); }

const live_panel::plugin_kernel* live_panel::find_plugin_kernel(const QString& name) const {
  for (const auto& p : plugin_kernels_)
    if (p.name == name) return &p;
  return nullptr;
}

bool live_panel::load_plugin(const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    status_->setText("<font color=#c00>" + why.toHtmlEscaped() + "</font>");
    if (error) *error = why;
    return false;
  };
  // The same loader as `blockvec --lib` (bv/library/load.hpp); this one also takes ABI 1 plugins.
  // Never unloaded (see the header).
  bv::library::opened_library lib;
  try {
    lib = bv::library::open(path.toStdString(), /*accept_abi1=*/true);
  } catch (const bv::library::load_error& e) {
    return fail(QString::fromStdString(e.what()));
  }
  std::vector<plugin_kernel> add;
  for (int i = 0; i < lib.count; ++i) {
    plugin_kernel p{{}, path, nullptr, nullptr, {}, {}};
    if (lib.abi == 1) {
      p.k = &lib.live_kernels[i];
      if (!p.k->name || !*p.k->name || !p.k->run)
        return fail(tr("%1: kernel %2 has no name or no run function").arg(path).arg(i));
      p.description = QString::fromUtf8(p.k->description ? p.k->description : "");
      p.default_size = QString::fromUtf8(p.k->default_size ? p.k->default_size : "");
    } else {
      p.entry = &lib.entries[i];
      p.description = QString::fromUtf8(p.entry->description ? p.entry->description : "");
      QStringList dims;
      for (int d = 0; d < p.entry->default_rank; ++d)
        dims << QString::number(p.entry->default_size[d]);
      p.default_size = dims.join(",");
    }
    QString name = QString::fromUtf8(p.k ? p.k->name : p.entry->name);
    // A name already taken (a library kernel, another plugin's) gets the library's name first.
    if (kernels().contains(name) || find_plugin_kernel(name))
      name = QFileInfo(path).baseName() + ":" + name;
    p.name = name;
    add.push_back(p);
  }
  for (auto& p : add) {
    plugin_kernels_.push_back(p);
    kernel_->addItem(p.name);
    kernel_->setItemData(kernel_->count() - 1,
                         QString("%1 (%2)").arg(p.description, QFileInfo(path).fileName()),
                         Qt::ToolTipRole);
  }
  status_->setText(tr("loaded %1 kernel(s) from %2").arg(add.size()).arg(path));
  return true;
}

namespace {
// A kernel library's entry run on the viewer's interpreter, as a one-line summary (a plugin of
// ABI 1 writes its own); rc 0 when it launched.
QString run_library_entry(const bv_kernel_entry& c, const QByteArray& size_text, uint64_t seed,
                          int& rc) {
  rc = 1;
  try {
    const bv::library::entry e = bv::library::to_entry(c);
    const std::vector<int64_t> size = bv::live::parse_size(size_text.constData());
    if (const std::string why = bv::library::refusal(e, size); !why.empty())
      return QObject::tr("size %1 not accepted: %2")
          .arg(QString::fromUtf8(size_text), QString::fromStdString(why));
    const bv::library::outcome o = e.run(size, seed);
    rc = 0;
    int64_t programs = 0;
    int errors = 0;
    bool quit = false;
    for (const auto& l : o.launches) {
      programs += l.programs;
      errors += l.errors;
      quit |= l.quit;
    }
    if (quit) return QObject::tr("stopped by the user");
    return QObject::tr(
               "%1 programs in %2 launch(es), %3 error(s); rel L2 error %4 (tolerance %5): "
               "%6")
        .arg(programs)
        .arg(o.launches.size())
        .arg(errors)
        .arg(o.rel_err, 0, 'g', 3)
        .arg(o.tolerance, 0, 'g', 3)
        .arg(o.match ? QObject::tr("matches the reference") : QObject::tr("DOES NOT MATCH"));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}
}  // namespace

live_panel::live_panel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(4, 4, 4, 4);
  auto* form = new QHBoxLayout;
  kernel_ = new QComboBox(this);
  kernel_->addItems(kernels());
  size_ = new QLineEdit("3000", this);
  size_->setToolTip(
      tr("problem size: a number, or a list (64,256) for plugin kernels that take one"));
  size_->setMaximumWidth(110);
  load_ = new QPushButton(tr("Load plugin..."), this);
  load_->setToolTip(
      tr("a kernel library built with blockvec_add_kernel_library, or a live plugin "
         "(docs/viewer.md)"));
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
  form->addWidget(load_);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run"), this);
  cont_ = new QPushButton(tr("Continue"), this);
  step_ = new QPushButton(tr("Step"), this);
  stop_ = new QPushButton(tr("Stop"), this);
  for (auto* b : {run_, cont_, step_, stop_}) buttons->addWidget(b);
  buttons->addStretch(1);
  status_ = new QLabel(tr("Run a library kernel, or one from a plugin, on the interpreter; it "
                          "stops at the breakpoint, then Step goes op by op."),
                       this);
  status_->setWordWrap(true);
  grid_ = new block_grid(this);
  watched_ = new QPlainTextEdit(this);
  watched_->setReadOnly(true);
  watched_->setMaximumHeight(70);
  source_ = new QPlainTextEdit(this);
  source_->setReadOnly(true);
  source_->setLineWrapMode(QPlainTextEdit::NoWrap);
  source_->setPlaceholderText(tr("the source of the kernel where it stops"));
  QFont mono("monospace");
  mono.setStyleHint(QFont::TypeWriter);
  source_->setFont(mono);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(source_);
  split->addWidget(grid_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  v->addLayout(form);
  v->addLayout(buttons);
  v->addWidget(status_);
  v->addWidget(split, 1);
  v->addWidget(watched_);
  connect(run_, &QPushButton::clicked, this,
          [this] { run(kernel_->currentText(), size_->text(), cond_->text(), line_->value()); });
  connect(load_, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Load a live plugin"), {},
                                                   tr("Shared libraries (*.so);;All files (*)"));
    if (!f.isEmpty()) load_plugin(f);
  });
  connect(kernel_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (const plugin_kernel* p = find_plugin_kernel(name); p && !p->default_size.isEmpty())
      size_->setText(p->default_size);
  });
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

void live_panel::run(const QString& kernel, const QString& size_text, const QString& break_cond,
                     int break_line) {
  if (!finished_) return;
  const plugin_kernel* plugin = find_plugin_kernel(kernel);
  if (!plugin && !kernels().contains(kernel)) {
    status_->setText(tr("no kernel '%1' (load its plugin first)").arg(kernel));
    return;
  }
  bool size_ok = true;
  const int size = plugin ? 0 : size_text.trimmed().toInt(&size_ok);
  if (!size_ok || (!plugin && size < 1)) {
    status_->setText(tr("size '%1' is not a number above 0").arg(size_text));
    return;
  }
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
      pic.target = bv::target_name(bv::config().tgt);
      pic.rank = a->rank;
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
    const QString file = loc ? QString::fromUtf8(loc->file_name()) : QString();
    const int line = loc ? static_cast<int>(loc->line()) : 0;
    std::unique_lock lk(mu_);
    waiting_ = true;
    action_ = -1;
    QMetaObject::invokeMethod(
        this,
        [this, pic, where, watched, file, line] { show_stop(pic, where, watched, file, line); },
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
  const bv_live_kernel* pk = plugin ? plugin->k : nullptr;
  const bv_kernel_entry* pe = plugin ? plugin->entry : nullptr;
  const QByteArray plugin_size = size_text.trimmed().toUtf8();
  worker_ = std::thread([this, kernel, size, pk, pe, plugin_size] {
    bv::launch_result r;
    const uint64_t seed = 7;
    if (pe) {
      // A kernel library's entry: it makes its inputs and launches here, on this interpreter,
      // and compares with its reference; the summary is the viewer's.
      int rc = 1;
      const QString m = run_library_entry(*pe, plugin_size, seed, rc);
      const QString summary = rc == 0 ? QString("%1: %2").arg(kernel, m)
                                      : QString("%1 could not run: %2").arg(kernel, m);
      QMetaObject::invokeMethod(
          this, [this, summary, rc] { finish(summary, rc == 0); }, Qt::QueuedConnection);
      return;
    }
    if (pk) {
      // The plugin makes its inputs and launches; the launch runs here, on this interpreter, so
      // the stop handler above sees its programs as it sees a library kernel's.
      char message[1024] = {0};
      const int rc = pk->run(plugin_size.constData(), seed, message, sizeof message);
      const QString m = QString::fromUtf8(message);
      const QString summary = rc == 0 ? QString("%1: %2").arg(kernel, m)
                                      : QString("%1 could not run: %2").arg(kernel, m);
      QMetaObject::invokeMethod(
          this, [this, summary, rc] { finish(summary, rc == 0); }, Qt::QueuedConnection);
      return;
    }
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
        this, [this, summary] { finish(summary, true); }, Qt::QueuedConnection);
  });
}

// The kernel's own file (read once per file: a source file, not a trace), the stop's line
// highlighted and scrolled into view.
void live_panel::show_source(const QString& file, int line) {
  if (file != source_file_) {
    QFile f(file);
    source_->setPlainText(f.open(QIODevice::ReadOnly | QIODevice::Text)
                              ? QString::fromUtf8(f.readAll())
                              : tr("(%1 cannot be read here)").arg(file));
    source_file_ = file;
  }
  source_line_ = line;
  QList<QTextEdit::ExtraSelection> marks;
  const QTextBlock b = source_->document()->findBlockByNumber(line - 1);
  if (line > 0 && b.isValid()) {
    QTextEdit::ExtraSelection m;
    m.format.setBackground(QColor(255, 236, 150));
    m.format.setProperty(QTextFormat::FullWidthSelection, true);
    m.cursor = QTextCursor(b);
    marks << m;
    source_->setTextCursor(QTextCursor(b));
    source_->centerCursor();
  }
  source_->setExtraSelections(marks);
}

QString live_panel::source_line_text() const {
  const QTextBlock b = source_->document()->findBlockByNumber(source_line_ - 1);
  return b.isValid() ? b.text() : QString();
}

void live_panel::show_stop(const block_picture& pic, const QString& where, const QString& watched,
                           const QString& file, int line) {
  ++stops_;
  pic_ = pic;
  grid_->set_block(pic_.rows ? &pic_ : nullptr);
  status_->setText(tr("stopped: %1 (%2 of %3 lanes active)")
                       .arg(where)
                       .arg(pic_.active_lanes)
                       .arg(pic_.addr.size()));
  watched_->setPlainText(watched);
  show_source(file, line);
  set_buttons();
  emit stopped_at(line);
}

void live_panel::finish(const QString& summary, bool launched) {
  finished_ = true;
  waiting_ = false;
  if (worker_.joinable()) worker_.join();
  bv::detail::set_stop_handler({});
  auto& cfg = bv::config();
  cfg.trace_path.clear();
  cfg.break_cond.clear();
  set_buttons();
  // A plugin that could not make its inputs launched nothing: there is no new trace to open.
  if (!launched) {
    status_->setText("<font color=#c00>" + summary.toHtmlEscaped() + "</font>");
    return;
  }
  status_->setText(tr("finished %1; its trace is open in the other views").arg(summary));
  emit trace_ready(trace_path_);
}

}  // namespace bvv
