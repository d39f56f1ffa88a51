// Model states per GPU for each ZeRO stage: four stacked horizontal bars (stages 0 to 3) of
// parameters, gradients and optimizer state (fp32 master weights included) on one rank, at the
// layout's data-parallel sharding degree, so that what each stage saves is seen at a glance.
// The figures are zeroModelStates() (sim/sharding.h) of the rank's parameter count, precision
// and optimizer; the current stage is marked, and the device's usable memory is drawn as a line
// when it falls within the scale.
#pragma once

#include <QWidget>
#include <array>

#include "report.h"
#include "sharding.h"

namespace remat::ui {

class ModelStatesBars : public QWidget {
    Q_OBJECT
public:
    explicit ModelStatesBars(QWidget* parent = nullptr);

    // `parameterCount`: the rank's parameters (after tensor and pipeline parallelism);
    // `shardDegree`: the ranks ZeRO shards over; `currentStage`: the layout's stage (marked).
    void setStates(std::int64_t parameterCount, Precision precision, Optimizer optimizer,
                   std::int64_t shardDegree, int currentStage, std::int64_t usableBytes);
    void setUnits(ByteUnits units);

    const std::array<ModelStateBytes, 4>& stages() const { return m_stages; }
    std::int64_t shardDegree() const { return m_shardDegree; }
    // "ZeRO-2: 16.6 GB (parameters …, gradients …, optimizer state …)", one per stage.
    QStringList texts() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::array<ModelStateBytes, 4> m_stages{};
    std::int64_t m_shardDegree = 1;
    int m_current = 0;
    std::int64_t m_usable = 0;
    ByteUnits m_units = ByteUnits::Binary;
};

}  // namespace remat::ui
