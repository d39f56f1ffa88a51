#include "lesson_panel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include "document.h"
#include "document_evaluation.h"
#include "qt_convert.h"
#include "status_colors.h"

namespace remat::ui {

namespace {

QLabel* wrapped(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setTextFormat(Qt::PlainText);
    return l;
}

}  // namespace

LessonPanel::LessonPanel(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_language(defaultLessonLanguage()),
      m_lessonCombo(new QComboBox(this)),
      m_languageCombo(new QComboBox(this)),
      m_progress(new QLabel(this)),
      m_text(wrapped(this)),
      m_question(wrapped(this)),
      m_choicesLayout(new QVBoxLayout),
      m_choices(new QButtonGroup(this)),
      m_revealButton(new QPushButton(tr("Reveal"), this)),
      m_outcome(wrapped(this)),
      m_answer(wrapped(this)),
      m_back(new QPushButton(tr("◀ Back"), this)),
      m_next(new QPushButton(tr("Next ▶"), this)) {
    if (auto l = builtinLessons()) m_lessons = std::move(*l);
    else m_loadError = toQString(l.error().message);

    m_lessonCombo->setObjectName(QStringLiteral("lessonCombo"));
    m_lessonCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_lessonCombo->setMinimumContentsLength(16);
    m_languageCombo->addItem(QStringLiteral("English"), QStringLiteral("en"));
    m_languageCombo->addItem(QStringLiteral("简体中文"), QStringLiteral("zh_CN"));
    m_languageCombo->setToolTip(tr("Language of the lesson text"));
    m_question->setObjectName(QStringLiteral("lessonQuestion"));
    m_answer->setObjectName(QStringLiteral("lessonAnswer"));
    QFont bold = m_question->font();
    bold.setBold(true);
    m_question->setFont(bold);
    m_outcome->setFont(bold);

    auto* top = new QHBoxLayout;
    top->addWidget(m_lessonCombo, 1);
    top->addWidget(m_languageCombo);
    auto* nav = new QHBoxLayout;
    nav->addWidget(m_back);
    nav->addWidget(m_progress, 1, Qt::AlignCenter);
    nav->addWidget(m_next);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(nav);
    layout->addWidget(m_text);
    layout->addWidget(m_question);
    layout->addLayout(m_choicesLayout);
    layout->addWidget(m_revealButton, 0, Qt::AlignLeft);
    layout->addWidget(m_outcome);
    layout->addWidget(m_answer);
    layout->addStretch(1);

    connect(m_lessonCombo, &QComboBox::activated, this, [this](int i) { showStep(i, 0); });
    connect(m_languageCombo, &QComboBox::activated, this,
            [this] { setLanguage(m_languageCombo->currentData().toString()); });
    connect(m_choices, &QButtonGroup::idClicked, this, [this](int id) { m_choice = id; });
    connect(m_revealButton, &QPushButton::clicked, this, [this] { reveal(); });
    connect(m_back, &QPushButton::clicked, this, [this] { showStep(m_lesson, m_step - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { showStep(m_lesson, m_step + 1); });

    setLanguage(m_language);
}

void LessonPanel::setLanguage(const QString& language) {
    m_language = language.startsWith(QLatin1String("zh")) ? QStringLiteral("zh_CN")
                                                           : QStringLiteral("en");
    m_languageCombo->setCurrentIndex(m_languageCombo->findData(m_language));
    const int current = m_lessonCombo->currentIndex();
    m_lessonCombo->clear();
    for (int i = 0; i < m_lessons.size(); ++i)
        m_lessonCombo->addItem(QStringLiteral("%1. %2").arg(i + 1).arg(m_lessons[i].title.in(m_language)));
    if (current >= 0) m_lessonCombo->setCurrentIndex(current);
    if (m_revealed && m_revealedState) fillReveal();  // the answer in the new language too
    updateTexts();
}

bool LessonPanel::apply(const LessonSetup& setup) {
    auto model = lessonModel(setup);
    if (!model) {
        m_lastError = toQString(model.error().message);
        return false;
    }
    remat::Status st = m_document->openModel(*model, QString());
    if (st && m_document->isBusy()) st = m_document->waitUntilIdle();
    if (!st) {
        m_lastError = toQString(st.error().message);
        return false;
    }
    m_lastError.clear();
    return true;
}

bool LessonPanel::showStep(int lesson, int step) {
    if (lesson < 0 || lesson >= m_lessons.size()) return false;
    const Lesson& l = m_lessons[lesson];
    if (step < 0 || step >= l.steps.size()) return false;
    m_lesson = lesson;
    m_step = step;
    m_choice = -1;
    m_revealed = false;
    m_revealed_text.clear();
    m_revealedState.reset();
    m_lessonCombo->setCurrentIndex(lesson);
    const LessonStep& s = l.steps[step];
    const bool ok = apply(s.before ? *s.before : s.setup);
    rebuildChoices();
    updateTexts();
    return ok;
}

void LessonPanel::restorePlace(const Place& place) {
    if (place.lesson < 0 || place.lesson >= m_lessons.size() || place.step < 0 ||
        place.step >= m_lessons[place.lesson].steps.size())
        return;
    m_lesson = place.lesson;
    m_step = place.step;
    m_lastError = place.lastError;
    m_lessonCombo->setCurrentIndex(m_lesson);
    rebuildChoices();
    choose(place.choice);
    m_revealed = place.revealed && place.revealedState;
    m_revealedState = m_revealed ? place.revealedState : nullptr;
    m_revealed_text.clear();
    if (m_revealed) fillReveal();
    updateTexts();
}

void LessonPanel::fillReveal() {
    const DocumentState& state = *m_revealedState;
    const auto figures =
        lessonFigures(state.evaluation, *state.graph, state.device, m_language, m_units);
    m_revealed_text = fillFigures(m_lessons[m_lesson].steps[m_step].reveal.in(m_language), figures);
}

void LessonPanel::choose(int choice) {
    m_choice = choice;
    if (QAbstractButton* b = m_choices->button(choice)) b->setChecked(true);
}

bool LessonPanel::reveal() {
    if (m_lesson < 0) return false;
    const LessonStep& s = m_lessons[m_lesson].steps[m_step];
    if (s.before && !apply(s.setup)) {
        updateTexts();
        return false;
    }
    m_revealedState = m_document->stateHandle();
    fillReveal();
    m_revealed = true;
    updateTexts();
    // In a short dock (a 720-pixel projector) the answer is below the fold: scroll to it once
    // the layout has taken the new text.
    QTimer::singleShot(0, this, [this] {
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            if (auto* area = qobject_cast<QScrollArea*>(w)) {
                area->ensureWidgetVisible(m_answer, 0, 0);
                area->ensureWidgetVisible(m_outcome, 0, 0);
                break;
            }
    });
    return m_lastError.isEmpty();
}

QString LessonPanel::revealText() const { return m_revealed_text; }

QString LessonPanel::questionText() const {
    if (m_lesson < 0) return {};
    return m_lessons[m_lesson].steps[m_step].question.in(m_language);
}

void LessonPanel::rebuildChoices() {
    for (QAbstractButton* b : m_choices->buttons()) {
        m_choices->removeButton(b);
        delete b;
    }
    if (m_lesson < 0) return;
    const LessonStep& s = m_lessons[m_lesson].steps[m_step];
    for (int i = 0; i < s.choices.size(); ++i) {
        auto* b = new QRadioButton(this);
        m_choices->addButton(b, i);
        m_choicesLayout->addWidget(b);
    }
}

void LessonPanel::updateTexts() {
    m_revealButton->setText(tr("Reveal"));
    m_back->setText(tr("◀ Back"));
    m_next->setText(tr("Next ▶"));
    if (m_lessons.isEmpty()) {
        m_text->setText(tr("No lessons could be loaded: %1").arg(m_loadError));
        for (QWidget* w : std::initializer_list<QWidget*>{m_question, m_revealButton, m_back, m_next})
            w->setVisible(false);
        return;
    }
    if (m_lesson < 0) {
        m_progress->clear();
        m_text->setText(tr("Choose a lesson above. Each step sets up a model and a plan, asks you "
                           "to predict, then shows the simulator's figures."));
        for (QWidget* w : std::initializer_list<QWidget*>{m_question, m_revealButton, m_back, m_next})
            w->setVisible(false);
        m_outcome->clear();
        m_answer->clear();
        return;
    }
    for (QWidget* w : std::initializer_list<QWidget*>{m_question, m_revealButton, m_back, m_next})
        w->setVisible(true);
    const Lesson& l = m_lessons[m_lesson];
    const LessonStep& s = l.steps[m_step];
    m_progress->setText(tr("Step %1 of %2").arg(m_step + 1).arg(l.steps.size()));
    m_back->setEnabled(m_step > 0);
    m_next->setEnabled(m_step + 1 < l.steps.size());
    m_text->setText(s.text.in(m_language));
    m_question->setText(s.question.in(m_language));
    const auto buttons = m_choices->buttons();
    for (int i = 0; i < buttons.size() && i < s.choices.size(); ++i)
        m_choices->button(i)->setText(s.choices[i].in(m_language));
    QPalette pal = m_outcome->palette();
    if (!m_lastError.isEmpty()) {
        pal.setColor(QPalette::WindowText, statusColor(Status::Bad, palette()));
        m_outcome->setPalette(pal);
        m_outcome->setText(tr("This step could not be set up: %1").arg(printableText(m_lastError, kShownMessageChars)));
        m_answer->clear();
        return;
    }
    if (!m_revealed) {
        m_outcome->clear();
        m_answer->clear();
        return;
    }
    const QString right = s.choices[s.answer].in(m_language);
    if (m_choice < 0) {
        pal.setColor(QPalette::WindowText, palette().color(QPalette::WindowText));
        m_outcome->setText(tr("Answer: %1").arg(right));
    } else if (m_choice == s.answer) {
        pal.setColor(QPalette::WindowText, statusColor(Status::Good, palette()));
        m_outcome->setText(tr("✔ Right: %1").arg(right));
    } else {
        pal.setColor(QPalette::WindowText, statusColor(Status::Warning, palette()));
        m_outcome->setText(tr("✘ Not quite: the answer is %1").arg(right));
    }
    m_outcome->setPalette(pal);
    m_answer->setText(m_revealed_text);
}

}  // namespace remat::ui
