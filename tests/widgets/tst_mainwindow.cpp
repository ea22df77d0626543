// SPDX-License-Identifier: GPL-3.0-or-later
// The console's main window on the offscreen platform: it shows the demo appliance, follows the
// selection in its details pane, and switches language at run time.
#include "core/catalogue/catalogue.h"
#include "core/models/cardtablemodel.h"
#include "core/sched/appliancefile.h"
#include "widgets/carddetailsview.h"
#include "widgets/languagecontroller.h"
#include "widgets/mainwindow.h"

#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace Zhaoxi;
using Models::CardTableModel;
using Widgets::LanguageController;
using Widgets::MainWindow;

namespace {

Sched::Appliance demo()
{
    static const Catalogue::Catalogue catalogue = Catalogue::Catalogue::builtIn();
    Sched::ApplianceError error;
    const std::optional<Sched::Appliance> a = Sched::loadApplianceFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json"), catalogue, &error);
    if (!a)
        qFatal("demo appliance: %s", qPrintable(error.toString()));
    return *a;
}

QStringList menuTitles(const MainWindow &w)
{
    QStringList titles;
    for (const QAction *a : w.menuBar()->actions())
        titles << a->text();
    return titles;
}

QString header(const MainWindow &w, int column)
{
    return w.cardView()->model()->headerData(column, Qt::Horizontal).toString();
}

QAction *languageAction(const MainWindow &w, const QString &code)
{
    return w.findChild<QAction *>(QStringLiteral("language_") + code);
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsTheAppliance();
    void detailsFollowTheSelection();
    void switchesLanguageAndBack();
    void aboutNamesTheLicence();
    void newSnapshotKeepsTheSelection();
};

void TestMainWindow::showsTheAppliance()
{
    LanguageController languages;
    MainWindow w(&languages);
    const Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    QCOMPARE(w.cardView()->model()->rowCount(), 12);
    QCOMPARE(w.summaryText(), QStringLiteral("2 hosts \u00b7 12 cards \u00b7 22 partitions"));
    const auto *status = w.findChild<QLabel *>(QStringLiteral("statusSummary"));
    QVERIFY(status);
    QCOMPARE(status->text(), w.summaryText());
    QVERIFY(w.windowTitle().contains(a.name));
    QCOMPARE(menuTitles(w), (QStringList{"&File", "&View", "&Language", "&Help"}));

    // Sorted by host, in the appliance's host order, each host's cards in order.
    const QAbstractItemModel *view = w.cardView()->model();
    QCOMPARE(view->index(0, CardTableModel::HostColumn).data().toString(),
             QStringLiteral("dgx-h200"));
    QCOMPARE(view->index(7, CardTableModel::CardColumn).data().toString(), QStringLiteral("GPU 7"));
    QCOMPARE(view->index(8, CardTableModel::HostColumn).data().toString(),
             QStringLiteral("ada-edge"));
    QCOMPARE(w.cardView()->horizontalHeader()->sortIndicatorSection(),
             int(CardTableModel::HostColumn));
}

void TestMainWindow::detailsFollowTheSelection()
{
    MainWindow w; // without a language controller: no Language menu
    QCOMPARE(menuTitles(w), (QStringList{"&File", "&View", "&Help"}));
    const Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    const auto *partitions
            = w.detailsView()->findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    const auto *title = w.detailsView()->findChild<QLabel *>(QStringLiteral("cardTitle"));
    QVERIFY(partitions && title);

    // The first row is selected from the start: a whole card, one partition.
    QCOMPARE(title->text(), QStringLiteral("dgx-h200 \u00b7 GPU 0"));
    QCOMPARE(partitions->topLevelItemCount(), 1);
    QCOMPARE(partitions->topLevelItem(0)->text(0), QStringLiteral("Whole card"));

    w.selectCard(Domain::CardId(7)); // seven 1g.18gb instances
    QCOMPARE(title->text(), QStringLiteral("dgx-h200 \u00b7 GPU 7"));
    QCOMPARE(partitions->topLevelItemCount(), 7);
    QCOMPARE(partitions->topLevelItem(6)->text(0), QStringLiteral("1g.18gb at slot 6"));
    QCOMPARE(partitions->topLevelItem(6)->text(1), QStringLiteral("1 of 7 slices"));
    QCOMPARE(partitions->topLevelItem(6)->text(3), QStringLiteral("idle"));

    w.selectCard(Domain::CardId(9)); // time-slicing, no clients
    QCOMPARE(title->text(), QStringLiteral("ada-edge \u00b7 GPU 1"));
    QCOMPARE(partitions->topLevelItemCount(), 1);
    QCOMPARE(partitions->topLevelItem(0)->text(0), QStringLiteral("No clients"));
}

void TestMainWindow::switchesLanguageAndBack()
{
    LanguageController languages;
    MainWindow w(&languages);
    const Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(languageAction(w, QStringLiteral("en"))->isChecked());

    languageAction(w, QStringLiteral("zh_CN"))->trigger();
    QCOMPARE(languages.language(), QStringLiteral("zh_CN"));
    QVERIFY(languageAction(w, QStringLiteral("zh_CN"))->isChecked());
    QVERIFY(!languageAction(w, QStringLiteral("en"))->isChecked());
    // Qt posts QEvent::LanguageChange; the window retranslates when it arrives.
    QTRY_COMPARE(menuTitles(w).value(0), QStringLiteral("\u6587\u4ef6(&F)"));        // 文件(&F)
    QCOMPARE(header(w, CardTableModel::HostColumn), QStringLiteral("\u4e3b\u673a")); // 主机
    QCOMPARE(header(w, CardTableModel::LinkDomainColumn),
             QStringLiteral("\u94fe\u8def\u57df")); // 链路域
    QCOMPARE(w.summaryText(),
             QStringLiteral(
                     "2 \u53f0\u4e3b\u673a \u00b7 12 \u5f20\u5361 \u00b7 22 \u4e2a\u5206\u533a"));
    QVERIFY(w.windowTitle().contains(QStringLiteral("\u671d\u5915"))); // 朝夕
    QCOMPARE(w.cardView()->model()->index(0, CardTableModel::ModeColumn).data().toString(),
             QStringLiteral("\u6574\u5361")); // 整卡
    // The language names stay in their own language.
    QCOMPARE(languageAction(w, QStringLiteral("en"))->text(), QStringLiteral("English"));

    languageAction(w, QStringLiteral("en"))->trigger();
    QCOMPARE(languages.language(), QStringLiteral("en"));
    QTRY_COMPARE(menuTitles(w).value(0), QStringLiteral("&File"));
    QCOMPARE(header(w, CardTableModel::HostColumn), QStringLiteral("Host"));
    QCOMPARE(w.summaryText(), QStringLiteral("2 hosts \u00b7 12 cards \u00b7 22 partitions"));
    QCOMPARE(w.cardView()->model()->index(0, CardTableModel::ModeColumn).data().toString(),
             QStringLiteral("Whole card"));

    QVERIFY(!languages.setLanguage(QStringLiteral("fr")));
    QCOMPARE(languages.language(), QStringLiteral("en"));
}

void TestMainWindow::aboutNamesTheLicence()
{
    MainWindow w;
    QVERIFY(w.aboutText().contains(QStringLiteral("GPL-3.0-or-later")));
    QVERIFY(w.aboutText().contains(QStringLiteral("Zhaoxi")));
}

void TestMainWindow::newSnapshotKeepsTheSelection()
{
    MainWindow w;
    Sched::Appliance a = demo();
    w.setAppliance(a.name, a.state);
    w.selectCard(Domain::CardId(5));
    const auto *partitions
            = w.detailsView()->findChild<QTreeWidget *>(QStringLiteral("partitionList"));
    QCOMPARE(partitions->topLevelItemCount(), 3);

    Domain::WorkloadSpec spec;
    spec.name = QStringLiteral("chat-7b");
    const Domain::JobId job = a.state.addJob(spec, 0);
    a.state.attachHost(job, Domain::HostId(0));
    Sched::UnitChoice choice;
    choice.card = Domain::CardId(5);
    choice.uid = a.state.card(Domain::CardId(5)).units[1].uid;
    a.state.bind(job, choice);
    w.setAppliance(a.name, a.state);

    QCOMPARE(w.cardView()->currentIndex().data(CardTableModel::CardIdRole).toInt(), 5);
    QCOMPARE(partitions->topLevelItem(1)->text(3), QStringLiteral("chat-7b"));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
