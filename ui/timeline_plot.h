// The memory timeline: live bytes per category across one training step, stacked, with the
// forward / recompute / backward / optimizer phases of each micro-batch shaded, the device's
// usable capacity as a line, the peak marked and labelled exactly, a hover tooltip saying which
// instruction it is and what is live, and a click that selects the layer under the cursor.
// A measured run, or a PyTorch memory snapshot's allocated and reserved bytes, can be laid over
// the prediction, and the step-through's current instruction
// is marked by a cursor line. It draws through PlotAdapter only. Captions
// are made when needed (hover, export) from the graph and program, so the plot holds them:
// either an owner the caller passes keeps them alive (no copy: the interactive path), or the
// plot copies them. Large programs (GPT-3 175B, ~20k instructions) are decimated per pixel
// column for display; the peak and every column's maximum stay exact.
#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device.h"
#include "graph.h"
#include "program.h"
#include "report.h"
#include "simulator.h"
#include "timeline_series.h"

namespace remat::ui {

class PlotAdapter;

class TimelinePlot : public QWidget {
    Q_OBJECT
public:
    using XAxis = remat::ui::XAxis;
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    explicit TimelinePlot(QWidget* parent = nullptr);
    ~TimelinePlot() override;

    // Plots `t`. The plot copies `g`, `p` and `t`, so the caller's may go away afterwards.
    void setData(const Graph& g, const Program& p, const Timeline& t, const DeviceSpec& device);
    // The same without copying: `owner` keeps `g`, `p` and `t` alive and unchanged for as long
    // as the plot shows them (e.g. the document's immutable state). `series`, when given, is
    // timelineSeriesInputs(g, p, t) computed beforehand (off the GUI thread for a large program).
    void setData(std::shared_ptr<const void> owner, const Graph& g, const Program& p,
                 const Timeline& t, const DeviceSpec& device,
                 std::shared_ptr<const TimelineSeriesInputs> series = nullptr);
    void clear();
    bool hasData() const { return m_count > 0; }

    void setXAxis(XAxis axis);
    XAxis xAxis() const { return m_axis; }
    void setUnits(ByteUnits units);
    ByteUnits units() const { return m_units; }

    // Shades every run of instructions belonging to expanded layer `layerIndex` (-1: none).
    void highlightLayer(int layerIndex);
    int highlightedLayer() const { return m_highlightLayer; }
    std::vector<InstructionSpan> highlightedSpans() const;

    // The step-through's cursor: a line over instruction `index` (npos: none), kept across new
    // data while the index exists.
    void setCursorInstruction(std::size_t index);
    std::size_t cursorInstruction() const { return m_cursor; }
    // Where the cursor is drawn, as x data (from, to); (0, 0) when none is drawn.
    QPointF cursorExtent() const { return m_cursorExtent; }

    // Measured live bytes after each instruction (an executor's run), drawn as a line over the
    // predicted stack. A vector whose length differs from the program's is refused (false).
    bool setMeasured(std::vector<std::int64_t> liveBytes, const QString& label);
    void clearMeasured();
    bool hasMeasured() const { return !m_measured.empty(); }

    // A PyTorch memory snapshot laid over the prediction (sim/memory_snapshot.h): its allocated
    // and reserved bytes per instruction, drawn as two lines with the given legend labels. Kept
    // until new data or clearSnapshotOverlay(); vectors of another length are refused (false).
    bool setSnapshotOverlay(std::vector<std::int64_t> allocated, std::vector<std::int64_t> reserved,
                            const QString& allocatedLabel, const QString& reservedLabel);
    void clearSnapshotOverlay();
    bool hasSnapshotOverlay() const { return !m_snapAllocated.empty(); }

    // Plot to .png, .svg or .pdf (by extension); the timeline's numbers to CSV: one row per
    // instruction with its phase, kind, caption, predicted times and bytes per category, and
    // how many times it runs (a repeat's body: once per micro-step it stands for).
    bool exportTo(const QString& path, QString* error = nullptr);
    bool exportCsv(const QString& path, QString* error = nullptr) const;

    // What is drawn, for tests and the timing report.
    const std::vector<std::size_t>& displayedInstructions() const { return m_displayed; }
    // The buckets (pixel columns) the displayed series was decimated into.
    int drawnBuckets() const { return m_drawnBuckets; }
    std::size_t peakInstruction() const { return m_peakInstruction; }
    int layerOfInstruction(std::size_t index) const;
    QString captionOf(std::size_t index) const;
    QString tooltipFor(std::size_t index) const;
    std::size_t instructionAtX(double x) const;
    PlotAdapter* plotAdapter() const { return m_plot; }
    double lastSetDataMs() const { return m_lastSetDataMs; }
    double lastReplotMs() const;

signals:
    void layerClicked(int layerIndex);
    void instructionHovered(int instructionIndex);  // -1 when the mouse leaves

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void redrawSeries();
    void drawPhases();
    void drawHighlight();
    void drawCursor();
    void drawMeasured();
    void drawStepLine(const char* id, const QString& label, const std::vector<std::int64_t>& values,
                      const QColor& color, Qt::PenStyle pen);
    void drawReferenceLines();
    void applyAxes();
    void onHover(QPointF data, QPoint globalPos);
    void onClick(QPointF data);
    int bucketCount() const;
    QString shortCaption(std::size_t index) const;

    PlotAdapter* m_plot = nullptr;
    int m_drawnBuckets = 0;  // the bucket count the series on the plot was decimated for
    XAxis m_axis = XAxis::Instruction;
    ByteUnits m_units = ByteUnits::Binary;

    // What the last setData() showed; m_owner keeps the three pointees alive.
    std::shared_ptr<const void> m_owner;
    const Graph* m_graph = nullptr;
    const Program* m_program = nullptr;
    const Timeline* m_timeline = nullptr;
    std::size_t m_count = 0;  // instructions shown
    // Totals, layers and phase runs of the program shown (shared with the document's state).
    std::shared_ptr<const TimelineSeriesInputs> m_series =
        std::make_shared<const TimelineSeriesInputs>();
    std::size_t m_peakInstruction = 0;
    std::int64_t m_peakBytes = 0;
    std::int64_t m_usableBytes = 0;

    XExtents m_extents;
    std::vector<std::size_t> m_displayed;
    int m_highlightLayer = -1;
    std::size_t m_cursor = static_cast<std::size_t>(-1);
    QPointF m_cursorExtent;
    std::vector<std::int64_t> m_measured;
    QString m_measuredLabel;
    std::vector<std::int64_t> m_snapAllocated, m_snapReserved;
    QString m_snapAllocatedLabel, m_snapReservedLabel;
    double m_lastSetDataMs = 0.0;
    bool m_redrawing = false;
};

}  // namespace remat::ui
