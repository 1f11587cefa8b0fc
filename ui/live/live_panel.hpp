// Live mode: runs a library kernel, or a user's kernel from a kernel library
// (bv/kernel_library.hpp; the viewer's first plugins, plugin/bv/live_plugin.hpp, still load), on
// the interpreter inside the viewer, on a worker thread, with breakpoints. Where a program stops,
// the interpreter's stop handler hands a snapshot of the block it stopped at to the UI and waits
// for Continue, Step or Stop. When the launch ends, its trace opens in the other views. This module
// links the interpreter and the kernels; the rest of ui/ reads traces only.
#pragma once
#include <QWidget>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "app/views.hpp"
#include "plugin/bv/live_plugin.hpp"

class QComboBox;
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
  void resume_with(int action);  // 0 continue, 1 step, 2 stop
  bool stopped() const { return waiting_; }
  bool running() const { return worker_.joinable() && !finished_; }
  int stops() const { return stops_; }
  const block_picture& picture() const { return pic_; }
  // The source the live run stopped in (its kernel's own file), and the highlighted line.
  QString source_file() const { return source_file_; }
  int source_line() const { return source_line_; }
  QString source_line_text() const;

 signals:
  void stopped_at(int line);
  void trace_ready(const QString& path);

 private:
  void show_stop(const block_picture& pic, const QString& where, const QString& watched,
                 const QString& file, int line);
  void show_source(const QString& file, int line);
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
  QPushButton *run_, *cont_, *step_, *stop_;
  QLabel* status_;
  block_grid* grid_;
  QPlainTextEdit* watched_;
  QPlainTextEdit* source_;  // the stopped kernel's source, its line highlighted
  QString source_file_;
  int source_line_ = 0;
  block_picture pic_;
  QString trace_path_;

  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  int action_ = -1;
  bool waiting_ = false, finished_ = true;
  int stops_ = 0;
};

}  // namespace bvv
