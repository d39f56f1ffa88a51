#include "lessons.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>

#include "qt_convert.h"
#include "recompute_impl.h"
#include "region_savings.h"

namespace remat::ui {

namespace {

constexpr const char* kLessonsPath = ":/lessons";

// Reads a lesson file, remembering the first problem with the JSON path where it is.
class Reader {
public:
    explicit Reader(QString id) : m_id(std::move(id)) {}
    bool failed() const { return !m_error.isEmpty(); }
    Error error() const { return makeError(toStdString(m_error)); }
    void fail(const QString& path, const QString& what) {
        if (m_error.isEmpty()) m_error = m_id + QStringLiteral(".json: ") + path + QStringLiteral(": ") + what;
    }

    LessonText text(const QJsonObject& o, const QString& key, const QString& path, bool required = true) {
        LessonText t;
        const QJsonValue v = o.value(key);
        if (v.isUndefined()) {
            if (required) fail(path + QLatin1Char('.') + key, QStringLiteral("missing"));
            return t;
        }
        return textOf(v, path + QLatin1Char('.') + key);
    }
    LessonText textOf(const QJsonValue& v, const QString& path) {
        LessonText t;
        if (!v.isObject()) {
            fail(path, QStringLiteral("expected {\"en\": ..., \"zh_CN\": ...}"));
            return t;
        }
        const QJsonObject o = v.toObject();
        if (!o.value(QStringLiteral("en")).isString() || !o.value(QStringLiteral("zh_CN")).isString() ||
            o.value(QStringLiteral("en")).toString().isEmpty() ||
            o.value(QStringLiteral("zh_CN")).toString().isEmpty())
            fail(path, QStringLiteral("expected non-empty \"en\" and \"zh_CN\" texts"));
        t.en = o.value(QStringLiteral("en")).toString();
        t.zhCN = o.value(QStringLiteral("zh_CN")).toString();
        return t;
    }

    LessonSetup setup(const QJsonValue& v, const QString& path) {
        LessonSetup s;
        if (!v.isObject()) {
            fail(path, QStringLiteral("expected an object"));
            return s;
        }
        const QJsonObject o = v.toObject();
        static const QStringList known = {
            QStringLiteral("model"),       QStringLiteral("strategy"),
            QStringLiteral("regions"),     QStringLiteral("micro_batch"),
            QStringLiteral("accumulation_steps"), QStringLiteral("repeat_entry"),
            QStringLiteral("repeat"),      QStringLiteral("preserve_rng_state"),
            QStringLiteral("recompute_impl"), QStringLiteral("device")};
        for (const QString& k : o.keys())
            if (!known.contains(k)) fail(path + QLatin1Char('.') + k, QStringLiteral("unknown field"));
        if (!o.value(QStringLiteral("model")).isString())
            fail(path + QStringLiteral(".model"), QStringLiteral("expected a preset name"));
        s.model = o.value(QStringLiteral("model")).toString();
        if (o.contains(QStringLiteral("strategy"))) s.strategy = o.value(QStringLiteral("strategy")).toString();
        if (o.contains(QStringLiteral("regions"))) {
            QList<RegionSpec> regions;
            const QJsonValue rv = o.value(QStringLiteral("regions"));
            if (!rv.isArray()) fail(path + QStringLiteral(".regions"), QStringLiteral("expected an array"));
            for (const QJsonValue& e : rv.toArray()) {
                if (e.isString()) {
                    regions.push_back(RegionSpec{true, 0, 0, toStdString(e.toString())});
                } else if (e.isArray() && e.toArray().size() == 2) {
                    regions.push_back(RegionSpec{false, e.toArray()[0].toInteger(),
                                                 e.toArray()[1].toInteger(), {}});
                } else {
                    fail(path + QStringLiteral(".regions"),
                         QStringLiteral("expected [first, last] or a module path"));
                }
            }
            s.regions = regions;
        }
        auto integer = [&](const char* key, std::optional<qint64>& out) {
            const QString k = QString::fromLatin1(key);
            if (!o.contains(k)) return;
            if (!o.value(k).isDouble() || o.value(k).toInteger(-1) < 0)
                fail(path + QLatin1Char('.') + k, QStringLiteral("expected a whole number"));
            out = o.value(k).toInteger();
        };
        integer("micro_batch", s.microBatch);
        integer("accumulation_steps", s.accumulationSteps);
        integer("repeat_entry", s.repeatEntry);
        integer("repeat", s.repeat);
        if (s.repeat.has_value() != s.repeatEntry.has_value())
            fail(path, QStringLiteral("repeat and repeat_entry go together"));
        if (o.contains(QStringLiteral("preserve_rng_state"))) {
            if (!o.value(QStringLiteral("preserve_rng_state")).isBool())
                fail(path + QStringLiteral(".preserve_rng_state"), QStringLiteral("expected true or false"));
            s.preserveRngState = o.value(QStringLiteral("preserve_rng_state")).toBool();
        }
        if (o.contains(QStringLiteral("recompute_impl")))
            s.recomputeImpl = o.value(QStringLiteral("recompute_impl")).toString();
        if (o.contains(QStringLiteral("device"))) s.device = o.value(QStringLiteral("device")).toString();
        return s;
    }

private:
    QString m_id;
    QString m_error;
};

}  // namespace

QString LessonText::in(const QString& language) const {
    return language.startsWith(QLatin1String("zh")) ? zhCN : en;
}

Result<Lesson> parseLesson(const QByteArray& json, const QString& id) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return makeError(toStdString(id + QStringLiteral(".json: not a JSON object (") +
                                     err.errorString() + QLatin1Char(')')));
    Reader r(id);
    const QJsonObject o = doc.object();
    Lesson lesson;
    lesson.id = id;
    lesson.title = r.text(o, QStringLiteral("title"), QStringLiteral("$"));
    const QJsonArray steps = o.value(QStringLiteral("steps")).toArray();
    if (steps.isEmpty()) r.fail(QStringLiteral("$.steps"), QStringLiteral("expected at least one step"));
    for (int i = 0; i < steps.size(); ++i) {
        const QString path = QStringLiteral("$.steps[%1]").arg(i);
        const QJsonObject so = steps[i].toObject();
        LessonStep step;
        if (so.contains(QStringLiteral("before")))
            step.before = r.setup(so.value(QStringLiteral("before")), path + QStringLiteral(".before"));
        step.setup = r.setup(so.value(QStringLiteral("setup")), path + QStringLiteral(".setup"));
        step.text = r.text(so, QStringLiteral("text"), path);
        step.question = r.text(so, QStringLiteral("question"), path);
        const QJsonArray choices = so.value(QStringLiteral("choices")).toArray();
        if (choices.size() < 2) r.fail(path + QStringLiteral(".choices"), QStringLiteral("expected two choices or more"));
        for (int c = 0; c < choices.size(); ++c)
            step.choices.push_back(r.textOf(choices[c], path + QStringLiteral(".choices[%1]").arg(c)));
        step.answer = so.value(QStringLiteral("answer")).toInt(-1);
        if (step.answer < 0 || step.answer >= choices.size())
            r.fail(path + QStringLiteral(".answer"), QStringLiteral("expected the index of a choice"));
        step.reveal = r.text(so, QStringLiteral("reveal"), path);
        const QJsonObject expect = so.value(QStringLiteral("expect")).toObject();
        for (auto it = expect.begin(); it != expect.end(); ++it) {
            const QJsonArray b = it.value().toArray();
            if (b.size() != 2 || !b[0].isDouble() || !b[1].isDouble())
                r.fail(path + QStringLiteral(".expect.") + it.key(), QStringLiteral("expected [low, high]"));
            step.expect.push_back(LessonBound{it.key(), b[0].toDouble(), b[1].toDouble()});
        }
        lesson.steps.push_back(std::move(step));
    }
    if (r.failed()) return r.error();
    return lesson;
}

Result<QList<Lesson>> builtinLessons() {
    QDir dir(QString::fromLatin1(kLessonsPath));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    if (files.isEmpty()) return makeError("no lessons are built in (:/lessons is empty)");
    QList<Lesson> out;
    for (const QString& f : files) {
        QFile file(dir.filePath(f));
        if (!file.open(QIODevice::ReadOnly)) return makeError("cannot read lesson " + toStdString(f));
        auto lesson = parseLesson(file.readAll(), f.chopped(5));
        if (!lesson) return lesson.error();
        out.push_back(std::move(*lesson));
    }
    return out;
}

Result<ModelFile> lessonModel(const LessonSetup& s) {
    auto loaded = loadModel(toStdString(s.model));
    if (!loaded) return loaded.error();
    ModelFile m = std::move(*loaded);
    if (s.repeatEntry) {
        if (*s.repeatEntry >= qint64(m.network.layers.size()) ||
            !isBlock(m.network.layers[std::size_t(*s.repeatEntry)].kind))
            return makeError("lesson: entry " + std::to_string(*s.repeatEntry) + " of " +
                             toStdString(s.model) + " is not a block");
        m.network.layers[std::size_t(*s.repeatEntry)].repeat = *s.repeat;
    }
    if (s.microBatch) m.training.microBatch = *s.microBatch;
    if (s.accumulationSteps) m.training.accumulationSteps = *s.accumulationSteps;
    if (s.preserveRngState) m.training.preserveRngState = *s.preserveRngState;
    if (s.recomputeImpl) {
        auto impl = parseRecomputeImpl(toStdString(*s.recomputeImpl));
        if (!impl) return makeError("lesson: unknown recompute_impl " + toStdString(*s.recomputeImpl));
        m.training.recomputeImpl = *impl;
    }
    if (s.device) m.device = toStdString(*s.device);
    if (s.regions || s.strategy) {
        for (Layer& l : m.network.layers) l.checkpoint = false;
        m.regions.clear();
        m.planStrategy.clear();
        m.planForm = PlanForm::None;
    }
    if (s.regions) {
        m.planForm = PlanForm::Regions;
        m.regions = std::vector<RegionSpec>(s.regions->begin(), s.regions->end());
    } else if (s.strategy && *s.strategy != QLatin1String("none")) {
        if (auto st = parseStrategy(toStdString(*s.strategy)); !st) return st.error();
        m.planForm = PlanForm::Strategy;
        m.planStrategy = toStdString(*s.strategy);
    }
    return m;
}

QStringList lessonFigureKeys() {
    return {QStringLiteral("peak"),         QStringLiteral("peak_none"),
            QStringLiteral("peak_saved"),   QStringLiteral("activations"),
            QStringLiteral("activations_none"), QStringLiteral("activations_saved"),
            QStringLiteral("overhead"),     QStringLiteral("step_time"),
            QStringLiteral("usable"),       QStringLiteral("model_states"),
            QStringLiteral("max_micro_batch"), QStringLiteral("fits"),
            QStringLiteral("strategy"),     QStringLiteral("regions"),
            QStringLiteral("verdict"),      QStringLiteral("region_notes")};
}

QMap<QString, double> lessonRawFigures(const Evaluation& e, const DeviceSpec& d) {
    const Timeline& t = e.timeline;
    return {{QStringLiteral("peak"), double(t.peakBytes)},
            {QStringLiteral("peak_none"), double(e.baselinePeakBytes)},
            {QStringLiteral("peak_saved"), e.memorySavedFraction()},
            {QStringLiteral("activations"), double(t.savedActivationBytes)},
            {QStringLiteral("activations_none"), double(e.baselineSavedActivationBytes)},
            {QStringLiteral("activations_saved"), e.activationsSavedFraction()},
            {QStringLiteral("overhead"), e.recomputeOverhead()},
            {QStringLiteral("step_time"), t.timeS.total()},
            {QStringLiteral("usable"), double(d.usableBytes())},
            {QStringLiteral("model_states"), double(modelStateBytes(t))},
            {QStringLiteral("max_micro_batch"), double(t.maxMicroBatch)},
            {QStringLiteral("fits"), t.fits ? 1.0 : 0.0},
            {QStringLiteral("regions"), double(e.program.plan.regions.size())},
            {QStringLiteral("will_differ"), e.program.gradientsWillDiffer() ? 1.0 : 0.0},
            {QStringLiteral("unsafe"), e.program.unsafe() ? 1.0 : 0.0}};
}

QMap<QString, QString> lessonFigures(const Evaluation& e, const Graph& g, const DeviceSpec& d,
                                     const QString& language, ByteUnits units) {
    const Timeline& t = e.timeline;
    const bool zh = language.startsWith(QLatin1String("zh"));
    QMap<QString, QString> f;
    f[QStringLiteral("peak")] = bytesText(t.peakBytes, units);
    f[QStringLiteral("peak_none")] = bytesText(e.baselinePeakBytes, units);
    f[QStringLiteral("peak_saved")] = formatPercent(e.memorySavedFraction());
    f[QStringLiteral("activations")] = bytesText(t.savedActivationBytes, units);
    f[QStringLiteral("activations_none")] = bytesText(e.baselineSavedActivationBytes, units);
    f[QStringLiteral("activations_saved")] = formatPercent(e.activationsSavedFraction());
    f[QStringLiteral("overhead")] = formatPercent(e.recomputeOverhead());
    f[QStringLiteral("step_time")] = formatSeconds(t.timeS.total());
    f[QStringLiteral("usable")] = bytesText(d.usableBytes(), units);
    f[QStringLiteral("model_states")] = bytesText(modelStateBytes(t), units);
    f[QStringLiteral("max_micro_batch")] = QString::number(t.maxMicroBatch);
    f[QStringLiteral("fits")] = t.fits ? (zh ? QStringLiteral("放得下") : QStringLiteral("fits"))
                                       : (zh ? QStringLiteral("放不下") : QStringLiteral("does not fit"));
    f[QStringLiteral("strategy")] = toQString(e.strategy.spelling());
    f[QStringLiteral("regions")] = QString::number(e.program.plan.regions.size());
    // The compiler's own sentences (English, as in the summary and the CLI).
    QStringList verdict;
    for (const std::string& r : e.program.unsafeReasons)
        verdict << (zh ? QStringLiteral("梯度会不同：") : QStringLiteral("will differ: ")) + toQString(r);
    for (const std::string& r : e.program.mayDifferReasons)
        verdict << (zh ? QStringLiteral("梯度可能不同：") : QStringLiteral("may differ: ")) + toQString(r);
    for (const std::string& r : e.program.safeNotes)
        verdict << (zh ? QStringLiteral("安全：") : QStringLiteral("safe: ")) + toQString(r);
    if (verdict.isEmpty()) verdict << (zh ? QStringLiteral("安全") : QStringLiteral("safe"));
    f[QStringLiteral("verdict")] = verdict.join(QStringLiteral("; "));
    QStringList notes;
    for (const std::string& n : littleSavingNotes(g, e.program.plan, e.program.microBatch,
                                                      e.baselineSavedActivationBytes))
        notes << toQString(n);
    f[QStringLiteral("region_notes")] = notes.isEmpty() ? QStringLiteral("—") : notes.join(QStringLiteral("; "));
    return f;
}

QString fillFigures(QString text, const QMap<QString, QString>& figures) {
    for (auto it = figures.begin(); it != figures.end(); ++it)
        text.replace(QLatin1Char('{') + it.key() + QLatin1Char('}'), it.value());
    return text;
}

QString defaultLessonLanguage() {
    return QLocale().language() == QLocale::Chinese ? QStringLiteral("zh_CN") : QStringLiteral("en");
}

}  // namespace remat::ui
