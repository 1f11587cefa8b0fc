// The views: each draws what the trace_document holds and turns clicks into selections on it.
#pragma once
#include <QPlainTextEdit>
#include <QWidget>
#include <string>
#include <vector>

#include "document.hpp"

class QComboBox;
class QLabel;
class QCheckBox;

namespace bvv {

// A block as the op inspector and live mode draw it: lanes laid out rows x cols, each with its
// address, whether it was active, and which wave and lane hold it (the layout map of
// lang/bv/layout.hpp for the trace's target and the block's rank, as the GPU build places it).
struct block_picture {
  int rows = 0, cols = 0, waves = 1, wave_size = 64, elem_bytes = 4;
  int rank = 1;
  std::string target = "gfx942";  // a target name (bv::parse_target); unknown: by wave_size
  bool store = false;
  int64_t numel = 0;
  std::vector<int64_t> addr;
  std::vector<uint8_t> active;
  std::vector<int> wave, lane;  // per element: the first (wave, lane) holding it
  // Per element, the value to print in its cell (live mode: memory there now); empty: addresses.
  std::vector<std::string> value;
  // Lane utilisation and coalescing: distinct 128-byte segments each wave touched vs the ideal.
  int active_lanes = 0, segments = 0, ideal_segments = 0;
  void fill_layout();  // wave, lane and the figures from rows, cols, waves, addr, active
};

class block_grid : public QWidget {
  Q_OBJECT
 public:
  explicit block_grid(QWidget* parent = nullptr);
  void set_block(const block_picture* b);  // null: empty
  QSize sizeHint() const override { return {420, 300}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  const block_picture* b_ = nullptr;
};

class op_inspector : public QWidget {
  Q_OBJECT
 public:
  explicit op_inspector(trace_document* doc, QWidget* parent = nullptr);
  const block_picture& picture() const { return pic_; }

 private:
  void refresh();
  trace_document* doc_;
  block_picture pic_;
  block_grid* grid_;
  QLabel* title_;
  QLabel* figures_;
  QPlainTextEdit* watched_;
};

class source_view : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit source_view(trace_document* doc, QWidget* parent = nullptr);
  int64_t shown_source() const { return shown_; }
  int highlighted_line() const { return line_; }

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  void refresh();
  void show_source(int64_t id);
  trace_document* doc_;
  int64_t shown_ = -1;
  int line_ = 0;
  std::map<int, QString> notes_;  // line -> inline diagnostic text
  std::map<int, int> op_lines_;   // line -> ops recorded there (over the launch)
};

class grid_view : public QWidget {
  Q_OBJECT
 public:
  enum class colour_by { ops, accesses, diagnostics };
  explicit grid_view(trace_document* doc, QWidget* parent = nullptr);
  void set_colour_by(colour_by c);
  QSize sizeHint() const override { return {360, 260}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  QRect cell_rect(int64_t program) const;
  int64_t program_at(QPoint p) const;
  void layout_cells();
  trace_document* doc_;
  colour_by by_ = colour_by::diagnostics;
  int cols_ = 1, rows_ = 1;
};

class heat_view : public QWidget {
  Q_OBJECT
 public:
  explicit heat_view(trace_document* doc, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {480, 300}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  trace_document* doc_;
};

// The memory view: tensor and program choice above the heatmap, a legend and figures below.
class memory_view : public QWidget {
  Q_OBJECT
 public:
  explicit memory_view(trace_document* doc, QWidget* parent = nullptr);
  heat_view* heat() const { return heat_; }

 private:
  void refill();
  trace_document* doc_;
  QComboBox* tensor_;
  QCheckBox* only_program_;
  heat_view* heat_;
  QLabel* info_;
};

}  // namespace bvv
