// The Simplified Chinese translation: the compiled .qm sits at the resource path the app loads
// translations from and turns known main-window strings into Chinese; installing it the way
// remat-studio does (ui/language.h) makes a main window speak Chinese; English needs no
// translation; and the .ts source is complete — no message unfinished or empty — with every
// placeholder (%1, %n), keyboard accelerator (&File → 文件(&F)) and HTML tag of the English
// source kept.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QMenuBar>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

#include "app_settings.h"
#include "document.h"
#include "language.h"
#include "main_window.h"
#include "run_panel.h"
#include "timeline_plot.h"
#include "ui_test_support.h"

using namespace remat::ui;

namespace {

const QString kTsPath =
    QStringLiteral(REMAT_SOURCE_DIR) + QStringLiteral("/resources/translations/remat_zh_CN.ts");

bool hasHan(const QString& s) {
    for (const QChar c : s)
        if (c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff) return true;
    return false;
}

struct TsMessage {
    QString context, source, type;
    QStringList translations;  // one, or the numerus forms
    bool numerus = false;
    qint64 line = 0;
};

std::vector<TsMessage> readTs(const QString& path, QString* error) {
    std::vector<TsMessage> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return out;
    }
    QXmlStreamReader xml(&file);
    QString context;
    TsMessage m;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("name")) {
                context = xml.readElementText();
            } else if (name == QLatin1String("message")) {
                m = TsMessage{context, {}, {}, {}, false, xml.lineNumber()};
                m.numerus =
                    xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
            } else if (name == QLatin1String("source")) {
                m.source = xml.readElementText();
            } else if (name == QLatin1String("translation")) {
                m.type = xml.attributes().value(QLatin1String("type")).toString();
                if (!m.numerus) m.translations << xml.readElementText();
            } else if (name == QLatin1String("numerusform")) {
                m.translations << xml.readElementText();
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            out.push_back(m);
        }
    }
    if (xml.hasError()) *error = xml.errorString();
    return out;
}

QStringList sorted(QStringList l) {
    l.sort();
    return l;
}

// Placeholders (%1 … %99, %n, %L1) in order of appearance, sorted.
QStringList placeholders(const QString& s) {
    static const QRegularExpression re(QStringLiteral("%(L?\\d{1,2}|n)"));
    QStringList out;
    for (auto it = re.globalMatch(s); it.hasNext();) out << it.next().captured(0);
    return sorted(out);
}

QStringList htmlTags(const QString& s) {
    static const QRegularExpression re(QStringLiteral("</?[a-zA-Z][a-zA-Z0-9]*[^>]*>"));
    QStringList out;
    for (auto it = re.globalMatch(s); it.hasNext();) out << it.next().captured(0);
    return sorted(out);
}

// The accelerator letter of a menu text ("&File" → 'F'), or a null char when it has none
// ("&&" is a literal ampersand).
QChar accelerator(const QString& s) {
    for (qsizetype i = 0; i + 1 < s.size(); ++i) {
        if (s[i] != QLatin1Char('&')) continue;
        if (s[i + 1] == QLatin1Char('&')) {
            ++i;
            continue;
        }
        if (s[i + 1].isLetterOrNumber()) return s[i + 1].toUpper();
    }
    return {};
}

void removeTranslators() {
    for (QTranslator* t : qApp->findChildren<QTranslator*>()) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
    QLocale::setDefault(QLocale::c());
}

}  // namespace

class TstTranslations : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void compiledTranslationTranslatesMainWindowStrings();
    void tsFileIsCompleteAndKeepsMarkup();
    void englishNeedsNoTranslation();
    void mainWindowSpeaksChinese();
    void timelineAndRunPanelSpeakChinese();
};

void TstTranslations::compiledTranslationTranslatesMainWindowStrings() {
    const QString qm = QString::fromLatin1(kTranslationsPath) + QStringLiteral("/remat_zh_CN.qm");
    QVERIFY2(QFile::exists(qm), qPrintable(qm));
    QTranslator t;
    QVERIFY(t.load(QLocale(QStringLiteral("zh_CN")), QStringLiteral("remat"), QStringLiteral("_"),
                   QString::fromLatin1(kTranslationsPath)));
    QCOMPARE(t.language(), QStringLiteral("zh_CN"));
    const char* context = "remat::ui::MainWindow";
    QCOMPARE(t.translate(context, "&File"), QString::fromUtf8("文件(&F)"));
    QCOMPARE(t.translate(context, "&Edit"), QString::fromUtf8("编辑(&E)"));
    QCOMPARE(t.translate(context, "&View"), QString::fromUtf8("视图(&V)"));
    for (const char* source :
         {"&Help", "Layer stack", "Comparison", "Summary", "Palette", "Device and memory budget",
          "Sweep", "&Language", "System default"}) {
        const QString text = t.translate(context, source);
        QVERIFY2(!text.isEmpty() && hasHan(text), source);
    }
    // A string with a placeholder keeps it.
    const QString refused = t.translate(context, "Edit refused: %1");
    QVERIFY(hasHan(refused));
    QVERIFY(refused.contains(QStringLiteral("%1")));
}

void TstTranslations::tsFileIsCompleteAndKeepsMarkup() {
    QString error;
    const std::vector<TsMessage> messages = readTs(kTsPath, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(messages.size() > 300);
    QStringList problems;
    for (const TsMessage& m : messages) {
        const QString where =
            QStringLiteral("%1:%2 [%3] \"%4\"").arg(kTsPath).arg(m.line).arg(m.context, m.source);
        if (!m.type.isEmpty()) {
            problems << where + QStringLiteral(": type=") + m.type;
            continue;
        }
        if (m.translations.isEmpty()) problems << where + QStringLiteral(": no translation");
        for (const QString& tr : m.translations) {
            if (tr.trimmed().isEmpty()) {
                problems << where + QStringLiteral(": empty translation");
                continue;
            }
            // %n may be written once in a form that needs no count.
            QStringList want = placeholders(m.source), got = placeholders(tr);
            if (m.numerus) {
                want.removeAll(QStringLiteral("%n"));
                got.removeAll(QStringLiteral("%n"));
            }
            if (want != got)
                problems << where + QStringLiteral(": placeholders %1 became %2")
                                        .arg(want.join(','), got.join(','));
            if (htmlTags(m.source) != htmlTags(tr))
                problems << where + QStringLiteral(": HTML tags differ");
            static const QRegularExpression entity(QStringLiteral("&[a-zA-Z]+;"));
            const QChar key = m.source.contains(entity) ? QChar() : accelerator(m.source);
            if (!key.isNull() && accelerator(tr) != key)
                problems << where + QStringLiteral(": accelerator &%1 lost").arg(key);
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TstTranslations::englishNeedsNoTranslation() {
    QVERIFY(!installTranslators(*qApp, QStringLiteral("en")));
    QVERIFY(qApp->findChildren<QTranslator*>().size() <= 1);  // at most Qt's own
    removeTranslators();
    const auto languages = availableLanguages();
    QVERIFY(languages.size() >= 2);
    QCOMPARE(languages.front().code, QStringLiteral("en"));
    QVERIFY(std::any_of(languages.begin(), languages.end(),
                        [](const LanguageChoice& l) { return l.code == "zh_CN"; }));
}

void TstTranslations::mainWindowSpeaksChinese() {
    QVERIFY(installTranslators(*qApp, QStringLiteral("zh_CN")));
    {
        MainWindow w(remat::test::testOptions());
        QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
        QStringList menus;
        for (QAction* a : w.menuBar()->actions()) menus << a->text();
        QVERIFY(menus.contains(QString::fromUtf8("文件(&F)")));
        for (const QString& m : menus) QVERIFY2(hasHan(m), qPrintable(m));
        int docks = 0;
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
            QVERIFY2(hasHan(d->windowTitle()), qPrintable(d->windowTitle()));
            ++docks;
        }
        QVERIFY(docks >= 6);
        // The language menu offers the languages in their own names and the system's.
        auto* language = w.findChild<QMenu*>(QStringLiteral("languageMenu"));
        QVERIFY(language);
        QCOMPARE(language->actions().size(), int(availableLanguages().size()) + 1);
        QVERIFY(hasHan(language->title()));
        // Choosing one saves it for the next start; "System default" forgets it again.
        const QList<QAction*> choices = language->actions();
        auto chinese = std::find_if(choices.begin(), choices.end(), [](QAction* a) {
            return a->data().toString() == QLatin1String("zh_CN");
        });
        QVERIFY(chinese != choices.end());
        (*chinese)->trigger();
        QCOMPARE(AppSettings().language(), QStringLiteral("zh_CN"));
        QVERIFY((*chinese)->isChecked());
        choices.front()->trigger();
        QCOMPARE(AppSettings().language(), QString());
    }
    removeTranslators();
}

void TstTranslations::timelineAndRunPanelSpeakChinese() {
    QVERIFY(installTranslators(*qApp, QStringLiteral("zh_CN")));
    {
        MainWindow w(remat::test::testOptions());
        QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
        // The timeline's tooltip on an alloc: the kind, the category and "takes no time" in
        // Chinese, the buffer as the model names it; no simulator wording ("alloc",
        // "saved_activations") and no "0.0 us".
        const remat::Program& p = w.document()->evaluation().program;
        std::size_t alloc = p.instructions.size();
        for (std::size_t i = 0; i < p.instructions.size() && alloc == p.instructions.size(); ++i)
            if (p.instructions[i].kind == remat::InstrKind::Alloc &&
                p.buffer(p.instructions[i].buffer).category == remat::Category::SavedActivations)
                alloc = i;
        QVERIFY(alloc < p.instructions.size());
        const QString tip = w.timeline()->tooltipFor(alloc);
        const QString firstLine = tip.section(QStringLiteral("<br>"), 0, 0);
        QVERIFY2(hasHan(firstLine), qPrintable(firstLine));
        QVERIFY2(firstLine.contains(QString::fromStdString(
                     bufferLabel(w.document()->graph(), p.buffer(p.instructions[alloc].buffer)))),
                 qPrintable(firstLine));
        QVERIFY2(firstLine.contains(QString::fromUtf8("保存的激活")), qPrintable(firstLine));
        QVERIFY2(!firstLine.contains(QLatin1String("alloc")) &&
                     !firstLine.contains(QLatin1String("saved_activations")),
                 qPrintable(firstLine));
        QVERIFY2(!tip.contains(QLatin1String("takes")) && !tip.contains(QLatin1String(" us")),
                 qPrintable(tip));
        // Why the GPU option is off, in Chinese (the backend's own detail may follow).
        RunPanel* run = w.runPanel();
        const QString checking =
            QCoreApplication::translate("remat::ui::RunPanel", "checking for a CUDA device…");
        QTRY_VERIFY_WITH_TIMEOUT(run->gpuUnavailableReason() != checking || run->gpuAvailable(),
                                 30000);
        if (!run->gpuAvailable())
            QVERIFY2(hasHan(run->gpuUnavailableReason()), qPrintable(run->gpuUnavailableReason()));
    }
    removeTranslators();
}

QTEST_MAIN(TstTranslations)
#include "tst_translations.moc"
