// The memory-versus-time trade-off of one model: every:K for every K from 1 to the chain length
// as a curve (the classic U of checkpointing, from "every block its own region" to "one region
// for everything"), the optimal frontier as a staircase (the least peak reachable within each
// step time, from the smallest feasible peak to no checkpointing), the named strategies as
// labelled points, the plan in effect ringed, and the device's usable capacity as a line. Plans
// the compiler marks unsafe (their gradients differ from training without checkpointing) carry
// a warning triangle and "unsafe" in their label.
// Clicking a point (of the curve: every:K; of the frontier: optimal:PEAK) chooses that strategy.
// The curve's points carry their K where a label fits; the plot pans and zooms on both axes
// (double-click resets), and its peak axis leaves zero when peaks would otherwise look equal.
// Draws through PlotAdapter only.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "comparison_worker.h"
#include "report.h"

namespace remat::ui {

class PlotAdapter;

class TradeoffPlot : public QWidget {
    Q_OBJECT
public:
    // A table row, a point of the every:K curve, or a plan of the optimal frontier.
    enum class Series { Named, Curve, Frontier };
    struct Point {
        QString spelling;  // the strategy a click applies
        double stepTimeS = 0.0;
        std::int64_t peakBytes = 0;
        Series series = Series::Curve;
        bool unsafe = false;  // the compiler's verdict (frontier plans are not compiled singly)
    };

    explicit TradeoffPlot(QWidget* parent = nullptr);

    void setData(const ComparisonResult& result);
    void clear();
    void setCurrentStrategy(const QString& spelling);
    void setUnits(ByteUnits units);
    bool exportTo(const QString& path, QString* error = nullptr);

    // What is drawn, for hit-testing and tests.
    const std::vector<Point>& points() const { return m_points; }
    // The strategy whose point is nearest to `pixel` (plot widget coordinates), within reach;
    // empty when none is.
    QString strategyAt(const QPoint& pixel) const;
    QPointF pixelOf(const QString& spelling) const;
    PlotAdapter* plotAdapter() const { return m_plot; }
    // The K labels of the every:K curve shown after the last layout ("K=3"); a label is left
    // out where it would overlap another label or a labelled point.
    QStringList curveLabels() const;
    // Whether the peak axis starts at zero (it does not when the peaks differ by too little to
    // be told apart on a zero-based axis; its title then says so).
    bool peakAxisFromZero() const { return m_yFromZero; }

signals:
    void strategyChosen(const QString& spelling);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void updateLabels();
    const Point* find(const QString& spelling) const;
    QString labelOf(const Point& p) const;

    PlotAdapter* m_plot = nullptr;
    std::vector<Point> m_points;
    std::int64_t m_usableBytes = 0;
    QString m_deviceName;
    std::size_t m_chainLength = 0;
    bool m_curveDone = false;
    bool m_yFromZero = true;
    QString m_current;
    ByteUnits m_units = ByteUnits::Binary;
    bool m_perGpu = false;  // a layout's result: the peak is per GPU, of the rank that peaks
};

}  // namespace remat::ui
