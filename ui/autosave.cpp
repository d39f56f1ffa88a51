#include "autosave.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

#include "document.h"
#include "model_file.h"
#include "qt_convert.h"

namespace remat::ui {

namespace {
QString stem(const QString& modelPath) {
    QString s = modelPath;
    s.chop(int(qstrlen(".json")));
    return s;
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
    m_modelPath = base + QStringLiteral(".json");
    m_sourcePath = base + QStringLiteral(".source");
    m_lock = std::make_unique<QLockFile>(base + QStringLiteral(".lock"));
    m_lock->setStaleLockTime(0);  // only a dead owner makes it stale, never its age
    m_lock->tryLock(0);
    m_timer.setInterval(kIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosaver::saveNow);
    connect(m_document, &Document::changed, this, &Autosaver::onDocumentChanged);
    connect(m_document, &Document::historyChanged, this, &Autosaver::onDocumentChanged);
    m_timer.start();
}

Autosaver::~Autosaver() {
    discard();
    if (m_lock) m_lock->unlock();
}

void Autosaver::onDocumentChanged() {
    if (m_document->isModified()) {
        m_dirty = true;
    } else {
        // Saved (or undone back to the saved state): nothing to recover any more.
        m_dirty = false;
        discard();
    }
}

bool Autosaver::saveNow() {
    if (!m_dirty || !m_document->isModified()) return false;
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
    QFile::remove(m_modelPath);
    QFile::remove(m_sourcePath);
}

std::vector<OrphanedAutosave> Autosaver::findOrphans(const QString& directory) {
    const QString dir = directory.isEmpty() ? defaultDirectory() : directory;
    std::vector<OrphanedAutosave> out;
    const QFileInfoList files =
        QDir(dir).entryInfoList({QStringLiteral("autosave-*.json")}, QDir::Files, QDir::Time);
    for (const QFileInfo& f : files) {
        const QString base = stem(f.absoluteFilePath());
        QLockFile lock(base + QStringLiteral(".lock"));
        lock.setStaleLockTime(0);
        // A lock we can take belongs to nobody alive: that session ended without cleaning up.
        if (!lock.tryLock(0)) continue;
        lock.unlock();
        OrphanedAutosave o;
        o.modelPath = f.absoluteFilePath();
        o.savedAt = f.lastModified();
        QFile source(base + QStringLiteral(".source"));
        if (source.open(QIODevice::ReadOnly)) o.sourcePath = QString::fromUtf8(source.readAll());
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

}  // namespace remat::ui
