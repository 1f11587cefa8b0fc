// The numbers behind the Charts tab, read from the JSON the blockvec command prints:
//   blockvec bench --json        -> bench_data (interpreter/native ratios per kernel)
//   blockvec run KERNEL --json   -> error_runs (one run each; a file holds one, an array, or
//                                   several objects one after another, as a shell loop appends)
// Parsing is plain C++ (no Qt widgets) so it runs on a worker thread and in tests; every
// failure is a one-line reason naming the file's part that is wrong.
#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <string>
#include <vector>

namespace bvv {

struct bench_row {
  QString kernel, size;
  int64_t programs = 0;
  double native_s = 0, off_s = 0, all_s = 0, parallel_s = 0;
  double off_ratio = 0, all_ratio = 0;  // off_over_native, all_over_native
  bool match = true;
};
struct bench_data {
  QString date, cpu;
  int cores = 0;
  std::vector<bench_row> rows;
};

struct error_run {
  QString kernel, size, schedule, backend;
  uint64_t seed = 0;
  double rel_error = 0, max_abs_error = 0;
  double tolerance = -1;  // < 0: the run did not say (GPU runs print no tolerance)
  bool match = true;
  QString label() const;  // "add 1000 seed 7 (sequential)"
};

// Parse the text of a file; on failure `error` holds the reason and the result is empty.
bench_data parse_bench(const std::string& text, QString& error);
std::vector<error_run> parse_errors(const std::string& text, QString& error);
// Reads a file (at most 64 MiB) into `text`; false with a reason otherwise.
bool read_small_file(const QString& path, std::string& text, QString& error);

// Table models over the parsed numbers: the charts are drawn from these, and they are shown
// under the charts so the exact figures can be read.
class bench_model : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void set(bench_data d);
  const bench_data& data_() const { return d_; }
  int rowCount(const QModelIndex& = {}) const override { return int(d_.rows.size()); }
  int columnCount(const QModelIndex& = {}) const override { return 9; }
  QVariant data(const QModelIndex& i, int role) const override;
  QVariant headerData(int s, Qt::Orientation o, int role) const override;

 private:
  bench_data d_;
};

class errors_model : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void set(std::vector<error_run> r);
  const std::vector<error_run>& runs() const { return r_; }
  int rowCount(const QModelIndex& = {}) const override { return int(r_.size()); }
  int columnCount(const QModelIndex& = {}) const override { return 6; }
  QVariant data(const QModelIndex& i, int role) const override;
  QVariant headerData(int s, Qt::Orientation o, int role) const override;

 private:
  std::vector<error_run> r_;
};

}  // namespace bvv
