// Autosave and crash recovery. While the document has unsaved work, its model is written every
// 30 s to QStandardPaths::AppDataLocation/autosave/, next to a lock file this process holds.
// Saving (or closing cleanly) removes both. At the next start, an autosave whose lock no live
// process holds is work a crash left behind: the main window offers to recover it.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <vector>

class QLockFile;

namespace remat::ui {

class Document;

struct OrphanedAutosave {
    QString modelPath;   // the autosaved model (JSON, the model format)
    QString sourcePath;  // the file the work belonged to; empty when never saved
    QDateTime savedAt;
};

class Autosaver : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 30000;

    // `directory` empty: AppDataLocation/autosave.
    explicit Autosaver(Document* document, QString directory = {}, QObject* parent = nullptr);
    ~Autosaver() override;

    QString directory() const { return m_directory; }
    QString autosavePath() const { return m_modelPath; }
    void setInterval(int ms) { m_timer.setInterval(ms); }

    // Writes now if there is unsaved work not yet written; true when a file was written.
    bool saveNow();
    // Removes this session's autosave (after a save, or on a clean exit).
    void discard();

    // Autosaves of sessions that ended without cleaning up (a crash), newest first.
    static std::vector<OrphanedAutosave> findOrphans(const QString& directory = {});
    static void removeOrphan(const OrphanedAutosave& orphan);
    static QString defaultDirectory();

private:
    void onDocumentChanged();

    Document* m_document;
    QString m_directory;
    QString m_modelPath;
    QString m_sourcePath;
    std::unique_ptr<QLockFile> m_lock;
    QTimer m_timer;
    bool m_dirty = false;
};

}  // namespace remat::ui
