// SPDX-License-Identifier: GPL-3.0-or-later
// What the service's tests share: the test scenario (one MIG A100, one whole H200, no work of its
// own), a workload spec that runs the demo training program, and an asynchronous line client for
// a server running in the same thread.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/service/protocol.h"
#include "core/sim/scenario.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QTest>

namespace Zhaoxi::TestService {

inline QString dataPath(const char *name)
{
    return QStringLiteral(ZHAOXI_SOURCE_DIR "/tests/service/data/") + QLatin1String(name);
}

inline const Sim::Scenario &scenario()
{
    static const Sim::Scenario s = [] {
        static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
        Sim::ScenarioError error;
        const auto loaded = Sim::loadScenarioFile(dataPath("service.json"), catalogue, &error);
        if (!loaded)
            qFatal("service scenario: %s", qPrintable(error.toString()));
        return *loaded;
    }();
    return s;
}

inline QJsonObject trainSpec(const QString &name = QStringLiteral("finetune"), int steps = 1000000)
{
    QFile f(dataPath("train-spec.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("train-spec.json: %s", qPrintable(f.errorString()));
    QJsonObject spec = QJsonDocument::fromJson(f.readAll()).object();
    spec.insert(QStringLiteral("name"), name);
    QJsonObject run = spec.value(QStringLiteral("run")).toObject();
    QJsonArray cmd = run.value(QStringLiteral("command")).toArray();
    cmd[2] = QString::number(steps);
    run.insert(QStringLiteral("command"), cmd);
    spec.insert(QStringLiteral("run"), run);
    return spec;
}

// The demo workloads are found by name, as the specs name them.
inline void putDemoOnPath()
{
    const QString dir = QFileInfo(QStringLiteral(DEMO_TRAIN_PATH)).absolutePath();
    if (!qEnvironmentVariable("PATH").startsWith(dir))
        qputenv("PATH", (dir + QLatin1Char(':') + qEnvironmentVariable("PATH")).toLocal8Bit());
}

// A client of a server in this thread: requests are written, answers read while the event loop
// runs (QTest::qWaitFor), never by blocking.
class Client
{
public:
    bool connectTo(const QString &path)
    {
        m_socket.connectToServer(path);
        return QTest::qWaitFor([&] { return m_socket.state() == QLocalSocket::ConnectedState; },
                               5000);
    }
    QLocalSocket &socket() { return m_socket; }

    void sendRaw(const QByteArray &bytes) { m_socket.write(bytes); }
    int send(QJsonObject request)
    {
        const int id = ++m_id;
        request.insert(QStringLiteral("id"), id);
        sendRaw(Service::encodeLine(request));
        return id;
    }
    // The answer to request `id` (pushes and other answers are kept).
    QJsonObject answer(int id, int timeoutMs = 20000)
    {
        QJsonObject found;
        // An empty object when it does not come in time: the caller's check fails on that.
        [[maybe_unused]] const bool came = QTest::qWaitFor(
                [&] {
                    read();
                    for (qsizetype i = 0; i < m_messages.size(); ++i) {
                        if (m_messages[i].value(QStringLiteral("id")).toInt(-1) == id) {
                            found = m_messages.takeAt(i);
                            return true;
                        }
                    }
                    return false;
                },
                timeoutMs);
        return found;
    }
    QJsonObject call(const QJsonObject &request, int timeoutMs = 20000)
    {
        return answer(send(request), timeoutMs);
    }
    // Every message received so far (answers and pushes), taken.
    QList<QJsonObject> take()
    {
        read();
        return std::exchange(m_messages, {});
    }
    // Waits for a push matching `pred`; the pushes before it are dropped.
    QJsonObject push(const std::function<bool(const QJsonObject &)> &pred, int timeoutMs = 20000)
    {
        QJsonObject found;
        // An empty object when it does not come in time: the caller's check fails on that.
        [[maybe_unused]] const bool came = QTest::qWaitFor(
                [&] {
                    read();
                    while (!m_messages.isEmpty()) {
                        const QJsonObject m = m_messages.takeFirst();
                        if (m.contains(QStringLiteral("push")) && pred(m)) {
                            found = m;
                            return true;
                        }
                    }
                    return false;
                },
                timeoutMs);
        return found;
    }
    qsizetype lines() const { return m_lines; }
    qsizetype answers() const { return m_answers; } // lines that are not pushes

private:
    void read()
    {
        m_buffer += m_socket.readAll();
        qsizetype nl;
        while ((nl = m_buffer.indexOf('\n')) >= 0) {
            const QByteArray line = m_buffer.left(nl);
            m_buffer.remove(0, nl + 1);
            ++m_lines;
            const QJsonObject m = QJsonDocument::fromJson(line).object();
            if (!m.contains(QStringLiteral("push")))
                ++m_answers;
            m_messages.append(m);
        }
    }
    QLocalSocket m_socket;
    QByteArray m_buffer;
    QList<QJsonObject> m_messages;
    qsizetype m_lines = 0;
    qsizetype m_answers = 0;
    int m_id = 0;
};

inline QString errorCode(const QJsonObject &answer)
{
    return answer.value(QStringLiteral("error"))
            .toObject()
            .value(QStringLiteral("code"))
            .toString();
}

inline QString errorMessage(const QJsonObject &answer)
{
    return answer.value(QStringLiteral("error"))
            .toObject()
            .value(QStringLiteral("message"))
            .toString();
}

} // namespace Zhaoxi::TestService
