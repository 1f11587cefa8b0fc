#include "junit.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <pugixml.hpp>

namespace bv::cli {

bool write_junit(const std::string& path, const std::string& suite,
                 const std::vector<case_report>& cases, std::string& error) {
  int failures = 0, errors = 0;
  double total = 0;
  for (const auto& c : cases) {
    failures += !c.passed && c.error.empty();
    errors += !c.error.empty();
    total += c.seconds;
  }
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));

  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto all = doc.append_child("testsuites");
  all.append_attribute("name") = "blockvec";
  all.append_attribute("tests") = static_cast<int>(cases.size());
  all.append_attribute("failures") = failures;
  all.append_attribute("errors") = errors;
  all.append_attribute("time") = total;
  auto s = all.append_child("testsuite");
  s.append_attribute("name") = suite.c_str();
  s.append_attribute("tests") = static_cast<int>(cases.size());
  s.append_attribute("failures") = failures;
  s.append_attribute("errors") = errors;
  s.append_attribute("skipped") = 0;
  s.append_attribute("time") = total;
  s.append_attribute("timestamp") = stamp;
  s.append_attribute("hostname") = host;
  for (const auto& c : cases) {
    auto t = s.append_child("testcase");
    t.append_attribute("classname") = ("blockvec." + c.backend).c_str();
    t.append_attribute("name") = (c.kernel + " " + c.size + " " + c.target).c_str();
    t.append_attribute("time") = c.seconds;
    std::string out;
    for (const auto& d : c.diags) out += d.text() + "\n";
    if (!c.error.empty()) {
      auto e = t.append_child("error");
      e.append_attribute("message") = c.error.c_str();
      e.append_attribute("type") = "exception";
    } else if (!c.passed) {
      auto f = t.append_child("failure");
      f.append_attribute("message") = c.failure.c_str();
      f.append_attribute("type") = "blockvec";
      f.text().set(out.c_str());
    }
    if (!out.empty()) t.append_child("system-out").text().set(out.c_str());
  }
  if (!doc.save_file(path.c_str(), "  ", pugi::format_default, pugi::encoding_utf8)) {
    error = "cannot write the JUnit report to '" + path + "': check that its directory exists";
    return false;
  }
  return true;
}

}  // namespace bv::cli
