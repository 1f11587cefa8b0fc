// The viewer, headless (QT_QPA_PLATFORM=offscreen): opens traces of sample kernels written by
// bv_make_traces, selects programs, ops and diagnostics and checks the models; grabs each view
// and checks it drew something; feeds it bad files; opens a trace of 10^7 accesses; drives live
// mode.
#include <sqlite3.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <random>
#include <set>

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
    QVERIFY(colours(w.charts()) > 3);
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
    QObject::connect(&live, &bvv::live_panel::trace_ready, &w, &bvv::main_window::open_trace);
    QSignalSpy ready(&live, &bvv::live_panel::trace_ready);
    live.run("add", 3000, "=1", 0);
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 1, 20000);
    QCOMPARE(live.picture().addr.size(), size_t(1024));
    QCOMPARE(live.picture().addr[0], int64_t(1024));  // program 1's first lane
    live.resume_with(1);                              // step to the next memory op
    QTRY_VERIFY_WITH_TIMEOUT(live.stopped() && live.stops() == 2, 20000);
    live.resume_with(0);
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 1, 20000);
    QVERIFY(w.wait_idle());
    QVERIFY(w.document()->launch());
    QCOMPARE(w.document()->launch()->programs.size(), size_t(3));
  }
};

QTEST_MAIN(test_viewer)
#include "test_viewer.moc"
