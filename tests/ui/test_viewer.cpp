// The viewer, headless (QT_QPA_PLATFORM=offscreen): opens traces of sample kernels written by
// bv_make_traces, selects programs, ops and diagnostics and checks the models; grabs each view
// and checks it drew something; feeds it bad files; opens a trace of 10^7 accesses; drives live
// mode.
#include <sqlite3.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLibraryInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "bv/kernels/add.hpp"
#include <random>
#include <set>

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>

#include "live/live_panel.hpp"
#include "main_window.hpp"
#include "trace/codec.hpp"  // the writer's encoder (interpreter/src), for the round trip

class test_viewer : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace(const char* name) const { return dir_.filePath(QString(name) + ".bvtrace"); }

  static void open(bvv::main_window& w, const QString& path) {
    w.open_trace(path);
    QVERIFY(w.wait_idle());
  }
  // A view drew real content: several distinct colours in its pixels.
  static int colours(QWidget* v) {
    const QImage img = v->grab().toImage();
    std::set<QRgb> seen;
    for (int y = 0; y < img.height(); y += 2)
      for (int x = 0; x < img.width(); x += 2) seen.insert(img.pixel(x, y));
    return static_cast<int>(seen.size());
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QProcess p;
    p.start(BV_MAKE_TRACES, {dir_.path()});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    for (auto n : {"add", "add_bug", "tile_bug", "softmax", "matmul"})
      QVERIFY(QFile::exists(trace(n)));
  }

  void codec_round_trip() {
    std::mt19937 rng(1);
    for (int t = 0; t < 200; ++t) {
      const int n = 1 + static_cast<int>(rng() % 2000);
      std::vector<int64_t> off(static_cast<size_t>(n));
      int64_t a = static_cast<int64_t>(rng() % 100000) - 50000;
      for (auto& o : off)
        o = (a += (rng() % 4 == 0) ? static_cast<int64_t>(rng() % 1000) - 500 : 1);
      std::string blob;
      bv::detail::trace::encode_addresses(blob, off.data(), n);
      std::vector<int64_t> back;
      QVERIFY(bvt::decode_addresses(off[0], blob, n, back));
      QVERIFY(back == off);
      QVERIFY(!bvt::decode_addresses(off[0], blob + "x", n, back) || n == 1);
    }
  }

  void open_and_select_diagnostic() {
    bvv::main_window w;
    open(w, trace("add_bug"));
    auto* doc = w.document();
    QVERIFY(doc->launch());
    QVERIFY(QString::fromStdString(doc->launch()->launch.kernel).contains("add_nomask"));
    QCOMPARE(doc->launch()->programs.size(), size_t(4));
    QCOMPARE(w.diagnostics()->rowCount(), 1);
    QCOMPARE(w.diagnostics()->index(0, 1).data().toString(), QString("out-of-bounds"));
    // Selecting the diagnostic in the list selects its program, op, source line and elements.
    w.diagnostics_table()->selectRow(0);
    QVERIFY(w.wait_idle());
    QCOMPARE(doc->program(), int64_t(3));
    QVERIFY(doc->op());
    QCOMPARE(doc->op()->seq, int64_t(2));
    QCOMPARE(doc->op()->oob, 24);
    QCOMPARE(w.source()->highlighted_line(), 21);
    QVERIFY(doc->heat());
    QCOMPARE(doc->heat()->oob, int64_t(24));
    QVERIFY(doc->heat()->margin_after > 0);
    QCOMPARE(w.inspector()->picture().active_lanes, 256);
    // The ops list holds the program's three ops; picking the first load shows it.
    QCOMPARE(w.ops()->rowCount(), 3);
    w.ops_table()->selectRow(0);
    QVERIFY(w.wait_idle());
    QCOMPARE(doc->op()->seq, int64_t(0));
    QCOMPARE(doc->op()->active, 232);  // 1000 - 768 lanes in bounds
  }

  void two_d_grid_events_and_views() {
    bvv::main_window w;
    w.resize(1500, 900);
    w.show();
    open(w, trace("tile_bug"));
    auto* doc = w.document();
    QCOMPARE(doc->launch()->launch.grid[1], 3);
    QVERIFY(doc->select_program_pid(0, 0, 0));
    QVERIFY(w.wait_idle());
    bool watch = false, stop = false;
    for (auto& e : doc->events())
      watch |= e.kind == "watch" && e.name == "tile", stop |= e.kind == "stop";
    QVERIFY(watch);
    QVERIFY(stop);
    QVERIFY(doc->select_program_pid(3, 2, 0));
    QVERIFY(w.wait_idle());
    QVERIFY(doc->op());
    QCOMPARE(doc->op()->rows, 16);
    QVERIFY(doc->launch()->diagnostics.size() >= 1);
    doc->select_memory(doc->memory_tensor(), false);  // the selected program only
    QVERIFY(w.wait_idle());
    QCOMPARE(doc->heat()->program, doc->program());
    // Every main view drew something.
    QVERIFY(colours(w.grid()) > 3);
    QVERIFY(colours(w.source()->viewport()) > 3);
    QVERIFY(colours(w.memory()->heat()) > 3);
    QVERIFY(colours(w.inspector()) > 3);
    QVERIFY(colours(w.diagnostics_table()) > 2);
    w.tabs()->setCurrentWidget(w.charts());
    QVERIFY(w.charts()->bars() >= 2);
    // The lane-utilisation chart is a QChart: one bar series, two sets, a bar per memory op.
    QChart* c = w.charts()->lanes_chart();
    QCOMPARE(c->series().size(), qsizetype(1));
    auto* bars = qobject_cast<QBarSeries*>(c->series().first());
    QVERIFY(bars);
    QCOMPARE(bars->count(), 2);
    QCOMPARE(bars->barSets()[0]->count(), w.charts()->bars());
    for (int i = 0; i < bars->barSets()[0]->count(); ++i)
      QVERIFY(bars->barSets()[0]->at(i) >= 0 && bars->barSets()[0]->at(i) <= 100);
    QVERIFY(colours(w.charts()->chart_view(bvv::charts_view::lanes_page)) > 3);
  }

 private:
  // Writes text to a file in the test's directory and returns its path.
  QString write(const char* name, const QByteArray& text) const {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text);
    return path;
  }
  // Loads a chart file and waits for its signal; true when loaded, false (with msg) on failure.
  static bool load_chart(bvv::main_window& w, bool bench, const QString& path, QString* msg) {
    QSignalSpy ok(w.charts(), &bvv::charts_view::loaded);
    QSignalSpy bad(w.charts(), &bvv::charts_view::failed);
    if (bench)
      w.charts()->open_bench(path);
    else
      w.charts()->open_errors(path);
    w.wait_idle();
    if (msg && bad.count()) *msg = bad.first().first().toString();
    return ok.count() == 1 && bad.count() == 0;
  }

 private slots:
  void bench_chart() {
    // The JSON of blockvec bench --json, as the command prints it (fewer header fields).
    const QString path = write("bench.json", R"({"date":"2025-01-01","cpu":"Test CPU","cores":2,
      "repeat":3,"results":[
      {"kernel":"add","size":[1048576],"programs":1024,"native_s":0.001,"checks_off_s":0.0015,
       "checks_all_s":0.003,"parallel_s":0.0009,"off_over_native":1.5,"all_over_native":3.0,
       "parallel_speedup":1.67,"triton_interpret_s":0,"match":true},
      {"kernel":"softmax","size":[512,1024],"programs":512,"native_s":0.002,"checks_off_s":0.005,
       "checks_all_s":0.012,"parallel_s":0.003,"off_over_native":2.5,"all_over_native":6.0,
       "parallel_speedup":1.6,"triton_interpret_s":0,"match":false},
      {"kernel":"matmul","size":[256,256,256],"programs":64,"native_s":0.01,"checks_off_s":0.012,
       "checks_all_s":0.02,"parallel_s":0.008,"off_over_native":1.2,"all_over_native":2.0,
       "parallel_speedup":1.5,"triton_interpret_s":0,"match":true}]})");
    bvv::main_window w;
    w.resize(1500, 900);
    w.show();
    w.tabs()->setCurrentWidget(w.charts());
    QString msg;
    QVERIFY2(load_chart(w, true, path, &msg), qPrintable(msg));
    // The model holds the parsed numbers.
    bvv::bench_model* m = w.charts()->bench();
    QCOMPARE(m->rowCount(), 3);
    QCOMPARE(m->index(1, 0).data().toString(), QString("softmax"));
    QCOMPARE(m->index(1, 1).data().toString(), QString("512x1024"));
    QCOMPARE(m->index(1, 5).data(Qt::UserRole).toDouble(), 2.5);
    QCOMPARE(m->index(1, 6).data(Qt::UserRole).toDouble(), 6.0);
    QCOMPARE(m->index(0, 2).data().toString(), QString("1.00"));  // native ms
    QVERIFY(m->index(1, 5).data(Qt::ForegroundRole).isValid());  // softmax did not match
    QVERIFY(!m->index(0, 5).data(Qt::ForegroundRole).isValid());
    QVERIFY(w.charts()->message(bvv::charts_view::bench_page).contains("1 did not match"));
    // The chart: grouped bars (two sets of three), no lines: the ratios are not graded.
    QChart* c = w.charts()->bench_chart();
    QCOMPARE(c->series().size(), qsizetype(1));
    auto* bars = qobject_cast<QBarSeries*>(c->series()[0]);
    QVERIFY(bars);
    QCOMPARE(bars->count(), 2);
    QCOMPARE(bars->barSets()[0]->count(), 3);
    QCOMPARE(bars->barSets()[0]->at(2), 1.2);
    QCOMPARE(bars->barSets()[1]->at(1), 6.0);
    QVERIFY(colours(w.charts()->chart_view(bvv::charts_view::bench_page)) > 5);
  }

  void errors_chart() {
    // Three runs of blockvec run --json appended to one file (a shell loop), then an array.
    const QByteArray run1 = R"({"kernel":"add","size":[1000],"seed":1,"backend":"cpu",
      "schedule":"sequential","max_abs_error":0.0,"rel_error":0.0,"tolerance":1e-6,"match":true,
      "errors":0,"ok":true})";
    const QByteArray run2 = R"({"kernel":"softmax","size":[64,256],"seed":2,"backend":"cpu",
      "schedule":"shuffled","max_abs_error":1e-7,"rel_error":3e-8,"tolerance":1e-5,
      "match":true,"ok":true})";
    const QByteArray run3 = R"({"kernel":"layernorm","size":[64,256],"seed":3,"backend":"cpu",
      "schedule":"parallel","max_abs_error":0.5,"rel_error":0.02,"tolerance":1e-5,
      "match":false,"ok":false})";
    bvv::main_window w;
    w.resize(1500, 900);
    w.show();
    w.tabs()->setCurrentWidget(w.charts());
    QString msg;
    QVERIFY2(
        load_chart(w, false, write("runs.json", run1 + "\n" + run2 + "\n" + run3 + "\n"), &msg),
        qPrintable(msg));
    bvv::errors_model* m = w.charts()->errors();
    QCOMPARE(m->rowCount(), 3);
    QCOMPARE(m->runs()[1].rel_error, 3e-8);
    QCOMPARE(m->runs()[2].tolerance, 1e-5);
    QVERIFY(!m->runs()[2].match);
    QCOMPARE(m->index(0, 2).data().toString(), QString("0 (exact)"));
    QVERIFY(m->runs()[1].label().contains("shuffled"));
    QChart* c = w.charts()->errors_chart();
    QCOMPARE(c->series().size(), qsizetype(3));
    auto* ok = qobject_cast<QScatterSeries*>(c->series()[0]);
    auto* bad = qobject_cast<QScatterSeries*>(c->series()[1]);
    auto* tol = qobject_cast<QLineSeries*>(c->series()[2]);
    QVERIFY(ok && bad && tol);
    QCOMPARE(ok->count(), 2);
    QCOMPARE(bad->count(), 1);
    QCOMPARE(bad->at(0).y(), 0.02);
    QCOMPARE(tol->count(), 6);  // a step per run
    // Exact (0) sits on a floor above zero, which a log axis can show.
    QVERIFY(ok->at(0).y() > 0 && ok->at(0).y() < 3e-8);
    bool log_axis = false;
    for (QAbstractAxis* a : c->axes(Qt::Vertical))
      log_axis = log_axis || qobject_cast<QLogValueAxis*>(a) != nullptr;
    QVERIFY(log_axis);
    QVERIFY(w.charts()->message(bvv::charts_view::errors_page).contains("1 over tolerance"));
    QVERIFY(colours(w.charts()->chart_view(bvv::charts_view::errors_page)) > 5);
    // The same runs as one array, and a --backend both run (a point for each side).
    const QByteArray both = R"({"kernel":"add","size":[1000],"seed":4,"backend":"both",
      "gpu":{"ms":0.1,"max_abs_error":1e-7,"rel_error":2e-8,"match":true},
      "cpu":{"seconds":0.01,"max_abs_error":0.0,"rel_error":0.0,"match":true,"errors":0},
      "ok":true})";
    QVERIFY2(
        load_chart(w, false, write("array.json", "[" + run1 + "," + run2 + "," + both + "]"), &msg),
        qPrintable(msg));
    QCOMPARE(m->rowCount(), 4);
    QCOMPARE(m->runs()[2].backend, QString("gpu"));
    QCOMPARE(m->runs()[3].backend, QString("cpu"));
    QCOMPARE(m->runs()[2].tolerance, -1.0);
  }

  void bad_chart_files_give_messages() {
    bvv::main_window w;
    const std::tuple<bool, QByteArray, QString> cases[] = {
        {true, "", "is empty"},
        {true, "{\"results\": [", "not valid JSON"},
        {true, "[1,2]", "no \"results\" array"},
        {true, R"({"results":[{"kernel":"add","native_s":1}]})", "'checks_off_s' is missing"},
        {true, R"({"results":[{"kernel":"add","native_s":1,"checks_off_s":1,"checks_all_s":1,
           "parallel_s":1,"off_over_native":"fast","all_over_native":1}]})",
         "'off_over_native' is not a number"},
        {true, R"({"results":[]})", "no results"},
        {false, "{\"kernel\":\"add\"} garbage", "not valid JSON"},
        {false, "[]", "no runs"},
        {false, "[42]", "run 0: not an object"},
        {false, R"({"kernel":"add","seconds":1})", "no 'rel_error'"},
        {false, R"({"results":[]})", "'kernel' is missing"},
    };
    int i = 0;
    for (auto& [bench, text, expect] : cases) {
      const QString path = write(qPrintable(QString("bad%1.json").arg(i++)), text);
      QString msg;
      QVERIFY2(!load_chart(w, bench, path, &msg), qPrintable(path));
      QVERIFY2(msg.contains(expect), qPrintable(path + ": " + msg + " (expected " + expect + ")"));
    }
    QString msg;
    QVERIFY(!load_chart(w, true, dir_.filePath("no-such.json"), &msg));
    QVERIFY2(msg.contains("cannot open"), qPrintable(msg));
    // A trace is not a benchmark: binary, and no JSON in it.
    QVERIFY(!load_chart(w, true, trace("add"), &msg));
    QVERIFY2(msg.contains("not valid JSON"), qPrintable(msg));
  }

  void bad_files_give_messages() {
    QTemporaryDir d;
    const QString empty = d.filePath("empty"), text = d.filePath("text"), half = d.filePath("half"),
                  foreign = d.filePath("foreign.db"), future = d.filePath("future.bvtrace");
    QFile(empty).open(QIODevice::WriteOnly);
    {
      QFile f(text);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("hello, this is not a trace\n");
    }
    {
      QFile in(trace("matmul"));
      QVERIFY(in.open(QIODevice::ReadOnly));
      const QByteArray all = in.readAll();
      QFile out(half);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(all.left(all.size() / 3));
    }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(foreign.toUtf8().constData(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    QVERIFY(QFile::copy(trace("add"), future));
    QFile::setPermissions(future, QFile::ReadOwner | QFile::WriteOwner);
    QCOMPARE(sqlite3_open(future.toUtf8().constData(), &db), SQLITE_OK);
    sqlite3_exec(db, "UPDATE meta SET value='99' WHERE key='schema_version'", nullptr, nullptr,
                 nullptr);
    sqlite3_close(db);
    const std::pair<QString, QString> cases[] = {{empty, "empty"},
                                                 {text, "not an SQLite database"},
                                                 {half, "damaged"},
                                                 {foreign, "not a blockvec trace"},
                                                 {future, "schema version 99"},
                                                 {d.filePath("missing"), "cannot open"}};
    for (auto& [file, expect] : cases) {
      bvv::main_window w;
      QSignalSpy failed(w.document(), &bvv::trace_document::failed);
      w.open_trace(file);
      w.wait_idle();
      QVERIFY2(failed.count() >= 1, qPrintable(file));
      const QString msg = failed.first().first().toString();
      QVERIFY2(msg.contains(expect), qPrintable(file + ": " + msg));
    }
  }

  void big_trace_opens_fast() {
    QProcess p;
    p.start(BV_MAKE_TRACES, {dir_.path(), "big"});
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitCode(), 0);
    bvv::main_window w;
    w.resize(1500, 900);
    w.show();
    QElapsedTimer t;
    t.start();
    w.open_trace(trace("big_add"));
    // The window stays responsive while it loads: count event-loop turns until the launch is in.
    int turns = 0;
    while (!w.document()->launch() && t.elapsed() < 20000) {
      QApplication::processEvents(QEventLoop::AllEvents, 10);
      ++turns;
    }
    const qint64 ms = t.elapsed();
    QVERIFY(w.document()->launch());
    QVERIFY(w.document()->launch()->launch.accesses >= 10000000);
    qInfo(
        "a trace of %lld accesses: programs, diagnostics and the first op in %lld ms (%d UI turns)",
        static_cast<long long>(w.document()->launch()->launch.accesses), ms, turns);
    QVERIFY2(ms < 4000, "the summary of a 10^7-access trace should load in about 2 s");
    QVERIFY(w.wait_idle(60000));
    QVERIFY(w.document()->heat());
    QCOMPARE(w.document()->heat()->accesses, int64_t(1)
                                                 << 22);  // the output tensor: one write each
    QFile::remove(trace("big_add"));
  }

  void live_mode_stops_steps_and_finishes() {
    bvv::main_window w;
    bvv::live_panel live;
    QObject::connect(&live, &bvv::live_panel::trace_ready, &w, &bvv::main_window::open_live_trace);
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);
    // add's declared block (kernels/bv/kernels/add.hpp); three programs, the last one ragged.
    constexpr int B = bv::kernels::add_configs::table[0].block;
    live.run("add", 2 * B + B / 3, "=1", 0);
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 1, 20000);
    QCOMPARE(live.picture().addr.size(), size_t(B));
    QCOMPARE(live.picture().addr[0], int64_t(B));  // program 1's first lane
    // The Source pane shows the live kernel's own file, the stop's line highlighted: add's first
    // memory op, a load.
    QVERIFY2(live.source_file().endsWith("kernels/add.hpp"), qPrintable(live.source_file()));
    QVERIFY(live.source_line() > 0);
    QVERIFY2(live.source_line_text().contains("load"), qPrintable(live.source_line_text()));
    live.resume_with(1);                              // step to the next memory op
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 2, 20000);
    live.resume_with(0);
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 1, 20000);
    QVERIFY(w.wait_idle());
    QVERIFY(w.document()->launch());
    QCOMPARE(w.document()->launch()->programs.size(), size_t(3));
  }

  void live_plugin_stops_steps_and_finishes() {
    bvv::main_window w;
    bvv::live_panel live;
    QObject::connect(&live, &bvv::live_panel::trace_ready, &w, &bvv::main_window::open_live_trace);
    QString err;
    QVERIFY2(live.load_plugin(BV_SAMPLE_PLUGIN, &err), qPrintable(err));
    QVERIFY(live.all_kernels().contains("shift_add_bug"));
    QVERIFY(live.all_kernels().contains("shift_add_fixed"));
    QVERIFY(live.all_kernels().contains("add"));  // the library kernels stay
    // The buggy kernel, 1000 elements in blocks of 256: stop program 3, the ragged last one.
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);
    live.run("shift_add_bug", "1000", "=3", 0);
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 1, 20000);
    QCOMPARE(live.picture().addr.size(), size_t(256));
    QCOMPARE(live.picture().addr[0], int64_t(768));  // x[offs]: program 3's first lane
    QCOMPARE(live.picture().active_lanes, 1000 - 768);
    live.resume_with(1);  // step onto x[offs + 1], the buggy load
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 2, 20000);
    QCOMPARE(live.picture().addr[0], int64_t(769));
    QCOMPARE(live.picture().active_lanes, 1000 - 768);  // lane 231 reads x[1000]
    QVERIFY(live.picture().addr[231] == 1000 && live.picture().numel == 1000);
    live.resume_with(0);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 1, qPrintable(live.status_text()), 20000);
    QVERIFY2(live.status_text().contains("1 error(s)"), qPrintable(live.status_text()));
    QVERIFY(w.wait_idle());
    // The launch ran on the viewer's interpreter: its trace has the plugin's kernel and the
    // out-of-bounds read it made.
    QVERIFY(w.document()->launch());
    QVERIFY(QString::fromStdString(w.document()->launch()->launch.kernel).contains("shift_add"));
    QCOMPARE(w.document()->launch()->programs.size(), size_t(4));
    QCOMPARE(w.document()->launch()->diagnostics.size(), size_t(1));
    QCOMPARE(w.document()->launch()->diagnostics[0].pid[0], 3);
    // The fixed one runs clean, no breakpoint.
    live.run("shift_add_fixed", "1000", "=9", 0);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 2, qPrintable(live.status_text()), 20000);
    QVERIFY2(live.status_text().contains("0 error(s)"), qPrintable(live.status_text()));
    QCOMPARE(live.stops(), 0);
    // A size the plugin cannot read comes back as its message, and no trace opens.
    live.run("shift_add_fixed", "ten", "=9", 0);
    QTRY_VERIFY_WITH_TIMEOUT(!live.running(), 20000);
    QTest::qWait(50);
    QCOMPARE(ready.count(), 2);
    QVERIFY2(live.status_text().contains("not a list of numbers"), qPrintable(live.status_text()));
  }

  // A kernel library (ABI 2), the file `blockvec --lib` loads: its entry runs on the viewer's
  // interpreter, stops where asked, and the viewer compares with the library's reference.
  void kernel_library_runs_in_live_mode() {
    bvv::main_window w;
    bvv::live_panel live;
    QObject::connect(&live, &bvv::live_panel::trace_ready, &w, &bvv::main_window::open_live_trace);
    QString err;
    QVERIFY2(live.load_plugin(BV_SAMPLE_LIBRARY, &err), qPrintable(err));
    QVERIFY(live.all_kernels().contains("row_center"));
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);
    // 5 rows of 300: a block of 256 lanes would not hold them, the launcher picks 1024; stop
    // program 2 at its first memory op, the load of its row.
    live.run("row_center", "5,300", "=2", 0);
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 1, 20000);
    QCOMPARE(live.picture().addr.size(), size_t(1024));
    QCOMPARE(live.picture().addr[0], int64_t(600));
    QCOMPARE(live.picture().active_lanes, 300);
    live.resume_with(0);
    QTRY_VERIFY2_WITH_TIMEOUT(ready.count() == 1, qPrintable(live.status_text()), 20000);
    QVERIFY2(live.status_text().contains("5 programs in 1 launch(es), 0 error(s)"),
             qPrintable(live.status_text()));
    QVERIFY2(live.status_text().contains("matches the reference"), qPrintable(live.status_text()));
    QVERIFY(w.wait_idle());
    QVERIFY(w.document()->launch());
    QCOMPARE(w.document()->launch()->programs.size(), size_t(5));
    // A size the library refuses comes back with its reason, and no trace opens.
    live.run("row_center", "2,5000", "=9", 0);
    QTRY_VERIFY_WITH_TIMEOUT(!live.running(), 20000);
    QTest::qWait(50);
    QCOMPARE(ready.count(), 1);
    QVERIFY2(live.status_text().contains("does not fit one block"), qPrintable(live.status_text()));
  }

  void bad_plugins_give_messages() {
    bvv::live_panel live;
    const int before = live.all_kernels().size();
    QString err;
    QVERIFY(!live.load_plugin(dir_.filePath("no-such.so"), &err));
    QVERIFY2(err.contains("no such file"), qPrintable(err));
    const QString text = write("text.so", "not a library\n");
    QVERIFY(!live.load_plugin(text, &err));
    QVERIFY2(err.contains("not a loadable shared library"), qPrintable(err));
    QVERIFY(!live.load_plugin(trace("add"), &err));
    QVERIFY2(err.contains("not a loadable shared library"), qPrintable(err));
    // A real shared library that is no plugin.
    const QString qtcore = QLibraryInfo::path(QLibraryInfo::LibrariesPath) + "/libQt6Core.so.6";
    if (QFile::exists(qtcore)) {
      QVERIFY(!live.load_plugin(qtcore, &err));
      QVERIFY2(err.contains("not a blockvec kernel library"), qPrintable(err));
    }
    QCOMPARE(live.all_kernels().size(), before);
  }
};

QTEST_MAIN(test_viewer)
#include "test_viewer.moc"
