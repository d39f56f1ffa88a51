// The built-in guided lessons (resources/lessons/*.json, embedded under :/lessons): each a list
// of steps, each step setting up a model and a plan, asking the student to predict (a short
// multiple choice), then revealing the answer with the simulator's own figures. The text is
// written per language ("en", "zh_CN") in the lesson files, not in the .ts translations.
//
// A step's setup starts from a built-in preset and overrides what the lesson needs: the
// strategy or the regions, the micro-batch and accumulation steps, the number of blocks, the
// device, the RNG switch, the checkpoint implementation. `before`, when given, is what the
// window shows while the student predicts; `setup` is applied on reveal. Reveal texts name
// figures in braces ({peak}, {activations_saved}, …: lessonFigureKeys()), filled from the
// evaluation of the set-up model, so a lesson never states a number the simulator does not
// give. A step may also state `expect`: bounds on raw figures that must hold for the lesson's
// answer to be right (checked by the tests).
#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

#include "analysis.h"
#include "device.h"
#include "model_file.h"
#include "report.h"
#include "result.h"

namespace remat::ui {

struct LessonText {
    QString en;
    QString zhCN;
    // The text in `language` ("zh_CN", or anything else for English).
    QString in(const QString& language) const;
};

struct LessonSetup {
    QString model;  // a built-in preset
    std::optional<QString> strategy;
    std::optional<QList<RegionSpec>> regions;  // a manual plan instead of a strategy
    std::optional<qint64> microBatch;
    std::optional<qint64> accumulationSteps;
    std::optional<qint64> repeatEntry;  // index of the layer entry whose repeat is set…
    std::optional<qint64> repeat;       // …to this many blocks
    std::optional<bool> preserveRngState;
    std::optional<QString> recomputeImpl;
    std::optional<QString> device;
};

struct LessonBound {
    QString figure;  // a key of lessonRawFigures()
    double low = 0.0;
    double high = 0.0;
};

struct LessonStep {
    std::optional<LessonSetup> before;
    LessonSetup setup;
    LessonText text;
    LessonText question;
    QList<LessonText> choices;
    int answer = 0;
    LessonText reveal;
    QList<LessonBound> expect;
};

struct Lesson {
    QString id;  // the file name without .json
    LessonText title;
    QList<LessonStep> steps;
};

// Every built-in lesson, in file-name order, or the first problem found (file and field).
Result<QList<Lesson>> builtinLessons();
// One lesson file's text; `origin` names it in messages.
Result<Lesson> parseLesson(const QByteArray& json, const QString& id);

// The model a setup describes: the preset with its overrides, or what is wrong with them.
Result<ModelFile> lessonModel(const LessonSetup& setup);

// The figures a reveal may name, formatted as the summary formats them.
QStringList lessonFigureKeys();
QMap<QString, QString> lessonFigures(const Evaluation& e, const Graph& g, const DeviceSpec& d,
                                     const QString& language, ByteUnits units = ByteUnits::Binary);
// The same as numbers (bytes, fractions, seconds), for `expect`.
QMap<QString, double> lessonRawFigures(const Evaluation& e, const DeviceSpec& d);
// `text` with every {key} replaced; unknown keys are left as written.
QString fillFigures(QString text, const QMap<QString, QString>& figures);

// The language lessons are shown in by default: Simplified Chinese when the UI's locale is
// Chinese, else English.
QString defaultLessonLanguage();

}  // namespace remat::ui
