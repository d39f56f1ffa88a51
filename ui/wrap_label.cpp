#include "wrap_label.h"

#include <QAction>
#include <QClipboard>
#include <QEvent>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QPainter>
#include <QResizeEvent>
#include <QTextOption>
#include <algorithm>
#include <cmath>

namespace remat::ui {
namespace {
constexpr int kMinimumChars = 12;
}

WrapLabel::WrapLabel(QWidget* parent, int preferredChars)
    : QLabel(parent), m_preferredChars(preferredChars) {
    setTextFormat(Qt::PlainText);
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

const QStaticText& WrapLabel::laidOut(int width) const {
    width = std::max(width, 1);
    if (text() != m_laidText || alignment() != m_laidAlignment) {
        m_laidText = text();
        m_laidAlignment = alignment();
        for (Layout& l : m_layouts) l.width = -1;
    }
    for (const Layout& l : m_layouts)
        if (l.width == width) return l.text;
    Layout& l = m_layouts[m_nextLayout];
    m_nextLayout = (m_nextLayout + 1) % m_layouts.size();
    l.width = width;
    l.text = QStaticText(m_laidText);
    l.text.setTextFormat(Qt::PlainText);
    QTextOption option(alignment() & Qt::AlignHorizontal_Mask);
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    l.text.setTextOption(option);
    l.text.setTextWidth(width);
    l.text.prepare(QTransform(), font());
    return l.text;
}

int WrapLabel::heightForWidth(int width) const {
    const QMargins m = contentsMargins();
    const int height = text().isEmpty()
                           ? fontMetrics().height()
                           : int(std::ceil(laidOut(width - m.left() - m.right()).size().height()));
    return height + m.top() + m.bottom();
}

void WrapLabel::paintEvent(QPaintEvent*) {
    if (text().isEmpty()) return;
    QPainter p(this);
    const QRect area = contentsRect();
    const QStaticText& laid = laidOut(area.width());
    const double height = laid.size().height();
    double top = area.top();
    if (alignment() & Qt::AlignBottom)
        top = area.bottom() + 1 - height;
    else if (!(alignment() & Qt::AlignTop))
        top = area.top() + (area.height() - height) / 2;  // QLabel's default: centred
    p.setFont(font());
    p.setPen(palette().color(isEnabled() ? QPalette::Normal : QPalette::Disabled,
                             foregroundRole()));
    p.drawStaticText(QPointF(area.left(), std::max<double>(area.top(), top)), laid);
}

void WrapLabel::changeEvent(QEvent* event) {
    // Another font or style lays the same text out differently.
    switch (event->type()) {
        case QEvent::FontChange:
        case QEvent::StyleChange:
            for (Layout& l : m_layouts) l.width = -1;
            break;
        default:
            break;
    }
    QLabel::changeEvent(event);
}

WrapBox::WrapBox(QWidget* parent, int preferredChars)
    : QWidget(parent), m_label(new WrapLabel(this, preferredChars)) {
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

QSize WrapBox::sizeHint() const {
    return m_label->sizeHint();
}

QSize WrapBox::minimumSizeHint() const {
    return m_label->minimumSizeHint();
}

int WrapBox::heightForWidth(int width) const {
    return m_label->heightForWidth(width);
}

void WrapBox::relayHeightChange() {
    if (m_label->heightForWidth(width()) != height()) updateGeometry();
}

bool WrapBox::event(QEvent* event) {
    // The label's text, font or margins changed: the layout around needs to know only when the
    // label no longer fits the box's height at its width.
    if (event->type() == QEvent::LayoutRequest) {
        relayHeightChange();
        return true;
    }
    return QWidget::event(event);
}

void WrapBox::showEvent(QShowEvent* event) {
    // A hidden label asks nobody for a layout (Qt posts no request for it), so a text set while
    // the box was hidden — a panel in a tab behind another — is measured when it shows.
    relayHeightChange();
    QWidget::showEvent(event);
}

void WrapBox::resizeEvent(QResizeEvent* event) {
    m_label->setGeometry(rect());
    QWidget::resizeEvent(event);
    // A new width the layout around sized from a height it had cached for an older text (the
    // box passes on only changes at its current width): ask again when the height is wrong.
    if (event->size().width() != event->oldSize().width()) relayHeightChange();
}

}  // namespace remat::ui
