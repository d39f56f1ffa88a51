// The palette: the layer catalog as a list grouped by purpose, each kind with its description
// as a tooltip. Double-click or "Add" asks for a layer of that kind to be inserted after the
// current row of the stack; the main window decides where and with which defaults. A kind can
// also be dragged onto the layer stack (layer_kind_mime.h), which inserts it where it is
// dropped.
#pragma once

#include <QWidget>

#include "network.h"

class QTreeWidget;
class QPushButton;
class QLabel;

namespace remat::ui {

class Palette : public QWidget {
    Q_OBJECT
public:
    explicit Palette(QWidget* parent = nullptr);
    // The highlighted kind, if any.
    bool currentKind(LayerKind& kind) const;
    // The list itself (its model's mimeData() is what a drag carries).
    QTreeWidget* list() const { return m_list; }

signals:
    void addRequested(remat::LayerKind kind);

private:
    void requestCurrent();
    QTreeWidget* m_list;
    QPushButton* m_add;
    QLabel* m_description;
};

}  // namespace remat::ui
