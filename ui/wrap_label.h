// A word-wrapped label whose text changes on every edit (the summary's figures, a panel's
// status line). QLabel lays its text out from scratch for every size query and again for every
// paint, and one edit asks several times (the scroll area, the dock, the window's minimum size,
// then the paint): for the summary's figures that was a large part of the frame. This label
// lays the text out once per width (QStaticText, plain text, wrapped at word boundaries),
// answers heightForWidth() and paints from that layout, and keeps the last few widths' layouts
// until the text or the font changes. Its size hints come from the font metrics alone (a line
// of up to `preferredChars` characters; a few words at least). It is not mouse-selectable: its
// context menu copies the text instead.
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

}  // namespace remat::ui
