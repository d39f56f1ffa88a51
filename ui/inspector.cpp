#include "inspector.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

#include "document.h"
#include "layer_numbering.h"
#include "qt_convert.h"
#include "refusal_notice.h"

namespace remat::ui {

namespace {

QVariant editorValue(const QWidget* w, FieldType type) {
    switch (type) {
        case FieldType::Size:
        case FieldType::Count:
            return qlonglong(static_cast<const QSpinBox*>(w)->value());
        case FieldType::Probability:
            return static_cast<const QDoubleSpinBox*>(w)->value();
        case FieldType::Bool:
            return static_cast<const QCheckBox*>(w)->isChecked();
        case FieldType::Choice:
            return static_cast<const QComboBox*>(w)->currentText();
        case FieldType::Text:
            return static_cast<const QLineEdit*>(w)->text();
    }
    return {};
}

// "3, 224, 224" -> {3, 224, 224}; an empty vector when it is not a list of whole numbers.
Shape parseShape(const QString& text) {
    Shape s;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong v = part.trimmed().toLongLong(&ok);
        if (!ok) return {};
        s.push_back(v);
    }
    return s;
}

}  // namespace

Inspector::Inspector(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_title(new QLabel(this)),
      m_formHost(new QWidget(this)),
      m_form(new QFormLayout(m_formHost)),
      m_status(new QLabel(this)),
      m_apply(new QPushButton(tr("Apply"), this)),
      m_revert(new QPushButton(tr("Revert"), this)) {
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setWordWrap(true);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setObjectName(QStringLiteral("inspectorStatus"));
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_apply->setDefault(true);
    m_apply->setToolTip(tr("Apply the edit (one undo step)"));

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_revert);
    buttons->addWidget(m_apply);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_formHost);
    layout->addWidget(m_status);
    layout->addLayout(buttons);
    layout->addStretch(1);

    connect(m_apply, &QPushButton::clicked, this, &Inspector::apply);
    connect(m_revert, &QPushButton::clicked, this, &Inspector::revert);
    connect(m_document, &Document::changed, this, &Inspector::reloadIfChanged);
    // Shapes that fit but a model the simulator refuses (heads that do not divide the width, a
    // program too large), now or once evaluated in the background: the fields show the layer as
    // it is again, the reason stays under them and points at the field that was changed.
    connectRefusals(m_document, this, [this](QWidget*, const QString& message) {
        const QStringList changed = changedKeys();
        rebuild();
        showRefused(message);
        QWidget* field = changed.isEmpty() ? nullptr : editorFor(changed.front());
        return RefusalPlace{field ? field : m_status, {}};
    });
    setEntry(-2);
}

void Inspector::clearForm() {
    while (m_form->rowCount() > 0) m_form->removeRow(0);
    m_editors.clear();
    m_fields.clear();
    m_shapeEdit = m_tokensEdit = m_vocabEdit = nullptr;
}

QWidget* Inspector::makeEditor(const LayerField& field, const QVariant& value) {
    QWidget* editor = nullptr;
    switch (field.type) {
        case FieldType::Size:
        case FieldType::Count: {
            auto* spin = new QSpinBox(m_formHost);
            // Zero stays enterable so that inferShapes, not the widget, explains what is wrong.
            spin->setRange(0, std::numeric_limits<int>::max());
            spin->setValue(
                int(std::min<qlonglong>(value.toLongLong(), std::numeric_limits<int>::max())));
            spin->setGroupSeparatorShown(true);
            connect(spin, &QSpinBox::valueChanged, this, &Inspector::revalidate);
            editor = spin;
            break;
        }
        case FieldType::Probability: {
            auto* spin = new QDoubleSpinBox(m_formHost);
            spin->setRange(0.0, 1.0);
            spin->setDecimals(3);
            spin->setSingleStep(0.05);
            spin->setValue(value.toDouble());
            connect(spin, &QDoubleSpinBox::valueChanged, this, &Inspector::revalidate);
            editor = spin;
            break;
        }
        case FieldType::Bool: {
            auto* box = new QCheckBox(m_formHost);
            box->setChecked(value.toBool());
            connect(box, &QCheckBox::toggled, this, &Inspector::revalidate);
            editor = box;
            break;
        }
        case FieldType::Choice: {
            auto* combo = new QComboBox(m_formHost);
            combo->addItems(field.choices);
            combo->setCurrentText(value.toString());
            connect(combo, &QComboBox::currentTextChanged, this, &Inspector::revalidate);
            editor = combo;
            break;
        }
        case FieldType::Text: {
            auto* line = new QLineEdit(m_formHost);
            line->setText(value.toString());
            line->setPlaceholderText(tr("(optional)"));
            connect(line, &QLineEdit::textChanged, this, &Inspector::revalidate);
            editor = line;
            break;
        }
    }
    editor->setObjectName(field.key);
    editor->setAccessibleName(field.label);
    return editor;
}

void Inspector::setEntry(int entry) {
    m_entry = entry;
    rebuild();
}

void Inspector::rebuild() {
    clearForm();
    const Network& net = m_document->network();
    if (m_entry >= 0 && std::size_t(m_entry) < net.layers.size()) {
        m_baseLayer = net.layers[std::size_t(m_entry)];
        // Numbered as the stack's rows (layer_numbering.h), not by the model file's entries.
        m_title->setText(LayerNumbering(net).entryTitle(std::size_t(m_entry)));
        m_fields = fieldsFor(m_baseLayer.kind);
        for (const LayerField& f : m_fields) {
            QWidget* e = makeEditor(f, f.get(m_baseLayer));
            m_editors.push_back(e);
            m_form->addRow(f.label, e);
        }
    } else if (m_entry == -1) {
        m_baseInput = net.input;
        m_title->setText(tr("Network input"));
        if (net.input.isTokens()) {
            LayerField tokens{QStringLiteral("tokens"),
                              tr("Tokens (sequence length)"),
                              FieldType::Size,
                              {},
                              {},
                              {}};
            LayerField vocab{
                QStringLiteral("vocab"), tr("Vocabulary"), FieldType::Size, {}, {}, {}};
            m_tokensEdit = makeEditor(tokens, qlonglong(net.input.tokens));
            m_vocabEdit = makeEditor(vocab, qlonglong(net.input.vocab));
            m_form->addRow(tokens.label, m_tokensEdit);
            m_form->addRow(vocab.label, m_vocabEdit);
        } else {
            LayerField shape{
                QStringLiteral("shape"), tr("Shape per sample"), FieldType::Text, {}, {}, {}};
            QStringList dims;
            for (auto d : net.input.shape) dims << QString::number(d);
            m_shapeEdit = makeEditor(shape, dims.join(QStringLiteral(", ")));
            static_cast<QLineEdit*>(m_shapeEdit)->setPlaceholderText(QStringLiteral("3, 224, 224"));
            m_form->addRow(shape.label, m_shapeEdit);
        }
    } else {
        m_title->setText(tr("Select a layer in the stack to edit its parameters."));
    }
    revalidate();
}

Layer Inspector::editedLayer() const {
    Layer l = m_baseLayer;
    for (std::size_t i = 0; i < m_fields.size(); ++i)
        m_fields[i].set(l, editorValue(m_editors[i], m_fields[i].type));
    return l;
}

InputSpec Inspector::editedInput() const {
    InputSpec in = m_baseInput;
    if (m_shapeEdit) in.shape = parseShape(static_cast<QLineEdit*>(m_shapeEdit)->text());
    if (m_tokensEdit) in.tokens = static_cast<QSpinBox*>(m_tokensEdit)->value();
    if (m_vocabEdit) in.vocab = static_cast<QSpinBox*>(m_vocabEdit)->value();
    return in;
}

void Inspector::revalidate() {
    const bool editing = m_entry >= -1 && (m_entry == -1 || !m_fields.empty());
    m_apply->setVisible(editing);
    m_revert->setVisible(editing);
    if (!editing) {
        m_status->clear();
        m_valid = false;
        return;
    }
    Network candidate = m_document->network();
    bool changed = false;
    if (m_entry >= 0) {
        const Layer l = editedLayer();
        changed = !(l == m_baseLayer);
        candidate.layers[std::size_t(m_entry)] = l;
    } else {
        const InputSpec in = editedInput();
        changed = !(in == m_baseInput);
        candidate.input = in;
    }
    auto shapes = inferShapes(candidate);
    m_valid = shapes.ok();
    const QColor error = palette().color(QPalette::Text).lightness() > 128
                             ? QColor(0xff, 0x8a, 0x80)
                             : QColor(0xc6, 0x28, 0x28);
    if (!shapes) {
        m_status->setStyleSheet(QStringLiteral("color: %1;").arg(error.name()));
        m_status->setText(printableText(shapes.error().message, kShownMessageChars));
    } else {
        m_status->setStyleSheet(QString());
        if (m_entry >= 0) {
            const std::int64_t last = m_document->firstInstanceOf(std::size_t(m_entry)) +
                                      candidate.layers[std::size_t(m_entry)].repeat;
            const Shape& out = (*shapes)[std::size_t(last)];
            m_status->setText(tr("Output per sample: %1")
                                  .arg(out.empty() ? tr("scalar") : toQString(shapeToString(out))));
        } else {
            m_status->setText(
                tr("Input per sample: %1").arg(toQString(shapeToString((*shapes)[0]))));
        }
    }
    m_apply->setEnabled(m_valid && changed);
    m_revert->setEnabled(changed);
}

QStringList Inspector::changedKeys() const {
    QStringList keys;
    if (m_entry >= 0) {
        for (std::size_t i = 0; i < m_fields.size(); ++i) {
            Layer one = m_baseLayer;
            m_fields[i].set(one, editorValue(m_editors[i], m_fields[i].type));
            if (!(one == m_baseLayer)) keys << m_fields[i].key;
        }
    } else if (m_entry == -1) {
        const InputSpec in = editedInput();
        if (m_shapeEdit && in.shape != m_baseInput.shape) keys << m_shapeEdit->objectName();
        if (m_tokensEdit && in.tokens != m_baseInput.tokens) keys << m_tokensEdit->objectName();
        if (m_vocabEdit && in.vocab != m_baseInput.vocab) keys << m_vocabEdit->objectName();
    }
    return keys;
}

void Inspector::showRefused(const QString& message) {
    if (message.isEmpty()) return;
    const QColor error = palette().color(QPalette::Text).lightness() > 128
                             ? QColor(0xff, 0x8a, 0x80)
                             : QColor(0xc6, 0x28, 0x28);
    m_status->setStyleSheet(QStringLiteral("color: %1;").arg(error.name()));
    m_status->setText(tr("Refused: %1").arg(printableText(message, kShownMessageChars)));
}

void Inspector::apply() {
    if (!m_valid) return;
    Status st = Ok{};
    {
        // A refusal comes back through editRefused (connectRefusals above): the fields are
        // reverted and the reason shown under them.
        EditOrigin origin(*m_document, m_apply);
        st = m_entry >= 0 ? m_document->replaceLayer(std::size_t(m_entry), editedLayer())
                          : m_document->setInput(editedInput());
    }
    if (!st) return;
    // Evaluated in the background: the edited values stay until the document accepts them
    // (changed() rebuilds then) or the evaluation is cancelled (Revert drops them).
    if (m_document->isBusy()) return;
    rebuild();
}

void Inspector::revert() {
    rebuild();
}

void Inspector::reloadIfChanged() {
    const Network& net = m_document->network();
    if (m_entry >= 0) {
        if (std::size_t(m_entry) >= net.layers.size()) {
            setEntry(-2);
            return;
        }
        if (!(net.layers[std::size_t(m_entry)] == m_baseLayer))
            rebuild();
        else
            revalidate();
    } else if (m_entry == -1 && !(net.input == m_baseInput)) {
        rebuild();
    }
}

QWidget* Inspector::editorFor(const QString& key) const {
    for (QWidget* e : m_editors)
        if (e->objectName() == key) return e;
    for (QWidget* e : {m_shapeEdit, m_tokensEdit, m_vocabEdit})
        if (e && e->objectName() == key) return e;
    return nullptr;
}

QString Inspector::statusText() const {
    return m_status->text();
}
bool Inspector::canApply() const {
    return m_apply->isEnabled() && !m_apply->isHidden();
}

}  // namespace remat::ui
