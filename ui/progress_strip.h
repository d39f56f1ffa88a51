// A progress bar for work that reports often (a background comparison, an executor run): it
// looks like the style's progress bar but only ever schedules its paint. QProgressBar repaints
// synchronously whenever its value moves visibly, and in Qt 6 a synchronous repaint paints every
// dirty widget of the window at once — inside the edit or the progress signal that caused it.
// Its size hint does not depend on the value or the text, so progress never relays out the
// panel that holds it.
#pragma once

#include <QString>
#include <QWidget>

namespace remat::ui {

class ProgressStrip : public QWidget {
    Q_OBJECT
public:
    explicit ProgressStrip(QWidget* parent = nullptr);

    // A range with minimum == maximum means "busy, amount unknown".
    void setRange(int minimum, int maximum);
    void setValue(int value);
    // "%v" is replaced by the value, "%m" by the maximum, "%p" by the percentage; while busy
    // (no range yet) no text is shown.
    void setFormat(const QString& format);

    int minimum() const { return m_minimum; }
    int maximum() const { return m_maximum; }
    int value() const { return m_value; }
    QString text() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int m_minimum = 0;
    int m_maximum = 100;
    int m_value = 0;
    QString m_format = QStringLiteral("%p%");
};

}  // namespace remat::ui
