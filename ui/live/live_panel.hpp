// Live mode, a debugger: runs a library kernel, or a user's kernel from a kernel library
// (bv/kernel_library.hpp; the viewer's first plugins, plugin/bv/live_plugin.hpp, still load), on
// the interpreter inside the viewer, on a worker thread. Where a program stops (the start
// condition, a breakpoint set in the Source panel's margin, a step, a program run to, a
// diagnostic), the interpreter's stop handler copies what the debugger shows
// (bv/cpu/debug_query.hpp: program states, the program's live blocks, the accesses so far) into the
// models (debug_models.hpp) through a queued call and parks the worker until Continue, Step op,
// Step line, Run to program or Stop; the UI thread never waits for the worker. While programs run,
// the programs grid gets their states a few times a second. When the launch ends, its trace opens
// in the other views. This module links the interpreter and the kernels; the rest of ui/ reads
// traces only.
#pragma once
#include <QWidget>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "app/views.hpp"
#include "debug_models.hpp"
#include "plugin/bv/live_plugin.hpp"

class QCheckBox;
class QComboBox;
class QListView;
class QTableView;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QPlainTextEdit;

namespace bvv {

class live_panel : public QWidget {
  Q_OBJECT
 public:
  explicit live_panel(QWidget* parent = nullptr);
  ~live_panel() override;
  static QStringList kernels();     // the library kernels
  QStringList all_kernels() const;  // library kernels, then those of loaded plugins

  // Loads a kernel library's (or an ABI 1 plugin's) kernels into the list; false with a one-line
  // reason naming the file (also shown) otherwise.
  // Plugins stay loaded: their code may be on a stopped launch's stack, and unloading code the
  // interpreter registered (checks, static objects) is not safe.
  bool load_plugin(const QString& path, QString* error = nullptr);

  // For tests and scripts: the same as the buttons. size: "3000", or "64,256" for plugins.
  void run(const QString& kernel, const QString& size, const QString& break_cond, int break_line);
  void run(const QString& kernel, int size, const QString& break_cond, int break_line) {
    run(kernel, QString::number(size), break_cond, break_line);
  }
  QString status_text() const;
  enum action { continue_run = 0, step_op = 1, stop_run = 2, step_line = 3 };
  void resume_with(int action);
  // Continue until the program with this id ("3" or "3,0,0") reaches its next op; false (and
  // said in the status line) when there is no such program or it has finished.
  bool run_to(const QString& program);
  // What a click on a Source line's margin does: a breakpoint there for the programs in "break at
  // programs" (empty: every program), or none if one was there. False if the condition is bad.
  bool toggle_breakpoint(int line);
  void set_start_stop(bool on);  // stop at the start condition (else only at breakpoints)
  void set_stop_on_diagnostics(bool on);
  void set_condition(const QString& cond);
  bool stopped() const { return waiting_; }
  bool running() const { return worker_.joinable() && !finished_; }
  int stops() const { return stops_; }
  const block_picture& picture() const { return pic_; }
  // The source the live run stopped in (its kernel's own file), and the highlighted line.
  QString source_file() const { return source_file_; }
  int source_line() const { return source_line_; }
  QString source_line_text() const;
  QString stop_reason() const { return why_; }
  int stopped_program() const { return stopped_program_; }  // linear index, -1: none

  // The models the views draw; tests read them.
  program_states_model* states() const { return states_; }
  blocks_model* blocks() const { return blocks_; }
  memory_model* memory() const { return memory_; }
  breakpoint_model* breakpoints() const { return bps_; }
  class source_editor* source() const {
    return source_;
  }
  class programs_grid* programs() const {
    return grid_programs_;
  }
  class memory_strip* memory_view() const {
    return mem_strip_;
  }
  block_grid* block_view() const { return grid_; }
  QListView* blocks_view() const { return blocks_view_; }

 signals:
  void stopped_at(int line);
  void trace_ready(const QString& path);

 private:
  struct snapshot;
  void show_stop(const snapshot& snap);
  void show_block(int row);
  void show_tensor(int row);
  void push_breakpoints();
  void finish(const QString& summary, bool launched);
  // A kernel from a loaded library: a kernel-library entry (ABI 2), or an ABI 1 plugin's kernel.
  struct plugin_kernel {
    QString name, library;
    const bv_live_kernel* k;       // ABI 1
    const bv_kernel_entry* entry;  // ABI 2
    QString description, default_size;
  };
  const plugin_kernel* find_plugin_kernel(const QString& name) const;
  std::vector<plugin_kernel> plugin_kernels_;
  void set_buttons();

  QComboBox* kernel_;
  QLineEdit* size_;
  QPushButton* load_;
  QLineEdit* cond_;
  QSpinBox* line_;
  QCheckBox *start_stop_, *diag_stop_;
  QPushButton *run_, *cont_, *step_, *step_line_, *run_to_, *stop_;
  QLineEdit* run_to_pid_;
  QLabel* status_;
  QLabel* block_title_;
  block_grid* grid_;
  QPlainTextEdit* watched_;
  program_states_model* states_;
  blocks_model* blocks_;
  memory_model* memory_;
  breakpoint_model* bps_;
  class source_editor* source_;  // the stopped kernel's source, its line highlighted
  class programs_grid* grid_programs_;
  QListView* blocks_view_;
  QComboBox* tensor_;
  QTableView* memory_table_;
  class memory_strip* mem_strip_;
  QString source_file_;
  int source_line_ = 0;
  QString why_;
  int stopped_program_ = -1;
  block_picture pic_;  // the access the program stopped at
  QString trace_path_;

  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  int action_ = -1;
  bool waiting_ = false, finished_ = true;
  int stops_ = 0;
};

}  // namespace bvv
