#include "progress_strip.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOptionProgressBar>
#include <algorithm>

namespace remat::ui {

ProgressStrip::ProgressStrip(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void ProgressStrip::setRange(int minimum, int maximum) {
    maximum = std::max(minimum, maximum);
    if (minimum == m_minimum && maximum == m_maximum) return;
    m_minimum = minimum;
    m_maximum = maximum;
    m_value = std::clamp(m_value, m_minimum, m_maximum);
    update();
}

void ProgressStrip::setValue(int value) {
    value = std::clamp(value, m_minimum, m_maximum);
    if (value == m_value) return;
    m_value = value;
    update();
}

void ProgressStrip::setFormat(const QString& format) {
    if (format == m_format) return;
    m_format = format;
    update();
}

QString ProgressStrip::text() const {
    if (m_minimum == m_maximum) return {};  // busy: no count to show yet
    const int span = m_maximum - m_minimum;
    const int percent = span > 0 ? int(100LL * (m_value - m_minimum) / span) : 0;
    QString t = m_format;
    t.replace(QLatin1String("%v"), QString::number(m_value));
    t.replace(QLatin1String("%m"), QString::number(m_maximum));
    t.replace(QLatin1String("%p"), QString::number(percent));
    return t;
}

QSize ProgressStrip::sizeHint() const {
    // As wide as the format with three-digit numbers, whatever the current value.
    QString widest = m_format;
    for (const char* field : {"%v", "%m", "%p"}) widest.replace(QLatin1String(field), QLatin1String("888"));
    const QFontMetrics fm = fontMetrics();
    QStyleOptionProgressBar opt;
    opt.initFrom(this);
    const QSize text(fm.horizontalAdvance(widest) + fm.averageCharWidth() * 4, fm.height() + 4);
    return style()->sizeFromContents(QStyle::CT_ProgressBar, &opt, text, this);
}

QSize ProgressStrip::minimumSizeHint() const {
    return QSize(fontMetrics().averageCharWidth() * 8, sizeHint().height());
}

void ProgressStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    QStyleOptionProgressBar opt;
    opt.initFrom(this);
    opt.minimum = m_minimum;
    opt.maximum = m_maximum;
    opt.progress = m_value;
    opt.text = text();
    opt.textVisible = true;
    opt.textAlignment = Qt::AlignCenter;
    opt.state |= QStyle::State_Horizontal;
    style()->drawControl(QStyle::CE_ProgressBar, &opt, &p, this);
}

}  // namespace remat::ui
