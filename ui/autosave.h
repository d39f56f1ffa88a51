// Autosave and crash recovery. While the document has unsaved work, its model is written every
// 30 s to QStandardPaths::AppDataLocation/autosave/ (or the folder given with
// `remat-studio --autosave-dir`), next to a lock file this process holds. Saving (or closing
// cleanly) removes both; ending on SIGTERM writes the work once more and keeps it. At the next
// start, an autosave whose lock no live process holds is work a crash (or a kill) left behind:
// the main window offers to recover it. An autosave that cannot be read (broken JSON, a model
// the simulator refuses, a file too large, not a regular file) is never deleted and never
// stops the start: it is moved into the `unreadable/` sub-folder, stamped with the time, and
// the user is told where it went.
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
    QString sourcePath;  // the file the work belonged to; empty when never saved or unreadable
    QDateTime savedAt;
};

class Autosaver : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 30000;
    // The largest `.source` file read (it holds one path).
    static constexpr std::size_t kMaxSourceBytes = 64 * 1024;

    // `directory` empty: defaultDirectory().
    explicit Autosaver(Document* document, QString directory = {}, QObject* parent = nullptr);
    ~Autosaver() override;

    QString directory() const { return m_directory; }
    QString autosavePath() const { return m_modelPath; }
    void setInterval(int ms) { m_timer.setInterval(ms); }

    // Writes now if there is unsaved work not yet written; true when a file was written.
    bool saveNow();
    // Removes this session's autosave (after a save, or on a clean exit).
    void discard();
    // The session ends without its user (SIGTERM): writes the unsaved work now and keeps it,
    // releasing the lock, so that the next start offers it back. Nothing is discarded later.
    void flushForRecovery();

    // Autosaves of sessions that ended without cleaning up (a crash), newest first. Anything
    // named like an autosave is listed, whatever its type (a FIFO or a directory too), so that
    // it can be moved aside rather than ignored.
    static std::vector<OrphanedAutosave> findOrphans(const QString& directory = {});
    static void removeOrphan(const OrphanedAutosave& orphan);
    // Moves an orphan that cannot be read (its model, its `.source`) into
    // `DIRECTORY/unreadable/`, its name prefixed with the current time, and removes its lock.
    // Returns the new path of the model file, or an empty string when even the move failed
    // (the files then stay where they were).
    static QString moveAside(const OrphanedAutosave& orphan);
    // AppDataLocation/autosave.
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
    bool m_keep = false;  // flushed for recovery: the files outlive this session
};

}  // namespace remat::ui
