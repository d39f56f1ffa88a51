// What the window shows while the document evaluates an expensive edit, file or undo step in
// the background: a busy bar, what is being done and for how long ("Simulating… 4 s",
// "Planning…"), and a Cancel button that drops the evaluation and leaves the model as it was
// last accepted. It sits in the status bar and is hidden whenever the document is idle, so a
// cheap edit never shows it.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTimer;

namespace remat::ui {

class Document;
class ProgressStrip;

class EvaluationProgress : public QWidget {
    Q_OBJECT
public:
    explicit EvaluationProgress(Document* document, QWidget* parent = nullptr);

    QString text() const;
    QPushButton* cancelButton() const { return m_cancel; }

private:
    void busyChanged(bool busy);
    void refresh();

    Document* m_document;
    ProgressStrip* m_bar;
    QLabel* m_label;
    QPushButton* m_cancel;
    QTimer* m_tick;
};

}  // namespace remat::ui
