// File → Export → For slides…: one dialog for every picture a lecture needs (the timeline, the
// trade-off plot, the sweep, the schedule grid, two plans side by side). The user picks the
// picture, a title (suggested from the model and the picture), a size in pixels (presets for
// 16:9 and 4:3 slides), the PNG pixel density and the file; the extension chosen sets the
// format. The dialog only gathers the choice; MainWindow writes the file (ui/slide_export.h).
#pragma once

#include <QDialog>
#include <QString>
#include <utility>
#include <vector>

#include "slide_export.h"

class QComboBox;
class QLineEdit;
class QSpinBox;
class QLabel;

namespace remat::ui {

class SlideExportDialog : public QDialog {
    Q_OBJECT
public:
    // `pictures`: (key, name shown) pairs; `modelName` goes into the suggested titles and file
    // names.
    SlideExportDialog(const std::vector<std::pair<QString, QString>>& pictures,
                      const QString& modelName, QWidget* parent = nullptr);

    QString pictureKey() const;
    QString path() const;
    SlideOptions options() const;

    // For tests and scripted use: choose without the widgets' signals.
    void setPicture(const QString& key);
    void setPath(const QString& path);

    void accept() override;

private:
    void pictureChanged();
    void browse();

    QString m_modelName;
    QComboBox* m_picture = nullptr;
    QLineEdit* m_title = nullptr;
    QComboBox* m_sizePreset = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QComboBox* m_density = nullptr;
    QLineEdit* m_path = nullptr;
    QLabel* m_error = nullptr;
    QString m_suggestedTitle;  // the last title suggested; replaced on a picture change only
                               // while the user has not edited it
};

}  // namespace remat::ui
