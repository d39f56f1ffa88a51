#include "wrap_label.h"

#include <QAction>
#include <QClipboard>
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

}  // namespace remat::ui
