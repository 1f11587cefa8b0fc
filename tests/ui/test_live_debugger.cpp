// The Live tab as a debugger, headless (QT_QPA_PLATFORM=offscreen): a library kernel (add, and
// softmax for stepping by line) and a plugin kernel (the sample shift_add, with its planted
// out-of-bounds read) driven through a breakpoint set by clicking the Source margin, Step op,
// Step line, Run to program, stop at a diagnostic and Continue to the end. Every stop is checked
// on the models: program states, the stopped program's blocks (elements, masks and values against
// inputs rebuilt here from the same seed), the memory accesses so far, the current line.
#include <QListView>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTimer>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bv/bv.hpp"
#include "live/debug_views.hpp"
#include "live/live_panel.hpp"

namespace {

using status = bvv::program_states_model::status;
constexpr int k_timeout = 30000;
constexpr uint64_t k_seed = 7;  // the live panel's inputs: randn(seed 7), randn(seed 8)

std::string g(float v) {
  char b[48];
  std::snprintf(b, sizeof b, "%g", double(v));
  return b;
}

// The 1-based line of the first line of `file` that contains `needle` (0: none).
int line_of(const QString& file, const QString& needle) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return 0;
  int n = 0;
  while (!f.atEnd()) {
    ++n;
    if (QString::fromUtf8(f.readLine()).contains(needle)) return n;
  }
  return 0;
}

}  // namespace

class test_live_debugger : public QObject {
  Q_OBJECT

  // Waits for stop number `n` and checks the UI thread kept running meanwhile.
  static void wait_stop(bvv::live_panel& live, int n) {
    QTRY_VERIFY2_WITH_TIMEOUT(live.stopped() && live.stops() == n, qPrintable(live.status_text()),
                              k_timeout);
  }

  // Clicks the Source panel's margin at a line, as a person sets a breakpoint.
  static void click_margin(bvv::live_panel& live, int line) {
    bvv::source_editor* src = live.source();
    src->set_current_line(line);  // scrolls it into view
    const QRect r = src->margin_rect(line);
    QVERIFY2(!r.isEmpty(), qPrintable(QString("line %1 is not visible").arg(line)));
    QTest::mouseClick(src->margin(), Qt::LeftButton, {}, r.center());
  }

  // The states, program by program, as one string ("dddsn": done, done, done, stopped, not
  // started; r running, w waiting, e error).
  static QString states(const bvv::live_panel& live) {
    QString s;
    const auto* m = live.states();
    for (int i = 0; i < m->rowCount(); ++i) s += "nrwsde"[static_cast<int>(m->state_of(i))];
    return s;
  }

  // The live block of the stopped program at `line`; checks elements, mask and values of a
  // load of a 1-D float tensor against `ref` from `first` element on, n elements in bounds.
  static void check_load(const bvv::live_panel& live, int line, const char* tensor,
                         const bv::tensor<float>& ref, int64_t first, int64_t n) {
    const int row = live.blocks()->row_of_line(line);
    QVERIFY2(row >= 0, qPrintable(QString("no block at line %1").arg(line)));
    const auto& b = live.blocks()->block(row);
    QCOMPARE(QString::fromStdString(b.tensor), QString(tensor));
    QVERIFY(!b.store);
    const auto& pic = live.blocks()->picture(row);
    QCOMPARE(pic.addr.size(), b.element.size());
    QVERIFY(!pic.wave.empty());  // coloured by wave and lane
    int active = 0;
    for (size_t i = 0; i < b.element.size(); ++i) {
      const int64_t e = first + static_cast<int64_t>(i);
      QCOMPARE(b.element[i], e);
      const bool in = e < n;
      QCOMPARE(bool(b.active[i]), in);
      active += in;
      QCOMPARE(b.value[i], in ? g(ref(e)) : std::string("-"));
    }
    QCOMPARE(pic.active_lanes, active);
  }

  // Accesses of one tensor so far: each element in [lo, hi) touched once by every program, and
  // by the stopped program exactly in [mlo, mhi).
  static void check_memory(const bvv::live_panel& live, const char* tensor, bool write, int64_t lo,
                           int64_t hi, int64_t mlo, int64_t mhi) {
    const int row = live.memory()->row_of(tensor);
    QVERIFY2(row >= 0, tensor);
    const auto& t = live.memory()->tensor(row);
    const auto& all = write ? t.writes : t.reads;
    const auto& mine = write ? t.program_writes : t.program_reads;
    QCOMPARE(static_cast<int64_t>(all.size()), t.numel);
    for (int64_t e = 0; e < t.numel; ++e) {
      QCOMPARE(all[static_cast<size_t>(e)], uint32_t(e >= lo && e < hi));
      QCOMPARE(mine[static_cast<size_t>(e)], uint32_t(e >= mlo && e < mhi));
    }
  }

 private slots:
  // add over a ragged size: 5 programs of 2048, the last with a third of its lanes.
  void library_kernel_breakpoint_steps_run_to_and_finish() {
    constexpr int B = 2048, N = 4 * B + B / 3;
    const auto x = bv::tensor<float>::randn("x", {N}, k_seed);
    const auto y = bv::tensor<float>::randn("y", {N}, k_seed + 1);
    bvv::live_panel live;
    live.resize(1500, 900);
    live.show();
    QVERIFY(QTest::qWaitForWindowExposed(&live));
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);
    QSignalSpy stopped_at(&live, &bvv::live_panel::stopped_at);

    live.run("add", N, "=0", 0);
    wait_stop(live, 1);
    QCOMPARE(live.stopped_program(), 0);
    QCOMPARE(states(live), QString("snnnn"));
    QVERIFY2(live.source_file().endsWith("kernels/add.hpp"), qPrintable(live.source_file()));
    const int line = live.source_line();
    QCOMPARE(line, line_of(live.source_file(), "store(out + offs"));
    QCOMPARE(live.source()->current_line(), line);
    QCOMPARE(stopped_at.count(), 1);
    // The line loads x and y as operands of one +: the compiler picks which runs first.
    const auto& first_ref = [&]() -> const bv::tensor<float>& {
      const int row = live.blocks()->row_of_line(line);
      return row >= 0 && live.blocks()->block(row).tensor == "y" ? y : x;
    }();
    const auto& second_ref = &first_ref == &x ? y : x;
    const char* first = &first_ref == &x ? "x" : "y";
    const char* second = &first_ref == &x ? "y" : "x";
    check_load(live, line, first, first_ref, 0, N);
    check_memory(live, first, false, 0, B, 0, B);

    // Nothing waits on the UI thread while the worker is parked.
    int ticks = 0;
    QTimer::singleShot(0, &live, [&] { ++ticks; });
    QTRY_COMPARE(ticks, 1);

    // A breakpoint for program 2 at the line, by clicking its margin; a bad condition is refused.
    live.set_condition("=x");
    QVERIFY(!live.toggle_breakpoint(line));
    QCOMPARE(live.breakpoints()->rowCount(), 0);
    live.set_condition("=2");
    click_margin(live, line);
    QCOMPARE(live.breakpoints()->rowCount(), 1);
    QCOMPARE(live.breakpoints()->condition(live.source_file(), line), QString("=2"));
    live.resume_with(bvv::live_panel::continue_run);
    wait_stop(live, 2);
    QVERIFY2(live.stop_reason().startsWith("breakpoint at line"), qPrintable(live.stop_reason()));
    QCOMPARE(live.stopped_program(), 2);
    QCOMPARE(states(live), QString("ddsnn"));
    check_load(live, line, first, first_ref, 2 * B, N);
    check_memory(live, first, false, 0, 3 * B, 2 * B, 3 * B);
    check_memory(live, second, false, 0, 2 * B, 0, 0);
    check_memory(live, "out", true, 0, 2 * B, 0, 0);

    // Step op: the other load on the same line, then the store.
    live.resume_with(bvv::live_panel::step_op);
    wait_stop(live, 3);
    QVERIFY2(live.stop_reason().startsWith("stepped to the load"), qPrintable(live.stop_reason()));
    check_load(live, line, second, second_ref, 2 * B, N);
    check_memory(live, second, false, 0, 3 * B, 2 * B, 3 * B);
    live.resume_with(bvv::live_panel::step_op);
    wait_stop(live, 4);
    QVERIFY2(live.stop_reason().startsWith("stepped to the store"), qPrintable(live.stop_reason()));
    {
      const auto& b = live.blocks()->block(live.blocks()->row_of_line(line));
      QVERIFY(b.store);
      QCOMPARE(QString::fromStdString(b.tensor), QString("out"));
    }
    QVERIFY(live.picture().store);
    check_memory(live, "out", true, 0, 3 * B, 2 * B, 3 * B);

    // Run to program 4, the ragged one; a finished program or one outside the grid is refused.
    QVERIFY(!live.run_to("1"));
    QVERIFY(!live.run_to("9"));
    QVERIFY(!live.run_to("two"));
    QVERIFY(live.stopped() && live.stops() == 4);
    QVERIFY(live.run_to("4,0,0"));
    wait_stop(live, 5);
    QCOMPARE(live.stop_reason(), QString("run to this program"));
    QCOMPARE(live.stopped_program(), 4);
    QCOMPARE(states(live), QString("dddds"));
    check_load(live, line, first, first_ref, 4 * B, N);
    check_memory(live, first, false, 0, N, 4 * B, N);

    // Continue to the end: every program done, no error, the trace handed on.
    live.resume_with(bvv::live_panel::continue_run);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 1, qPrintable(live.status_text()), k_timeout);
    QCOMPARE(live.stops(), 5);
    QCOMPARE(states(live), QString("ddddd"));
    QVERIFY(live.states()->view().ended);
    QVERIFY2(live.status_text().contains("5 programs") && live.status_text().contains("0 error(s)"),
             qPrintable(live.status_text()));
    // The breakpoint stays for the next run; clicking its margin again clears it.
    click_margin(live, line);
    QCOMPARE(live.breakpoints()->rowCount(), 0);
  }

  // softmax's one-pass kernel: Step line from the load goes to the max on the next line, then
  // to the sum on the line after; their values are the row's max and sum of exponentials.
  void library_kernel_steps_by_line() {
    constexpr int rows = 11, cols = 256, R = 3;
    const auto x = bv::tensor<float>::randn("x", {rows, cols}, k_seed);
    bvv::live_panel live;
    live.resize(1500, 900);
    live.show();
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);
    live.run("softmax", rows * cols, QString("=%1").arg(R), 0);
    wait_stop(live, 1);
    const QString file = live.source_file();
    QVERIFY2(file.endsWith("kernels/softmax.hpp"), qPrintable(file));
    const int load = live.source_line();
    QVERIFY2(live.source_line_text().contains("load(x"), qPrintable(live.source_line_text()));
    QCOMPARE(states(live), QString("dddsnnnnnnn"));
    {
      const auto& b = live.blocks()->block(live.blocks()->row_of_line(load));
      QCOMPARE(static_cast<int>(b.element.size()), cols);
      for (int c = 0; c < cols; ++c) QCOMPARE(b.value[size_t(c)], g(x(R, c)));
    }
    float mx = -INFINITY;
    for (int c = 0; c < cols; ++c) mx = std::max(mx, x(R, c));
    double se = 0;
    for (int c = 0; c < cols; ++c) se += std::exp(double(x(R, c)) - mx);

    live.resume_with(bvv::live_panel::step_line);
    wait_stop(live, 2);
    QCOMPARE(live.source_line(), load + 1);
    QCOMPARE(live.source()->current_line(), load + 1);
    QVERIFY2(live.stop_reason().startsWith("stepped to the max"), qPrintable(live.stop_reason()));
    {
      const int row = live.blocks()->row_of_line(load + 1);
      QVERIFY(row >= 0);
      // The prompt's text: six significant digits.
      const double got = std::stod(live.blocks()->block(row).text);
      QVERIFY2(std::abs(got - mx) <= 1e-5 * std::abs(mx),
               qPrintable(QString("%1 vs %2").arg(got).arg(mx)));
    }
    live.resume_with(bvv::live_panel::step_line);
    wait_stop(live, 3);
    QCOMPARE(live.source_line(), load + 2);
    QVERIFY2(live.stop_reason().startsWith("stepped to the sum"), qPrintable(live.stop_reason()));
    {
      const int row = live.blocks()->row_of_line(load + 2);
      QVERIFY(row >= 0);
      const double got = std::stod(live.blocks()->block(row).text);
      QVERIFY2(std::abs(got - se) <= 1e-4 * se, qPrintable(QString("%1 vs %2").arg(got).arg(se)));
    }
    QCOMPARE(states(live), QString("dddsnnnnnnn"));
    live.resume_with(bvv::live_panel::continue_run);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 1, qPrintable(live.status_text()), k_timeout);
    QCOMPARE(states(live), QString("ddddddddddd"));
  }

  // The sample plugin's shift_add_bug (1000 elements, 4 programs of 256): the last program's
  // x[offs + 1] load reads x[1000]. Stop at the diagnostic, break at the store for every program,
  // finish with program 3 in error; then step by line and run to a program in a second run.
  void plugin_kernel_stops_at_its_diagnostic() {
    constexpr int N = 1000, B = 256;
    const auto x = bv::tensor<float>::randn("x", {N}, k_seed);
    bvv::live_panel live;
    live.resize(1500, 900);
    live.show();
    QVERIFY(QTest::qWaitForWindowExposed(&live));
    QString err;
    QVERIFY2(live.load_plugin(BV_SAMPLE_PLUGIN, &err), qPrintable(err));
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);

    live.set_start_stop(false);
    live.set_stop_on_diagnostics(true);
    live.run("shift_add_bug", "1000", "", 0);
    wait_stop(live, 1);
    QVERIFY2(live.stop_reason().startsWith("diagnostic out-of-bounds"),
             qPrintable(live.stop_reason()));
    QCOMPARE(live.stopped_program(), 3);
    QCOMPARE(states(live), QString("ddds"));
    const int buggy = live.source_line();
    QVERIFY2(live.source_line_text().contains("x + offs + 1"), qPrintable(live.source_line_text()));
    {
      const int row = live.blocks()->row_of_line(buggy);
      QVERIFY(row >= 0);
      const auto& b = live.blocks()->block(row);
      QCOMPARE(static_cast<int>(b.element.size()), B);
      for (int i = 0; i < B; ++i) {
        const int64_t e = 3 * B + 1 + i;
        QCOMPARE(b.element[size_t(i)], e);
        const bool on = 3 * B + i < N;  // the buggy mask: offs < n, not offs + 1 < n
        QCOMPARE(bool(b.active[size_t(i)]), on);
        QCOMPARE(b.value[size_t(i)], !on ? std::string("-") : e < N ? g(x(e)) : std::string("oob"));
      }
      QCOMPARE(live.blocks()->picture(row).active_lanes, N - 3 * B);
    }
    // Program 3's first load covered x[768, 1000); its second the same shifted by one, in bounds.
    {
      const auto& t = live.memory()->tensor(live.memory()->row_of("x"));
      for (int64_t e = 0; e < N; ++e) {
        const uint32_t want_mine = (e >= 3 * B) + (e >= 3 * B + 1);
        QCOMPARE(t.program_reads[size_t(e)], want_mine);
        QCOMPARE(t.reads[size_t(e)], uint32_t(1 + (e >= 1)));
      }
    }

    // A breakpoint at the store for every program.
    const int store = line_of(live.source_file(), "bv::store(out + offs");
    QVERIFY(store > buggy);
    live.set_condition("");
    click_margin(live, store);
    QCOMPARE(live.breakpoints()->rowCount(), 1);
    QCOMPARE(live.breakpoints()->condition(live.source_file(), store), QString());
    live.resume_with(bvv::live_panel::continue_run);
    wait_stop(live, 2);
    QCOMPARE(live.source_line(), store);
    QCOMPARE(live.stopped_program(), 3);
    QVERIFY2(live.stop_reason().startsWith("breakpoint at line"), qPrintable(live.stop_reason()));
    live.resume_with(bvv::live_panel::continue_run);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 1, qPrintable(live.status_text()), k_timeout);
    QCOMPARE(states(live), QString("ddde"));
    QVERIFY2(live.status_text().contains("1 error(s)"), qPrintable(live.status_text()));
    QCOMPARE(live.states()->view().errors, 1);

    // Second run: the breakpoint cleared, the start stop at program 0, Step line, Run to 2.
    click_margin(live, store);
    QCOMPARE(live.breakpoints()->rowCount(), 0);
    live.set_stop_on_diagnostics(false);
    live.set_start_stop(true);
    live.run("shift_add_bug", "1000", "=0", 0);
    wait_stop(live, 1);
    const int here = line_of(live.source_file(), "auto here = bv::load");
    QCOMPARE(live.source_line(), here);
    QCOMPARE(states(live), QString("snnn"));
    live.resume_with(bvv::live_panel::step_line);
    wait_stop(live, 2);
    QCOMPARE(live.source_line(), buggy);
    QCOMPARE(live.stopped_program(), 0);
    QVERIFY(live.run_to("2"));
    wait_stop(live, 3);
    QCOMPARE(live.stopped_program(), 2);
    QCOMPARE(live.source_line(), here);
    QCOMPARE(states(live), QString("ddsn"));
    live.resume_with(bvv::live_panel::stop_run);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 2, qPrintable(live.status_text()), k_timeout);
    QVERIFY2(live.status_text().contains("stopped by the user"), qPrintable(live.status_text()));
  }
};

QTEST_MAIN(test_live_debugger)
#include "test_live_debugger.moc"
