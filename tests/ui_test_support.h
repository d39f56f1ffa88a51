// Helpers shared by the GUI tests: a preset model with its training settings and device, its
// network lowered, the main-window options a test runs with (no dialogs, no autosave, no saved
// settings), showing a widget at a size, and a click on the trade-off plot at a pixel, the way
// a person clicks it.
#pragma once

#include <QtTest/QtTest>
#include <string>
#include <utility>

#include "analysis.h"
#include "lower.h"
#include "main_window.h"
#include "model_file.h"
#include "plot_adapter.h"
#include "tradeoff_plot.h"

namespace remat::test {

// A preset model file with the training settings and the device it names (the A100 80 GB
// when it names none). A preset that does not load ends the test run.
struct Inputs {
    ModelFile model;
    TrainingConfig training;
    DeviceSpec device;
};

inline Inputs preset(const std::string& name) {
    auto m = loadModel(name);
    if (!m) qFatal("%s", m.error().message.c_str());
    auto d = findDevice(m->device.empty() ? "a100-80gb" : m->device);
    if (!d) qFatal("%s", d.error().message.c_str());
    return Inputs{*m, m->training, *d};
}

// The preset's network lowered at its training precision; one that does not lower ends the
// test run.
inline Graph lowered(const Inputs& in) {
    auto g = lower(in.model.network, in.training.precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    return std::move(*g);
}

// A main window that asks nothing, writes no autosave and ignores the saved settings.
inline ui::MainWindow::Options testOptions() {
    ui::MainWindow::Options o;
    o.interactive = false;
    o.autosave = false;
    o.restoreSettings = false;
    return o;
}

// Shows `widget` at `size`; whether it came on screen (call it in QVERIFY).
[[nodiscard]] inline bool showAt(QWidget& widget, QSize size) {
    widget.resize(size);
    widget.show();
    return QTest::qWaitForWindowExposed(&widget);
}

// Clicks the trade-off plot at `pixel` (plot adapter coordinates) on the widget there.
inline void clickPlot(ui::TradeoffPlot* plot, const QPointF& pixel) {
    QWidget* surface = plot->plotAdapter()->childAt(pixel.toPoint());
    QVERIFY(surface);
    QTest::mouseClick(surface, Qt::LeftButton, {},
                      surface->mapFrom(plot->plotAdapter(), pixel.toPoint()));
}

}  // namespace remat::test
