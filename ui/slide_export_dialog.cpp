#include "slide_export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace remat::ui {
namespace {

struct SizePreset {
    int width, height;
};
constexpr SizePreset kSizes[] = {{1600, 900}, {1920, 1080}, {1280, 720}, {1024, 768}, {1200, 900}};

}  // namespace

SlideExportDialog::SlideExportDialog(const std::vector<std::pair<QString, QString>>& pictures,
                                     const QString& modelName, QWidget* parent)
    : QDialog(parent), m_modelName(modelName) {
    setWindowTitle(tr("Export for slides"));
    auto* form = new QFormLayout;

    m_picture = new QComboBox(this);
    for (const auto& [key, name] : pictures) m_picture->addItem(name, key);
    form->addRow(tr("Picture:"), m_picture);

    m_title = new QLineEdit(this);
    form->addRow(tr("Title:"), m_title);

    m_sizePreset = new QComboBox(this);
    for (const SizePreset& s : kSizes)
        m_sizePreset->addItem(tr("%1 × %2").arg(s.width).arg(s.height),
                              QSize(s.width, s.height));
    m_sizePreset->addItem(tr("Custom"));
    m_width = new QSpinBox(this);
    m_height = new QSpinBox(this);
    for (QSpinBox* b : {m_width, m_height}) {
        b->setRange(kSlideMinSide, kSlideMaxSide);
        b->setSuffix(tr(" px"));
    }
    m_width->setValue(kSizes[0].width);
    m_height->setValue(kSizes[0].height);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_sizePreset);
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    form->addRow(tr("Size:"), sizeRow);
    connect(m_sizePreset, &QComboBox::currentIndexChanged, this, [this](int) {
        const QSize s = m_sizePreset->currentData().toSize();
        if (s.isEmpty()) return;
        m_width->setValue(s.width());
        m_height->setValue(s.height());
    });
    auto custom = [this] {
        const QSize now(m_width->value(), m_height->value());
        const int match = m_sizePreset->findData(now);
        QSignalBlocker block(m_sizePreset);
        m_sizePreset->setCurrentIndex(match >= 0 ? match : m_sizePreset->count() - 1);
    };
    connect(m_width, &QSpinBox::valueChanged, this, custom);
    connect(m_height, &QSpinBox::valueChanged, this, custom);

    m_density = new QComboBox(this);
    for (int d : {1, 2, 3}) m_density->addItem(tr("%1×").arg(d), d);
    m_density->setCurrentIndex(1);
    m_density->setToolTip(tr("PNG only: pixels per logical pixel. 2× stays sharp on a "
                             "high-resolution projector or a scaled slide."));
    form->addRow(tr("PNG density:"), m_density);

    m_path = new QLineEdit(this);
    auto* browseButton = new QPushButton(tr("Browse…"), this);
    connect(browseButton, &QPushButton::clicked, this, &SlideExportDialog::browse);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browseButton);
    form->addRow(tr("File (.png, .svg, .pdf):"), pathRow);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #dc2626;"));
    m_error->hide();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SlideExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(m_picture, &QComboBox::currentIndexChanged, this,
            &SlideExportDialog::pictureChanged);
    pictureChanged();
}

QString SlideExportDialog::pictureKey() const {
    return m_picture->currentData().toString();
}

QString SlideExportDialog::path() const {
    return m_path->text().trimmed();
}

SlideOptions SlideExportDialog::options() const {
    SlideOptions o;
    o.title = m_title->text().trimmed();
    o.size = QSize(m_width->value(), m_height->value());
    o.pixelRatio = m_density->currentData().toDouble();
    return o;
}

void SlideExportDialog::setPicture(const QString& key) {
    const int i = m_picture->findData(key);
    if (i >= 0) m_picture->setCurrentIndex(i);
}

void SlideExportDialog::setPath(const QString& path) {
    m_path->setText(path);
}

void SlideExportDialog::pictureChanged() {
    const QString name = m_picture->currentText();
    const QString suggested = tr("%1: %2").arg(m_modelName, name);
    // A title the user typed is theirs; only a suggestion follows the picture.
    if (m_title->text().isEmpty() || m_title->text() == m_suggestedTitle)
        m_title->setText(suggested);
    m_suggestedTitle = suggested;
    const QString stem = QFileInfo(m_modelName).completeBaseName() + QLatin1Char('-') +
                         pictureKey();
    const QFileInfo current(path());
    if (path().isEmpty())
        m_path->setText(QDir::current().filePath(stem + QStringLiteral(".png")));
    else
        m_path->setText(current.dir().filePath(stem + QLatin1Char('.') + current.suffix()));
}

void SlideExportDialog::browse() {
    const QString chosen = QFileDialog::getSaveFileName(
        this, tr("Export for slides"), path(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (!chosen.isEmpty()) m_path->setText(chosen);
}

void SlideExportDialog::accept() {
    QString error;
    if (path().isEmpty()) {
        error = tr("Choose a file to write.");
    } else if (!validSlideOptions(path(), options(), &error)) {
        // error says what is wrong
    }
    if (!error.isEmpty()) {
        m_error->setText(error);
        m_error->show();
        return;
    }
    QDialog::accept();
}

}  // namespace remat::ui
