// The palette: the layer catalog as a list grouped by purpose, each kind with its description
// as a tooltip. Double-click or "Add" asks for a layer of that kind to be inserted after the
// current row of the stack; the main window decides where and with which defaults.
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

signals:
    void addRequested(remat::LayerKind kind);

private:
    void requestCurrent();
    QTreeWidget* m_list;
    QPushButton* m_add;
    QLabel* m_description;
};

}  // namespace remat::ui
