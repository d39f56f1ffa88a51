#include "autosave.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSaveFile>
#include <QSet>
#include <QStandardPaths>
#include <algorithm>
#include <cstdio>

#include "document.h"
#include "json_input.h"
#include "model_file.h"
#include "qt_convert.h"

namespace remat::ui {

namespace {

QString stem(const QString& modelPath) {
    QString s = modelPath;
    s.chop(int(qstrlen(".json")));
    return s;
}

// The stems of the autosaves this process writes: its own lock files are held, not stale,
// whatever QLockFile would conclude from a pid that a dead session may have had too.
QSet<QString>& liveStems() {
    static QSet<QString> stems;
    return stems;
}

// rename(2) only: QFile::rename falls back to copying, which would open a FIFO and block.
bool renameOnly(const QString& from, const QString& to) {
    return std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) ==
           0;
}

// Whether the session that wrote `base` is gone: its lock can be taken. A lock naming this
// process's own pid but not one of its autosaves was left by an earlier session that had the
// same pid (common in containers, where pids restart from 1): it is stale too.
bool ownerIsGone(const QString& base) {
    QLockFile lock(base + QStringLiteral(".lock"));
    lock.setStaleLockTime(0);  // only a dead owner makes it stale, never its age
    if (lock.tryLock(0)) {
        lock.unlock();
        return true;
    }
    qint64 pid = 0;
    QString host, app;
    if (lock.error() == QLockFile::LockFailedError && lock.getLockInfo(&pid, &host, &app) &&
        pid == QCoreApplication::applicationPid() && !liveStems().contains(base)) {
        lock.removeStaleLockFile();
        if (lock.tryLock(0)) {
            lock.unlock();
            return true;
        }
    }
    return false;
}

}  // namespace

QString Autosaver::defaultDirectory() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/autosave");
}

Autosaver::Autosaver(Document* document, QString directory, QObject* parent)
    : QObject(parent),
      m_document(document),
      m_directory(directory.isEmpty() ? defaultDirectory() : directory) {
    QDir().mkpath(m_directory);
    const QString base = m_directory + QStringLiteral("/autosave-%1-%2")
                                           .arg(QCoreApplication::applicationPid())
                                           .arg(QDateTime::currentMSecsSinceEpoch());
    liveStems().insert(base);
    m_modelPath = base + QStringLiteral(".json");
    m_sourcePath = base + QStringLiteral(".source");
    m_lock = std::make_unique<QLockFile>(base + QStringLiteral(".lock"));
    m_lock->setStaleLockTime(0);
    m_lock->tryLock(0);
    m_timer.setInterval(kIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosaver::saveNow);
    connect(m_document, &Document::changed, this, &Autosaver::onDocumentChanged);
    connect(m_document, &Document::historyChanged, this, &Autosaver::onDocumentChanged);
    m_timer.start();
}

Autosaver::~Autosaver() {
    if (!m_keep) discard();
    if (m_lock) m_lock->unlock();
    liveStems().remove(stem(m_modelPath));
}

void Autosaver::onDocumentChanged() {
    if (m_keep) return;
    if (m_document->isModified()) {
        m_dirty = true;
    } else {
        // Saved (or undone back to the saved state): nothing to recover any more.
        m_dirty = false;
        discard();
    }
}

bool Autosaver::saveNow() {
    if (m_keep || !m_dirty || !m_document->isModified()) return false;
    QSaveFile model(m_modelPath);
    if (!model.open(QIODevice::WriteOnly)) return false;
    model.write(QByteArray::fromStdString(modelToJson(m_document->model())));
    if (!model.commit()) return false;
    QSaveFile source(m_sourcePath);
    if (source.open(QIODevice::WriteOnly)) {
        source.write(m_document->filePath().toUtf8());
        source.commit();
    }
    m_dirty = false;
    return true;
}

void Autosaver::discard() {
    if (m_keep) return;  // flushed for recovery: the next start needs it
    QFile::remove(m_modelPath);
    QFile::remove(m_sourcePath);
}

void Autosaver::flushForRecovery() {
    if (m_keep) return;
    m_timer.stop();
    if (m_document->isModified()) {
        m_dirty = true;
        saveNow();
        m_keep = true;
    } else {
        discard();
    }
    if (m_lock) m_lock->unlock();
}

std::vector<OrphanedAutosave> Autosaver::findOrphans(const QString& directory) {
    const QString dir = directory.isEmpty() ? defaultDirectory() : directory;
    std::vector<OrphanedAutosave> out;
    // System: FIFOs, sockets and device files too; they are moved aside, not skipped.
    const QFileInfoList files =
        QDir(dir).entryInfoList({QStringLiteral("autosave-*.json")},
                                QDir::Files | QDir::Dirs | QDir::System | QDir::Hidden |
                                    QDir::NoDotAndDotDot,
                                QDir::Time);
    for (const QFileInfo& f : files) {
        const QString base = stem(f.absoluteFilePath());
        if (liveStems().contains(base) || !ownerIsGone(base)) continue;
        OrphanedAutosave o;
        o.modelPath = f.absoluteFilePath();
        o.savedAt = f.lastModified();
        // Never blocks (a FIFO) and never reads more than a path's worth.
        auto source = readInputFile(toStdString(base + QStringLiteral(".source")),
                                    "autosave source", kMaxSourceBytes);
        if (source) o.sourcePath = QString::fromUtf8(source->data(), qsizetype(source->size()));
        out.push_back(o);
    }
    return out;
}

void Autosaver::removeOrphan(const OrphanedAutosave& orphan) {
    const QString base = stem(orphan.modelPath);
    QFile::remove(orphan.modelPath);
    QFile::remove(base + QStringLiteral(".source"));
    QFile::remove(base + QStringLiteral(".lock"));
}

QString Autosaver::moveAside(const OrphanedAutosave& orphan) {
    const QFileInfo info(orphan.modelPath);
    const QString base = stem(orphan.modelPath);
    const QString target = info.absolutePath() + QStringLiteral("/unreadable");
    if (!QDir().mkpath(target)) return {};
    // The time first, so that the folder lists oldest to newest and nothing is overwritten.
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    const QString moved = target + QLatin1Char('/') + stamp + QLatin1Char('-') + info.fileName();
    if (!renameOnly(orphan.modelPath, moved)) return {};
    const QString source = base + QStringLiteral(".source");
    if (QFileInfo::exists(source) || QFileInfo(source).isSymLink())
        renameOnly(source, stem(moved) + QStringLiteral(".source"));
    QFile::remove(base + QStringLiteral(".lock"));
    return moved;
}

}  // namespace remat::ui
