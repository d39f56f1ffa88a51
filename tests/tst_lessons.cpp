// The built-in lessons: they load, in English and Simplified Chinese; every step's setups
// apply (the model loads, the strategy or regions apply, in a Document as the Lessons tab does
// it); each step's `expect` bounds hold for the simulator's figures, so the lesson's answer is
// right; and every figure a reveal names equals the simulator's own, computed here
// independently of the panel, in both languages. Also: a broken lesson file is refused with
// the field named, and the user guide and glossary are embedded for the Help menu.
#include <QTextBrowser>
#include <QtTest>

#include "analysis.h"
#include "device.h"
#include "document.h"
#include "help_browser.h"
#include "lesson_panel.h"
#include "lessons.h"
#include "lower.h"
#include "model_file.h"
#include "qt_convert.h"
#include "strategy.h"

using namespace remat;
using namespace remat::ui;

namespace {

struct Independent {
    Graph graph;
    Evaluation evaluation;
    DeviceSpec device;
};

// The step's setup evaluated straight through the simulator, without the panel or a Document.
Result<Independent> evaluateSetup(const LessonSetup& setup) {
    auto m = lessonModel(setup);
    if (!m) return m.error();
    auto d = findDevice(m->device.empty() ? "a100-80gb" : m->device);
    if (!d) return d.error();
    auto g = lower(m->network, m->training);
    if (!g) return g.error();
    auto s = parseStrategy(defaultStrategy(*m));
    if (!s) return s.error();
    auto e = evaluate(*g, *s, manualRegions(*m), m->training, *d);
    if (!e) return e.error();
    return Independent{std::move(*g), std::move(*e), *d};
}

}  // namespace

class TestLessons : public QObject {
    Q_OBJECT
private slots:
    void lessonsLoadInBothLanguages();
    void everyStepAppliesAndItsFiguresAreTheSimulators();
    void brokenLessonIsRefusedWithTheField();
    void helpPagesAreEmbedded();
};

void TestLessons::lessonsLoadInBothLanguages() {
    auto lessons = builtinLessons();
    QVERIFY2(lessons, lessons ? "" : lessons.error().message.c_str());
    QVERIFY(lessons->size() >= 9);
    const QStringList keys = lessonFigureKeys();
    static const QRegularExpression brace(QStringLiteral("\\{([a-z_]+)\\}"));
    for (const Lesson& l : *lessons) {
        QVERIFY(!l.title.en.isEmpty() && !l.title.zhCN.isEmpty());
        QVERIFY2(l.title.zhCN != l.title.en, qPrintable(l.id));
        for (const LessonStep& s : l.steps) {
            for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
                const QString reveal = s.reveal.in(lang);
                // Every figure named is one the panel fills, and both languages name the same.
                auto it = brace.globalMatch(reveal);
                while (it.hasNext()) {
                    const QString key = it.next().captured(1);
                    QVERIFY2(keys.contains(key), qPrintable(l.id + ": {" + key + "}"));
                    QVERIFY2(s.reveal.en.contains("{" + key + "}") &&
                                 s.reveal.zhCN.contains("{" + key + "}"),
                             qPrintable(l.id + ": {" + key + "} in one language only"));
                }
                QVERIFY(!s.text.in(lang).isEmpty() && !s.question.in(lang).isEmpty());
            }
            QVERIFY(s.answer >= 0 && s.answer < s.choices.size());
        }
    }
}

void TestLessons::everyStepAppliesAndItsFiguresAreTheSimulators() {
    Document document;
    LessonPanel panel(&document);
    QVERIFY2(panel.loadError().isEmpty(), qPrintable(panel.loadError()));
    int steps = 0, bounds = 0;
    for (int li = 0; li < panel.lessons().size(); ++li) {
        const Lesson& lesson = panel.lessons()[li];
        for (int si = 0; si < lesson.steps.size(); ++si) {
            const LessonStep& step = lesson.steps[si];
            const QString at = QStringLiteral("%1 step %2").arg(lesson.id).arg(si + 1);
            if (step.before) {
                auto before = evaluateSetup(*step.before);
                QVERIFY2(before, qPrintable(at + ": before: " +
                                            (before ? QString() : toQString(before.error().message))));
            }
            auto want = evaluateSetup(step.setup);
            QVERIFY2(want, qPrintable(at + ": " + (want ? QString() : toQString(want.error().message))));
            const QMap<QString, double> raw = lessonRawFigures(want->evaluation, want->device);
            for (const LessonBound& b : step.expect) {
                QVERIFY2(raw.contains(b.figure), qPrintable(at + ": unknown figure " + b.figure));
                const double v = raw[b.figure];
                QVERIFY2(v >= b.low && v <= b.high,
                         qPrintable(QStringLiteral("%1: %2 = %3, expected within [%4, %5]")
                                        .arg(at, b.figure)
                                        .arg(v, 0, 'g', 6)
                                        .arg(b.low)
                                        .arg(b.high)));
                ++bounds;
            }
            for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
                panel.setLanguage(lang);
                QVERIFY2(panel.showStep(li, si), qPrintable(at + ": " + panel.lastError()));
                QCOMPARE(panel.questionText(), step.question.in(lang));
                QVERIFY(!panel.revealed());
                panel.choose(step.answer);
                QVERIFY2(panel.reveal(), qPrintable(at + ": " + panel.lastError()));
                // The document holds the step's setup: the same plan as the independent one.
                QCOMPARE(document.evaluation().program.plan.regions,
                         want->evaluation.program.plan.regions);
                QCOMPARE(document.evaluation().timeline.peakBytes, want->evaluation.timeline.peakBytes);
                const QMap<QString, QString> figures =
                    lessonFigures(want->evaluation, want->graph, want->device, lang);
                const QString text = panel.revealText();
                QCOMPARE(text, fillFigures(step.reveal.in(lang), figures));
                for (auto it = figures.begin(); it != figures.end(); ++it)
                    if (step.reveal.in(lang).contains("{" + it.key() + "}"))
                        QVERIFY2(text.contains(it.value()), qPrintable(at + ": " + it.key()));
                static const QRegularExpression unfilled(QStringLiteral("\\{[a-z_]+\\}"));
                QVERIFY2(!text.contains(unfilled), qPrintable(at + ": " + text));
            }
            ++steps;
        }
    }
    QVERIFY(steps >= 18);
    QVERIFY(bounds >= 18);
}

void TestLessons::brokenLessonIsRefusedWithTheField() {
    const QByteArray noChinese = R"({"title": {"en": "t", "zh_CN": "标题"}, "steps": [{
        "setup": {"model": "mlp-3x1024"}, "text": {"en": "x"}, "question": {"en": "q", "zh_CN": "问"},
        "choices": [{"en": "a", "zh_CN": "甲"}, {"en": "b", "zh_CN": "乙"}], "answer": 0,
        "reveal": {"en": "r", "zh_CN": "答"}}]})";
    auto a = parseLesson(noChinese, QStringLiteral("broken"));
    QVERIFY(!a);
    QVERIFY2(a.error().message.find("broken.json: $.steps[0].text") != std::string::npos,
             a.error().message.c_str());
    QByteArray badAnswer = noChinese;
    badAnswer.replace(R"("text": {"en": "x"})", R"("text": {"en": "x", "zh_CN": "文"})");
    badAnswer.replace(R"("answer": 0)", R"("answer": 2)");
    auto b = parseLesson(badAnswer, QStringLiteral("broken"));
    QVERIFY(!b);
    QVERIFY2(b.error().message.find("$.steps[0].answer") != std::string::npos, b.error().message.c_str());
    badAnswer.replace(R"("answer": 2)", R"("answer": 1)");
    QVERIFY(parseLesson(badAnswer, QStringLiteral("fixed")));
    auto model = lessonModel(LessonSetup{QStringLiteral("gpt2-small"), {}, {}, {}, {}, 3, 24, {}, {}, {}});
    QVERIFY(!model);  // entry 3 is the final layer norm, not a block
    QVERIFY2(model.error().message.find("is not a block") != std::string::npos,
             model.error().message.c_str());
}

void TestLessons::helpPagesAreEmbedded() {
    const QString guide = embeddedHelpText(QStringLiteral(":/docs/user-guide.md"));
    QVERIFY(guide.startsWith(QStringLiteral("# Remat Studio user guide")));
    QVERIFY(guide.contains(QStringLiteral("## Teaching with Remat Studio")));
    QVERIFY(guide.contains(QStringLiteral("](glossary.md)")));
    QVERIFY(!guide.contains(QStringLiteral("![")));  // images left out
    const QString glossary = embeddedHelpText(QStringLiteral(":/docs/glossary.md"));
    QVERIFY(glossary.startsWith(QStringLiteral("# Glossary")));
    HelpBrowser page(QStringLiteral("Glossary"), QStringLiteral(":/docs/glossary.md"));
    QVERIFY(page.markdown() == glossary);
    QVERIFY(page.browser()->toPlainText().contains(QStringLiteral("Checkpointed region")));
}

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
