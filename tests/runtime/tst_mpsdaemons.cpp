// SPDX-License-Identifier: GPL-3.0-or-later
// A card's MPS control daemon follows the card's mode: started with the card's UUID and its own
// pipe and log directories when the card enters MPS, told to quit when it leaves. The real
// nvidia-cuda-mps-control needs a driver, so a stand-in script records how it is called; the
// simulated path runs the same lifecycle without a binary.
#include "core/runtime/mpsdaemons.h"

#include "tests/sched/fixture.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace Zhaoxi;
using namespace Zhaoxi::Sched::Test;

namespace {

QString uuidOf(Domain::CardId c)
{
    return QStringLiteral("GPU-00000000-1111-2222-3333-%1")
            .arg(c.value(), 12, 10, QLatin1Char('0'));
}

Sched::ClusterState appliance()
{
    Sched::ClusterState s(catalogue());
    const Domain::HostId h = s.addHost(QStringLiteral("edge"), 64000, 512 * 1024);
    s.addCard(h, modelIndex(QStringLiteral("L40S-48GB")), PartitionMode::Mps);
    s.addCard(h, modelIndex(QStringLiteral("L40S-48GB")), PartitionMode::TimeSlicing);
    return s;
}

} // namespace

class TestMpsDaemons : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theDaemonFollowsTheCardsMode()
    {
        QTemporaryDir dir;
        // The stand-in: `-d` records its environment; without arguments it reads a command.
        const QString control = dir.filePath(QStringLiteral("nvidia-cuda-mps-control"));
        const QString calls = dir.filePath(QStringLiteral("calls"));
        QFile script(control);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(QStringLiteral("#!/bin/sh\n"
                                    "if [ \"$1\" = -d ]; then\n"
                                    "  echo \"start $CUDA_VISIBLE_DEVICES $CUDA_MPS_PIPE_DIRECTORY "
                                    "$CUDA_MPS_LOG_DIRECTORY\" >> %1\n"
                                    "else\n"
                                    "  read cmd; echo \"$cmd $CUDA_MPS_PIPE_DIRECTORY\" >> %1\n"
                                    "fi\n")
                             .arg(calls)
                             .toUtf8());
        script.close();
        QVERIFY(QFile::setPermissions(control,
                                      QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

        Runtime::MpsDaemons mps({dir.filePath(QStringLiteral("mps")), control, uuidOf});
        Sched::ClusterState state = appliance();
        const QStringList started = mps.follow(state);
        QCOMPARE(started.size(), 1); // the MPS card only
        QVERIFY2(started.first().startsWith(QLatin1String("started card 0")),
                 qPrintable(started.first()));
        QVERIFY(mps.running(Domain::CardId(0)));
        QVERIFY(!mps.running(Domain::CardId(1)));
        const Runtime::MpsDirs d = mps.dirs(Domain::CardId(0));
        QVERIFY(d.pipe.contains(uuidOf(Domain::CardId(0))));
        QVERIFY(QFileInfo(d.pipe).isDir());
        QVERIFY(mps.follow(state).isEmpty()); // nothing changed: nothing started twice

        state.setMode(Domain::CardId(0), PartitionMode::Whole);
        state.setMode(Domain::CardId(1), PartitionMode::Mps);
        const QStringList changed = mps.follow(state);
        QCOMPARE(changed.size(), 2);
        QVERIFY(!mps.running(Domain::CardId(0)));
        QVERIFY(mps.running(Domain::CardId(1)));
        mps.stopAll();

        QFile log(calls);
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QStringList lines
                = QString::fromUtf8(log.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        // Started with the card's UUID (never an index) and its own directories.
        QCOMPARE(lines[0],
                 QStringLiteral("start %1 %2 %3").arg(uuidOf(Domain::CardId(0)), d.pipe, d.log));
        QCOMPARE(lines[1], QStringLiteral("quit %1").arg(d.pipe));
        QVERIFY(lines[2].startsWith(QStringLiteral("start %1 ").arg(uuidOf(Domain::CardId(1)))));
        QVERIFY(lines[3].startsWith(QLatin1String("quit ")));
    }

    void simulatedCardsGoThroughTheSameLifecycle()
    {
        QTemporaryDir dir;
        Runtime::MpsDaemons mps({dir.filePath(QStringLiteral("mps")), QString(), uuidOf});
        Sched::ClusterState state = appliance();
        QCOMPARE(mps.follow(state).size(), 1);
        const Runtime::MpsDirs d = mps.dirs(Domain::CardId(0));
        QVERIFY(QFileInfo(d.pipe).isDir() && QFileInfo(d.log).isDir());
        state.setMode(Domain::CardId(0), PartitionMode::Whole);
        QCOMPARE(mps.follow(state).size(), 1);
        QVERIFY(!QFileInfo::exists(d.pipe));
    }

    void aDaemonThatCannotStartIsSaidWhy()
    {
        QTemporaryDir dir;
        Runtime::MpsDaemons mps({dir.filePath(QStringLiteral("mps")),
                                 dir.filePath(QStringLiteral("no-such-control")),
                                 uuidOf});
        const QStringList changes = mps.follow(appliance());
        QCOMPARE(changes.size(), 1);
        QVERIFY2(changes.first().startsWith(QLatin1String("failed to start card 0"))
                         && changes.first().contains(QLatin1String("cannot be started")),
                 qPrintable(changes.first()));
        QVERIFY(!mps.running(Domain::CardId(0)));
    }

    void oneAccountAtATimeOnACard()
    {
        QTemporaryDir dir;
        Runtime::MpsDaemons mps({dir.filePath(QStringLiteral("mps")), QString(), uuidOf});
        mps.follow(appliance());
        QCOMPARE(mps.clientUser(Domain::CardId(0)), QString());
        mps.addClient(Domain::CardId(0), QStringLiteral("svc"));
        mps.addClient(Domain::CardId(0), QStringLiteral("svc"));
        QCOMPARE(mps.clientUser(Domain::CardId(0)), QStringLiteral("svc"));
        mps.removeClient(Domain::CardId(0), QStringLiteral("svc"));
        QCOMPARE(mps.clientUser(Domain::CardId(0)), QStringLiteral("svc"));
        mps.removeClient(Domain::CardId(0), QStringLiteral("svc"));
        QCOMPARE(mps.clientUser(Domain::CardId(0)), QString());
    }
};

QTEST_GUILESS_MAIN(TestMpsDaemons)
#include "tst_mpsdaemons.moc"
