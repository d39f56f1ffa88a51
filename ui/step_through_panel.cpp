#include "step_through_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "background_priority.h"
#include "live_blocks_view.h"
#include "step_caption.h"
#include "wrap_label.h"

namespace remat::ui {
namespace {

constexpr int kSpeeds[] = {1, 2, 5, 10, 30, 100, 1000};  // steps per second
constexpr int kDefaultSpeed = 2;                         // index: 5 steps per second
constexpr int kFrameMs = 16;

// Transport icons drawn in the palette's button-text colour (the style's media icons are dark
// on the dark palette): bars and triangles on a 16-pixel grid.
enum class Glyph { First, Back, Play, Pause, Forward, Last };

QIcon glyphIcon(Glyph glyph, const QColor& color, qreal dpr) {
    QPixmap pm(QSize(16, 16) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    auto triangle = [&](double x0, double x1) {  // pointing from x0 to x1
        p.drawPolygon(QPolygonF({QPointF(x0, 3), QPointF(x1, 8), QPointF(x0, 13)}));
    };
    switch (glyph) {
        case Glyph::First:
            p.drawRect(QRectF(3, 3, 2, 10));
            triangle(13, 5);
            break;
        case Glyph::Back:
            triangle(9, 2);
            triangle(15, 8);
            break;
        case Glyph::Play:
            triangle(4, 13);
            break;
        case Glyph::Pause:
            p.drawRect(QRectF(4, 3, 3, 10));
            p.drawRect(QRectF(9, 3, 3, 10));
            break;
        case Glyph::Forward:
            triangle(1, 8);
            triangle(7, 14);
            break;
        case Glyph::Last:
            triangle(3, 11);
            p.drawRect(QRectF(11, 3, 2, 10));
            break;
    }
    return QIcon(pm);
}

}  // namespace

StepThroughPanel::StepThroughPanel(QWidget* parent) : QWidget(parent), m_timer(new QTimer(this)) {
    setObjectName(QStringLiteral("stepThrough"));
    setFocusPolicy(Qt::StrongFocus);
    connect(m_timer, &QTimer::timeout, this, &StepThroughPanel::onTick);

    m_firstAction = makeAction(tr("First step"), Qt::Key_Home, &StepThroughPanel::goToFirst);
    m_backAction = makeAction(tr("Step back"), Qt::Key_Left, &StepThroughPanel::stepBack);
    m_playAction = makeAction(tr("Play"), Qt::Key_Space, &StepThroughPanel::togglePlay);
    m_forwardAction = makeAction(tr("Step forward"), Qt::Key_Right, &StepThroughPanel::stepForward);
    m_lastAction = makeAction(tr("Last step"), Qt::Key_End, &StepThroughPanel::goToLast);
    auto* prevPhase =
        makeAction(tr("Previous phase"), Qt::Key_PageUp, &StepThroughPanel::previousPhase);
    auto* nextPhaseAction =
        makeAction(tr("Next phase"), Qt::Key_PageDown, &StepThroughPanel::nextPhase);
    auto* peak = makeAction(tr("Peak"), Qt::Key_P, &StepThroughPanel::goToPeak);
    //: Short labels of the phase and peak buttons
    prevPhase->setIconText(tr("◀ phase"));
    nextPhaseAction->setIconText(tr("phase ▶"));
    peak->setIconText(tr("peak"));

    m_speed = new QComboBox(this);
    m_speed->setObjectName(QStringLiteral("stepSpeed"));
    m_speed->setToolTip(tr("Playback speed"));
    m_speed->setFocusPolicy(Qt::NoFocus);
    for (int v : kSpeeds) m_speed->addItem(tr("%1/s", "steps per second").arg(v), v);
    m_speed->setCurrentIndex(kDefaultSpeed);
    connect(m_speed, &QComboBox::currentIndexChanged, this, &StepThroughPanel::setSpeedIndex);

    m_allocFree = new QCheckBox(tr("allocs and frees"), this);
    m_allocFree->setObjectName(QStringLiteral("stepAllocFree"));
    m_allocFree->setToolTip(tr("Stop at every alloc and free too, not only at the work"));
    m_allocFree->setFocusPolicy(Qt::NoFocus);
    connect(m_allocFree, &QCheckBox::toggled, this, &StepThroughPanel::setShowAllocFree);

    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("stepSlider"));
    m_slider->setToolTip(tr("Drag to scrub through the program"));
    m_slider->setFocusPolicy(Qt::NoFocus);
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (!m_settingSlider) goToStep(std::size_t(std::max(0, v)));
    });
    m_position = new QLabel(this);
    m_position->setObjectName(QStringLiteral("stepPosition"));

    auto* box = new WrapBox(this, 50);
    box->setObjectName(QStringLiteral("stepCaption"));
    m_caption = box->label();

    QString legend;
    for (BlockKind k :
         {BlockKind::Kept, BlockKind::Recomputed, BlockKind::Transient, BlockKind::Gradient})
        legend += QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2&nbsp;&nbsp; ")
                      .arg(blockColor(k).name(), blockKindName(k).toHtmlEscaped());
    auto* legendLabel = new QLabel(legend, this);
    legendLabel->setObjectName(QStringLiteral("stepLegend"));
    legendLabel->setWordWrap(true);

    m_blocks = new LiveBlocksView(this);
    m_blocks->setToolTip(QString());

    auto* transport = new QHBoxLayout;
    transport->setSpacing(2);
    for (QAction* a : {m_firstAction, m_backAction, m_playAction, m_forwardAction, m_lastAction})
        transport->addWidget(addButton(a));
    transport->addSpacing(6);
    transport->addWidget(m_speed);
    transport->addStretch(1);
    auto* jumps = new QHBoxLayout;
    jumps->setSpacing(2);
    for (QAction* a : {prevPhase, nextPhaseAction, peak}) {
        QToolButton* b = addButton(a);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        jumps->addWidget(b);
    }
    jumps->addSpacing(6);
    jumps->addWidget(m_allocFree);
    jumps->addStretch(1);
    auto* scrub = new QHBoxLayout;
    scrub->addWidget(m_slider, 1);
    scrub->addWidget(m_position);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(transport);
    layout->addLayout(jumps);
    layout->addLayout(scrub);
    layout->addWidget(box);
    layout->addWidget(legendLabel);
    layout->addWidget(m_blocks, 1);
    setSpeedIndex(kDefaultSpeed);
    updateIcons();
    showCurrent();
}

void StepThroughPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) updateIcons();
}

void StepThroughPanel::updateIcons() {
    const QColor c = palette().color(QPalette::ButtonText);
    const qreal dpr = devicePixelRatioF();
    m_firstAction->setIcon(glyphIcon(Glyph::First, c, dpr));
    m_backAction->setIcon(glyphIcon(Glyph::Back, c, dpr));
    m_forwardAction->setIcon(glyphIcon(Glyph::Forward, c, dpr));
    m_lastAction->setIcon(glyphIcon(Glyph::Last, c, dpr));
    updatePlayButton();
}

StepThroughPanel::~StepThroughPanel() = default;

QAction* StepThroughPanel::makeAction(const QString& text, const QKeySequence& key,
                                      void (StepThroughPanel::*slot)()) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    a->setToolTip(QStringLiteral("%1 (%2)").arg(text, key.toString(QKeySequence::NativeText)));
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    return a;
}

QToolButton* StepThroughPanel::addButton(QAction* action) {
    auto* b = new QToolButton(this);
    b->setDefaultAction(action);
    b->setAutoRaise(true);
    // Space would click a focused button instead of playing.
    b->setFocusPolicy(Qt::NoFocus);
    return b;
}

void StepThroughPanel::setNumbering(LayerNumbering numbering) {
    m_numbering = std::move(numbering);
}

void StepThroughPanel::setProgram(std::shared_ptr<const void> owner, const Graph& g,
                                  const Program& p, const Timeline& t,
                                  std::shared_ptr<const TimelineSeriesInputs> series) {
    m_owner = std::move(owner);
    m_graph = &g;
    m_program = &p;
    m_timeline = &t;
    m_series = std::move(series);
    m_dirty = true;
    ++m_generation;  // an indexing in flight is for an older program
    m_indexing.clear();
    if (m_active) {
        ensureBuilt();
    } else if (m_data) {
        // The index of an older program is not kept while nothing shows it.
        m_data.reset();
        m_blocks->setProgram(nullptr);
        emit programChanged(nullptr);
    }
}

void StepThroughPanel::setActive(bool active) {
    if (active == m_active) return;
    m_active = active;
    if (active) {
        ensureBuilt();
        showCurrent();
    } else {
        pause();
        emit currentInstructionChanged(-1);
        if (!m_indexing.isEmpty()) {
            // Hidden while indexing: dropped, indexed again when shown.
            ++m_generation;
            m_dirty = true;
            m_indexing.clear();
        }
    }
}

void StepThroughPanel::setUnits(ByteUnits units) {
    m_units = units;
    m_blocks->setUnits(units);
    showCurrent();
}

void StepThroughPanel::ensureBuilt() {
    if (!m_dirty || !m_program) return;
    m_dirty = false;
    const quint64 generation = ++m_generation;
    if (m_program->instructions.size() < kIndexInBackgroundFrom) {
        install(makePlaybackProgram(m_owner, *m_graph, *m_program, *m_timeline, m_series));
        return;
    }
    // A long program is indexed on a pool thread (about 75 ns per instruction: a freeze of
    // tenths of a second at millions); meanwhile the panel shows that it is indexing and no
    // step is marked. A newer program, or the panel hidden, drops the result.
    const std::size_t keep = m_instruction;
    pause();
    m_data.reset();
    m_steps.clear();
    m_step = 0;
    m_instruction = npos;
    m_blocks->setProgram(nullptr);
    emit programChanged(nullptr);
    if (m_active) emit currentInstructionChanged(-1);
    m_indexing = tr("Indexing the program's %1 instructions…")
                     .arg(qulonglong(m_program->instructions.size()));
    showCurrent();
    auto* watcher = new QFutureWatcher<std::shared_ptr<const PlaybackProgram>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, keep] {
        watcher->deleteLater();
        if (generation != m_generation) return;  // a newer program, or hidden meanwhile
        m_indexing.clear();
        m_instruction = keep;
        install(watcher->result());
    });
    // One indexing at a time, on a thread of its own that only does this (its priority lowered).
    static QThreadPool* const pool = newSerialPool();
    watcher->setFuture(QtConcurrent::run(
        pool, [owner = m_owner, g = m_graph, p = m_program, t = m_timeline, series = m_series] {
            lowerThreadPriority();
            return makePlaybackProgram(owner, *g, *p, *t, series);
        }));
}

void StepThroughPanel::install(std::shared_ptr<const PlaybackProgram> data) {
    m_data = std::move(data);
    m_owner.reset();  // m_data holds them now
    m_series.reset();
    m_steps = playbackSteps(*m_data->program, m_withAllocFree);
    m_blocks->setProgram(m_data);
    emit programChanged(m_data);
    // The same instruction in the new program where it still exists (an edit keeps the
    // lesson's place), else the start.
    const std::size_t keep = m_instruction;
    m_instruction = npos;
    if (m_data->instructionCount() == 0) return showCurrent();
    seekInstruction(keep == npos ? 0 : std::min(keep, m_data->instructionCount() - 1));
}

void StepThroughPanel::seekInstruction(std::size_t index) {
    if (m_steps.empty()) {
        m_instruction = npos;
        showCurrent();
        return;
    }
    const auto it = std::lower_bound(m_steps.begin(), m_steps.end(), index);
    goToStep(it == m_steps.end() ? m_steps.size() - 1 : std::size_t(it - m_steps.begin()));
}

void StepThroughPanel::goToStep(std::size_t step) {
    if (m_steps.empty()) return;
    step = std::min(step, m_steps.size() - 1);
    const std::size_t instruction = m_steps[step];
    if (step == m_step && instruction == m_instruction) return;
    m_step = step;
    m_instruction = instruction;
    showCurrent();
}

void StepThroughPanel::showCurrent() {
    const bool has = m_data && m_instruction != npos && m_instruction < m_data->instructionCount();
    m_settingSlider = true;
    m_slider->setRange(0, m_steps.empty() ? 0 : int(m_steps.size() - 1));
    m_slider->setValue(int(m_step));
    m_slider->setEnabled(has);
    m_settingSlider = false;
    if (!has) {
        m_position->setText(QString());
        m_caption->setText(!m_indexing.isEmpty() ? m_indexing
                           : m_program           ? QString()
                                                 : tr("No program to step through."));
        return;
    }
    m_position->setText(tr("%1 / %2").arg(m_step + 1).arg(m_steps.size()));
    m_position->setToolTip(tr("Step %1 of %2: instruction %3 of %4")
                               .arg(m_step + 1)
                               .arg(m_steps.size())
                               .arg(m_instruction)
                               .arg(m_data->instructionCount()));
    m_caption->setText(stepCaption(*m_data->graph, *m_data->program, m_data->opLayers, m_data->live,
                                   m_instruction, m_units, m_numbering));
    m_blocks->setInstruction(m_instruction);
    if (m_active) emit currentInstructionChanged(qint64(m_instruction));
}

QString StepThroughPanel::caption() const {
    return m_caption->text();
}

bool StepThroughPanel::isPlaying() const {
    return m_timer->isActive();
}

double StepThroughPanel::speed() const {
    return m_speed->currentData().toDouble();
}

void StepThroughPanel::setSpeedIndex(int index) {
    if (index < 0 || index >= int(std::size(kSpeeds))) return;
    if (m_speed->currentIndex() != index) m_speed->setCurrentIndex(index);
    const int perSecond = kSpeeds[index];
    // One step per tick up to a frame's rate; faster, several steps per frame.
    m_timer->setInterval(std::max(kFrameMs, 1000 / perSecond));
}

void StepThroughPanel::play() {
    if (m_steps.empty()) return;
    if (m_step + 1 >= m_steps.size()) goToStep(0);  // from the start again
    m_timer->start();
    updatePlayButton();
}

void StepThroughPanel::pause() {
    m_timer->stop();
    updatePlayButton();
}

void StepThroughPanel::togglePlay() {
    if (isPlaying())
        pause();
    else
        play();
}

void StepThroughPanel::onTick() {
    const double perTick = speed() * double(m_timer->interval()) / 1000.0;
    const std::size_t advance = std::max<std::size_t>(1, std::size_t(std::lround(perTick)));
    if (m_steps.empty() || m_step + 1 >= m_steps.size()) {
        pause();
        return;
    }
    goToStep(std::min(m_steps.size() - 1, m_step + advance));
    if (m_step + 1 >= m_steps.size()) pause();
}

void StepThroughPanel::updatePlayButton() {
    const bool playing = isPlaying();
    m_playAction->setText(playing ? tr("Pause") : tr("Play"));
    m_playAction->setToolTip(QStringLiteral("%1 (%2)").arg(
        m_playAction->text(), m_playAction->shortcut().toString(QKeySequence::NativeText)));
    m_playAction->setIcon(glyphIcon(playing ? Glyph::Pause : Glyph::Play,
                                    palette().color(QPalette::ButtonText), devicePixelRatioF()));
}

void StepThroughPanel::stepForward() {
    if (!m_steps.empty() && m_step + 1 < m_steps.size()) goToStep(m_step + 1);
}

void StepThroughPanel::stepBack() {
    if (m_step > 0) goToStep(m_step - 1);
}

void StepThroughPanel::goToFirst() {
    goToStep(0);
}

void StepThroughPanel::goToLast() {
    if (!m_steps.empty()) goToStep(m_steps.size() - 1);
}

void StepThroughPanel::nextPhase() {
    if (!m_data || m_instruction == npos) return;
    const std::size_t next = nextPhaseStart(*m_data->program, m_instruction);
    if (next != LiveSetIndex::npos) seekInstruction(next);
}

void StepThroughPanel::previousPhase() {
    if (!m_data || m_instruction == npos) return;
    std::size_t at = m_instruction;
    // A phase whose start is an alloc maps back onto this stop when allocs are skipped: go on
    // to the phase before it.
    for (;;) {
        const std::size_t prev = previousPhaseStart(*m_data->program, at);
        if (prev == LiveSetIndex::npos) return goToFirst();
        const auto it = std::lower_bound(m_steps.begin(), m_steps.end(), prev);
        const std::size_t step =
            it == m_steps.end() ? m_steps.size() - 1 : std::size_t(it - m_steps.begin());
        if (step < m_step) return goToStep(step);
        at = prev;
    }
}

void StepThroughPanel::goToPeak() {
    if (m_data) seekInstruction(m_data->timeline->peakInstruction);
}

void StepThroughPanel::setShowAllocFree(bool show) {
    if (show == m_withAllocFree) return;
    m_withAllocFree = show;
    if (m_allocFree->isChecked() != show) m_allocFree->setChecked(show);
    if (!m_data) return;
    m_steps = playbackSteps(*m_data->program, show);
    const std::size_t keep = m_instruction;
    m_instruction = npos;
    seekInstruction(keep == npos ? 0 : keep);
}

}  // namespace remat::ui
