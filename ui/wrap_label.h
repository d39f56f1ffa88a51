// A word-wrapped label whose text changes on every edit (the summary's figures, a panel's
// status line). QLabel recomputes its size hints from scratch after each setText; for a wrapped
// label whose text is selectable with the mouse that means laying out a rich-text document
// twice per trial width, which made up the largest part of the layout pass after an edit. This
// label is not mouse-selectable (its context menu copies the text instead), so QLabel measures
// it with plain font metrics, and it answers its size hints from the metrics alone (a line of up
// to `preferredChars` characters; a few words at least). The height for a given width is still
// QLabel's own, so what is drawn is not clipped.
#pragma once

#include <QLabel>

namespace remat::ui {

class WrapLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrapLabel(QWidget* parent = nullptr, int preferredChars = 60);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

private:
    int m_preferredChars;
};

}  // namespace remat::ui
