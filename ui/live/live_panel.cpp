#include "live_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QVBoxLayout>

#include "bv/bv.hpp"
#include "bv/cpu/check.hpp"
#include "bv/cpu/debug_query.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"
#include "bv/library/load.hpp"
#include "debug_views.hpp"

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

// What a stop hands to the UI thread: copies, so that the worker may go on once it is resumed.
struct live_panel::snapshot {
  block_picture pic;
  QString where, why, watched, file;
  int line = 0;
  int program = -1;
  QString program_text;
  bv::debug::launch_view states;
  std::vector<bv::debug::live_block> blocks;
  std::vector<bv::debug::tensor_accesses> memory;
  std::string target;
  int wave_size = 64;
};

live_panel::live_panel(QWidget* parent) : QWidget(parent) {
  states_ = new program_states_model(this);
  blocks_ = new blocks_model(this);
  memory_ = new memory_model(this);
  bps_ = new breakpoint_model(this);

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
      tr("program-id condition, as BV_BREAK: \"=1\", \"=0,>1\"; empty: every program. The start "
         "stop and breakpoints set in the Source margin take it"));
  cond_->setMaximumWidth(110);
  line_ = new QSpinBox(this);
  line_->setRange(0, 100000);
  line_->setToolTip(tr("stop at this source line; 0: at each matching program's first memory op"));
  start_stop_ = new QCheckBox(tr("stop at start"), this);
  start_stop_->setChecked(true);
  start_stop_->setToolTip(
      tr("stop the matching programs at the line (or their first memory op); off: only "
         "breakpoints, Run to program and diagnostics stop"));
  diag_stop_ = new QCheckBox(tr("stop at diagnostics"), this);
  diag_stop_->setToolTip(tr("stop a program at the op that reported a diagnostic"));
  form->addWidget(new QLabel(tr("kernel"), this));
  form->addWidget(kernel_);
  form->addWidget(new QLabel(tr("size"), this));
  form->addWidget(size_);
  form->addWidget(new QLabel(tr("break at programs"), this));
  form->addWidget(cond_);
  form->addWidget(new QLabel(tr("line"), this));
  form->addWidget(line_);
  form->addWidget(start_stop_);
  form->addWidget(diag_stop_);
  form->addWidget(load_);
  form->addStretch(1);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run"), this);
  cont_ = new QPushButton(tr("Continue"), this);
  step_ = new QPushButton(tr("Step op"), this);
  step_->setToolTip(tr("run the stopped program to its next op"));
  step_line_ = new QPushButton(tr("Step line"), this);
  step_line_->setToolTip(tr("run the stopped program to its next op on another source line"));
  run_to_ = new QPushButton(tr("Run to program"), this);
  run_to_->setToolTip(
      tr("continue until this program runs its next op (click a program in the "
         "grid to choose it)"));
  run_to_pid_ = new QLineEdit("0", this);
  run_to_pid_->setMaximumWidth(80);
  run_to_pid_->setToolTip(tr("a program id: X, or X,Y,Z"));
  stop_ = new QPushButton(tr("Stop"), this);
  for (auto* b : {run_, cont_, step_, step_line_}) buttons->addWidget(b);
  buttons->addWidget(run_to_);
  buttons->addWidget(run_to_pid_);
  buttons->addWidget(stop_);
  buttons->addStretch(1);
  status_ = new QLabel(tr("Run a library kernel, or one from a plugin, on the interpreter; it "
                          "stops at the start condition and at breakpoints (click a line's "
                          "margin), then Step op, Step line, Run to program or Continue."),
                       this);
  status_->setWordWrap(true);

  source_ = new source_editor(bps_, this);
  source_->setPlaceholderText(tr("the source of the kernel where it stops"));
  grid_programs_ = new programs_grid(states_, this);
  blocks_view_ = new QListView(this);
  blocks_view_->setModel(blocks_);
  blocks_view_->setToolTip(tr("what the stopped program's ops made, one line of source each"));
  block_title_ = new QLabel(tr("<b>Block</b>: none"), this);
  block_title_->setTextFormat(Qt::RichText);
  grid_ = new block_grid(this);
  watched_ = new QPlainTextEdit(this);
  watched_->setReadOnly(true);
  watched_->setMaximumHeight(60);
  watched_->setPlaceholderText(tr("the stopped program's watched values"));
  tensor_ = new QComboBox(this);
  tensor_->setModel(memory_);
  tensor_->setToolTip(tr("the tensor the memory strip shows"));
  mem_strip_ = new memory_strip(memory_, this);
  mem_strip_->setToolTip(
      tr("elements of the tensor: dark, accessed by the stopped program; light, by other "
         "programs only; blue read, orange written, purple both"));
  memory_table_ = new QTableView(this);
  memory_table_->setModel(memory_);
  memory_table_->verticalHeader()->hide();
  memory_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  memory_table_->setMaximumHeight(90);

  auto* middle = new QSplitter(Qt::Vertical, this);
  middle->addWidget(grid_programs_);
  middle->addWidget(blocks_view_);
  auto* block_box = new QWidget(this);
  auto* bv_ = new QVBoxLayout(block_box);
  bv_->setContentsMargins(0, 0, 0, 0);
  bv_->addWidget(block_title_);
  bv_->addWidget(grid_, 1);
  bv_->addWidget(watched_);
  auto* mem_box = new QWidget(this);
  auto* mv = new QVBoxLayout(mem_box);
  mv->setContentsMargins(0, 0, 0, 0);
  auto* mem_head = new QHBoxLayout;
  mem_head->addWidget(new QLabel(tr("<b>Memory</b> so far"), this));
  mem_head->addWidget(tensor_, 1);
  mv->addLayout(mem_head);
  mv->addWidget(mem_strip_, 1);
  mv->addWidget(memory_table_);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(block_box);
  right->addWidget(mem_box);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(source_);
  split->addWidget(middle);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setStretchFactor(2, 3);
  v->addLayout(form);
  v->addLayout(buttons);
  v->addWidget(status_);
  v->addWidget(split, 1);

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
  connect(cont_, &QPushButton::clicked, this, [this] { resume_with(continue_run); });
  connect(step_, &QPushButton::clicked, this, [this] { resume_with(step_op); });
  connect(step_line_, &QPushButton::clicked, this, [this] { resume_with(step_line); });
  connect(stop_, &QPushButton::clicked, this, [this] { resume_with(stop_run); });
  connect(run_to_, &QPushButton::clicked, this, [this] { run_to(run_to_pid_->text()); });
  connect(diag_stop_, &QCheckBox::toggled, this, [this](bool on) {
    if (!finished_) bv::debug::stop_on_diagnostics(on);
  });
  connect(source_, &source_editor::margin_clicked, this, &live_panel::toggle_breakpoint);
  connect(bps_, &breakpoint_model::breakpoints_changed, this, &live_panel::push_breakpoints);
  connect(grid_programs_, &programs_grid::program_clicked, this, [this](int i) {
    run_to_pid_->setText(
        program_states_model::pid_text(states_->view().programs[size_t(i)].pid).mid(1).chopped(1));
  });
  connect(blocks_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) { show_block(i.isValid() ? i.row() : -1); });
  connect(tensor_, &QComboBox::currentIndexChanged, this, &live_panel::show_tensor);
  set_buttons();
}

live_panel::~live_panel() {
  {
    std::lock_guard lk(mu_);
    action_ = stop_run;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  bv::detail::set_stop_handler({});
  bv::debug::set_progress_handler({});
  bv::debug::record_accesses(false);
  bv::debug::set_line_breakpoints({});
  bv::debug::run_to_program(std::nullopt);
  bv::debug::stop_on_diagnostics(false);
}

void live_panel::set_buttons() {
  run_->setEnabled(finished_);
  for (auto* b : {cont_, step_, step_line_, run_to_}) b->setEnabled(waiting_);
  stop_->setEnabled(!finished_);
}

void live_panel::set_start_stop(bool on) { start_stop_->setChecked(on); }
void live_panel::set_stop_on_diagnostics(bool on) { diag_stop_->setChecked(on); }
void live_panel::set_condition(const QString& cond) { cond_->setText(cond); }

void live_panel::resume_with(int action) {
  {
    std::lock_guard lk(mu_);
    if (!waiting_) return;
    action_ = action;
    waiting_ = false;
  }
  cv_.notify_all();
  status_->setText(action == stop_run ? tr("stopping...") : tr("running..."));
  set_buttons();
}

bool live_panel::run_to(const QString& program) {
  if (!waiting_) return false;
  const QStringList parts = program.split(',');
  int xyz[3] = {0, 0, 0};
  bool ok = !program.trimmed().isEmpty() && parts.size() <= 3;
  for (int i = 0; ok && i < parts.size(); ++i) xyz[i] = parts[i].trimmed().toInt(&ok);
  const int i = ok ? states_->index_of(xyz[0], xyz[1], xyz[2]) : -1;
  if (i < 0) {
    status_->setText(
        tr("no program '%1' in this launch of %2 programs").arg(program).arg(states_->rowCount()));
    return false;
  }
  using st = program_states_model::status;
  if (const st s = states_->state_of(i); s == st::done || s == st::error) {
    status_->setText(
        tr("program %1 has finished: nothing to run to")
            .arg(program_states_model::pid_text(states_->view().programs[size_t(i)].pid)));
    return false;
  }
  bv::debug::run_to_program(std::array<int, 3>{xyz[0], xyz[1], xyz[2]});
  resume_with(continue_run);
  return true;
}

bool live_panel::toggle_breakpoint(int line) {
  if (source_file_.isEmpty() || line < 1) return false;
  const QString cond = cond_->text().trimmed();
  bool match = false;
  std::string why;
  if (!cond.isEmpty() && !bv::parse_pid_cond(cond.toStdString(), {0, 0, 0}, match, why)) {
    status_->setText("<font color=#c00>" +
                     tr("no breakpoint: %1").arg(QString::fromStdString(why)).toHtmlEscaped() +
                     "</font>");
    return false;
  }
  const bool set = bps_->toggle(source_file_, line, cond);
  status_->setText(
      set ? tr("breakpoint at line %1 for %2")
                .arg(line)
                .arg(cond.isEmpty() ? tr("every program") : tr("programs %1").arg(cond))
          : tr("breakpoint at line %1 cleared").arg(line));
  return true;
}

// Breakpoints reach the interpreter only while a run is live: other launches in this process
// (a test's, a plugin's self-check) never stop at them.
void live_panel::push_breakpoints() {
  if (!finished_) bv::debug::set_line_breakpoints(bps_->list());
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
  // The form shows what runs, also when a script or test started it.
  kernel_->setCurrentText(kernel);
  size_->setText(size_text);
  cond_->setText(break_cond);
  line_->setValue(break_line);
  finished_ = false;
  stops_ = 0;
  stopped_program_ = -1;
  why_.clear();
  states_->clear();
  blocks_->clear();
  memory_->clear();
  trace_path_ = QDir::temp().filePath(
      QString("blockvec-live-%1.bvtrace").arg(QCoreApplication::applicationPid()));
  auto& cfg = bv::config();
  // Live runs are deterministic and on one thread: a stop holds the launch, not a pool of threads.
  cfg.sched = bv::schedule::sequential;
  cfg.quiet = true;
  cfg.interactive = false;
  cfg.trace_path = trace_path_.toStdString();
  cfg.break_cond.clear();
  if (start_stop_->isChecked()) {
    cfg.break_cond =
        break_cond.toStdString() + (break_line > 0 ? "@:" + std::to_string(break_line) : "");
    if (cfg.break_cond.empty()) cfg.break_cond = ",";  // every program, at its first memory op
  }
  bv::debug::record_accesses(true);
  bv::debug::set_line_breakpoints(bps_->list());
  bv::debug::run_to_program(std::nullopt);
  bv::debug::stop_on_diagnostics(diag_stop_->isChecked());
  // The programs grid follows the launch while it runs; the worker only posts, never waits.
  bv::debug::set_progress_handler([this](const bv::debug::launch_view& v) {
    QMetaObject::invokeMethod(
        this, [this, v] { states_->set_view(v); }, Qt::QueuedConnection);
  });
  bv::detail::set_stop_handler([this](bv::detail::program_state& s, const std::source_location* loc,
                                      const char* why, const bv::detail::access* a) {
    auto snap = std::make_shared<snapshot>();
    snap->target = bv::target_name(bv::config().tgt);
    snap->wave_size = bv::config().wave_size;
    if (a) {
      block_picture& pic = snap->pic;
      pic.rows = a->rows;
      pic.cols = a->cols;
      pic.waves = a->waves;
      pic.wave_size = snap->wave_size;
      pic.target = snap->target;
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
    snap->why = QString::fromUtf8(why);
    snap->where = QString("program (%1,%2,%3) at line %4 (%5%6): %7")
                      .arg(s.pid[0])
                      .arg(s.pid[1])
                      .arg(s.pid[2])
                      .arg(loc ? loc->line() : 0)
                      .arg(a ? QString::fromUtf8(a->op) : QString("op"))
                      .arg(a && a->alloc ? " " + QString::fromStdString(a->alloc->name) : QString())
                      .arg(snap->why);
    for (auto& [k, val] : s.watched)
      if (k[0] != '#') snap->watched += QString::fromStdString(k + " = " + val) + "\n";
    snap->file = loc ? QString::fromUtf8(loc->file_name()) : QString();
    snap->line = loc ? static_cast<int>(loc->line()) : 0;
    snap->program = static_cast<int>(s.linear);
    snap->program_text = program_states_model::pid_text(s.pid);
    snap->states = bv::debug::program_states(s);
    snap->blocks = bv::debug::live_blocks(s);
    snap->memory = bv::debug::accesses_so_far(s);
    std::unique_lock lk(mu_);
    waiting_ = true;
    action_ = -1;
    QMetaObject::invokeMethod(
        this, [this, snap] { show_stop(*snap); }, Qt::QueuedConnection);
    cv_.wait(lk, [&] { return action_ >= 0; });
    waiting_ = false;
    const int act = action_;
    return act == stop_run    ? bv::detail::stop_action::quit
           : act == step_op   ? bv::detail::stop_action::step
           : act == step_line ? bv::detail::stop_action::step_line
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

QString live_panel::source_line_text() const {
  const QTextBlock b = source_->document()->findBlockByNumber(source_line_ - 1);
  return b.isValid() ? b.text() : QString();
}

void live_panel::show_stop(const snapshot& snap) {
  ++stops_;
  pic_ = snap.pic;
  why_ = snap.why;
  stopped_program_ = snap.program;
  states_->set_view(snap.states);
  blocks_->set_blocks(snap.blocks, snap.target, snap.wave_size);
  const QString tensor = tensor_->currentText();
  memory_->set_accesses(snap.memory, snap.program_text);
  // The stopped op's block leads; the memory view keeps its tensor, else the stopped op's.
  int row = blocks_->row_of_line(snap.line);
  if (row < 0 && blocks_->rowCount()) row = 0;
  if (row >= 0) blocks_view_->setCurrentIndex(blocks_->index(row));
  show_block(row);
  int t = memory_->row_of(tensor);
  if (t < 0 && row >= 0) t = memory_->row_of(QString::fromStdString(blocks_->block(row).tensor));
  if (t < 0 && memory_->rowCount()) t = 0;
  tensor_->setCurrentIndex(t);
  show_tensor(t);
  status_->setText(tr("stopped: %1 (%2 of %3 lanes active)")
                       .arg(snap.where)
                       .arg(pic_.active_lanes)
                       .arg(pic_.addr.size()));
  watched_->setPlainText(snap.watched);
  source_->set_file(snap.file);
  source_file_ = snap.file;
  source_line_ = snap.line;
  source_->set_current_line(snap.line);
  set_buttons();
  emit stopped_at(snap.line);
}

// The block of a row of the blocks list: a memory op's lanes (values, masks, waves and lanes),
// or a reduction's result in the title; with no recorded op, the access the program stopped at.
void live_panel::show_block(int row) {
  if (row < 0 || row >= blocks_->rowCount()) {
    grid_->set_block(pic_.rows ? &pic_ : nullptr);
    block_title_->setText(tr("<b>Block</b>: the access stopped at"));
    return;
  }
  const auto& b = blocks_->block(row);
  const block_picture& p = blocks_->picture(row);
  grid_->set_block(p.rows ? &p : nullptr);
  block_title_->setText(
      p.rows
          ? tr("<b>@%1 %2 %3</b>: %4x%5, %6 of %7 lanes active, waves of %8 on %9")
                .arg(b.line)
                .arg(QString::fromStdString(b.op), QString::fromStdString(b.tensor))
                .arg(b.rows)
                .arg(b.cols)
                .arg(p.active_lanes)
                .arg(p.addr.size())
                .arg(p.wave_size)
                .arg(QString::fromStdString(p.target))
          : tr("<b>@%1 %2</b> = %3")
                .arg(b.line)
                .arg(QString::fromStdString(b.op), QString::fromStdString(b.text).toHtmlEscaped()));
}

void live_panel::show_tensor(int row) { mem_strip_->set_row(row); }

void live_panel::finish(const QString& summary, bool launched) {
  finished_ = true;
  waiting_ = false;
  if (worker_.joinable()) worker_.join();
  bv::detail::set_stop_handler({});
  bv::debug::set_progress_handler({});
  bv::debug::record_accesses(false);
  bv::debug::set_line_breakpoints({});
  bv::debug::run_to_program(std::nullopt);
  bv::debug::stop_on_diagnostics(false);
  // The launch's last progress report (every program's end state) was queued before this call.
  stopped_program_ = -1;
  source_->set_current_line(0);
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
