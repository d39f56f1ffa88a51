// The schedule grid on screen: rows are the layers (numbered as the layer stack numbers them),
// columns the program's forward, recompute and backward instructions from left to right, and
// each cell coloured by what that layer's activations are doing (sim/schedule_grid.h):
// computed (forward), kept, recomputed (one colour per region depth, so a nested plan shows its
// levels), its backward running, or nothing (freed or not made yet), with a legend underneath.
// The whole program is fitted to the width (a long program packs several columns into a pixel;
// the picture is drawn once per size and program, then only the cursor moves). The step-
// through's current instruction is a cursor line; with gradient accumulation the micro-steps as
// written (the first, the repeated body, the last) are ruled off and named above the grid; a click asks the step-through to go to that
// column's instruction, and a cell's tooltip says what it is.
#pragma once

#include <QImage>
#include <QWidget>
#include <memory>

#include "layer_numbering.h"
#include "playback_program.h"

namespace remat::ui {

class ScheduleGridView : public QWidget {
    Q_OBJECT
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    explicit ScheduleGridView(QWidget* parent = nullptr);

    void setProgram(std::shared_ptr<const PlaybackProgram> data);
    // How rows are numbered and named: the layer stack's numbers (layer_numbering.h).
    void setNumbering(LayerNumbering numbering);
    // The step-through's instruction (npos: none): drawn as a cursor at its column.
    void setCursorInstruction(std::size_t index);
    std::size_t cursorColumn() const { return m_cursorColumn; }
    const ScheduleGrid* grid() const { return m_data ? &m_data->grid : nullptr; }

    // Geometry, for tests and hit-testing: the cell area, a column's and a row's pixel spans,
    // and the cell under a point (column npos / row -1 outside the grid).
    QRect gridRect() const;
    std::size_t columnAt(int x) const;
    int rowAt(int y) const;
    double columnX(std::size_t column) const;
    // The colour a cell is drawn in (transparent for an empty one).
    static QColor cellColor(const ScheduleCell& cell);
    // What the legend lists for the program shown: (colour, name) pairs.
    std::vector<std::pair<QColor, QString>> legendEntries() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void instructionClicked(qint64 index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void renderImage();
    int legendHeight() const;
    int bandHeight() const;  // the micro-step names above the grid, with accumulation
    int labelWidth() const;
    QString cellText(int row, std::size_t column) const;

    std::shared_ptr<const PlaybackProgram> m_data;
    LayerNumbering m_numbering;
    std::size_t m_cursorColumn = npos;
    QImage m_image;  // the grid at the current size; null when it must be drawn again
};

}  // namespace remat::ui
