#pragma once
#include <QMainWindow>

#include "charts/charts_view.hpp"
#include "document.hpp"
#include "views.hpp"

class QComboBox;
class QLabel;
class QTableView;
class QTabWidget;

namespace bvv {

class main_window : public QMainWindow {
  Q_OBJECT
 public:
  explicit main_window(QWidget* parent = nullptr);
  trace_document* document() const { return doc_; }
  // Adds a tab next to Memory and Charts (the live mode, which lives in its own module).
  void add_tab(QWidget* w, const QString& title);
  void open_trace(const QString& path);
  void open_live_trace(const QString& path);  // the same, showing the newest launch
  // Pumps events until no query is running (or the timeout passes); true when idle.
  bool wait_idle(int timeout_ms = 20000);

  grid_view* grid() const { return grid_; }
  source_view* source() const { return source_; }
  memory_view* memory() const { return memory_; }
  op_inspector* inspector() const { return inspector_; }
  charts_view* charts() const { return charts_; }
  QTableView* diagnostics_table() const { return diags_; }
  QTableView* ops_table() const { return ops_; }
  QTabWidget* tabs() const { return tabs_; }
  diagnostics_model* diagnostics() const { return diag_model_; }
  ops_model* ops() const { return ops_model_; }

 private:
  void update_title();
  trace_document* doc_;
  grid_view* grid_;
  source_view* source_;
  memory_view* memory_;
  op_inspector* inspector_;
  charts_view* charts_;
  QTableView* diags_;
  QTableView* ops_;
  QTabWidget* tabs_;
  QComboBox* launches_;
  QComboBox* colour_;
  QLabel* status_;
  diagnostics_model* diag_model_;
  ops_model* ops_model_;
};

}  // namespace bvv
