// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"

#include <QMainWindow>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QTableView;

namespace Zhaoxi::Sched {
class ClusterState;
}

namespace Zhaoxi::Models {
class CardSortModel;
class CardTableModel;
} // namespace Zhaoxi::Models

namespace Zhaoxi::Widgets {

class CardDetailsView;
class LanguageController;

// The console's main window: the appliance's cards in a table sorted by host, the selected
// card's partitions in a details pane, a summary in the status bar, and the File, View, Language
// and Help menus. Every visible string goes through tr(); the window retranslates itself on
// QEvent::LanguageChange. GUI thread only.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // `languages` drives the Language menu; nullptr leaves the menu out. Not owned; must outlive
    // the window.
    explicit MainWindow(LanguageController *languages = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Shows an appliance (or a new snapshot of the same one: rows update in place).
    void setAppliance(const QString &name, const Sched::ClusterState &state);

    // Selects a card's row and shows it in the details pane.
    void selectCard(Domain::CardId card);

    Models::CardTableModel *cardModel() const { return m_cards; }
    QTableView *cardView() const { return m_cardView; }
    CardDetailsView *detailsView() const { return m_details; }
    // The status bar's summary, e.g. "2 hosts · 12 cards · 27 partitions".
    QString summaryText() const;
    // The About box's text (version, purpose, licence).
    QString aboutText() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void createActions();
    void createMenus();
    void retranslateUi();
    void updateSummary();
    void updateLanguageActions();
    void showCurrentCard();
    void about();

    LanguageController *m_languages = nullptr;
    QString m_applianceName;
    Models::CardTableModel *m_cards = nullptr;
    Models::CardSortModel *m_sorted = nullptr;
    QTableView *m_cardView = nullptr;
    CardDetailsView *m_details = nullptr;
    QDockWidget *m_detailsDock = nullptr;
    QLabel *m_summary = nullptr;

    QMenu *m_fileMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_languageMenu = nullptr;
    QMenu *m_helpMenu = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_statusBarAction = nullptr;
    QAction *m_sortByHostAction = nullptr;
    QAction *m_aboutAction = nullptr;
    QAction *m_aboutQtAction = nullptr;
    QActionGroup *m_languageGroup = nullptr;
};

} // namespace Zhaoxi::Widgets
