// The step-through's picture: one row per layer (as the layer stack numbers them), and beside
// each layer the tensors of it that are live after the current instruction, drawn as blocks —
// kept for backward, recomputed, transient, gradient, each in its memory category's colour —
// whose widths are their bytes on one scale for the whole program (the most a layer ever holds
// at once fills the row). The current instruction's layer is marked like its row in the layer
// stack and scrolled into view. Only the visible rows are painted, so stepping through a model
// of hundreds of layers stays instant; a block's tooltip names the tensor and its size.
#pragma once

#include <QAbstractScrollArea>
#include <QColor>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "playback_program.h"
#include "report.h"

namespace remat::ui {

// The colour a block of `kind` is drawn in (its memory category's), and its legend name.
QColor blockColor(BlockKind kind);
QString blockKindName(BlockKind kind);

class LiveBlocksView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit LiveBlocksView(QWidget* parent = nullptr);

    void setProgram(std::shared_ptr<const PlaybackProgram> data);
    // Shows the live set after instruction `index` (npos: nothing).
    void setInstruction(std::size_t index);
    void setUnits(ByteUnits units);

    // What is drawn, for tests: the blocks of each row (a layer's buffers, ascending ids) and
    // the marked row (the current instruction's layer, -1 for none).
    const std::vector<BufferId>& rowBlocks(int layer) const;
    int markedRow() const { return m_markedRow; }
    int rowHeight() const;
    // The buffer drawn at `pos` (viewport coordinates), if any.
    BufferId blockAt(const QPoint& pos) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Placed {
        BufferId buffer;
        QRect rect;
    };
    void updateScrollBars();
    int labelWidth() const;
    std::vector<Placed> placeRow(int row, int top) const;
    QString rowLabel(int row) const;

    std::shared_ptr<const PlaybackProgram> m_data;
    std::size_t m_index = static_cast<std::size_t>(-1);
    ByteUnits m_units = ByteUnits::Binary;
    std::vector<BufferId> m_live;               // after m_index
    std::vector<std::vector<BufferId>> m_rows;  // per layer
    std::vector<int> m_dirtyRows;               // rows filled for the previous instruction
    int m_markedRow = -1;
};

}  // namespace remat::ui
