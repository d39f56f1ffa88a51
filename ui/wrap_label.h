// A word-wrapped label whose text changes on every edit (the summary's figures, a panel's
// status line). QLabel recomputes its size hints from scratch after each setText; for a wrapped
// label whose text is selectable with the mouse that means laying out a rich-text document
// twice per trial width, which made up the largest part of the layout pass after an edit. This
// label is not mouse-selectable (its context menu copies the text instead), so QLabel measures
// it with plain font metrics, and it answers its size hints from the metrics alone (a line of up
// to `preferredChars` characters; a few words at least). The height for a given width is still
// QLabel's own, so what is drawn is not clipped, but it is remembered for the current text: one
// layout pass asks it for the same widths several times (the scroll area, the dock, the window's
// minimum size), and each answer wraps the whole text anew.
#pragma once

#include <QLabel>
#include <array>

namespace remat::ui {

class WrapLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrapLabel(QWidget* parent = nullptr, int preferredChars = 60);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    int heightForWidth(int width) const override;

protected:
    void changeEvent(QEvent* event) override;

private:
    int m_preferredChars;
    // Heights for recent widths, valid while the text is m_heightsText.
    struct Height {
        int width = -1;
        int height = 0;
    };
    mutable QString m_heightsText;
    mutable std::array<Height, 4> m_heights;
    mutable std::size_t m_nextHeight = 0;
};

}  // namespace remat::ui
