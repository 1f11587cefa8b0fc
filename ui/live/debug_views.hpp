// The live debugger's views over debug_models.hpp: the programs grid, the Source panel with its
// breakpoint margin, and the memory strip of one tensor. They draw their models and turn clicks
// into signals; the live panel decides what a click does.
#pragma once
#include <QPlainTextEdit>
#include <QWidget>

#include "debug_models.hpp"

namespace bvv {

// One cell per program, coloured by its state, with a legend; the stopped program is outlined.
class programs_grid : public QWidget {
  Q_OBJECT
 public:
  explicit programs_grid(program_states_model* m, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {320, 200}; }
  QRect cell_rect(int program) const;

 signals:
  void program_clicked(int program);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  program_states_model* m_;
};

// The live kernel's source: line numbers and breakpoints in the margin (a click there asks to
// toggle one), the line the program stopped at highlighted.
class source_editor : public QPlainTextEdit {
  Q_OBJECT
 public:
  source_editor(breakpoint_model* bps, QWidget* parent = nullptr);
  void set_file(const QString& file);  // reads it (once per file)
  QString file() const { return file_; }
  void set_current_line(int line);  // 0: none
  int current_line() const { return line_; }
  int margin_width() const;
  QWidget* margin() const { return margin_; }
  // The margin's rectangle of a line in viewport coordinates (empty when not visible): what a
  // click must hit; tests click there.
  QRect margin_rect(int line) const;

 signals:
  void margin_clicked(int line);

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  friend class source_margin;
  void paint_margin(QPaintEvent* e);
  int line_at(int y) const;  // viewport y -> line, 0: none
  void highlight();
  breakpoint_model* bps_;
  QWidget* margin_;
  QString file_;
  int line_ = 0;
};

// One tensor's elements, wrapped into rows: read or written by the stopped program (dark), by
// other programs only (light), untouched (white). Reads blue, writes orange, both purple.
class memory_strip : public QWidget {
  Q_OBJECT
 public:
  explicit memory_strip(memory_model* m, QWidget* parent = nullptr);
  void set_row(int row);  // the tensor to draw (memory_model's row), -1: none
  int row() const { return row_; }
  QSize sizeHint() const override { return {360, 160}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  memory_model* m_;
  int row_ = -1;
};

}  // namespace bvv
