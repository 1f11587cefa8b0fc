// A plain-text table: columns sized to their widest cell, numbers right-aligned.
#pragma once
#include <fmt/core.h>

#include <string>
#include <vector>

namespace bv::cli {

class table {
 public:
  explicit table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::FILE* out = stdout) const {
    std::vector<size_t> w;
    for (const auto& r : rows_)
      for (size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        w[i] = std::max(w[i], r[i].size());
      }
    for (size_t k = 0; k < rows_.size(); ++k) {
      std::string line;
      for (size_t i = 0; i < rows_[k].size(); ++i) {
        const auto& c = rows_[k][i];
        const bool numeric = k > 0 && i > 0 && !c.empty() && (std::isdigit(c[0]) || c[0] == '-');
        line += numeric ? fmt::format("{:>{}}", c, w[i]) : fmt::format("{:<{}}", c, w[i]);
        if (i + 1 < rows_[k].size()) line += "  ";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      fmt::print(out, "{}\n", line);
      if (k == 0) {
        size_t total = 0;
        for (auto x : w) total += x + 2;
        fmt::print(out, "{}\n", std::string(total > 2 ? total - 2 : 0, '-'));
      }
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace bv::cli
