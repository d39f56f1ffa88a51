#include "refusal_notice.h"

#include <QEvent>
#include <QFrame>
#include <QLabel>
#include <QPointer>
#include <QTimer>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>

#include "document.h"
#include "qt_convert.h"
#include "status_colors.h"

namespace remat::ui {
namespace {

constexpr int kShownMs = 12000;
constexpr int kMaxWidth = 440;
const char* const kObjectName = "refusalNotice";

// The notice: a framed, word-wrapped label in the status colour for "bad", a child of the
// anchor's window raised over everything else in it.
class RefusalFrame : public QFrame {
public:
    explicit RefusalFrame(QWidget* window) : QFrame(window), m_label(new QLabel(this)) {
        setObjectName(QString::fromLatin1(kObjectName));
        setAutoFillBackground(true);
        setFrameShape(QFrame::Box);
        setLineWidth(1);
        m_label->setObjectName(QStringLiteral("refusalText"));
        m_label->setWordWrap(true);
        m_label->setTextFormat(Qt::PlainText);
        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(8, 5, 8, 5);
        layout->addWidget(m_label);
        m_timer.setSingleShot(true);
        m_timer.setInterval(kShownMs);
        QObject::connect(&m_timer, &QTimer::timeout, this, &QWidget::hide);
        hide();
    }

    void present(QWidget* anchor, const QString& message, const QRect& area) {
        m_anchor = anchor;
        QWidget* window = parentWidget();
        QPalette pal = palette();
        const QColor bad = statusColor(Status::Bad, window->palette());
        pal.setColor(QPalette::WindowText, bad);
        pal.setColor(QPalette::Window, window->palette().color(QPalette::ToolTipBase));
        pal.setColor(QPalette::Text, window->palette().color(QPalette::ToolTipText));
        setPalette(pal);
        QPalette labelPal = m_label->palette();
        labelPal.setColor(QPalette::WindowText, window->palette().color(QPalette::ToolTipText));
        m_label->setPalette(labelPal);
        m_label->setText(printableText(message.simplified(), kShownMessageChars));
        // As wide as the text needs, at most kMaxWidth and the window's width.
        const int room = std::max(120, window->width() - 8);
        const int width = std::min({kMaxWidth, room,
                                    m_label->fontMetrics().horizontalAdvance(m_label->text()) + 20});
        setFixedWidth(width);
        setFixedHeight(heightForWidth(width) > 0 ? heightForWidth(width) : sizeHint().height());
        const QRect target = area.isEmpty() ? anchor->rect() : area;
        QPoint at = anchor->mapTo(window, target.bottomLeft() + QPoint(0, 2));
        // Above the anchor when there is no room below it; kept inside the window.
        if (at.y() + height() > window->height())
            at.setY(anchor->mapTo(window, target.topLeft()).y() - height() - 2);
        at.setX(std::clamp(at.x(), 4, std::max(4, window->width() - width - 4)));
        at.setY(std::clamp(at.y(), 0, std::max(0, window->height() - height())));
        move(at);
        show();
        raise();
        m_timer.start();
    }

    QString text() const { return m_label->text(); }
    QWidget* anchor() const { return m_anchor; }

protected:
    void mousePressEvent(QMouseEvent*) override { hide(); }

private:
    QLabel* m_label;
    QTimer m_timer;
    QPointer<QWidget> m_anchor;
};

RefusalFrame* frameOf(const QWidget* window) {
    if (!window) return nullptr;
    for (QObject* child : window->children())
        if (auto* f = dynamic_cast<RefusalFrame*>(child)) return f;
    return nullptr;
}

}  // namespace

void showRefusal(QWidget* anchor, const QString& message, const QRect& area) {
    if (!anchor || message.isEmpty()) return;
    if (!anchor->isVisible()) {
        // An editor made anew by the revert (the inspector rebuilds its fields) is shown by its
        // layout on a queued call; the notice follows once it is.
        if (!anchor->window()->isVisible()) return;
        QTimer::singleShot(0, anchor, [a = QPointer<QWidget>(anchor), message, area] {
            if (a && a->isVisible()) showRefusal(a, message, area);
        });
        return;
    }
    QWidget* window = anchor->window();
    RefusalFrame* frame = frameOf(window);
    if (!frame) frame = new RefusalFrame(window);
    frame->present(anchor, message, area);
}

void connectRefusals(Document* document, QWidget* owner,
                     std::function<RefusalPlace(QWidget* origin, const QString& message)> revert) {
    QObject::connect(document, &Document::editRefused, owner,
                     [owner, revert = std::move(revert)](QObject* origin, const QString& message) {
                         auto* w = qobject_cast<QWidget*>(origin);
                         if (!w || (w != owner && !owner->isAncestorOf(w))) return;
                         RefusalPlace place = revert(w, message);
                         showRefusal(place.anchor ? place.anchor : w, message, place.area);
                     });
    // The next accepted edit makes an earlier refusal old news.
    QObject::connect(document, &Document::changed, owner, [owner] {
        if (refusalAnchor(owner->window()) && (refusalAnchor(owner->window()) == owner ||
                                               owner->isAncestorOf(refusalAnchor(owner->window()))))
            hideRefusal(owner->window());
    });
}

void hideRefusal(QWidget* window) {
    if (RefusalFrame* frame = frameOf(window)) frame->hide();
}

QString shownRefusal(const QWidget* window) {
    const RefusalFrame* frame = frameOf(window);
    return frame && frame->isVisible() ? frame->text() : QString();
}

QWidget* refusalAnchor(const QWidget* window) {
    const RefusalFrame* frame = frameOf(window);
    return frame && frame->isVisible() ? frame->anchor() : nullptr;
}

}  // namespace remat::ui
