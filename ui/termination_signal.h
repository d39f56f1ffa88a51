// SIGTERM, SIGINT and SIGHUP (a logout, `kill`, Ctrl+C in the terminal that started the app)
// delivered as a Qt signal on the GUI thread. The handler itself only writes one byte to a
// socket pair, which is all a signal handler may safely do; a QSocketNotifier reads it in the
// event loop, where the app can write its autosave and quit in order.
#pragma once

#include <QObject>

class QSocketNotifier;

namespace remat::ui {

class TerminationSignal : public QObject {
    Q_OBJECT
public:
    // Installs the handlers; one instance per process (a second one installs nothing and
    // never fires).
    explicit TerminationSignal(QObject* parent = nullptr);
    ~TerminationSignal() override;

    bool installed() const { return m_notifier != nullptr; }

signals:
    void received(int signalNumber);

private:
    void onReadable();

    QSocketNotifier* m_notifier = nullptr;
};

}  // namespace remat::ui
