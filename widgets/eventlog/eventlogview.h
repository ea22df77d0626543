// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/ids.h"
#include "core/models/eventlogmodel.h"

#include <QVariantMap>
#include <QWidget>

#include <optional>
#include <utility>

class QCheckBox;
class QComboBox;
class QCompleter;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QSplitter;
class QStringListModel;
class QTableView;
class QTimer;
class QToolButton;
class QAction;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

class CheckableComboBox;
class WhyView;

// The console's event log: a filter bar (time range presets or from/to in the appliance's local
// time, severities, source, card, job, code exact or "prefix*", free text with a short debounce),
// the event table (severity as an icon and a word, never colour alone) that follows the newest
// event while scrolled to the bottom, Export… (CSV or JSON Lines of exactly the rows shown,
// written off the GUI thread from the session's store), and "Why?" for the selected row's job.
//
// Fed by the client's snapshots (Snapshot::events); the events are the store's, with its ids.
// The main window passes the store's path (SimulationSession::storePath()) with setStorePath()
// and keeps filterState() in its settings. GUI thread only.
class EventLogView : public QWidget
{
    Q_OBJECT

public:
    // Time range presets; Custom uses the from/to fields.
    enum class TimePreset { All, Last15Minutes, LastHour, Last6Hours, Today, Custom };
    Q_ENUM(TimePreset)

    explicit EventLogView(Models::SessionClient *client, QWidget *parent = nullptr);
    ~EventLogView() override;

    Models::EventLogModel *model() const { return m_model; }
    Models::EventFilterModel *filterModel() const { return m_filter; }
    WhyView *whyView() const { return m_why; }
    QTableView *table() const { return m_table; }

    // The event store the session writes (exports read it through a Reader of their own).
    void setStorePath(const QString &path);
    QString storePath() const;

    // The filter bar's fields, for QSettings: keys timePreset, fromMs, toMs (custom), severities
    // and sources (stable English names), card, job, code, text.
    QVariantMap filterState() const;
    void setFilterState(const QVariantMap &state);
    void clearFilter();

    // CSV exports start with a UTF-8 byte-order mark (so Excel reads Chinese right); on by default.
    bool csvByteOrderMark() const;
    void setCsvByteOrderMark(bool on);

    // True while the table shows the newest row and scrolls along with new ones.
    bool isFollowingTail() const { return m_follow; }
    // The job of the selected row; invalid when none.
    Domain::JobId selectedJob() const;
    bool isExporting() const;

public Q_SLOTS:
    // Asks for a file and exports the rows shown.
    void exportShown();
    // Exports the rows shown to `path` without asking; false when no export could start (one is
    // running, or no store is set). The answer comes as exportFinished().
    bool exportTo(const QString &path, Storage::ExportFormat format);
    // Shows "Why?" for `job` (and the panel when hidden).
    void explainJob(Domain::JobId job);
    // Scrolls to the first event shown at or after `atMs` (appliance time, UTC ms) and selects
    // it; the log stops following its newest row. False when no event is shown.
    bool showMoment(qint64 atMs);

Q_SIGNALS:
    void jobSelected(Zhaoxi::Domain::JobId job);
    void exportFinished(const Zhaoxi::Models::EventExportResult &result);

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildUi();
    void retranslateUi();
    void onSnapshot();
    void onNamesChanged();
    void applyFilter();
    void applyTimePreset();
    // The time range of the preset chosen (from inclusive, to exclusive; UTC epoch ms), as of
    // the appliance's latest time, which it notes in m_presetNowMs.
    std::pair<std::optional<qint64>, std::optional<qint64>> timePresetRange();
    void updateStatus();
    void onExportFinished(const Models::EventExportResult &result);
    int resolveJob(const QString &text) const;
    qint64 localToUtc(const QDateTime &local) const;
    QDateTime utcToLocal(qint64 ms) const;

    Models::SessionClient *m_client;
    Models::EventLogModel *m_model;
    Models::EventFilterModel *m_filter;
    Models::EventExportJob *m_export;

    QComboBox *m_preset = nullptr;
    QDateTimeEdit *m_from = nullptr;
    QDateTimeEdit *m_to = nullptr;
    CheckableComboBox *m_severity = nullptr;
    QComboBox *m_source = nullptr;
    QComboBox *m_card = nullptr;
    QLineEdit *m_job = nullptr;
    QLineEdit *m_code = nullptr;
    QLineEdit *m_text = nullptr;
    QCheckBox *m_routine = nullptr; // routine events (forecast ramps) shown; off by default
    QToolButton *m_clear = nullptr;
    QToolButton *m_exportButton = nullptr;
    QAction *m_bomAction = nullptr;
    QToolButton *m_whyButton = nullptr;
    QLabel *m_presetLabel = nullptr;
    QLabel *m_fromLabel = nullptr;
    QLabel *m_toLabel = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_exportStatus = nullptr;
    QTableView *m_table = nullptr;
    QSplitter *m_splitter = nullptr;
    WhyView *m_why = nullptr;
    QCompleter *m_jobCompleter = nullptr;
    QStringListModel *m_jobNames = nullptr;
    QTimer *m_debounce = nullptr;
    QTimer *m_statusTimer = nullptr;

    bool m_follow = true;
    bool m_applying = false;   // setFilterState() fills the fields: one applyFilter() at the end
    qint64 m_presetNowMs = -1; // the time the relative preset was computed at
    // tr("All cards") when the card list was last built: rebuilt when the language changes.
    QString m_cardListLanguage;
};

} // namespace Zhaoxi::Widgets
