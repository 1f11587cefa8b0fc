// blockvec-viewer [TRACE] [--bench FILE.json] [--errors FILE.json] [--lib LIB.so]...
//                 [--screenshot FILE.png [--program X,Y,Z] [--op N] [--tab NAME]
//                 [--diagnostic N] [--size WxH]]
//                 [--live KERNEL [--live-size S] [--live-break COND[@LINE]|off] [--live-do
//                 A,B,...]]
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QThread>
#include <cstdio>
#include <cstdlib>

#include "live/live_panel.hpp"
#include "main_window.hpp"

int main(int argc, char** argv) {
  // A screenshot needs no display: choose the offscreen platform before Qt picks one.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--screenshot" && !std::getenv("QT_QPA_PLATFORM"))
      setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  QApplication::setApplicationName("blockvec-viewer");
  QCommandLineParser cl;
  cl.setApplicationDescription(
      "The blockvec viewer: programs, ops, masks and memory accesses of a trace.");
  cl.addHelpOption();
  cl.addPositionalArgument("trace",
                           "a trace recorded with BV_TRACE=FILE or blockvec run --trace FILE");
  QCommandLineOption shot("screenshot", "render the main window offscreen to FILE.png and exit",
                          "FILE");
  QCommandLineOption prog("program", "select the program with this id (X or X,Y,Z)", "X,Y,Z");
  QCommandLineOption op("op", "select the N-th op of the selected program", "N");
  QCommandLineOption diag("diagnostic", "select the N-th diagnostic (from 0)", "N");
  QCommandLineOption tab("tab", "show this tab: memory, charts or live", "NAME");
  QCommandLineOption size("size", "window size for the screenshot", "WxH", "1500x900");
  QCommandLineOption bench("bench", "chart the output of blockvec bench --json", "FILE.json");
  QCommandLineOption errors(
      "errors",
      "chart the errors of blockvec run KERNEL --json outputs (one, an array, or several)",
      "FILE.json");
  // Not --plugin: QGuiApplication takes -plugin/--plugin (platform plugins) out of argv first.
  // --lib as for the blockvec command; --live-plugin, its first name, still works.
  QCommandLineOption plugin(QStringList{"lib", "live-plugin"},
                            "load the kernels of a kernel library (or a live plugin) into the "
                            "Live tab (repeatable)",
                            "LIB.so");
  QCommandLineOption live_run(
      "live",
      "run KERNEL in the Live tab (a library kernel, or one of a --lib); with --screenshot, the "
      "window is grabbed at the last stop",
      "KERNEL");
  QCommandLineOption live_size("live-size", "the live run's size", "S", "3000");
  QCommandLineOption live_break("live-break",
                                "the programs the live run stops at first, and the line; 'off': "
                                "only breakpoints and diagnostics stop it",
                                "COND[@LINE]", "=1");
  QCommandLineOption live_do(
      "live-do",
      "what to do at the live run's stops, in order: step (to the next op), line (to the next "
      "line), continue, run-to:X (or X.Y.Z), break:LINE (a breakpoint there for the "
      "--live-break programs), diagnostics (stop at diagnostics from now on)",
      "ACTIONS");
  cl.addOptions({shot, prog, op, diag, tab, size, bench, errors, plugin, live_run, live_size,
                 live_break, live_do});
  cl.process(app);

  bvv::main_window w;
  auto* live = new bvv::live_panel;
  w.add_tab(live, QObject::tr("Live"));
  QObject::connect(live, &bvv::live_panel::trace_ready, &w, &bvv::main_window::open_live_trace);
  for (const QString& lib : cl.values(plugin)) {
    QString why;
    if (!live->load_plugin(lib, &why)) {
      std::fprintf(stderr, "blockvec-viewer: %s\n", qPrintable(why));
      if (cl.isSet(shot)) return 1;  // a script asked for it: fail; a person sees it in the tab
    }
  }
  const QStringList wh = cl.value(size).split('x');
  if (wh.size() == 2) w.resize(wh[0].toInt(), wh[1].toInt());
  if (cl.isSet(tab)) {
    const QString t = cl.value(tab).toLower();
    for (int i = 0; i < w.tabs()->count(); ++i)
      if (w.tabs()->tabText(i).toLower() == t) w.tabs()->setCurrentIndex(i);
  }
  const QStringList args = cl.positionalArguments();
  // Chart files open on the Charts tab; the last one given is the page shown.
  bvv::charts_view* charts = w.charts();
  const bool chart_files = cl.isSet(bench) || cl.isSet(errors);
  if (chart_files && !cl.isSet(tab)) w.tabs()->setCurrentWidget(charts);
  if (cl.isSet(bench)) charts->open_bench(cl.value(bench));
  if (cl.isSet(errors)) charts->open_errors(cl.value(errors));
  if (cl.isSet(live_run)) {
    // A live run driven from the command line: its stops are waited for with the event loop
    // running, as a person would click through them.
    w.tabs()->setCurrentWidget(live);
    w.show();
    auto wait = [](const auto& done, int ms = 60000) {
      QElapsedTimer t;
      t.start();
      while (!done() && t.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(2);
      }
      return done();
    };
    QString cond = cl.value(live_break);
    int line = 0;
    if (cond == "off") {
      live->set_start_stop(false);
      cond.clear();
    } else if (const auto at = cond.indexOf('@'); at >= 0) {
      line = cond.mid(at + 1).toInt();
      cond = cond.left(at);
    }
    QStringList actions =
        cl.value(live_do).isEmpty() ? QStringList() : cl.value(live_do).split(',');
    // Leading 'diagnostics' holds from the start (with --live-break off, the first stop is one).
    while (!actions.isEmpty() && actions.front() == "diagnostics") {
      live->set_stop_on_diagnostics(true);
      actions.pop_front();
    }
    live->set_condition(cond);
    live->run(cl.value(live_run), cl.value(live_size), cond, line);
    auto fail = [&](const QString& why) {
      std::fprintf(stderr, "blockvec-viewer: %s\n", qPrintable(why));
      return 1;
    };
    // A stop counts once the panel shows it (stops() counts those): the run stops on its thread
    // before the panel has its source file and line, and an action needs them.
    if (!wait([&] { return (live->stopped() && live->stops() > 0) || !live->running(); }) ||
        !live->stopped())
      return fail("the live run did not stop: " + live->status_text());
    for (const QString& a : actions) {
      const int before = live->stops();
      if (a == "diagnostics") {
        live->set_stop_on_diagnostics(true);
        continue;
      }
      if (a.startsWith("break:")) {
        if (!live->toggle_breakpoint(a.mid(6).toInt())) return fail("no breakpoint: " + a);
        continue;
      }
      if (a == "step")
        live->resume_with(bvv::live_panel::step_op);
      else if (a == "line")
        live->resume_with(bvv::live_panel::step_line);
      else if (a == "continue")
        live->resume_with(bvv::live_panel::continue_run);
      else if (a.startsWith("run-to:")) {
        if (!live->run_to(a.mid(7).replace('.', ','))) return fail(live->status_text());
      } else {
        return fail("unknown --live-do action '" + a + "'");
      }
      if (!wait([&] { return (live->stopped() && live->stops() > before) || !live->running(); }) ||
          !live->stopped())
        return fail("after '" + a + "' the live run did not stop again: " + live->status_text());
    }
    if (!cl.isSet(shot)) return app.exec();
    // The picture is the Live tab alone, at the window's size: its panels are the point.
    live->setParent(nullptr);
    if (wh.size() == 2) live->resize(wh[0].toInt(), wh[1].toInt());
    live->show();
    wait([] { return false; }, 300);
    const QString file = cl.value(shot);
    if (!live->grab().save(file)) return fail("cannot write " + file);
    std::printf("%s\n", qPrintable(file));
    live->resume_with(bvv::live_panel::stop_run);
    wait([&] { return !live->running(); });
    return 0;
  }
  if (!cl.isSet(shot)) {
    w.show();
    if (!args.isEmpty()) w.open_trace(args[0]);
    return app.exec();
  }
  if (args.isEmpty() && !chart_files) {
    std::fprintf(stderr, "blockvec-viewer: --screenshot needs a TRACE, --bench or --errors\n");
    return 2;
  }
  QString chart_error;
  QObject::connect(charts, &bvv::charts_view::failed,
                   [&chart_error](const QString& m) { chart_error = m; });
  w.show();
  if (args.isEmpty()) {
    w.wait_idle();
    if (!chart_error.isEmpty()) {
      std::fprintf(stderr, "blockvec-viewer: %s\n", qPrintable(chart_error));
      return 1;
    }
    const QString file = cl.value(shot);
    if (!w.grab().save(file)) {
      std::fprintf(stderr, "blockvec-viewer: cannot write %s\n", qPrintable(file));
      return 1;
    }
    std::printf("%s\n", qPrintable(file));
    return 0;
  }
  w.open_trace(args[0]);
  bvv::trace_document* doc = w.document();
  if (!w.wait_idle() || !doc->error().isEmpty() || !doc->launch()) {
    std::fprintf(
        stderr, "blockvec-viewer: %s\n",
        doc->error().isEmpty() ? "the trace did not load in time" : qPrintable(doc->error()));
    return 1;
  }
  if (!chart_error.isEmpty()) {
    std::fprintf(stderr, "blockvec-viewer: %s\n", qPrintable(chart_error));
    return 1;
  }
  if (cl.isSet(diag)) {
    const int n = cl.value(diag).toInt();
    if (n < 0 || n >= static_cast<int>(doc->launch()->diagnostics.size())) {
      std::fprintf(stderr, "blockvec-viewer: the launch has %zu diagnostic(s); no number %d\n",
                   doc->launch()->diagnostics.size(), n);
      return 2;
    }
    doc->select_diagnostic(doc->launch()->diagnostics[static_cast<size_t>(n)].id);
    w.wait_idle();
  }
  if (cl.isSet(prog)) {
    const QStringList p = cl.value(prog).split(',');
    int xyz[3] = {0, 0, 0};
    for (int i = 0; i < p.size() && i < 3; ++i) xyz[i] = p[i].trimmed().toInt();
    if (!doc->select_program_pid(xyz[0], xyz[1], xyz[2])) {
      std::fprintf(stderr, "blockvec-viewer: no program (%d,%d,%d) in this launch\n", xyz[0],
                   xyz[1], xyz[2]);
      return 2;
    }
    w.wait_idle();
  }
  if (cl.isSet(op)) {
    doc->select_op_seq(cl.value(op).toLongLong());
    w.wait_idle();
  }
  w.wait_idle();
  const QString file = cl.value(shot);
  if (!w.grab().save(file)) {
    std::fprintf(stderr, "blockvec-viewer: cannot write %s\n", qPrintable(file));
    return 1;
  }
  std::printf("%s\n", qPrintable(file));
  return 0;
}
