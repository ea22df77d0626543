// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "carddetailsview.h"
#include "languagecontroller.h"

#include "core/models/cardsortmodel.h"
#include "core/models/cardtablemodel.h"
#include "core/sched/clusterstate.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>

#ifndef ZHAOXI_VERSION
#define ZHAOXI_VERSION "0"
#endif

namespace Zhaoxi::Widgets {

using Models::CardTableModel;

MainWindow::MainWindow(LanguageController *languages, QWidget *parent)
    : QMainWindow(parent)
    , m_languages(languages)
    , m_cards(new CardTableModel(this))
    , m_sorted(new Models::CardSortModel(this))
    , m_cardView(new QTableView(this))
    , m_details(new CardDetailsView(this))
    , m_detailsDock(new QDockWidget(this))
    , m_summary(new QLabel(this))
{
    m_sorted->setSourceModel(m_cards);

    m_cardView->setObjectName(QStringLiteral("cardView"));
    m_cardView->setModel(m_sorted);
    m_cardView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_cardView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_cardView->setAlternatingRowColors(true);
    m_cardView->setWordWrap(false);
    m_cardView->setSortingEnabled(true);
    m_cardView->sortByColumn(CardTableModel::HostColumn, Qt::AscendingOrder);
    m_cardView->verticalHeader()->hide();
    m_cardView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_cardView->horizontalHeader()->setSectionResizeMode(CardTableModel::LayoutColumn,
                                                         QHeaderView::Stretch);
    m_cardView->horizontalHeader()->setHighlightSections(false);
    setCentralWidget(m_cardView);

    m_details->setObjectName(QStringLiteral("cardDetails"));
    m_detailsDock->setObjectName(QStringLiteral("cardDetailsDock"));
    m_detailsDock->setWidget(m_details);
    m_detailsDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    addDockWidget(Qt::BottomDockWidgetArea, m_detailsDock);
    // The card table is the main view; the details pane gets what a MIG card's list needs.
    resizeDocks({m_detailsDock}, {240}, Qt::Vertical);

    m_summary->setObjectName(QStringLiteral("statusSummary"));
    statusBar()->addWidget(m_summary, 1);

    connect(m_cardView->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            &MainWindow::showCurrentCard);
    connect(m_cards, &CardTableModel::summaryChanged, this, &MainWindow::updateSummary);

    createActions();
    createMenus();
    if (m_languages) {
        connect(m_languages,
                &LanguageController::languageChanged,
                this,
                &MainWindow::updateLanguageActions);
    }
    retranslateUi();
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    m_quitAction = new QAction(this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_statusBarAction = new QAction(this);
    m_statusBarAction->setCheckable(true);
    m_statusBarAction->setChecked(true);
    connect(m_statusBarAction, &QAction::toggled, statusBar(), &QWidget::setVisible);

    m_sortByHostAction = new QAction(this);
    connect(m_sortByHostAction, &QAction::triggered, this, [this] {
        m_cardView->sortByColumn(CardTableModel::HostColumn, Qt::AscendingOrder);
    });

    m_aboutAction = new QAction(this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::about);
    m_aboutQtAction = new QAction(this);
    m_aboutQtAction->setMenuRole(QAction::AboutQtRole);
    connect(m_aboutQtAction, &QAction::triggered, qApp, &QApplication::aboutQt);

    if (m_languages) {
        m_languageGroup = new QActionGroup(this);
        m_languageGroup->setExclusive(true);
        for (const QString &code : LanguageController::languages()) {
            // Each language is listed by its own name, so it is not translated.
            auto *action = new QAction(LanguageController::nativeName(code), m_languageGroup);
            action->setCheckable(true);
            action->setData(code);
            action->setObjectName(QStringLiteral("language_") + code);
            connect(action, &QAction::triggered, this, [this, code] {
                if (!m_languages->setLanguage(code))
                    updateLanguageActions();
            });
        }
        updateLanguageActions();
    }
}

void MainWindow::createMenus()
{
    m_fileMenu = menuBar()->addMenu(QString());
    m_fileMenu->addAction(m_quitAction);

    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->addAction(m_detailsDock->toggleViewAction());
    m_viewMenu->addAction(m_statusBarAction);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_sortByHostAction);

    if (m_languageGroup) {
        m_languageMenu = menuBar()->addMenu(QString());
        m_languageMenu->addActions(m_languageGroup->actions());
    }

    m_helpMenu = menuBar()->addMenu(QString());
    m_helpMenu->addAction(m_aboutAction);
    m_helpMenu->addAction(m_aboutQtAction);
}

void MainWindow::retranslateUi()
{
    setWindowTitle(m_applianceName.isEmpty() ? tr("Zhaoxi")
                                             : tr("%1 \u2014 Zhaoxi").arg(m_applianceName));
    m_fileMenu->setTitle(tr("&File"));
    m_quitAction->setText(tr("&Quit"));
    m_viewMenu->setTitle(tr("&View"));
    m_detailsDock->setWindowTitle(tr("Card details"));
    m_detailsDock->toggleViewAction()->setText(tr("Card &Details"));
    m_statusBarAction->setText(tr("&Status Bar"));
    m_sortByHostAction->setText(tr("Sort by &Host"));
    if (m_languageMenu)
        m_languageMenu->setTitle(tr("&Language"));
    m_helpMenu->setTitle(tr("&Help"));
    m_aboutAction->setText(tr("&About Zhaoxi"));
    m_aboutQtAction->setText(tr("About &Qt"));
    m_cards->retranslate();
    updateSummary();
}

void MainWindow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QMainWindow::changeEvent(event);
}

void MainWindow::setAppliance(const QString &name, const Sched::ClusterState &state)
{
    m_applianceName = name;
    m_cards->setState(state);
    if (!m_cardView->currentIndex().isValid() && m_sorted->rowCount() > 0)
        m_cardView->selectRow(0);
    retranslateUi();
}

void MainWindow::selectCard(Domain::CardId card)
{
    const int row = m_cards->rowOf(card);
    if (row < 0)
        return;
    const QModelIndex index = m_sorted->mapFromSource(m_cards->index(row, 0));
    m_cardView->selectRow(index.row());
    m_cardView->scrollTo(index);
}

QString MainWindow::summaryText() const
{
    return tr("%n host(s)", nullptr, m_cards->hostCount()) + QStringLiteral(" \u00b7 ")
           + tr("%n card(s)", nullptr, m_cards->cardCount()) + QStringLiteral(" \u00b7 ")
           + tr("%n partition(s)", nullptr, m_cards->partitionCount());
}

void MainWindow::updateSummary()
{
    m_summary->setText(summaryText());
}

void MainWindow::updateLanguageActions()
{
    if (!m_languageGroup)
        return;
    for (QAction *action : m_languageGroup->actions())
        action->setChecked(action->data().toString() == m_languages->language());
}

void MainWindow::showCurrentCard()
{
    m_details->setCard(m_sorted->mapToSource(m_cardView->currentIndex()));
}

QString MainWindow::aboutText() const
{
    return tr("<h3>Zhaoxi %1</h3>"
              "<p>The admin console of a GPU appliance that serves inference by day and trains "
              "models by night.</p>"
              "<p>This program is free software: you can redistribute it and/or modify it under "
              "the terms of the GNU General Public License as published by the Free Software "
              "Foundation, either version 3 of the License, or (at your option) any later "
              "version (GPL-3.0-or-later).</p>"
              "<p>It is distributed in the hope that it will be useful, but WITHOUT ANY "
              "WARRANTY; see the GNU General Public License for details.</p>")
            .arg(QStringLiteral(ZHAOXI_VERSION));
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About Zhaoxi"), aboutText());
}

} // namespace Zhaoxi::Widgets
