// The step-through: playback over the program on show, one instruction at a time. Controls
// (first, back, play/pause, forward, last; previous and next phase, the peak; speed; a scrub
// slider; whether allocs and frees are stops — off by default, so a step is one forward,
// recompute, backward or optimizer step), a caption per step in plain words (step_caption.h),
// and the live tensors beside their layers (LiveBlocksView). The current instruction is
// announced so that the main window marks it on the timeline (a cursor), in the layer stack
// (its layer's row) and in the schedule grid.
//
// Keyboard, while the panel has focus: Space plays or pauses, Right / Left step, Home / End go
// to the first / last step, Page Down / Page Up to the next / previous phase, P to the peak.
//
// Stepping stays instant on long programs: the program's lifetimes are indexed once
// (PlaybackProgram, built only while a step-through view is shown; from kIndexInBackgroundFrom
// instructions on a pool thread, the panel saying so meanwhile) and a step is one pass over
// two numbers per buffer, a caption and a repaint of the visible rows.
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "layer_numbering.h"
#include "playback_program.h"
#include "report.h"

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace remat::ui {

class LiveBlocksView;
class WrapLabel;

// Programs from this many instructions are indexed off the GUI thread (at about 75 ns per
// instruction, 300,000 take some 20 ms).
inline constexpr std::size_t kIndexInBackgroundFrom = 300000;

class StepThroughPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    explicit StepThroughPanel(QWidget* parent = nullptr);
    ~StepThroughPanel() override;

    // The program on show; `owner` keeps graph, program and timeline alive. Indexed at once
    // when the panel is active, else when it becomes active.
    // `series`, when given, is timelineSeriesInputs(g, p, t) already made.
    void setProgram(std::shared_ptr<const void> owner, const Graph& g, const Program& p,
                    const Timeline& t,
                    std::shared_ptr<const TimelineSeriesInputs> series = nullptr);
    // Whether a step-through view (this panel or the schedule grid) is shown. Inactive, the
    // panel pauses and indexes nothing.
    void setActive(bool active);
    bool isActive() const { return m_active; }
    void setUnits(ByteUnits units);
    // How the captions name the program's layers: the layer stack's numbers (set with the
    // program; under pipeline parallelism offset by the stage's first instance).
    void setNumbering(LayerNumbering numbering);

    std::shared_ptr<const PlaybackProgram> data() const { return m_data; }
    std::size_t currentInstruction() const { return m_instruction; }
    std::size_t currentStep() const { return m_step; }
    std::size_t stepCount() const { return m_steps.size(); }
    const std::vector<std::uint32_t>& steps() const { return m_steps; }
    bool isPlaying() const;
    bool showsAllocFree() const { return m_withAllocFree; }
    double speed() const;  // steps per second
    QString caption() const;
    LiveBlocksView* blocks() const { return m_blocks; }

public slots:
    void play();
    void pause();
    void togglePlay();
    void stepForward();
    void stepBack();
    void goToFirst();
    void goToLast();
    void nextPhase();
    void previousPhase();
    void goToPeak();
    // Goes to instruction `index`: itself when it is a stop, else the next stop after it (an
    // alloc goes to the work it prepares), or the last stop.
    void seekInstruction(std::size_t index);
    void setShowAllocFree(bool show);
    void setSpeedIndex(int index);

signals:
    // The instruction now shown, -1 when none (no program, or inactive).
    void currentInstructionChanged(qint64 index);
    // A new program was indexed (the schedule grid shows the same).
    void programChanged(std::shared_ptr<const remat::ui::PlaybackProgram> data);

protected:
    void changeEvent(QEvent* event) override;

private:
    void ensureBuilt();
    // Shows `data`, the index of the program given last, at the instruction shown before.
    void install(std::shared_ptr<const PlaybackProgram> data);
    void goToStep(std::size_t step);
    void showCurrent();
    void onTick();
    void updatePlayButton();
    void updateIcons();
    QToolButton* addButton(QAction* action);
    QAction* makeAction(const QString& text, const QKeySequence& key,
                        void (StepThroughPanel::*slot)());

    // The program given, not yet indexed while inactive.
    std::shared_ptr<const void> m_owner;
    const Graph* m_graph = nullptr;
    const Program* m_program = nullptr;
    const Timeline* m_timeline = nullptr;
    std::shared_ptr<const TimelineSeriesInputs> m_series;
    bool m_dirty = false;
    bool m_active = false;
    // Counts programs given and hidings: an indexing that finishes under an older count is
    // dropped.
    quint64 m_generation = 0;
    QString m_indexing;  // what the panel says while a long program is indexed

    std::shared_ptr<const PlaybackProgram> m_data;
    std::vector<std::uint32_t> m_steps;
    std::size_t m_step = 0;
    std::size_t m_instruction = npos;
    bool m_withAllocFree = false;
    ByteUnits m_units = ByteUnits::Binary;
    LayerNumbering m_numbering;

    QTimer* m_timer;
    QAction* m_firstAction;
    QAction* m_backAction;
    QAction* m_playAction;
    QAction* m_forwardAction;
    QAction* m_lastAction;
    QComboBox* m_speed;
    QCheckBox* m_allocFree;
    QSlider* m_slider;
    QLabel* m_position;
    WrapLabel* m_caption;
    LiveBlocksView* m_blocks;
    bool m_settingSlider = false;
};

}  // namespace remat::ui
