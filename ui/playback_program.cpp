#include "playback_program.h"

#include <algorithm>

namespace remat::ui {

std::shared_ptr<const PlaybackProgram> makePlaybackProgram(
    std::shared_ptr<const void> owner, const Graph& g, const Program& p, const Timeline& t,
    std::shared_ptr<const TimelineSeriesInputs> series) {
    auto data = std::make_shared<PlaybackProgram>();
    data->owner = std::move(owner);
    data->graph = &g;
    data->program = &p;
    data->timeline = &t;
    data->opLayers = opLayers(g);
    data->series =
        series ? std::move(series)
               : std::make_shared<const TimelineSeriesInputs>(timelineSeriesInputs(g, p, t));
    data->live = LiveSetIndex(g, p);
    data->grid = ScheduleGrid(g, p, data->live);
    const auto peaks = peakLayerBlockBytes(p, data->live, int(g.layerModules.size()));
    for (std::int64_t b : peaks) data->blockScaleBytes = std::max(data->blockScaleBytes, b);
    return data;
}

}  // namespace remat::ui
