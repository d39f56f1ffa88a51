// MainWindow's export of pictures for slides: which pictures there are, the dialog, and writing
// the chosen one (ui/slide_export.h).
#include <QFileInfo>

#include "comparison_panel.h"
#include "document.h"
#include "main_window.h"
#include "plan_diff_panel.h"
#include "plot_adapter.h"
#include "schedule_grid_view.h"
#include "slide_export_dialog.h"
#include "sweep_panel.h"
#include "timeline_plot.h"
#include "tradeoff_plot.h"

namespace remat::ui {

std::vector<std::pair<QString, QString>> MainWindow::slidePictures() const {
    return {{QStringLiteral("timeline"), tr("Memory timeline")},
            {QStringLiteral("tradeoff"), tr("Trade-off plot")},
            {QStringLiteral("sweep"), tr("Sweep")},
            {QStringLiteral("schedule"), tr("Schedule grid")},
            {QStringLiteral("two-plans"), tr("Two plans")}};
}

bool MainWindow::exportForSlides(const QString& key, const QString& path,
                                 const SlideOptions& options) {
    QString error;
    bool ok = false;
    if (key == QLatin1String("timeline")) {
        ok = m_timeline->plotAdapter()->exportSlide(path, options, &error);
    } else if (key == QLatin1String("tradeoff")) {
        if (m_comparison->plot()->points().empty())
            error = tr("The trade-off plot is empty: wait for the comparison to finish.");
        else
            ok = m_comparison->plot()->plotAdapter()->exportSlide(path, options, &error);
    } else if (key == QLatin1String("sweep")) {
        if (!m_sweep->result())
            error = tr("The sweep has no result yet: open the Sweep tab and let it finish.");
        else
            ok = m_sweep->plot()->exportSlide(path, options, &error);
    } else if (key == QLatin1String("schedule")) {
        if (!m_schedule->grid())
            error = tr("The schedule grid is empty: show it (View → Schedule grid) first.");
        else
            ok = exportWidgetForSlides(m_schedule, path, options, &error);
    } else if (key == QLatin1String("two-plans")) {
        if (!m_planDiff->hasResult())
            error = tr("Two plans shows nothing yet: choose the second plan in its panel first.");
        else
            ok = m_planDiff->plotAdapter()->exportSlide(path, options, &error);
    } else {
        error = tr("There is no picture called \"%1\".").arg(key);
    }
    if (!ok) {
        showError(tr("Export failed"), error);
        return false;
    }
    showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()));
    return true;
}

void MainWindow::exportForSlidesDialog() {
    SlideExportDialog dialog(slidePictures(), m_document->displayName(), this);
    if (dialog.exec() != QDialog::Accepted) return;
    exportForSlides(dialog.pictureKey(), dialog.path(), dialog.options());
}

}  // namespace remat::ui
