// SPDX-License-Identifier: GPL-3.0-or-later
// The operator audit trail: a hash chain over the store's operator events that finds a changed,
// removed or inserted event, and continues across a restart.
#include "core/service/audit.h"
#include "core/storage/store.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace Zhaoxi;
using Service::AuditTrail;
using Storage::Event;

namespace {

bool exec(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK)
        return false;
    char *msg = nullptr;
    const bool ok = sqlite3_exec(db, sql, nullptr, nullptr, &msg) == SQLITE_OK;
    sqlite3_free(msg);
    sqlite3_close(db);
    return ok;
}

Event action(qint64 at, const char *code, const QString &actor, int job = -1)
{
    Event e;
    e.atMs = at;
    e.code = code;
    e.actor = actor;
    e.job = job;
    return e;
}

} // namespace

class TestAudit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void anIntactChainVerifies();
    void theChainContinuesAcrossARestart();
    void tamperingIsFound_data();
    void tamperingIsFound();

private:
    // Writes `n` operator events (and scheduler events between them) and returns the store path.
    QString writeTrail(int n);
    AuditTrail::Verdict verify(const QString &path);
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestAudit::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

QString TestAudit::writeTrail(int n)
{
    const QString path = m_dir->filePath(QStringLiteral("audit.sqlite"));
    QString err;
    auto store = Storage::Store::open(path, &err);
    if (!store)
        qFatal("%s", qPrintable(err));
    AuditTrail trail(*store, {});
    for (int i = 0; i < n; ++i) {
        trail.record(action(1000 + i, "operator-priority", QStringLiteral("王芳"), i),
                     {{QStringLiteral("asked"), QJsonObject{{QStringLiteral("priority"), i * 10}}},
                      {QStringLiteral("before"), QJsonObject{{QStringLiteral("priority"), 0}}},
                      {QStringLiteral("ratio"), 0.1 * i},
                      {QStringLiteral("ok"), true}});
        Event other;
        other.atMs = 1000 + i;
        other.code = "job-placed";
        store->append(other);
    }
    if (!store->flush())
        qFatal("%s", qPrintable(store->lastError()));
    return path;
}

AuditTrail::Verdict TestAudit::verify(const QString &path)
{
    QString err;
    auto reader = Storage::Reader::open(path, Storage::Reader::OpenMode::RequireCurrent, &err);
    if (!reader)
        qFatal("%s", qPrintable(err));
    AuditTrail::Verdict v;
    if (!AuditTrail::verify(*reader, &v, &err))
        qFatal("%s", qPrintable(err));
    return v;
}

void TestAudit::anIntactChainVerifies()
{
    const QString path = writeTrail(5);
    const AuditTrail::Verdict v = verify(path);
    QVERIFY2(v.intact, qPrintable(v.problem));
    QCOMPARE(v.events, 5);
    QCOMPARE(v.brokenAt, -1);

    // Each event names its predecessor's hash; the first names none.
    QString err;
    auto reader = Storage::Reader::open(path, Storage::Reader::OpenMode::RequireCurrent, &err);
    Storage::EventFilter f;
    f.sources = {Storage::Source::Operator};
    const QList<Event> ops = reader->events(f);
    QCOMPARE(ops.size(), 5);
    QString prev;
    for (const Event &e : ops) {
        QCOMPARE(e.actor, QStringLiteral("王芳"));
        const QJsonObject p = QJsonDocument::fromJson(e.params).object();
        QCOMPARE(p.value(QStringLiteral("prev")).toString(), prev);
        prev = p.value(QStringLiteral("hash")).toString();
        QCOMPARE(prev.size(), 64);
    }
}

void TestAudit::theChainContinuesAcrossARestart()
{
    const QString path = writeTrail(3);
    QString err;
    {
        auto store = Storage::Store::open(path, &err);
        QVERIFY2(store, qPrintable(err));
        auto reader = store->reader(&err);
        QByteArray head;
        QVERIFY2(AuditTrail::headOf(*reader, &head, &err), qPrintable(err));
        QCOMPARE(head.size(), 64);
        AuditTrail trail(*store, head);
        trail.record(action(5000, "operator-cancel", QStringLiteral("root"), 1), {});
        QVERIFY(store->flush());
    }
    const AuditTrail::Verdict v = verify(path);
    QVERIFY2(v.intact, qPrintable(v.problem));
    QCOMPARE(v.events, 4);

    // Starting a second chain (a head of "") after the first is a break at that event.
    {
        auto store = Storage::Store::open(path, &err);
        AuditTrail fresh(*store, {});
        fresh.record(action(6000, "operator-cancel", QStringLiteral("root"), 2), {});
        QVERIFY(store->flush());
    }
    const AuditTrail::Verdict broken = verify(path);
    QVERIFY(!broken.intact);
    QCOMPARE(broken.events, 5);
    QVERIFY2(broken.problem.contains(QStringLiteral("removed or inserted")),
             qPrintable(broken.problem));
}

void TestAudit::tamperingIsFound_data()
{
    // The store refuses UPDATE and DELETE of operator events; someone editing the file by other
    // means first drops those triggers, as these edits do.
    QTest::addColumn<QByteArray>("sql");
    QTest::addColumn<QString>("problem");
    QTest::newRow("a changed actor")
            << QByteArray("UPDATE events SET actor = 'mallory' WHERE id = 5;")
            << QStringLiteral("changed");
    QTest::newRow("a changed parameter")
            << QByteArray("UPDATE events SET params = replace(params, '\"priority\":20', "
                          "'\"priority\":99') WHERE id = 5;")
            << QStringLiteral("changed");
    QTest::newRow("a changed time")
            << QByteArray("UPDATE events SET at_ms = at_ms + 1 WHERE id = 5;")
            << QStringLiteral("changed");
    QTest::newRow("a removed event") << QByteArray("DELETE FROM events WHERE id = 5;")
                                     << QStringLiteral("removed or inserted");
    QTest::newRow("an inserted event")
            << QByteArray("INSERT INTO events(id, at_ms, severity, source, code, actor, params) "
                          "SELECT 100, 1002, 0, 3, 'operator-cancel', 'mallory', params FROM "
                          "events WHERE id = 3;")
            << QStringLiteral("removed or inserted");
    QTest::newRow("a removed hash")
            << QByteArray("UPDATE events SET params = json_remove(params, '$.hash') WHERE id = 7;")
            << QStringLiteral("no hash");
}

void TestAudit::tamperingIsFound()
{
    QFETCH(QByteArray, sql);
    QFETCH(QString, problem);
    const QString path = writeTrail(5); // operator events are ids 1, 3, 5, 7, 9
    QVERIFY(verify(path).intact);
    QVERIFY(!exec(path, "UPDATE events SET actor = 'x' WHERE source = 3;")); // the triggers hold
    QVERIFY(exec(
            path,
            "DROP TRIGGER operator_events_no_update; DROP TRIGGER operator_events_no_delete;"));
    QVERIFY(exec(path, sql.constData()));
    const AuditTrail::Verdict v = verify(path);
    QVERIFY(!v.intact);
    QVERIFY2(v.problem.contains(problem), qPrintable(v.problem));
    QVERIFY(v.brokenAt > 0);
}

QTEST_GUILESS_MAIN(TestAudit)
#include "tst_audit.moc"
