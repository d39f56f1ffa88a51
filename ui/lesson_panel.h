// The Lessons dock: pick a built-in lesson (lessons.h), then step through it. Entering a step
// sets up its model and plan in the document (the `before` state, if the step has one), shows
// the step's text and question with its choices; Reveal applies the step's setup, says whether
// the prediction was right and shows the answer with the simulator's figures filled in. Back
// and Next move between steps. The text is in English or Simplified Chinese (the UI's
// language by default, or the panel's own choice).
#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <memory>

#include "lessons.h"

class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QVBoxLayout;

namespace remat::ui {

class Document;
struct DocumentState;

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(Document* document, QWidget* parent = nullptr);

    const QList<Lesson>& lessons() const { return m_lessons; }
    // The load error when no lesson could be read (shown in the panel too).
    QString loadError() const { return m_loadError; }
    void setLanguage(const QString& language);
    QString language() const { return m_language; }
    void setUnits(ByteUnits units) { m_units = units; }

    // Opens lesson `lesson` at step `step`, setting it up; false if the setup was refused (the
    // message is shown in the panel and returned by lastError()).
    bool showStep(int lesson, int step);
    // Applies the step's setup and shows the answer with its figures.
    bool reveal();
    void choose(int choice);

    int currentLesson() const { return m_lesson; }
    int currentStep() const { return m_step; }
    bool revealed() const { return m_revealed; }
    QString revealText() const;
    QString questionText() const;
    QString lastError() const { return m_lastError; }

    // Where the panel stands: the lesson, step, the choice made and whether it was revealed.
    // A new panel over the same document (the window rebuilt in another language) is put there
    // with restorePlace(), which sets nothing up in the document (it is set up already) and
    // fills a revealed answer's figures in again in the panel's language, from the state the
    // document was in when it was revealed (later edits do not change them).
    struct Place {
        int lesson = -1;
        int step = 0;
        int choice = -1;
        bool revealed = false;
        QString lastError;
        std::shared_ptr<const DocumentState> revealedState;
    };
    Place place() const {
        return {m_lesson, m_step, m_choice, m_revealed, m_lastError, m_revealedState};
    }
    void restorePlace(const Place& place);

private:
    bool apply(const LessonSetup& setup);
    void rebuildChoices();
    void updateTexts();
    // The answer's text with the figures of m_revealedState, in the panel's language.
    void fillReveal();

    Document* m_document;
    QList<Lesson> m_lessons;
    QString m_loadError;
    QString m_language;
    ByteUnits m_units = ByteUnits::Binary;
    int m_lesson = -1;
    int m_step = 0;
    int m_choice = -1;
    bool m_revealed = false;
    QString m_revealed_text;
    std::shared_ptr<const DocumentState> m_revealedState;  // the document when revealed
    QString m_lastError;

    QComboBox* m_lessonCombo;
    QComboBox* m_languageCombo;
    QLabel* m_progress;
    QLabel* m_text;
    QLabel* m_question;
    QVBoxLayout* m_choicesLayout;
    QButtonGroup* m_choices;
    QPushButton* m_revealButton;
    QLabel* m_outcome;
    QLabel* m_answer;
    QPushButton* m_back;
    QPushButton* m_next;
};

}  // namespace remat::ui
