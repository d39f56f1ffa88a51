#include "evaluation_progress.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>

#include "document.h"
#include "progress_strip.h"

namespace remat::ui {

EvaluationProgress::EvaluationProgress(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_bar(new ProgressStrip(this)),
      m_label(new QLabel(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_tick(new QTimer(this)) {
    setObjectName(QStringLiteral("evaluationProgress"));
    m_bar->setRange(0, 0);  // busy: the work reports no amount
    m_bar->setFixedWidth(140);
    m_label->setObjectName(QStringLiteral("evaluationProgressText"));
    m_cancel->setObjectName(QStringLiteral("evaluationCancel"));
    m_cancel->setToolTip(tr("Stop this evaluation and keep the model as it was"));
    m_cancel->setShortcut(Qt::Key_Escape);
    m_cancel->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    m_label->setToolTip(tr("The window stays usable while this runs; the views show the model "
                           "as it was until the result is ready"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 0, 6, 0);
    layout->setSpacing(8);
    layout->addWidget(m_bar);
    layout->addWidget(m_label);
    layout->addWidget(m_cancel);

    m_tick->setInterval(500);
    connect(m_tick, &QTimer::timeout, this, &EvaluationProgress::refresh);
    connect(m_cancel, &QPushButton::clicked, m_document, &Document::cancelEvaluation);
    connect(m_document, &Document::busyChanged, this, &EvaluationProgress::busyChanged);
    busyChanged(m_document->isBusy());
}

QString EvaluationProgress::text() const {
    return m_label->text();
}

void EvaluationProgress::busyChanged(bool busy) {
    busy = busy && m_document->isBusy();
    setVisible(busy);
    if (busy)
        m_tick->start();
    else
        m_tick->stop();
    refresh();
}

void EvaluationProgress::refresh() {
    if (!m_document->isBusy()) {
        m_label->clear();
        return;
    }
    const qint64 seconds = m_document->busyMs() / 1000;
    m_label->setText(seconds < 1 ? m_document->busyText()
                                 : tr("%1 %2 s").arg(m_document->busyText()).arg(seconds));
}

}  // namespace remat::ui
