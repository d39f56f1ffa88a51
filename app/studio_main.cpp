// remat-studio: the desktop app. `remat-studio [MODEL] [--strategy S] [--screenshot FILE.png]
// [--dark] [--expand-all] [--language CODE] [--size WxH] [--output DIR] [--autosave-dir DIR]
// [--recover] [--step-through STEP] [--compare-with S] [--presentation]
// [--lesson N[:S[:reveal]]]`.
// With a display it opens the main window on MODEL (default: the gpt2-small preset), then
// offers to recover work a crashed or killed session left in the autosave folder (`--recover`
// recovers the newest without asking); `--screenshot` renders the window offscreen to FILE and
// quits (`--step-through` first shows the step-through and the schedule grid at a step);
// without any display it runs the headless job (comparison on stdout, plots as PNG
// files) instead of failing to open a window. SIGTERM, SIGINT and SIGHUP end the app in order:
// unsaved work is written to the autosave and offered back at the next start.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QTimer>
#include <QTreeView>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <QUndoStack>

#include "allocator_tuning.h"
#include "app_settings.h"
#include "document.h"
#include "headless_job.h"
#include "language.h"
#include "layer_stack_view.h"
#include "lesson_panel.h"
#include "main_window.h"
#include "plan_diff_panel.h"
#include "qt_convert.h"
#include "step_through_panel.h"
#include "termination_signal.h"
#include "theme.h"

namespace {

bool hasDisplay() {
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

bool argvHas(int argc, char** argv, const char* flag) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], flag) == 0 || std::strncmp(argv[i], flag, std::strlen(flag)) == 0)
            return true;
    return false;
}

// The value of `--flag VALUE` or `--flag=VALUE` (read before the parser runs: the language must
// be chosen before any text, the parser's help included, is translated).
QString argvValue(int argc, char** argv, const char* flag) {
    const std::size_t n = std::strlen(flag);
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], flag) == 0 && i + 1 < argc)
            return QString::fromLocal8Bit(argv[i + 1]);
        if (std::strncmp(argv[i], flag, n) == 0 && argv[i][n] == '=')
            return QString::fromLocal8Bit(argv[i] + n + 1);
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    remat::keepFreedMemoryForReuse();
    // The platform is chosen before QApplication exists: without a display Qt would abort.
    const bool display = hasDisplay();
    const bool screenshot = argvHas(argc, argv, "--screenshot");
    if (!display) qputenv("QT_QPA_PLATFORM", "offscreen");
    const bool headless = !display && !screenshot;

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Remat Studio"));
    QApplication::setApplicationName(QStringLiteral("remat-studio"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    // --language, else the choice saved from View → Language, else the system locale.
    QString language = argvValue(argc, argv, "--language");
    if (language.isEmpty()) language = remat::ui::AppSettings().language();
    if (!remat::ui::installTranslators(app, language) && !language.isEmpty() &&
        !language.startsWith(QLatin1String("en")))
        std::cerr << "remat-studio: no translation for language '" << language.toStdString()
                  << "'; the interface stays in English\n";

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Remat Studio: see what activation checkpointing costs and saves."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("MODEL"),
        QApplication::translate("main", "A model file or a preset name (default gpt2-small)."));
    QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Render the main window offscreen to FILE.png and quit."),
        QStringLiteral("FILE.png"));
    QCommandLineOption outputOption(
        QStringLiteral("output"),
        QApplication::translate(
            "main", "Folder for the plots written without a display (default ./remat-output)."),
        QStringLiteral("DIR"), QStringLiteral("remat-output"));
    QCommandLineOption strategyOption(
        QStringLiteral("strategy"),
        QApplication::translate("main",
                                "Checkpointing strategy to start with (the CLI's spellings: none, "
                                "full, every:K, sqrt, ...)."),
        QStringLiteral("S"));
    QCommandLineOption expandOption(
        QStringLiteral("expand-all"),
        QApplication::translate(
            "main", "Expand every block of the layer stack into its instances and sub-modules."));
    QCommandLineOption darkOption(QStringLiteral("dark"),
                                  QApplication::translate("main", "Use the dark palette."));
    QCommandLineOption languageOption(
        QStringLiteral("language"),
        QApplication::translate("main",
                                "User-interface language: en or zh_CN (default: the one chosen in "
                                "View → Language, else the system's)."),
        QStringLiteral("CODE"));
    QCommandLineOption autosaveDirOption(
        QStringLiteral("autosave-dir"),
        QApplication::translate("main",
                                "Folder for autosaves of unsaved work and for recovering them "
                                "(default: the application data folder's autosave/)."),
        QStringLiteral("DIR"));
    QCommandLineOption recoverOption(
        QStringLiteral("recover"),
        QApplication::translate("main",
                                "Recover the newest work a crashed or killed session left "
                                "behind without asking."));
    QCommandLineOption sizeOption(
        QStringLiteral("size"),
        QApplication::translate("main",
                                "Window size in pixels, WIDTHxHEIGHT (default 1600x1000, or the "
                                "screen's where smaller; 1280x720 shows the projector layout)."),
        QStringLiteral("WxH"));
    QCommandLineOption stepOption(
        QStringLiteral("step-through"),
        QApplication::translate("main",
                                "Show the step-through and the schedule grid at STEP (counted "
                                "from 1 among the forward, recompute, backward and optimizer "
                                "steps), or at the peak with 'peak'."),
        QStringLiteral("STEP"));
    parser.addOption(screenshotOption);
    QCommandLineOption compareOption(
        QStringLiteral("compare-with"),
        QApplication::translate("main",
                                "Show the two-plans tab comparing the strategy with S (none, "
                                "full, every:3, ...)."),
        QStringLiteral("S"));
    QCommandLineOption presentationOption(
        QStringLiteral("presentation"),
        QApplication::translate("main",
                                "Start in presentation mode: larger fonts and lines, the palette, "
                                "inspector and status bar hidden."));
    parser.addOption(presentationOption);
    QCommandLineOption lessonOption(
        QStringLiteral("lesson"),
        QApplication::translate("main",
                                "Open the Lessons tab at lesson N (counted from 1), step S, "
                                "revealed with ':reveal' (N, N:S or N:S:reveal)."),
        QStringLiteral("N[:S[:reveal]]"));
    parser.addOption(stepOption);
    parser.addOption(compareOption);
    parser.addOption(lessonOption);
    parser.addOption(sizeOption);
    parser.addOption(autosaveDirOption);
    parser.addOption(recoverOption);
    parser.addOption(outputOption);
    parser.addOption(darkOption);
    parser.addOption(strategyOption);
    parser.addOption(expandOption);
    parser.addOption(languageOption);
    parser.process(app);

    QSize windowSize;
    if (parser.isSet(sizeOption)) {
        const QStringList parts = parser.value(sizeOption).split(QLatin1Char('x'));
        bool wOk = false, hOk = false;
        if (parts.size() == 2) windowSize = QSize(parts[0].toInt(&wOk), parts[1].toInt(&hOk));
        if (!wOk || !hOk || windowSize.width() < 320 || windowSize.height() < 240 ||
            windowSize.width() > 16384 || windowSize.height() > 16384) {
            std::cerr << "remat-studio: --size: expected WIDTHxHEIGHT in pixels between 320x240 "
                         "and 16384x16384, got '"
                      << remat::ui::printableText(parser.value(sizeOption), 64).toStdString()
                      << "'\n";
            return 2;
        }
    }

    const QStringList positional = parser.positionalArguments();
    const QString model = positional.isEmpty() ? QStringLiteral("gpt2-small") : positional.front();

    if (headless) return remat::studio::runHeadlessJob({model, parser.value(outputOption)});

    remat::ui::AppSettings settings;
    const remat::ui::Theme theme =
        parser.isSet(darkOption) ? remat::ui::Theme::Dark : settings.theme();
    remat::ui::applyTheme(theme);

    remat::ui::MainWindow::Options options;
    options.autosaveDirectory = parser.value(autosaveDirOption);
    if (parser.isSet(screenshotOption)) {
        options.interactive = false;
        options.autosave = false;
        options.restoreSettings = false;
    }
    remat::ui::MainWindow window(options);
    if (!window.openModel(model) ||
        (window.document()->isBusy() && !window.document()->waitUntilIdle())) {
        std::cerr << "remat-studio: "
                  << remat::ui::printableText(window.lastError().simplified(),
                                              remat::ui::kShownMessageChars)
                         .toStdString()
                  << "\n";
        if (parser.isSet(screenshotOption)) return 2;
    }
    if (parser.isSet(strategyOption)) {
        auto st = window.document()->setStrategy(parser.value(strategyOption));
        if (st && window.document()->isBusy()) st = window.document()->waitUntilIdle();
        if (!st) {
            std::cerr << "remat-studio: " << st.error().message << "\n";
            if (parser.isSet(screenshotOption)) return 2;
        }
        // A start-up choice, not an edit to undo.
        window.document()->undoStack()->clear();
    }

    if (parser.isSet(expandOption)) window.layerStack()->tree()->expandAll();
    if (parser.isSet(presentationOption)) window.setPresentationMode(true);
    if (windowSize.isValid()) window.resize(windowSize);
    if (parser.isSet(compareOption)) {
        window.planDiff()->setOtherStrategy(parser.value(compareOption));
        window.planDiffDock()->show();
        window.planDiffDock()->raise();
    }
    if (parser.isSet(lessonOption)) {
        const QStringList parts = parser.value(lessonOption).split(QLatin1Char(':'));
        bool okLesson = false, okStep = true;
        const int lesson = parts.value(0).toInt(&okLesson);
        const int step = parts.size() > 1 ? parts[1].toInt(&okStep) : 1;
        const bool reveal = parts.size() > 2 && parts[2] == QLatin1String("reveal");
        remat::ui::LessonPanel* panel = window.lessons();
        if (!okLesson || !okStep || parts.size() > 3 || (parts.size() > 2 && !reveal) ||
            lesson < 1 || lesson > panel->lessons().size() || step < 1 ||
            step > panel->lessons()[lesson - 1].steps.size()) {
            std::cerr << "remat-studio: --lesson: expected N, N:S or N:S:reveal with N from 1 to "
                      << panel->lessons().size() << " and S a step of that lesson, got '"
                      << remat::ui::printableText(parser.value(lessonOption), 64).toStdString()
                      << "'\n";
            return 2;
        }
        window.lessonDock()->show();
        window.lessonDock()->raise();
        if (!panel->showStep(lesson - 1, step - 1) || (reveal && !panel->reveal())) {
            std::cerr << "remat-studio: --lesson: " << panel->lastError().toStdString() << "\n";
            return 2;
        }
    }
    if (parser.isSet(stepOption)) {
        const QString step = parser.value(stepOption);
        bool ok = false;
        const long long n = step.toLongLong(&ok);
        if (step != QLatin1String("peak") && (!ok || n < 1)) {
            std::cerr << "remat-studio: --step-through: expected a step number from 1 or 'peak', "
                         "got '"
                      << remat::ui::printableText(step, 64).toStdString() << "'\n";
            return 2;
        }
        window.stepThroughDock()->raise();
        window.scheduleDock()->raise();
        window.stepThroughDock()->show();
        window.scheduleDock()->show();
        // Shown (and so indexed) once the window is on screen.
        QTimer::singleShot(0, &window, [&window, step, n] {
            remat::ui::StepThroughPanel* panel = window.stepThrough();
            if (step == QLatin1String("peak"))
                panel->goToPeak();
            else if (panel->stepCount() > 0)
                panel->seekInstruction(
                    panel->steps()[std::size_t(std::min<long long>(n, panel->stepCount())) - 1]);
        });
    }
    if (parser.isSet(screenshotOption)) {
        if (!windowSize.isValid()) window.resize(1600, 1000);
        window.show();
        // Let layouts settle and the background comparison finish before grabbing.
        QEventLoop settle;
        QTimer::singleShot(1500, &settle, &QEventLoop::quit);
        settle.exec();
        const QString file = parser.value(screenshotOption);
        if (!window.grab().save(file)) {
            std::cerr << "remat-studio: cannot write " << file.toStdString() << "\n";
            return 2;
        }
        return 0;
    }
    // Ended from outside (kill, logout, Ctrl+C): the unsaved work is written for the next start,
    // then the app quits without asking (no one is there to answer).
    remat::ui::TerminationSignal termination;
    QObject::connect(&termination, &remat::ui::TerminationSignal::received, &window, [&window] {
        window.prepareForTermination();
        QCoreApplication::exit(0);
    });
    window.show();
    if (parser.isSet(recoverOption)) {
        if (window.recoverLostWork(false))
            std::cerr << "remat-studio: recovered unsaved work as "
                      << window.document()->displayName().toStdString() << "\n";
        for (const QString& note : window.recoveryNotes())
            std::cerr << "remat-studio: " << note.simplified().toStdString() << "\n";
    } else {
        QTimer::singleShot(0, &window, &remat::ui::MainWindow::offerRecovery);
    }
    return app.exec();
}
