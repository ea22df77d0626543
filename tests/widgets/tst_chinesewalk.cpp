// SPDX-License-Identifier: GPL-3.0-or-later
// The console in Chinese, walked as a user would: every tab, every menu, the card and job menus
// and every dialog, on the demo day at 10:30. The visible texts are collected (labels, buttons,
// group titles, tabs, combo items, table headers and cells, menu items, window titles) and any
// English word left among them is reported, beside the names that are the appliance's own (jobs,
// services, hosts, models, profiles) and the technical terms the console keeps in Latin letters.
#include "core/models/sessionclient.h"
#include "core/session/simulationsession.h"
#include "widgets/cardmap/cardmapview.h"
#include "widgets/cardmap/joblogdialog.h"
#include "widgets/cardmap/jobsview.h"
#include "widgets/cardmap/newworkloaddialog.h"
#include "widgets/cardmap/preemptiondialog.h"
#include "widgets/languagecontroller.h"
#include "widgets/mainwindow.h"
#include "widgets/schedule/scheduleconfirmdialog.h"
#include "widgets/settingsdialog.h"

#include "tests/data/scenarios.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QComboBox>
#include <QGroupBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSet>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QTextDocumentFragment>

using namespace Zhaoxi;
using namespace Zhaoxi::Widgets;
using Domain::JobId;

namespace {

// Words the console writes in Latin letters in Chinese too: units, standards, product names.
const QStringList kTerms = {
        QStringLiteral("GPU"),     QStringLiteral("MIG"),    QStringLiteral("MPS"),
        QStringLiteral("SLO"),     QStringLiteral("NVML"),   QStringLiteral("NVLink"),
        QStringLiteral("Xid"),     QStringLiteral("XID"),    QStringLiteral("ECC"),
        QStringLiteral("ms"),      QStringLiteral("MiB"),    QStringLiteral("GiB"),
        QStringLiteral("UTC"),     QStringLiteral("Zhaoxi"), QStringLiteral("CPU"),
        QStringLiteral("JSON"),    QStringLiteral("PCIe"),   QStringLiteral("Slurm"),
        QStringLiteral("HH"),      QStringLiteral("mm"),     QStringLiteral("ss"),
        QStringLiteral("Qt"),      QStringLiteral("GPL"),    QStringLiteral("SM"),
        QStringLiteral("req"),     QStringLiteral("IDs"),    QStringLiteral("ID"),
        QStringLiteral("gb"),      QStringLiteral("Ctrl"),   QStringLiteral("Shift"),
        QStringLiteral("Alt"),     QStringLiteral("Esc"),    QStringLiteral("Space"),
        QStringLiteral("Del"),     QStringLiteral("Tab"),    QStringLiteral("PgUp"),
        QStringLiteral("PgDown"),  QStringLiteral("Home"),   QStringLiteral("End"),
        QStringLiteral("English"), // the language menu names each language in its own words
};

struct Walk
{
    QSet<QString> allowed;        // lower-cased
    QMap<QString, QString> found; // text -> where
    int checked = 0;              // non-empty texts looked at

    void allowNames(const Session::Snapshot &s)
    {
        QStringList names{s.applianceName};
        for (const Sched::Job &j : s.state.jobs())
            names << j.spec.name << j.spec.inference.value_or(Domain::InferenceSpec{}).service;
        for (const Sched::HostState &h : s.state.hosts())
            names << h.name;
        for (const Domain::CardModel &m : s.state.catalogue().models()) {
            names << m.name;
            for (const auto &p : m.migProfiles)
                names << p.name;
        }
        for (const QString &t : kTerms)
            names << t;
        static const QRegularExpression split(QStringLiteral("[^A-Za-z]+"));
        for (const QString &n : std::as_const(names)) {
            for (const QString &w : n.split(split, Qt::SkipEmptyParts))
                allowed.insert(w.toLower());
        }
    }

    void check(const QString &raw, const QString &where)
    {
        QString text = raw;
        if (text.trimmed().isEmpty())
            return;
        ++checked;
        if (Qt::mightBeRichText(text))
            text = QTextDocumentFragment::fromHtml(text).toPlainText();
        text.remove(QLatin1Char('&'));
        // Identifiers are shown as they are: event codes (job-placed), paths, commands, options
        // (a token with - _ / . * = or a digit in it).
        static const QRegularExpression identifier(QStringLiteral("[-_/.*=0-9]"));
        static const QRegularExpression word(QStringLiteral("[A-Za-z]{2,}"));
        static const QRegularExpression space(QStringLiteral("[\\s，。：；（）、“”‘’]+"));
        for (const QString &token : text.split(space, Qt::SkipEmptyParts)) {
            if (token.contains(identifier))
                continue;
            for (auto it = word.globalMatch(token); it.hasNext();) {
                const QString w = it.next().captured();
                if (!allowed.contains(w.toLower())) {
                    found.insert(text.simplified().left(120), where);
                    return;
                }
            }
        }
    }

    void menu(QMenu *m, const QString &where)
    {
        if (!m)
            return;
        check(m->title(), where);
        for (QAction *a : m->actions()) {
            if (a->isSeparator())
                continue;
            if (a->menu())
                menu(a->menu(), where + QStringLiteral(" > ") + a->text());
            else
                check(a->text(), where);
        }
    }

    void widget(QWidget *root, const QString &where)
    {
        check(root->windowTitle(), where + QStringLiteral(" (title)"));
        QList<QWidget *> all = root->findChildren<QWidget *>();
        all.prepend(root);
        for (QWidget *w : std::as_const(all)) {
            if (!w->isVisibleTo(root) && w != root)
                continue;
            const QString at
                    = where + QStringLiteral(": ")
                      + QString::fromLatin1(w->metaObject()->className())
                      + (w->objectName().isEmpty() ? QString()
                                                   : QStringLiteral("#") + w->objectName());
            if (auto *l = qobject_cast<QLabel *>(w))
                check(l->text(), at);
            else if (auto *b = qobject_cast<QAbstractButton *>(w))
                check(b->text(), at);
            else if (auto *g = qobject_cast<QGroupBox *>(w))
                check(g->title(), at);
            else if (auto *t = qobject_cast<QTabBar *>(w)) {
                for (int i = 0; i < t->count(); ++i)
                    check(t->tabText(i), at);
            } else if (auto *c = qobject_cast<QComboBox *>(w)) {
                for (int i = 0; i < c->count(); ++i)
                    check(c->itemText(i), at);
            } else if (auto *e = qobject_cast<QLineEdit *>(w)) {
                check(e->placeholderText(), at);
            } else if (auto *v = qobject_cast<QAbstractItemView *>(w)) {
                const QAbstractItemModel *m = v->model();
                if (!m)
                    continue;
                for (int c = 0; c < m->columnCount(); ++c)
                    check(m->headerData(c, Qt::Horizontal).toString(),
                          at + QStringLiteral(" header"));
                for (int r = 0; r < std::min(m->rowCount(), 40); ++r) {
                    for (int c = 0; c < m->columnCount(); ++c)
                        check(m->index(r, c).data().toString(), at + QStringLiteral(" cell"));
                }
            }
        }
    }
};

} // namespace

class TestChineseWalk : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyViewMenuAndDialogSpeaksChinese();
};

void TestChineseWalk::everyViewMenuAndDialogSpeaksChinese()
{
    LanguageController languages;
    QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
    Session::SimulationSession session(TestData::demoDay(), QString(), 20260105);
    session.runTo(10 * 3600'000LL + 30 * 60'000); // 10:30 (the demo day starts at 00:00)
    Models::SessionClient client(&session);
    MainWindow w(&languages);
    w.setSession(&client, session.storePath());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCoreApplication::processEvents();
    const Session::SnapshotPtr s = client.snapshot();
    Walk walk;
    walk.allowNames(*s);

    for (int i = 0; i < w.tabs()->count(); ++i) {
        w.tabs()->setCurrentIndex(i);
        QCoreApplication::processEvents();
        walk.widget(&w, QStringLiteral("tab %1").arg(w.tabs()->tabText(i)));
    }
    for (QAction *a : w.menuBar()->actions())
        walk.menu(a->menu(), QStringLiteral("menu"));

    // The card and job menus, for a card with work.
    CardMapView *map = w.cardMap();
    QVERIFY(map);
    for (const Sched::CardState &c : s->state.cards()) {
        const std::unique_ptr<QMenu> m(map->createCardMenu(c.id, map));
        walk.menu(m.get(), QStringLiteral("card menu"));
        for (const Sched::Unit &u : c.units) {
            if (u.job.isValid()) {
                const std::unique_ptr<QMenu> jm(w.jobsView()->createContextMenu(u.job, &w));
                walk.menu(jm.get(), QStringLiteral("job menu"));
                break;
            }
        }
    }

    // A waiting job and a running one, and a card with work, chosen as a click would: the
    // "why" view, the job's row and the card's details.
    JobId waiting, running;
    for (const Sched::Job &j : s->state.jobs()) {
        if (!waiting.isValid() && j.state == Sched::JobState::Pending)
            waiting = j.id;
        if (!running.isValid() && j.state == Sched::JobState::Running)
            running = j.id;
    }
    QVERIFY(waiting.isValid() && running.isValid());
    for (const JobId j : {waiting, running}) {
        Q_EMIT map->jobSelected(j);
        const Sched::Job &job = s->state.job(j);
        if (!job.assignments.isEmpty())
            Q_EMIT map->cardSelected(job.assignments.first().card);
        QCoreApplication::processEvents();
        for (int i = 0; i < w.tabs()->count(); ++i) {
            w.tabs()->setCurrentIndex(i);
            QCoreApplication::processEvents();
            walk.widget(&w,
                        QStringLiteral("job %1, tab %2").arg(job.spec.name, w.tabs()->tabText(i)));
        }
    }

    // Every dialog.
    {
        SettingsDialog d(w.settings(), &w);
        d.show();
        walk.widget(&d, QStringLiteral("settings"));
    }
    {
        NewWorkloadDialog d(&client, &w);
        d.show();
        walk.widget(&d, QStringLiteral("new workload"));
    }
    {
        PreemptionRequest r;
        r.preview.outcome = Session::PlacementPreview::Outcome::NeedsPreemption;
        r.preview.victims = {{s->state.jobs().first().id, 100, 600'000, s->nowMs}};
        r.preview.victimNames = {s->state.jobs().first().spec.name};
        r.jobName = s->state.jobs().last().spec.name;
        r.cardName = s->state.hosts().first().name + QStringLiteral(" GPU 0");
        PreemptionDialog d(r, &w);
        d.show();
        walk.widget(&d, QStringLiteral("preemption"));
    }
    {
        Session::SchedulePreview p;
        QObject ctx;
        QObject::connect(&session,
                         &Session::ApplianceSession::schedulePreviewReady,
                         &ctx,
                         [&](const Session::SchedulePreview &got) { p = got; });
        session.previewSchedule(
                78,
                QJsonObject{
                        {QStringLiteral("mode"), QStringLiteral("immediate")},
                        {QStringLiteral("windows"),
                         QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("day")},
                                                {QStringLiteral("from"), QStringLiteral("00:00")},
                                                {QStringLiteral("to"), QStringLiteral("24:00")},
                                                {QStringLiteral("inferenceShare"), 1.0}}}}});
        QVERIFY(p.ok && !p.evictions.isEmpty());
        ScheduleConfirmDialog d(p, s->utcOffsetSeconds, &w);
        d.show();
        walk.widget(&d, QStringLiteral("schedule confirmation"));
        for (const QString &line : ScheduleConfirmDialog::summaryLines(p, s->utcOffsetSeconds))
            walk.check(line, QStringLiteral("schedule confirmation summary"));
    }
    {
        JobLogDialog d(&client, s->state.jobs().first().id, s->state.jobs().first().spec.name, &w);
        d.show();
        QCoreApplication::processEvents();
        walk.widget(&d, QStringLiteral("job log"));
    }

    qInfo("%d texts looked at", walk.checked);
    QVERIFY(walk.checked > 1000); // the walk reached the views, not only the window's frame
    QStringList report;
    for (auto it = walk.found.cbegin(); it != walk.found.cend(); ++it)
        report << it.value() + QStringLiteral(": ") + it.key();
    QVERIFY2(report.isEmpty(),
             qPrintable(QStringLiteral("%1 untranslated:\n").arg(report.size())
                        + report.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestChineseWalk)
#include "tst_chinesewalk.moc"
