#include "export_plan_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "qt_convert.h"
#include "strategy.h"

namespace remat::ui {

ExportPlanDialog::ExportPlanDialog(const ModelFile& model, const DeviceSpec& device,
                                   QWidget* parent)
    : QDialog(parent), m_model(model), m_device(device) {
    setWindowTitle(tr("Export plan as code"));
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    auto* label = new QLabel(tr("&Target:"), this);
    m_targetBox = new QComboBox(this);
    m_targetBox->addItem(tr("PyTorch module (torch.utils.checkpoint)"), int(ExportTarget::Pytorch));
    m_targetBox->addItem(tr("Hugging Face transformers"), int(ExportTarget::HuggingFace));
    m_targetBox->addItem(tr("Megatron-LM flags"), int(ExportTarget::Megatron));
    m_targetBox->addItem(tr("DeepSpeed config section"), int(ExportTarget::DeepSpeed));
    label->setBuddy(m_targetBox);
    row->addWidget(label);
    row->addWidget(m_targetBox, 1);
    layout->addLayout(row);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    layout->addWidget(m_status);
    m_preview = new QPlainTextEdit(this);
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_preview, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    m_save = buttons->addButton(tr("&Save…"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_text); });
    connect(m_save, &QPushButton::clicked, this, &ExportPlanDialog::saveDialog);
    connect(m_targetBox, &QComboBox::currentIndexChanged, this, &ExportPlanDialog::refresh);
    resize(900, 640);
    refresh();
}

ExportTarget ExportPlanDialog::target() const {
    return ExportTarget(m_targetBox->currentData().toInt());
}

void ExportPlanDialog::setTarget(ExportTarget target) {
    m_targetBox->setCurrentIndex(m_targetBox->findData(int(target)));
}

void ExportPlanDialog::refresh() {
    m_text.clear();
    m_refusal.clear();
    const std::string spelling = defaultStrategy(m_model);
    auto strategy = parseStrategy(spelling);
    Result<ExportResult> exported =
        strategy ? exportStrategy(target(), m_model.network, m_model.training, m_device,
                                  *strategy, manualRegions(m_model))
                 : Result<ExportResult>(strategy.error());
    if (exported) {
        m_text = toQString(exported->text);
        m_status->setText(tr("Plan %1: %n checkpointed region(s).", nullptr,
                             int(exported->plan.regions.size()))
                              .arg(printableText(spelling)));
    } else {
        m_refusal = toQString(exported.error().message);
        m_status->setText(tr("This target cannot take the plan: %1").arg(m_refusal));
    }
    m_preview->setPlainText(m_text);
    m_save->setEnabled(!m_text.isEmpty());
    m_copy->setEnabled(!m_text.isEmpty());
}

QString ExportPlanDialog::suggestedFileName() const {
    QString base = toQString(m_model.network.name + "-" + defaultStrategy(m_model));
    for (QChar& c : base)
        if (!c.isLetterOrNumber() && c != '-' && c != '_' && c != '.') c = '-';
    switch (target()) {
        case ExportTarget::Pytorch:
        case ExportTarget::HuggingFace: return base + QStringLiteral(".py");
        case ExportTarget::Megatron: return base + QStringLiteral("-megatron.txt");
        case ExportTarget::DeepSpeed: return base + QStringLiteral("-deepspeed.json");
    }
    return base;
}

bool ExportPlanDialog::saveTo(const QString& path) {
    QFile file(path);
    const QByteArray bytes = m_text.toUtf8();
    if (m_text.isEmpty() || !file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(bytes) != bytes.size()) {
        if (isVisible())
            QMessageBox::warning(this, tr("Export plan as code"),
                                 tr("Cannot write %1").arg(printableText(path)));
        return false;
    }
    return true;
}

void ExportPlanDialog::saveDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save the export"), suggestedFileName());
    if (!path.isEmpty() && saveTo(path)) accept();
}

}  // namespace remat::ui
