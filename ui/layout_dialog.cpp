#include "layout_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <iterator>

#include "cluster.h"
#include "comm_cost.h"
#include "document.h"
#include "model_states_bars.h"
#include "qt_convert.h"
#include "status_colors.h"

namespace remat::ui {

namespace {

// The ZeRO choices, in the combo's order: stage, hybrid.
struct ZeroChoice {
    int stage;
    bool hybrid;
};
constexpr ZeroChoice kZeroChoices[] = {{0, false}, {1, false}, {2, false}, {3, false}, {3, true}};

QSpinBox* degreeBox(QWidget* parent, const char* name, const QString& tip) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(QString::fromLatin1(name));
    box->setRange(1, int(std::min<std::int64_t>(kMaxParallelDegree, 1 << 30)));
    // An edit per finished value, not per keystroke: typing "16" is not first a layout of 1.
    box->setKeyboardTracking(false);
    box->setToolTip(tip);
    return box;
}

}  // namespace

LayoutDialog::LayoutDialog(Document* document, QWidget* parent)
    : QDialog(parent), m_document(document) {
    setObjectName(QStringLiteral("layoutDialog"));
    setWindowTitle(tr("GPUs and parallel layout"));

    m_gpus = new QLabel(this);
    m_gpus->setObjectName(QStringLiteral("layoutGpus"));
    m_gpus->setToolTip(tr("GPUs the layout occupies: dp x tp x pp x cp"));
    m_dp = degreeBox(this, "layoutDp",
                     tr("Data-parallel degree: replicas of the model, each on its own share of "
                        "the batch"));
    m_zero = new QComboBox(this);
    m_zero->setObjectName(QStringLiteral("layoutZero"));
    m_zero->addItem(tr("0: none (FSDP NO_SHARD, DDP)"));
    m_zero->addItem(tr("1: optimizer state"));
    m_zero->addItem(tr("2: + gradients (FSDP SHARD_GRAD_OP)"));
    m_zero->addItem(tr("3: + parameters (FSDP FULL_SHARD)"));
    m_zero->addItem(tr("3 within a node (FSDP HYBRID_SHARD)"));
    m_zero->setToolTip(
        tr("ZeRO stage: what the data-parallel ranks shard. Stage 1 shards the optimizer state "
           "and fp32 master weights, stage 2 the gradients too, stage 3 the parameters too, "
           "gathered layer by layer. FSDP names: NO_SHARD = 0, SHARD_GRAD_OP = 2, FULL_SHARD = "
           "3, HYBRID_SHARD = 3 within a node, replicated across nodes."));
    m_tp = degreeBox(this, "layoutTp",
                     tr("Tensor-parallel degree (Megatron-LM): each transformer block's "
                        "attention heads and MLP split over this many GPUs of a node"));
    m_sp = new QCheckBox(tr("Sequence parallel"), this);
    m_sp->setObjectName(QStringLiteral("layoutSp"));
    m_sp->setToolTip(tr("Shard the layer norms' and dropouts' activations along the sequence "
                        "over the tensor-parallel ranks (Korthikanti et al. 2022)"));
    m_pp = degreeBox(this, "layoutPp",
                     tr("Pipeline stages: the blocks split evenly over this many GPUs"));
    m_schedule = new QComboBox(this);
    m_schedule->setObjectName(QStringLiteral("layoutSchedule"));
    m_schedule->addItem(tr("1F1B"), int(PipelineSchedule::OneFOneB));
    m_schedule->addItem(tr("GPipe"), int(PipelineSchedule::GPipe));
    m_schedule->addItem(tr("Interleaved 1F1B"), int(PipelineSchedule::Interleaved));
    m_schedule->setToolTip(tr("Pipeline schedule: GPipe holds every micro-batch's activations, "
                              "1F1B at most as many as there are stages, interleaved splits "
                              "each stage into V model chunks and shrinks the bubble"));
    m_virtual = new QSpinBox(this);
    m_virtual->setObjectName(QStringLiteral("layoutVirtual"));
    m_virtual->setRange(2, 1024);
    m_virtual->setKeyboardTracking(false);
    m_virtual->setPrefix(tr("V = "));
    m_virtual->setToolTip(tr("Model chunks per pipeline rank, used by the interleaved schedule: "
                             "the blocks must divide into pp x V chunks"));
    m_cp = degreeBox(this, "layoutCp",
                     tr("Context-parallel degree: the sequence split over this many GPUs "
                        "(flash attention only)"));
    m_offloadOptimizer = new QCheckBox(tr("Optimizer state to host"), this);
    m_offloadOptimizer->setObjectName(QStringLiteral("layoutOffloadOptimizer"));
    m_offloadOptimizer->setToolTip(tr("ZeRO-Offload: optimizer state and fp32 master weights "
                                      "in CPU memory, the optimizer step on the CPU"));
    m_offloadParameters = new QCheckBox(tr("Parameters to host"), this);
    m_offloadParameters->setObjectName(QStringLiteral("layoutOffloadParameters"));
    m_offloadParameters->setToolTip(tr("ZeRO-Infinity (stage 3): parameters and gradients in "
                                       "CPU memory, streamed in for each layer"));
    m_offloadActivations = new QCheckBox(tr("Activations to host"), this);
    m_offloadActivations->setObjectName(QStringLiteral("layoutOffloadActivations"));
    m_offloadActivations->setToolTip(tr("The kept activations (checkpoint inputs) in CPU memory "
                                        "from forward until backward needs them"));
    m_cluster = new QComboBox(this);
    m_cluster->setObjectName(QStringLiteral("layoutCluster"));
    for (const ClusterSpec& c : builtinClusters())
        m_cluster->addItem(printableText(c.name), toQString(c.id));
    m_cluster->setToolTip(tr("The cluster the GPUs are in: GPUs per node, NVLink and network "
                             "bandwidth, host memory. Choosing one sets the device to its GPU."));
    m_clusterInfo = new QLabel(this);
    m_clusterInfo->setObjectName(QStringLiteral("layoutClusterInfo"));
    m_clusterInfo->setWordWrap(true);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("layoutMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setVisible(false);
    m_bars = new ModelStatesBars(this);

    auto* form = new QFormLayout;
    form->addRow(tr("GPUs"), m_gpus);
    form->addRow(tr("Data parallel"), m_dp);
    form->addRow(tr("ZeRO stage"), m_zero);
    auto* tpRow = new QHBoxLayout;
    tpRow->addWidget(m_tp, 1);
    tpRow->addWidget(m_sp);
    form->addRow(tr("Tensor parallel"), tpRow);
    auto* ppRow = new QHBoxLayout;
    ppRow->addWidget(m_pp, 1);
    ppRow->addWidget(m_schedule);
    ppRow->addWidget(m_virtual);
    form->addRow(tr("Pipeline stages"), ppRow);
    form->addRow(tr("Context parallel"), m_cp);
    auto* offRow = new QHBoxLayout;
    offRow->addWidget(m_offloadOptimizer);
    offRow->addWidget(m_offloadParameters);
    offRow->addWidget(m_offloadActivations);
    offRow->addStretch(1);
    form->addRow(tr("Offload"), offRow);
    form->addRow(tr("Cluster"), m_cluster);
    form->addRow(QString(), m_clusterInfo);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_bars);

    for (QSpinBox* box : {m_dp, m_tp, m_pp, m_cp, m_virtual})
        connect(box, &QSpinBox::valueChanged, this, &LayoutDialog::apply);
    for (QComboBox* box : {m_zero, m_schedule})
        connect(box, &QComboBox::currentIndexChanged, this, &LayoutDialog::apply);
    for (QCheckBox* box : {m_sp, m_offloadOptimizer, m_offloadParameters, m_offloadActivations})
        connect(box, &QCheckBox::toggled, this, &LayoutDialog::apply);
    connect(m_cluster, &QComboBox::currentIndexChanged, this, &LayoutDialog::applyCluster);
    connect(m_document, &Document::changed, this, &LayoutDialog::sync);
    // An edit refused later (evaluated in the background) says why here too.
    connect(m_document, &Document::editRejected, this, [this](const QString& why) {
        if (isVisible()) showMessage(why);
    });
    sync();
}

void LayoutDialog::setUnits(ByteUnits units) {
    m_units = units;
    m_bars->setUnits(units);
    sync();
}

ParallelConfig LayoutDialog::fieldLayout() const {
    ParallelConfig p = m_document->model().training.parallel;
    p.dp = m_dp->value();
    const ZeroChoice z = kZeroChoices[std::max(0, m_zero->currentIndex())];
    p.zeroStage = z.stage;
    p.hybridShard = z.hybrid;
    p.tp = m_tp->value();
    p.sequenceParallel = m_sp->isChecked();
    p.pp = m_pp->value();
    p.schedule = PipelineSchedule(m_schedule->currentData().toInt());
    p.virtualStages = p.schedule == PipelineSchedule::Interleaved ? m_virtual->value() : 1;
    p.cp = m_cp->value();
    p.offloadOptimizer = m_offloadOptimizer->isChecked();
    p.offloadParameters = m_offloadParameters->isChecked();
    p.offloadActivations = m_offloadActivations->isChecked();
    return p;
}

QString LayoutDialog::message() const {
    return m_message->isHidden() ? QString() : m_message->text();
}

void LayoutDialog::showMessage(const QString& text) {
    QPalette pal = m_message->palette();
    pal.setColor(QPalette::WindowText, statusColor(Status::Bad, palette()));
    m_message->setPalette(pal);
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

void LayoutDialog::apply() {
    if (m_syncing) return;
    const ParallelConfig p = fieldLayout();
    if (p == m_document->model().training.parallel) return;
    auto st = m_document->setParallel(p);
    if (!st) {
        // The document keeps its last valid layout; the fields show it again, the message says
        // what was wrong with the one asked for.
        sync();
        showMessage(toQString(st.error().message));
        return;
    }
    showMessage(QString());
}

void LayoutDialog::applyCluster() {
    if (m_syncing) return;
    auto st = m_document->setCluster(m_cluster->currentData().toString());
    if (!st) {
        sync();
        showMessage(toQString(st.error().message));
        return;
    }
    showMessage(QString());
}

void LayoutDialog::sync() {
    m_syncing = true;
    const ParallelConfig& p = m_document->model().training.parallel;
    m_gpus->setText(p.gpus() == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(p.gpus()));
    m_dp->setValue(int(p.dp));
    int zero = 0;
    for (int i = 0; i < int(std::size(kZeroChoices)); ++i)
        if (kZeroChoices[i].stage == p.zeroStage && kZeroChoices[i].hybrid == p.hybridShard)
            zero = i;
    m_zero->setCurrentIndex(zero);
    m_tp->setValue(int(p.tp));
    m_sp->setChecked(p.sequenceParallel);
    m_pp->setValue(int(p.pp));
    m_schedule->setCurrentIndex(m_schedule->findData(int(p.schedule)));
    m_virtual->setValue(int(std::max<std::int64_t>(2, p.virtualStages)));
    m_schedule->setEnabled(p.pp > 1 || p.schedule != PipelineSchedule::OneFOneB);
    m_cp->setValue(int(p.cp));
    m_offloadOptimizer->setChecked(p.offloadOptimizer);
    m_offloadParameters->setChecked(p.offloadParameters);
    m_offloadActivations->setChecked(p.offloadActivations);

    const ClusterSpec& c = m_document->cluster();
    int index = m_cluster->findData(toQString(c.id));
    if (index < 0) {
        // A device without a built-in cluster: its generic PCIe node, listed so it shows.
        m_cluster->addItem(printableText(c.name), toQString(c.id));
        index = m_cluster->count() - 1;
    }
    m_cluster->setCurrentIndex(index);
    // Link rates in decimal units, as their data sheets give them.
    const auto rate = [](double bytesPerS) {
        return bytesText(std::int64_t(bytesPerS), ByteUnits::Decimal) + QStringLiteral("/s");
    };
    m_clusterInfo->setText(tr("%1 GPUs per node; %2 per GPU inside a node, %3 between nodes")
                               .arg(c.gpusPerNode)
                               .arg(rate(c.intraNode.bandwidthBytesPerS),
                                    rate(c.interNode.bandwidthBytesPerS)));

    // The rank's parameters (the state's graph is the peaking rank's under a layout) and the
    // ranks ZeRO shards over.
    const ParallelEvaluation* pe = m_document->parallel();
    const std::int64_t shard = pe ? pe->placement.shard.size : p.dp;
    const TrainingConfig& t = m_document->model().training;
    m_bars->setStates(m_document->graph().parameterCount, t.precision, t.optimizer, shard,
                      p.zeroStage, m_document->device().usableBytes());
    m_syncing = false;
}

LayoutButton::LayoutButton(Document* document, QWidget* parent)
    : QToolButton(parent), m_document(document), m_dialog(new LayoutDialog(document, this)) {
    setObjectName(QStringLiteral("layoutButton"));
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    setToolTip(tr("GPUs and parallel layout: data, tensor, pipeline and context parallelism, "
                  "ZeRO stage, offload, cluster"));
    connect(this, &QToolButton::clicked, this, [this] {
        m_dialog->show();
        m_dialog->raise();
        m_dialog->activateWindow();
    });
    connect(m_document, &Document::changed, this, &LayoutButton::sync);
    sync();
}

void LayoutButton::setUnits(ByteUnits units) {
    m_dialog->setUnits(units);
}

void LayoutButton::sync() {
    // The layout in few words; the long forms stay in the dialog and the tooltip.
    QString text = toQString(describeLayout(m_document->model().training.parallel));
    // One GPU in words of the interface's language; a layout's notation (dp 8, ZeRO-3) stays.
    if (text.startsWith(QLatin1String("1 GPU"))) text.replace(0, 5, LayoutDialog::tr("1 GPU"));
    const QFontMetrics fm = fontMetrics();
    setText(fm.elidedText(text, Qt::ElideRight, fm.averageCharWidth() * 28));
    setToolTip(text + QStringLiteral("\n") +
               tr("GPUs and parallel layout: data, tensor, pipeline and context parallelism, "
                  "ZeRO stage, offload, cluster"));
}

}  // namespace remat::ui
