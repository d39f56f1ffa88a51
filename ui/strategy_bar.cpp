#include "strategy_bar.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <cmath>

#include "device.h"
#include "document.h"
#include "qt_convert.h"
#include "refusal_notice.h"
#include "strategy.h"

namespace remat::ui {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The strategy heads the simulator understands, in menu order. A planner that is not built in
// (parseStrategy refuses its spelling) is left out rather than offered and then refused.
struct StrategyChoice {
    const char* head;
    const char* probe;  // a valid spelling, to ask the simulator whether it knows the planner
};
constexpr StrategyChoice kChoices[] = {
    {"manual", "manual"},
    {"none", "none"},
    {"full", "full"},
    {"every", "every:2"},
    {"sqrt", "sqrt"},
    {"selective", "selective:mlp"},
    {"optimal", "optimal:1GiB"},
    {"optimal-nested", "optimal-nested:1GiB"},
    {"revolve", "revolve:2"},
};

QString choiceLabel(const QString& head) {
    if (head == QLatin1String("manual")) return StrategyBar::tr("manual (click the stack)");
    if (head == QLatin1String("none")) return StrategyBar::tr("none (keep everything)");
    if (head == QLatin1String("full")) return StrategyBar::tr("full (every block)");
    if (head == QLatin1String("every")) return StrategyBar::tr("every k blocks");
    if (head == QLatin1String("sqrt")) return StrategyBar::tr("sqrt(N) groups");
    if (head == QLatin1String("selective")) return StrategyBar::tr("selective (sub-modules)");
    if (head == QLatin1String("optimal")) return StrategyBar::tr("optimal under a budget");
    if (head == QLatin1String("optimal-nested"))
        return StrategyBar::tr("optimal, nested, under a budget");
    if (head == QLatin1String("revolve")) return StrategyBar::tr("revolve (c checkpoints)");
    return head;
}

QLabel* caption(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setContentsMargins(8, 0, 2, 0);
    return l;
}

}  // namespace

StrategyBar::StrategyBar(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_strategy(new QComboBox(this)),
      m_k(new QSpinBox(this)),
      m_kinds(new QToolButton(this)),
      m_kindsMenu(new QMenu(this)),
      m_budget(new QDoubleSpinBox(this)),
      m_microBatch(new QSpinBox(this)),
      m_accumulation(new QSpinBox(this)),
      m_precision(new QComboBox(this)),
      m_optimizer(new QComboBox(this)),
      m_preserveRng(new QCheckBox(tr("Preserve RNG"), this)) {
    // Filling the controls edits nothing: the document is shown as it is (sync() below), also
    // when the bar is built again over a document with a plan (the language switch).
    m_syncing = true;
    for (const StrategyChoice& c : kChoices)
        if (parseStrategy(c.probe))
            m_strategy->addItem(choiceLabel(QString::fromLatin1(c.head)),
                                QString::fromLatin1(c.head));
    m_strategy->setObjectName(QStringLiteral("strategy"));
    m_strategy->setToolTip(tr("Checkpointing strategy"));
    m_k->setRange(1, 100000);
    m_k->setPrefix(QStringLiteral("k = "));
    m_k->setToolTip(tr("Blocks per checkpointed group (every k) or checkpoints (revolve)"));
    for (const char* kind : {"attention", "attention_core", "mlp", "shortcut"}) {
        QAction* a = m_kindsMenu->addAction(QString::fromLatin1(kind));
        a->setCheckable(true);
        connect(a, &QAction::toggled, this, &StrategyBar::strategyEdited);
    }
    m_kindsMenu->actions().at(1)->setChecked(true);
    m_kinds->setMenu(m_kindsMenu);
    m_kinds->setPopupMode(QToolButton::InstantPopup);
    m_kinds->setToolTip(tr("Sub-module kinds to checkpoint"));
    m_budget->setRange(0.01, 1e6);
    m_budget->setDecimals(2);
    m_budget->setSuffix(QStringLiteral(" GiB"));
    m_budget->setToolTip(tr("Memory budget for the optimal planner"));
    m_budget->setKeyboardTracking(false);

    m_microBatch->setRange(1, 1 << 24);
    m_microBatch->setObjectName(QStringLiteral("microBatch"));
    m_microBatch->setToolTip(tr("Samples per micro-batch"));
    m_accumulation->setRange(1, 1000000);
    m_accumulation->setObjectName(QStringLiteral("accumulationSteps"));
    m_accumulation->setToolTip(
        tr("Gradient-accumulation steps (micro-batches per optimizer step)"));
    for (Precision p : {Precision::Fp32, Precision::MixedBf16, Precision::MixedFp16,
                        Precision::AutocastBf16, Precision::AutocastFp16, Precision::Bf16})
        m_precision->addItem(toQString(precisionName(p)), int(p));
    for (Optimizer o : {Optimizer::Sgd, Optimizer::Momentum, Optimizer::Adam, Optimizer::AdamW})
        m_optimizer->addItem(toQString(optimizerName(o)), int(o));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(caption(tr("Strategy"), this));
    layout->addWidget(m_strategy);
    layout->addWidget(m_k);
    layout->addWidget(m_kinds);
    layout->addWidget(m_budget);
    layout->addWidget(caption(tr("Micro-batch"), this));
    layout->addWidget(m_microBatch);
    layout->addWidget(caption(tr("× steps"), this));
    layout->addWidget(m_accumulation);
    layout->addWidget(caption(tr("Precision"), this));
    layout->addWidget(m_precision);
    layout->addWidget(caption(tr("Optimizer"), this));
    layout->addWidget(m_optimizer);
    m_preserveRng->setObjectName(QStringLiteral("preserveRng"));
    m_preserveRng->setToolTip(
        tr("PyTorch's preserve_rng_state: a recomputed dropout draws the same mask as in "
           "forward. Untick it to see the damage: new masks on recompute, gradients that differ "
           "from training without checkpointing"));
    // Not in this row, which a 1280-pixel projector fills: the window puts it on the row below.
    layout->addStretch(1);

    connect(m_strategy, &QComboBox::currentIndexChanged, this, &StrategyBar::strategyEdited);
    connect(m_k, &QSpinBox::valueChanged, this, &StrategyBar::strategyEdited);
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, &StrategyBar::strategyEdited);
    connect(m_microBatch, &QSpinBox::valueChanged, this, [this](int v) {
        if (m_syncing) return;
        EditOrigin origin(*m_document, m_microBatch);
        if (!m_document->setMicroBatch(v)) sync();
    });
    connect(m_accumulation, &QSpinBox::valueChanged, this, [this](int v) {
        if (m_syncing) return;
        EditOrigin origin(*m_document, m_accumulation);
        if (!m_document->setAccumulationSteps(v)) sync();
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this, [this] {
        if (m_syncing) return;
        EditOrigin origin(*m_document, m_precision);
        if (!m_document->setPrecision(Precision(m_precision->currentData().toInt()))) sync();
    });
    connect(m_optimizer, &QComboBox::currentIndexChanged, this, [this] {
        if (m_syncing) return;
        EditOrigin origin(*m_document, m_optimizer);
        if (!m_document->setOptimizer(Optimizer(m_optimizer->currentData().toInt()))) sync();
    });
    connect(m_preserveRng, &QCheckBox::toggled, this, [this](bool on) {
        if (m_syncing) return;
        EditOrigin origin(*m_document, m_preserveRng);
        if (!m_document->setPreserveRngState(on)) sync();
    });
    // A refused edit: every field shows the document's value again, the reason under the one
    // that was edited (the RNG switch sits on the window's next row, outside this bar).
    connectRefusals(m_document, this, [this](QWidget*, const QString&) {
        sync();
        return RefusalPlace{};
    });
    connectRefusals(m_document, m_preserveRng, [this](QWidget*, const QString&) {
        sync();
        return RefusalPlace{};
    });
    connect(m_document, &Document::changed, this, &StrategyBar::sync);
    // An edit refused or cancelled in the background: show the document's values again.
    connect(m_document, &Document::busyChanged, this, [this](bool busy) {
        if (!busy && !m_document->isBusy()) sync();
    });
    sync();
}

void StrategyBar::setUnits(ByteUnits units) {
    m_units = units;
    sync();
}

QString StrategyBar::selectiveKinds() const {
    QStringList kinds;
    for (QAction* a : m_kindsMenu->actions())
        if (a->isChecked()) kinds << a->text();
    return kinds.join(QLatin1Char(','));
}

QString StrategyBar::composedSpelling() const {
    const QString head = m_strategy->currentData().toString();
    if (head == QLatin1String("every") || head == QLatin1String("revolve"))
        return head + QLatin1Char(':') + QString::number(m_k->value());
    if (head == QLatin1String("selective")) return head + QLatin1Char(':') + selectiveKinds();
    if (head.startsWith(QLatin1String("optimal")))
        return head + QLatin1Char(':') + QString::number(std::llround(m_budget->value() * kGiB));
    return head;
}

void StrategyBar::updateParameterWidgets() {
    const QString head = m_strategy->currentData().toString();
    m_k->setVisible(head == QLatin1String("every") || head == QLatin1String("revolve"));
    m_kinds->setVisible(head == QLatin1String("selective"));
    m_kinds->setText(selectiveKinds().isEmpty() ? tr("kinds…") : selectiveKinds());
    m_budget->setVisible(head.startsWith(QLatin1String("optimal")));
}

void StrategyBar::strategyEdited() {
    updateParameterWidgets();
    if (m_syncing) return;
    const QString head = m_strategy->currentData().toString();
    if (head == QLatin1String("selective") && selectiveKinds().isEmpty()) return;
    // The field that changed: the combo, k, the budget, or the kinds' menu (its button).
    QWidget* field = qobject_cast<QWidget*>(sender());
    if (!field || field == m_kindsMenu || !isAncestorOf(field)) field = m_strategy;
    if (qobject_cast<QAction*>(sender())) field = m_kinds;
    EditOrigin origin(*m_document, field);
    if (!m_document->setStrategy(composedSpelling())) sync();
}

void StrategyBar::sync() {
    m_syncing = true;
    const ModelFile& m = m_document->model();
    auto s = parseStrategy(toStdString(m_document->strategySpelling()));
    if (s) {
        const QString spelling = toQString(s->spelling());
        const QString head = spelling.section(QLatin1Char(':'), 0, 0);
        const int i = m_strategy->findData(head);
        if (i >= 0) m_strategy->setCurrentIndex(i);
        if (s->kind == StrategyKind::EveryK || head == QLatin1String("revolve"))
            m_k->setValue(int(s->k));
        if (s->kind == StrategyKind::Selective)
            for (QAction* a : m_kindsMenu->actions())
                a->setChecked(std::find(s->kinds.begin(), s->kinds.end(), toStdString(a->text())) !=
                              s->kinds.end());
        if (head.startsWith(QLatin1String("optimal")))  // budgets print as "40GiB", "512MB"
            m_budget->setValue(double(s->budgetBytes) / kGiB);
    }
    if (!m_strategy->currentData().toString().startsWith(QLatin1String("optimal")))
        m_budget->setValue(double(m_document->device().usableBytes()) / kGiB);
    m_microBatch->setValue(int(m.training.microBatch));
    m_accumulation->setValue(int(m.training.accumulationSteps));
    m_precision->setCurrentIndex(m_precision->findData(int(m.training.precision)));
    m_optimizer->setCurrentIndex(m_optimizer->findData(int(m.training.optimizer)));
    m_preserveRng->setChecked(m.training.preserveRngState);
    updateParameterWidgets();
    m_syncing = false;
}

}  // namespace remat::ui
