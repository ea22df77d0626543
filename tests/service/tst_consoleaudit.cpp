// SPDX-License-Identifier: GPL-3.0-or-later
// The embedded console's operator audit: the changes asked through its SessionClient (a submit,
// a priority, a refused cancel, a layout) become operator events in the session's store, each
// with this user as the actor, what was asked, before and after, chained so that
// AuditTrail::verify finds the chain intact; reads (previews) are not audited.
#include "core/models/sessionclient.h"
#include "core/service/audit.h"
#include "core/service/consoleaudit.h"
#include "core/service/peer.h"
#include "core/session/simulationsession.h"
#include "core/storage/store.h"
#include "servicetest.h"

#include <QSignalSpy>
#include <QTest>

#include <unistd.h>

using namespace Zhaoxi;
using namespace Zhaoxi::TestService;

class TestConsoleAudit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyChangeAskedIsAnOperatorEvent()
    {
        Session::SimulationSession session(scenario(), QString(), 1);
        session.runTo(60'000);
        Models::SessionClient client(&session);
        Storage::Store *store = session.eventStore();
        QVERIFY(store);
        QString why;
        const auto audit = Service::ConsoleAudit::attach(client, *store, &why);
        QVERIFY2(audit, qPrintable(why));
        QSignalSpy recorded(audit.get(), &Service::ConsoleAudit::recorded);
        QSignalSpy finished(&client, &Models::SessionClient::commandFinished);

        client.submitWorkload(trainSpec(QStringLiteral("audited")));
        QTRY_COMPARE(finished.size(), 1);
        const auto submitted = finished[0][0].value<Session::CommandResult>();
        QVERIFY2(submitted.ok, qPrintable(submitted.error));
        session.runTo(2 * 60'000);
        client.setJobPriority(submitted.job, 7);
        client.cancelJob(Domain::JobId(999));
        client.previewPlacement(submitted.job, Domain::CardId(1)); // a read: not audited
        QTRY_COMPARE(finished.size(), 3);
        QCOMPARE(recorded.size(), 3);
        QString commitError;
        QVERIFY2(session.commitNow(&commitError), qPrintable(commitError));

        const auto reader = store->reader(&why);
        QVERIFY2(reader, qPrintable(why));
        Storage::EventFilter f;
        f.sources = {Storage::Source::Operator};
        QList<Storage::Event> ops;
        QVERIFY(reader->forEachEvent(
                f,
                [&](const Storage::Event &e) {
                    ops.append(e);
                    return true;
                },
                &why));
        QCOMPARE(ops.size(), 3);
        const QString me = Service::loginOf(::getuid());
        for (const Storage::Event &e : ops)
            QCOMPARE(e.actor, me);
        auto params = [](const Storage::Event &e) {
            return QJsonDocument::fromJson(e.params).object();
        };
        QCOMPARE(ops[0].code, QByteArray("operator-submit"));
        QCOMPARE(ops[0].job, submitted.job.value());
        QCOMPARE(ops[1].code, QByteArray("operator-priority"));
        QCOMPARE(params(ops[1])[QStringLiteral("asked")][QStringLiteral("priority")].toInt(), 7);
        QCOMPARE(params(ops[1])[QStringLiteral("before")][QStringLiteral("priority")].toInt(), 100);
        QCOMPARE(params(ops[1])[QStringLiteral("after")][QStringLiteral("priority")].toInt(), 7);
        QCOMPARE(params(ops[2]).value(QStringLiteral("ok")).toBool(), false);
        QCOMPARE(ops[2].severity, Storage::Severity::Warning);
        QVERIFY(!params(ops[2]).value(QStringLiteral("refused")).toString().isEmpty());

        Service::AuditTrail::Verdict v;
        QVERIFY2(Service::AuditTrail::verify(*reader, &v, &why), qPrintable(why));
        QVERIFY2(v.intact, qPrintable(v.problem));
        QCOMPARE(v.events, 3);
    }
};

QTEST_GUILESS_MAIN(TestConsoleAudit)
#include "tst_consoleaudit.moc"
