// SPDX-License-Identifier: GPL-3.0-or-later
// The console's "Advice" panel (issue 18): on a store that recorded the crafted pattern of
// tests/replay/data/advise-window.json (inference busy from 08:00, the day window opening at
// 09:00, three days), "Look for advice" replays the recorded days on a thread of its own and
// lists the earlier day window, worded, with its evidence, its proof and "Apply…"; a second
// click while it runs starts nothing; Apply, once confirmed, hands the complete windows
// schedule with the day window moved to the main window; refused, nothing. A store that never
// recorded a run, and no store at all, are said in words.
#include "core/storage/store.h"
#include "widgets/advise/advicepanel.h"
#include "widgets/languagecontroller.h"

#include <QJsonArray>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Zhaoxi;
using Widgets::AdvicePanel;
using Status = Widgets::AdviceOutcome::Status;

namespace {

QJsonObject windowNamed(const QJsonObject &windowsParams, const QString &name)
{
    for (const QJsonValue &v : windowsParams.value(QStringLiteral("windows")).toArray()) {
        if (v.toObject().value(QStringLiteral("name")).toString() == name)
            return v.toObject();
    }
    return {};
}

} // namespace

class TestAdvicePanel : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_window;

    // Replays take seconds; generous, never a threshold on how fast.
    static constexpr int kWaitMs = 120'000;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_window = m_dir.filePath(QStringLiteral("window.sqlite"));
        QProcess p;
        p.start(QStringLiteral(ZHAOXICTL_PATH),
                {QStringLiteral("simulate"),
                 QStringLiteral("--scenario"),
                 QStringLiteral(ZHAOXI_SOURCE_DIR "/tests/replay/data/advise-window.json"),
                 QStringLiteral("--policy"),
                 QStringLiteral("windows"),
                 QStringLiteral("--db"),
                 m_window});
        QVERIFY(p.waitForFinished(300'000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }

    void listsTheEarlierDayWindowAndAppliesItOnceConfirmed()
    {
        AdvicePanel panel;
        panel.setStorePath(m_window);
        panel.resize(900, 700);
        panel.show();
        QSignalSpy started(&panel, &AdvicePanel::adviceStarted);
        QSignalSpy finished(&panel, &AdvicePanel::adviceFinished);
        QSignalSpy applied(&panel, &AdvicePanel::applyScheduleRequested);

        QTest::mouseClick(panel.lookButton(), Qt::LeftButton);
        QVERIFY(panel.isRunning());
        QVERIFY(panel.statusText().contains(QStringLiteral("Replaying")));
        // A second click while it runs does nothing (the button is disabled, and the slot
        // refuses too).
        QTest::mouseClick(panel.lookButton(), Qt::LeftButton);
        panel.lookForAdvice();
        QCOMPARE(started.size(), 1);

        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kWaitMs);
        QCOMPARE(started.size(), 1);
        QVERIFY(!panel.isRunning());
        QCOMPARE(panel.status(), Status::Done);
        QVERIFY(panel.lookButton()->isEnabled());

        const QList<Replay::Suggestion> list = panel.suggestions();
        QVERIFY2(!list.isEmpty(), qPrintable(panel.statusText() + panel.detailsText()));
        int edge = -1;
        for (int i = 0; i < list.size() && edge < 0; ++i) {
            if (list[i].kind == Replay::SuggestionKind::WindowEdge
                && list[i].params.value(QStringLiteral("window")).toString()
                           == QLatin1String("day"))
                edge = i;
        }
        QVERIFY2(edge >= 0, qPrintable(panel.headlineText(0)));
        const QString newEdge = list[edge].params.value(QStringLiteral("new")).toString();
        QVERIFY2(newEdge == QLatin1String("08:00") || newEdge == QLatin1String("08:30"),
                 qPrintable(newEdge));
        // Worded from the codes: the change, the evidence (the hour from 08:00 on each of the
        // three days), the proof (on the three days, with chat's attainment before → after).
        const QString headline = panel.headlineText(edge);
        QVERIFY2(headline.contains(QStringLiteral("at %1 instead of 09:00").arg(newEdge)),
                 qPrintable(headline));
        QVERIFY2(panel.evidenceText(edge).contains(QStringLiteral("08:00–09:00")),
                 qPrintable(panel.evidenceText(edge)));
        QVERIFY2(panel.evidenceText(edge).contains(QStringLiteral("On 3 of the last 3 days")),
                 qPrintable(panel.evidenceText(edge)));
        const QString proof = panel.proofText(edge);
        QVERIFY2(proof.contains(QStringLiteral("3 recorded days")), qPrintable(proof));
        QVERIFY2(proof.contains(QStringLiteral("chat's SLO attainment")), qPrintable(proof));
        QVERIFY2(proof.contains(QStringLiteral("→")), qPrintable(proof));
        QVERIFY(panel.detailsText().contains(QStringLiteral("Recorded days:")));

        // In Chinese, the same suggestion in Chinese words (the codes worded again).
        {
            Widgets::LanguageController languages;
            QVERIFY(languages.setLanguage(QStringLiteral("zh_CN")));
            QTRY_VERIFY(panel.headlineText(edge).contains(QStringLiteral("时间窗")));
            QVERIFY2(panel.evidenceText(edge).contains(QStringLiteral("最近 3 天中有 3 天")),
                     qPrintable(panel.evidenceText(edge)));
            QVERIFY2(panel.proofText(edge).contains(QStringLiteral("SLO 达标率")),
                     qPrintable(panel.proofText(edge)));
            QCOMPARE(panel.lookButton()->text(), QStringLiteral("查找建议"));
            QVERIFY(languages.setLanguage(QStringLiteral("en")));
            QTRY_VERIFY(panel.headlineText(edge).contains(QStringLiteral("instead of")));
        }

        QPushButton *apply = panel.applyButton(edge);
        QVERIFY(apply);
        QVERIFY(apply->isVisible());

        // Refused: nothing is asked of the main window.
        QString asked;
        panel.setApplyConfirmation([&](const QString &change) {
            asked = change;
            return false;
        });
        QTest::mouseClick(apply, Qt::LeftButton);
        QVERIFY(asked.contains(newEdge));
        QCOMPARE(applied.size(), 0);

        // Confirmed: the complete schedule, the day window opening (and the night ending) at
        // the new edge.
        panel.setApplyConfirmation([](const QString &) { return true; });
        QTest::mouseClick(panel.applyButton(edge), Qt::LeftButton);
        QCOMPARE(applied.size(), 1);
        const QJsonObject windows = applied.first().at(0).toJsonObject();
        QCOMPARE(windowNamed(windows, QStringLiteral("day"))
                         .value(QStringLiteral("from"))
                         .toString(),
                 newEdge);
        QCOMPARE(windowNamed(windows, QStringLiteral("night"))
                         .value(QStringLiteral("to"))
                         .toString(),
                 newEdge);
        const QJsonObject suggestion = applied.first().at(1).toJsonObject();
        QCOMPARE(suggestion.value(QStringLiteral("kind")).toString(),
                 QStringLiteral("window-edge"));
    }

    void aStoreWithoutARecordedRunIsSaidInWords()
    {
        const QString empty = m_dir.filePath(QStringLiteral("empty.sqlite"));
        {
            QString err;
            QVERIFY2(Storage::Store::open(empty, &err), qPrintable(err));
        }
        AdvicePanel panel;
        panel.setStorePath(empty);
        QSignalSpy finished(&panel, &AdvicePanel::adviceFinished);
        QTest::mouseClick(panel.lookButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kWaitMs);
        QCOMPARE(panel.status(), Status::NothingRecorded);
        QVERIFY2(panel.statusText().contains(QStringLiteral("no recorded run")),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.suggestions().isEmpty());
        QVERIFY(!panel.applyButton(0));

        // No store at all.
        AdvicePanel none;
        QSignalSpy noneFinished(&none, &AdvicePanel::adviceFinished);
        none.lookForAdvice();
        QTRY_COMPARE_WITH_TIMEOUT(noneFinished.size(), 1, kWaitMs);
        QCOMPARE(none.status(), Status::StoreUnreadable);
        QVERIFY2(none.statusText().contains(QStringLiteral("no store")),
                 qPrintable(none.statusText()));
    }
};

QTEST_MAIN(TestAdvicePanel)
#include "tst_advicepanel.moc"
