// SPDX-License-Identifier: GPL-3.0-or-later
#include "mpsdaemons.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>

namespace Zhaoxi::Runtime {

MpsDaemons::MpsDaemons(Options options)
    : m_options(std::move(options))
{}

MpsDirs MpsDaemons::dirs(Domain::CardId card) const
{
    const QString uuid = m_options.cardUuid ? m_options.cardUuid(card) : QString();
    const QString base
            = QDir(m_options.rootDir)
                      .filePath(uuid.isEmpty() ? QStringLiteral("card%1").arg(card.value()) : uuid);
    return MpsDirs{base + QStringLiteral("/pipe"), base + QStringLiteral("/log")};
}

QStringList MpsDaemons::follow(const Sched::ClusterState &state)
{
    QStringList changes;
    for (const Sched::CardState &c : state.cards()) {
        const bool mps
                = c.mode == Domain::PartitionMode::Mps && c.health != Sched::CardHealth::Failed;
        const bool on = running(c.id);
        if (mps && !on) {
            QString why;
            if (start(c.id, &why))
                changes << QStringLiteral("started card %1 (%2)")
                                   .arg(c.id.value())
                                   .arg(m_running.value(c.id.value()));
            else
                changes << QStringLiteral("failed to start card %1: %2").arg(c.id.value()).arg(why);
        } else if (!mps && on) {
            const QString uuid = m_running.value(c.id.value());
            stop(c.id);
            changes << QStringLiteral("stopped card %1 (%2)").arg(c.id.value()).arg(uuid);
        }
    }
    return changes;
}

QStringList MpsDaemons::stopAll()
{
    QStringList changes;
    const QList<int> cards = m_running.keys();
    for (const int c : cards) {
        const QString uuid = m_running.value(c);
        stop(Domain::CardId(c));
        changes << QStringLiteral("stopped card %1 (%2)").arg(c).arg(uuid);
    }
    return changes;
}

bool MpsDaemons::start(Domain::CardId card, QString *why)
{
    const QString uuid = m_options.cardUuid ? m_options.cardUuid(card) : QString();
    if (uuid.isEmpty()) {
        *why = QStringLiteral("the card has no UUID");
        return false;
    }
    const MpsDirs d = dirs(card);
    if (!QDir().mkpath(d.pipe) || !QDir().mkpath(d.log)) {
        *why = QStringLiteral("cannot create %1").arg(d.pipe);
        return false;
    }
    if (!m_options.controlPath.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDA_MPS_PIPE_DIRECTORY"), d.pipe);
        env.insert(QStringLiteral("CUDA_MPS_LOG_DIRECTORY"), d.log);
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), uuid);
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(m_options.controlPath, {QStringLiteral("-d")});
        // -d forks the daemon and returns.
        if (!p.waitForFinished(10'000) || p.exitStatus() != QProcess::NormalExit
            || p.exitCode() != 0) {
            *why = QStringLiteral("%1 -d: %2")
                           .arg(m_options.controlPath,
                                p.error() == QProcess::FailedToStart
                                        ? QStringLiteral("cannot be started")
                                        : QString::fromLocal8Bit(p.readAllStandardError())
                                                  .trimmed());
            if (p.state() != QProcess::NotRunning)
                p.kill();
            return false;
        }
    }
    m_running.insert(card.value(), uuid);
    return true;
}

void MpsDaemons::stop(Domain::CardId card)
{
    const MpsDirs d = dirs(card);
    if (!m_options.controlPath.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDA_MPS_PIPE_DIRECTORY"), d.pipe);
        env.insert(QStringLiteral("CUDA_MPS_LOG_DIRECTORY"), d.log);
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(m_options.controlPath, {});
        if (p.waitForStarted(5000)) {
            p.write("quit\n");
            p.closeWriteChannel();
            if (!p.waitForFinished(10'000))
                p.kill();
        }
    } else {
        QDir(QFileInfo(d.pipe).absolutePath()).removeRecursively();
    }
    m_running.remove(card.value());
    m_users.remove(card.value());
    m_clients.remove(card.value());
}

void MpsDaemons::addClient(Domain::CardId card, const QString &user)
{
    int &n = m_clients[card.value()];
    if (n++ == 0)
        m_users.insert(card.value(), user);
}

void MpsDaemons::removeClient(Domain::CardId card, const QString &user)
{
    Q_UNUSED(user)
    auto it = m_clients.find(card.value());
    if (it == m_clients.end())
        return;
    if (--it.value() <= 0) {
        m_clients.erase(it);
        m_users.remove(card.value());
    }
}

} // namespace Zhaoxi::Runtime
