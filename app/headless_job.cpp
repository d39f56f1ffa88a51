#include "headless_job.h"

#include <CLI/CLI.hpp>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <iostream>

#include "cli/commands.h"
#include "comparison_panel.h"
#include "document.h"
#include "qt_convert.h"
#include "timeline_plot.h"

namespace remat::studio {

namespace {

// The `remat compare` subcommand itself, so that the output is the CLI's to the character.
int printComparison(const QString& model) {
    CLI::App app{"remat"};
    app.require_subcommand(1);
    int exitCode = 0;
    cli::addCompare(app, exitCode);
    const std::string modelArg = model.toStdString();
    const char* argv[] = {"remat", "compare", modelArg.c_str()};
    try {
        app.parse(3, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return exitCode;
}

}  // namespace

int runHeadlessJob(const HeadlessJob& job) {
    const int compared = printComparison(job.model);
    if (compared != 0) return compared;

    ui::Document document;
    auto st = document.open(job.model);
    if (st && document.isBusy()) st = document.waitUntilIdle();  // a large model
    if (!st) {
        std::cerr << "remat-studio: " << st.error().message << "\n";
        return 2;
    }
    if (!QDir().mkpath(job.outputDir)) {
        std::cerr << "remat-studio: cannot create the output folder '"
                  << job.outputDir.toStdString() << "'\n";
        return 2;
    }
    const QString stem = QFileInfo(job.model).completeBaseName();
    const QString timelinePath =
        QDir(job.outputDir).filePath(stem + QStringLiteral("-timeline.png"));
    const QString tradeOffPath =
        QDir(job.outputDir).filePath(stem + QStringLiteral("-tradeoff.png"));

    const auto state = document.stateHandle();
    ui::TimelinePlot timeline;
    timeline.resize(1400, 800);
    timeline.setData(state, *state->graph, state->evaluation.program, state->evaluation.timeline,
                     state->device);
    QString error;
    if (!timeline.exportTo(timelinePath, &error)) {
        std::cerr << "remat-studio: " << error.toStdString() << "\n";
        return 2;
    }

    // The trade-off curve is computed in the background, as in the window; wait for it.
    ui::ComparisonPanel comparison;
    comparison.resize(1400, 800);
    QEventLoop loop;
    QObject::connect(&comparison, &ui::ComparisonPanel::computed, &loop, &QEventLoop::quit);
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    comparison.request(state->model, state->model.training, state->device,
                       document.strategySpelling());
    if (comparison.isBusy()) loop.exec();
    if (!comparison.exportPlot(tradeOffPath, &error)) {
        std::cerr << "remat-studio: " << error.toStdString() << "\n";
        return 2;
    }
    std::cout << "\nwrote " << timelinePath.toStdString() << "\nwrote "
              << tradeOffPath.toStdString() << "\n";
    return 0;
}

}  // namespace remat::studio
