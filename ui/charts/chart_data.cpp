#include "chart_data.hpp"

#include <QColor>
#include <QFile>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <sstream>

namespace bvv {

using json = nlohmann::json;

namespace {

// `blockvec run` prints size as a list ([1000] or [256,1024]); accept a plain number as well.
QString size_text(const json& j) {
  if (j.is_number_integer()) return QString::number(j.get<int64_t>());
  if (!j.is_array()) return {};
  QStringList parts;
  for (const auto& v : j)
    if (v.is_number_integer()) parts << QString::number(v.get<int64_t>());
  return parts.join('x');
}

// A required number, or a reason naming where it was looked for.
bool number(const json& o, const char* key, const QString& where, double& out, QString& error) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) {
    error = QString("%1: '%2' is %3").arg(where, key, it == o.end() ? "missing" : "not a number");
    return false;
  }
  out = it->get<double>();
  return true;
}

QString string_or(const json& o, const char* key, const QString& fallback = {}) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                          : fallback;
}

QString parse_failure(const json::exception& e) {
  // nlohmann's text is "[json.exception.parse_error.101] parse error at line 3, column 5: ...";
  // the bracketed id means nothing to a user.
  std::string w = e.what();
  if (auto p = w.find("] "); p != std::string::npos) w = w.substr(p + 2);
  return QString("not valid JSON: %1").arg(QString::fromStdString(w));
}

}  // namespace

QString error_run::label() const {
  QString s = kernel;
  if (!size.isEmpty()) s += " " + size;
  s += QString(" seed %1").arg(seed);
  QStringList extra;
  if (!schedule.isEmpty() && schedule != "sequential") extra << schedule;
  if (!backend.isEmpty() && backend != "cpu") extra << backend;
  if (!extra.isEmpty()) s += " (" + extra.join(", ") + ")";
  return s;
}

bool read_small_file(const QString& path, std::string& text, QString& error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    error = QString("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  if (f.size() > (int64_t(64) << 20)) {
    error = QString("%1 is %2 MiB; a benchmark or error file is a few KiB (is it the right file?)")
                .arg(path)
                .arg(f.size() >> 20);
    return false;
  }
  const QByteArray all = f.readAll();
  if (all.trimmed().isEmpty()) {
    error = QString("%1 is empty").arg(path);
    return false;
  }
  text.assign(all.constData(), static_cast<size_t>(all.size()));
  return true;
}

bench_data parse_bench(const std::string& text, QString& error) {
  bench_data d;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    error = parse_failure(e);
    return {};
  }
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array()) {
    error = "not the output of blockvec bench --json: no \"results\" array";
    return {};
  }
  d.date = string_or(j, "date");
  d.cpu = string_or(j, "cpu");
  if (j.contains("cores") && j["cores"].is_number_integer()) d.cores = j["cores"].get<int>();
  int i = 0;
  for (const auto& r : j["results"]) {
    const QString where = QString("results[%1]").arg(i++);
    if (!r.is_object()) {
      error = where + ": not an object";
      return {};
    }
    bench_row row;
    row.kernel = string_or(r, "kernel");
    if (row.kernel.isEmpty()) {
      error = where + ": 'kernel' is missing or not a string";
      return {};
    }
    const QString w = where + " (" + row.kernel + ")";
    if (!number(r, "native_s", w, row.native_s, error) ||
        !number(r, "checks_off_s", w, row.off_s, error) ||
        !number(r, "checks_all_s", w, row.all_s, error) ||
        !number(r, "parallel_s", w, row.parallel_s, error) ||
        !number(r, "off_over_native", w, row.off_ratio, error) ||
        !number(r, "all_over_native", w, row.all_ratio, error))
      return {};
    if (row.off_ratio < 0 || row.all_ratio < 0) {
      error = w + ": a negative time ratio";
      return {};
    }
    row.size = size_text(r.value("size", json()));
    if (r.contains("programs") && r["programs"].is_number_integer())
      row.programs = r["programs"].get<int64_t>();
    if (r.contains("match") && r["match"].is_boolean()) row.match = r["match"].get<bool>();
    d.rows.push_back(std::move(row));
  }
  if (d.rows.empty()) {
    error = "the benchmark has no results (blockvec bench ran no kernel with a native version)";
    return {};
  }
  return d;
}

std::vector<error_run> parse_errors(const std::string& text, QString& error) {
  // Values one after another (a loop appending `blockvec run --json` to a file), or one array.
  std::vector<json> values;
  std::istringstream in(text);
  try {
    while (true) {
      in >> std::ws;
      if (in.peek() == std::char_traits<char>::eof()) break;
      json v;
      in >> v;
      if (v.is_array())
        for (auto& e : v) values.push_back(std::move(e));
      else
        values.push_back(std::move(v));
    }
  } catch (const json::exception& e) {
    error = parse_failure(e);
    return {};
  }
  std::vector<error_run> runs;
  int i = 0;
  for (const auto& o : values) {
    const QString where = QString("run %1").arg(i++);
    if (!o.is_object()) {
      error = where + ": not an object (expected the output of blockvec run KERNEL --json)";
      return {};
    }
    error_run r;
    r.kernel = string_or(o, "kernel");
    if (r.kernel.isEmpty()) {
      error = where + ": 'kernel' is missing or not a string";
      return {};
    }
    r.size = size_text(o.value("size", json()));
    if (o.contains("seed") && o["seed"].is_number_unsigned()) r.seed = o["seed"].get<uint64_t>();
    r.schedule = string_or(o, "schedule");
    r.backend = string_or(o, "backend", "cpu");
    const QString w = where + " (" + r.kernel + ")";
    if (o.contains("rel_error")) {  // the interpreter's run
      if (!number(o, "rel_error", w, r.rel_error, error)) return {};
      double v = 0;
      QString ignored;
      if (number(o, "max_abs_error", w, v, ignored)) r.max_abs_error = v;
      if (number(o, "tolerance", w, v, ignored)) r.tolerance = v;
      if (o.contains("match") && o["match"].is_boolean()) r.match = o["match"].get<bool>();
      runs.push_back(r);
    } else if (o.contains("gpu") && o["gpu"].is_object()) {
      // --backend gpu|both: a point for the GPU's result and one for the interpreter's.
      for (const char* side : {"gpu", "cpu"}) {
        if (!o.contains(side) || !o[side].is_object()) continue;
        error_run s = r;
        s.backend = side;
        if (!number(o[side], "rel_error", w + "." + side, s.rel_error, error)) return {};
        double v = 0;
        QString ignored;
        if (number(o[side], "max_abs_error", w, v, ignored)) s.max_abs_error = v;
        if (o[side].contains("match") && o[side]["match"].is_boolean())
          s.match = o[side]["match"].get<bool>();
        runs.push_back(s);
      }
    } else {
      error = w + ": no 'rel_error' (expected the output of blockvec run KERNEL --json)";
      return {};
    }
    if (!(runs.back().rel_error >= 0)) {
      error = w + ": 'rel_error' is negative or not a number";
      return {};
    }
  }
  if (runs.empty()) {
    error = "no runs: the file holds an empty array";
    return {};
  }
  return runs;
}

// ---- models --------------------------------------------------------------------------------

void bench_model::set(bench_data d) {
  beginResetModel();
  d_ = std::move(d);
  endResetModel();
}

QVariant bench_model::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount()) return {};
  const bench_row& r = d_.rows[static_cast<size_t>(i.row())];
  if (role == Qt::ForegroundRole) {
    // A row whose result did not match its reference: its times are void.
    return !r.match ? QVariant(QColor(200, 30, 30)) : QVariant();
  }
  if (role == Qt::UserRole) {  // the raw number, for sorting and tests
    const double v[] = {0,           0,           r.native_s,   r.off_s,        r.all_s,
                        r.off_ratio, r.all_ratio, r.parallel_s, double(r.match)};
    return v[i.column()];
  }
  if (role != Qt::DisplayRole) return {};
  auto ms = [](double s) { return QString::number(s * 1e3, 'f', 2); };
  auto x = [](double v) { return QString::number(v, 'f', 2) + "x"; };
  switch (i.column()) {
    case 0:
      return r.kernel;
    case 1:
      return r.size;
    case 2:
      return ms(r.native_s);
    case 3:
      return ms(r.off_s);
    case 4:
      return ms(r.all_s);
    case 5:
      return x(r.off_ratio);
    case 6:
      return x(r.all_ratio);
    case 7:
      return ms(r.parallel_s);
    case 8:
      return r.match ? QString("yes") : QString("NO");
  }
  return {};
}

QVariant bench_model::headerData(int s, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* h[] = {"kernel",     "size",       "native ms",   "off ms", "all ms",
                            "off/native", "all/native", "parallel ms", "matches"};
  return s >= 0 && s < 9 ? QString(h[s]) : QVariant();
}

void errors_model::set(std::vector<error_run> r) {
  beginResetModel();
  r_ = std::move(r);
  endResetModel();
}

QVariant errors_model::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount()) return {};
  const error_run& r = r_[static_cast<size_t>(i.row())];
  if (role == Qt::ForegroundRole)
    return !r.match && i.column() == 5 ? QVariant(QColor(200, 30, 30)) : QVariant();
  if (role == Qt::UserRole) {
    const double v[] = {0, 0, r.rel_error, r.max_abs_error, r.tolerance, double(r.match)};
    return v[i.column()];
  }
  if (role != Qt::DisplayRole) return {};
  switch (i.column()) {
    case 0:
      return i.row();
    case 1:
      return r.label();
    case 2:
      return r.rel_error == 0 ? QString("0 (exact)") : QString::number(r.rel_error, 'g', 3);
    case 3:
      return QString::number(r.max_abs_error, 'g', 3);
    case 4:
      return r.tolerance < 0 ? QString("-") : QString::number(r.tolerance, 'g', 3);
    case 5:
      return r.match ? QString("yes") : QString("NO");
  }
  return {};
}

QVariant errors_model::headerData(int s, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* h[] = {"#", "run", "rel L2 error", "max abs error", "tolerance", "matches"};
  return s >= 0 && s < 6 ? QString(h[s]) : QVariant();
}

}  // namespace bvv
