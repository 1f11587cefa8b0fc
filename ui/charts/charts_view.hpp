// The Charts tab, drawn with Qt Charts: three pages.
//  - Lane utilisation: per memory op of the source, the share of active lanes and of lanes
//    outside tensors over the current launch of the trace.
//  - Benchmark: `blockvec bench --json`, the interpreter/native ratios per kernel as grouped bars
//    with the 2x (checks off) and 4x (every check) target lines.
//  - Error vs reference: `blockvec run KERNEL --json` outputs, rel L2 error per run on a log axis
//    against each run's tolerance.
// Files are read and parsed on a worker thread; the UI thread only builds the chart.
#pragma once
#include <QFutureWatcher>
#include <QWidget>

#include "chart_data.hpp"
#include "document.hpp"

class QChart;
class QChartView;
class QLabel;
class QTabWidget;

namespace bvv {

class charts_view : public QWidget {
  Q_OBJECT
 public:
  explicit charts_view(trace_document* doc, QWidget* parent = nullptr);
  ~charts_view() override;
  enum page { lanes_page = 0, bench_page = 1, errors_page = 2 };

  void open_bench(const QString& path);   // asynchronous: loaded() or failed() follows
  void open_errors(const QString& path);  // likewise
  void show_page(page p);
  bool busy() const { return pending_ > 0; }

  int bars() const { return bars_; }  // categories of the lane-utilisation chart
  QChart* lanes_chart() const;
  QChart* bench_chart() const;
  QChart* errors_chart() const;
  QChartView* chart_view(page p) const { return views_[p]; }
  bench_model* bench() const { return bench_; }
  errors_model* errors() const { return errors_; }
  QString message(page p) const;

 signals:
  void loaded(int page);
  void failed(const QString& message);

 private:
  struct parsed {
    bench_data bench;
    std::vector<error_run> runs;
    QString error;
  };
  void load(page p, const QString& path);
  void refresh_lanes();
  void draw_bench();
  void draw_errors();
  void say(page p, const QString& text, bool bad);

  trace_document* doc_;
  QTabWidget* pages_;
  QChartView* views_[3];
  QLabel* notes_[3];
  bench_model* bench_;
  errors_model* errors_;
  int bars_ = 0;
  int pending_ = 0;
};

}  // namespace bvv
