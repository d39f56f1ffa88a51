// A word-wrapped label whose text changes on every edit (the summary's figures, a panel's
// status line). QLabel lays its text out from scratch for every size query and again for every
// paint, and one edit asks several times (the scroll area, the dock, the window's minimum size,
// then the paint): for the summary's figures that was a large part of the frame. This label
// lays the text out once per width (QStaticText, plain text, wrapped at word boundaries),
// answers heightForWidth() and paints from that layout, and keeps the last few widths' layouts
// until the text or the font changes. Its size hints come from the font metrics alone (a line
// of up to `preferredChars` characters; a few words at least). It is not mouse-selectable: its
// context menu copies the text instead.
//
// WrapBox holds one WrapLabel and stands for it in a layout. QLabel asks its parent's layout to
// redo itself on every setText, and for a panel of figures that change on every edit that meant
// laying out the panel, its scroll area and the dock around it each time. Inside a WrapBox the
// request stops at the box: it passes it on only when the label's height at its current width
// changed (a line more or less), which is rare; otherwise the label just repaints. A text set
// while the box was hidden is measured when it shows, and a box resized to a new width at
// which its height is wrong (the layout's cached height for an older text) asks again.
#pragma once

#include <QLabel>
#include <QStaticText>
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
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // The text laid out at `width` pixels (contents width), made on first use.
    const QStaticText& laidOut(int width) const;

    int m_preferredChars;
    struct Layout {
        int width = -1;
        QStaticText text;
    };
    mutable QString m_laidText;  // the text and alignment the layouts below are of
    mutable Qt::Alignment m_laidAlignment;
    mutable std::array<Layout, 4> m_layouts;
    mutable std::size_t m_nextLayout = 0;
};

class WrapBox : public QWidget {
    Q_OBJECT
public:
    explicit WrapBox(QWidget* parent = nullptr, int preferredChars = 60);

    WrapLabel* label() const { return m_label; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    bool event(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // Asks the layout around for a new height when the label's differs from the box's.
    void relayHeightChange();

    WrapLabel* m_label;
};

}  // namespace remat::ui
