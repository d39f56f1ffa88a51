#include "wrap_label.h"

#include <QAction>
#include <QClipboard>
#include <QEvent>
#include <QFontMetrics>
#include <QGuiApplication>
#include <algorithm>

namespace remat::ui {
namespace {
constexpr int kMinimumChars = 12;
}

WrapLabel::WrapLabel(QWidget* parent, int preferredChars)
    : QLabel(parent), m_preferredChars(preferredChars) {
    setWordWrap(true);
    auto* copy = new QAction(tr("Copy"), this);
    connect(copy, &QAction::triggered, this,
            [this] { QGuiApplication::clipboard()->setText(text()); });
    addAction(copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);
}

QSize WrapLabel::sizeHint() const {
    const QFontMetrics fm = fontMetrics();
    const QMargins m = contentsMargins();
    const int chars =
        std::max(kMinimumChars, int(std::min<qsizetype>(text().size(), m_preferredChars)));
    return QSize(fm.averageCharWidth() * chars + m.left() + m.right(),
                 fm.height() + m.top() + m.bottom());
}

QSize WrapLabel::minimumSizeHint() const {
    const QFontMetrics fm = fontMetrics();
    const QMargins m = contentsMargins();
    return QSize(fm.averageCharWidth() * kMinimumChars + m.left() + m.right(),
                 fm.height() + m.top() + m.bottom());
}

int WrapLabel::heightForWidth(int width) const {
    if (text() != m_heightsText) {
        m_heightsText = text();
        m_heights.fill(Height{});
    }
    for (const Height& h : m_heights)
        if (h.width == width) return h.height;
    const int height = QLabel::heightForWidth(width);
    m_heights[m_nextHeight] = Height{width, height};
    m_nextHeight = (m_nextHeight + 1) % m_heights.size();
    return height;
}

void WrapLabel::changeEvent(QEvent* event) {
    // Another font, style or margin wraps the same text differently.
    switch (event->type()) {
        case QEvent::FontChange:
        case QEvent::StyleChange:
        case QEvent::ContentsRectChange:
            m_heights.fill(Height{});
            break;
        default:
            break;
    }
    QLabel::changeEvent(event);
}

}  // namespace remat::ui
