// File -> Export plan as code (ui/export_plan_dialog.h): for the document's current plan the
// dialog's preview is, byte for byte, what `remat export MODEL --to TARGET --device ID` prints for
// the same model file, for every target; a target that refuses the plan shows the CLI's reason
// with Save and Copy disabled; Save writes the preview; the File menu action opens the dialog on
// the main window's document. With REMAT_SCREENSHOT_DIR set, the dialog is saved there as
// export-plan-dialog.png.
#include <QtTest/QtTest>

#include <QComboBox>
#include <QFile>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>

#include "document.h"
#include "export_plan_dialog.h"
#include "main_window.h"
#include "model_file.h"
#include "qt_convert.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

struct CliResult {
    int code = -1;
    QString out, err;
};

CliResult cliExport(const QString& modelPath, ExportTarget target, const QString& device) {
    QProcess p;
    p.start(QStringLiteral(REMAT_CLI_PATH),
            {"export", modelPath, "--to", toQString(exportTargetName(target)), "--device", device});
    if (!p.waitForFinished(120000)) return {};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace

class TestExportPlanDialog : public QObject {
    Q_OBJECT
private slots:
    void previewIsTheCliText_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("strategy");
        QTest::newRow("gpt2-tiny every:2") << "gpt2-tiny" << "every:2";
        QTest::newRow("gpt2-tiny selective:attention") << "gpt2-tiny" << "selective:attention";
        QTest::newRow("gpt2-small full") << "gpt2-small" << "full";
        QTest::newRow("mlp manual") << "mlp-3x1024" << "";
    }

    void previewIsTheCliText() {
        QFETCH(QString, preset);
        QFETCH(QString, strategy);
        Document doc;
        QVERIFY(doc.open(preset));
        QVERIFY(doc.waitUntilIdle());
        if (!strategy.isEmpty()) {
            QVERIFY(doc.setStrategy(strategy));
            QVERIFY(doc.waitUntilIdle());
        }
        QTemporaryDir dir;
        const QString modelPath = dir.filePath("model.json");
        QVERIFY(saveModel(doc.model(), modelPath.toStdString()));
        ExportPlanDialog dialog(doc.model(), doc.device());
        int refused = 0;
        for (ExportTarget target : kExportTargets) {
            dialog.setTarget(target);
            QVERIFY(dialog.target() == target);
            const CliResult cli = cliExport(modelPath, target, toQString(doc.device().id));
            if (cli.code == 0) {
                QVERIFY(!dialog.text().isEmpty());
                QCOMPARE(dialog.text(), cli.out);
                QVERIFY(dialog.refusal().isEmpty());
            } else {
                ++refused;
                QCOMPARE(cli.code, 2);
                QVERIFY(dialog.text().isEmpty());
                QVERIFY2(cli.err.contains(dialog.refusal()),
                         qPrintable(cli.err + " / " + dialog.refusal()));
            }
        }
        // gpt2-tiny every:2 is refused by Hugging Face (two blocks per checkpoint) and the MLP by
        // Hugging Face and Megatron-LM (no transformer blocks): refusals are covered too.
        if (preset == "mlp-3x1024") QCOMPARE(refused, 2);
        if (strategy == "every:2") QCOMPARE(refused, 1);
    }

    void refusalDisablesSaveAndSaveWritesThePreview() {
        Document doc;
        QVERIFY(doc.open("gpt2-tiny"));
        QVERIFY(doc.waitUntilIdle());
        QVERIFY(doc.setStrategy("every:2"));
        QVERIFY(doc.waitUntilIdle());
        ExportPlanDialog dialog(doc.model(), doc.device());
        QPushButton* save = nullptr;
        for (auto* b : dialog.findChildren<QPushButton*>())
            if (b->text().contains("Save")) save = b;
        QVERIFY(save);
        dialog.setTarget(ExportTarget::HuggingFace);
        QVERIFY(dialog.refusal().contains("several layers in one checkpoint"));
        QVERIFY(!save->isEnabled());
        dialog.setTarget(ExportTarget::Megatron);
        QVERIFY(save->isEnabled());
        QCOMPARE(dialog.suggestedFileName(), QString("gpt2-tiny-every-2-megatron.txt"));
        QTemporaryDir dir;
        const QString path = dir.filePath("flags.txt");
        QVERIFY(dialog.saveTo(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), dialog.text());
        QVERIFY(dialog.text().contains("--recompute-num-layers 2"));
    }

    void fileMenuOpensTheDialogOnTheDocument() {
        MainWindow w(test::testOptions());
        QVERIFY(w.openModel("gpt2-tiny"));
        QVERIFY(w.document()->setStrategy("selective:attention_core"));
        QVERIFY(w.document()->waitUntilIdle());
        QVERIFY(test::showAt(w, QSize(1280, 800)));
        auto* action = w.findChild<QAction*>("exportPlanAsCode");
        QVERIFY(action);
        action->trigger();
        auto* dialog = w.findChild<ExportPlanDialog*>();
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(dialog->target() == ExportTarget::Pytorch);
        QVERIFY(dialog->text().contains(
            "self.layers[1].attention.checkpointed.add(\"attention_core\")"));
        const QByteArray shots = qgetenv("REMAT_SCREENSHOT_DIR");
        if (!shots.isEmpty())
            QVERIFY(dialog->grab().save(QString::fromLocal8Bit(shots) + "/export-plan-dialog.png"));
        dialog->close();
    }
};

QTEST_MAIN(TestExportPlanDialog)
#include "tst_export_plan_dialog.moc"
