// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace Zhaoxi::Policy {
class TimeWindows;
} // namespace Zhaoxi::Policy

namespace Zhaoxi::Models {

// One window of the weekly schedule as the editor holds it (the `windows` policy's
// `windows[i]`, core/policy/timewindows.h). Times are minutes since local midnight.
struct ScheduleWindow
{
    QString name;
    quint8 days = 0x7f; // bit 0 = Monday: the days the window opens on
    int fromMinute = 0; // 0..1440
    int toMinute = 0;   // 0..1440; to < from: wraps past midnight; from == to: the whole day
    double inferenceShare = 0.5;
    std::optional<double> bandwidthShare; // unset: the policy's default
    std::optional<double> powerCapW;      // unset: the policy's default; <= 0: no cap
    // The window's object as it was read: keys the editor does not edit are written back
    // unchanged, and values it did not change keep their spelling (e.g. "days" left out).
    QJsonObject source;

    bool allDay() const { return fromMinute == toMinute; }
    // Where an occurrence starts within its day (0 for a whole-day window) and how long it
    // lasts (1440 for a whole day; 0 only for the degenerate "24:00" to "00:00").
    int effectiveFrom() const { return allDay() ? 0 : fromMinute; }
    int lengthMinutes() const;
    friend bool operator==(const ScheduleWindow &, const ScheduleWindow &) = default;
};

// The first thing wrong with a schedule (or with an edit of it). `text` is the translated
// sentence, naming the windows, e.g. "‘day’ (Mon 08:00–22:00) overlaps ‘maintenance’
// (Mon 20:00–23:00)".
struct ScheduleProblem
{
    enum class Code {
        None,
        NoWindows,    // the schedule needs at least one window
        NoSuchWindow, // an edit named a row that does not exist
        EmptyName,
        DuplicateName, // `row` and `otherRow` share a name
        NoDays,        // the window opens on no day
        BadTime,       // a time outside 00:00..24:00
        BadShare,      // a share outside 0..1
        EmptyWindow,   // it covers no time ("24:00" to "00:00")
        Overlap,       // `row`'s occurrence on `day` and `otherRow`'s on `otherDay` share a minute
        BadMode,       // mode is neither "drain" nor "immediate"
        PolicyRefused, // the headless tool's reader refused it (`field`: where)
    };
    Code code = Code::None;
    int row = -1;
    int otherRow = -1;
    int day = -1; // 0 = Monday
    int otherDay = -1;
    QString field;
    QString text;
    bool ok() const { return code == Code::None; }
};

// A time at which the window in force changes.
struct ScheduleSwitch
{
    qint64 atUtcMs = 0;
    int minuteOfWeek = 0; // local, Monday 00:00 = 0
    int fromRow = -1;     // the window in force before (-1: none, the default share)
    int toRow = -1;       // ... and after
};

// The weekly schedule of the `windows` colocation policy as an editable table, one row per
// window. Unlike the policy (where the first window that matches a time wins) the editor keeps
// the schedule free of overlaps: at most one window covers any minute of the week (wrapping past
// midnight and from Sunday to Monday). Every edit is checked whole, by the rules below and by the
// headless tool's reader (`Policy::TimeWindows::create`); a refused edit changes nothing, returns
// false and says why (`error`, `lastProblem()`, `editRefused`). Windows that touch (one ends at
// 08:00, the next starts at 08:00) do not overlap.
//
// Display texts are translated with tr(); semantic values come through the roles (no colours).
// GUI thread (the thread the model lives in) only.
class ScheduleModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        DaysColumn,
        FromColumn,
        ToColumn,
        InferenceShareColumn,
        BandwidthShareColumn,
        PowerCapColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    // Every role answers for every column of a row.
    enum Role {
        NameRole = Qt::UserRole + 1, // QString
        DaysRole,                    // int: bit 0 = Monday
        FromMinuteRole,              // int: 0..1440
        ToMinuteRole,                // int: 0..1440
        LengthMinutesRole,           // int: one occurrence's length
        AllDayRole,                  // bool: from == to
        WrapsRole,                   // bool: an occurrence runs past midnight
        InferenceShareRole,          // double 0..1
        BandwidthShareRole,          // double 0..1; invalid QVariant: the policy's default
        PowerCapWRole,               // double (<= 0: no cap); invalid QVariant: the default
        SortRole,                    // the column's natural sort key
    };
    Q_ENUM(Role)

    static constexpr int kMinutesPerDay = 1440;
    static constexpr int kMinutesPerWeek = 7 * 1440;

    explicit ScheduleModel(QObject *parent = nullptr);

    // Loads the `windows` policy's parameters. All or nothing: on a schedule the headless tool
    // refuses, or one with overlapping windows, returns false with the reason and keeps the
    // model as it was.
    bool fromJson(const QJsonObject &windowsParams, QString *error = nullptr);
    // The parameters: the ones loaded, with the windows and mode as edited.
    QJsonObject toJson() const;

    // The first problem of the schedule as it is (ok() once loaded: edits keep it so).
    ScheduleProblem validate() const;
    // Would the schedule be fine with `candidate` as row `row` (row == rowCount(): added)?
    ScheduleProblem checkWindow(int row, const ScheduleWindow &candidate) const;
    ScheduleProblem noSuchWindow(int row) const;

    const QList<ScheduleWindow> &windows() const { return m_windows; }
    ScheduleWindow window(int row) const { return m_windows.value(row); }
    int rowOfName(const QString &name) const;
    QString mode() const; // "drain" | "immediate"
    double defaultInferenceShare() const;

    // Edits. Each is checked whole; false (and nothing changed) when refused.
    bool setWindow(int row, const ScheduleWindow &window, QString *error = nullptr);
    bool insertWindow(int row, const ScheduleWindow &window, QString *error = nullptr);
    bool removeWindow(int row, QString *error = nullptr);
    // Moves the window so that its occurrence opening on `occurrenceDay` (0 = Monday; -1: its
    // first day) opens at `newFromMinuteOfWeek`; its other days move with it, the length stays.
    // A whole-day window moves by whole days (the nearest).
    bool moveWindow(int row,
                    int newFromMinuteOfWeek,
                    QString *error = nullptr,
                    int occurrenceDay = -1);
    // New times of day for the window (its days stay).
    bool resizeWindow(int row, int fromMinute, int toMinute, QString *error = nullptr);
    bool setMode(const QString &mode, QString *error = nullptr);
    // The window moveWindow() would make (not checked).
    static ScheduleWindow moved(const ScheduleWindow &window,
                                int newFromMinuteOfWeek,
                                int occurrenceDay = -1);
    ScheduleProblem lastProblem() const { return m_lastProblem; }

    // The window in force at a local minute of the week (-1: none), as the policy decides it.
    int windowAtMinute(int minuteOfWeek) const;
    // The next `count` times after `nowUtcMs` at which the window in force changes, in order,
    // for an appliance at `utcOffsetSeconds` from UTC. Empty when it never changes.
    QList<ScheduleSwitch> nextSwitches(qint64 nowUtcMs, int utcOffsetSeconds, int count) const;
    // The local minute of the week (Monday 00:00 = 0) of a UTC time.
    static int minuteOfWeek(qint64 utcMs, int utcOffsetSeconds);

    // Words shared with the views.
    static QString dayName(int day);      // "Mon"
    static QString timeText(int minute);  // "07:00", "24:00"
    static QString daysText(quint8 days); // "every day", "Mon–Fri", "Mon, Wed"
    // One occurrence: "Mon 08:00–22:00", "Sat all day".
    static QString occurrenceText(const ScheduleWindow &window, int day);
    static QString shareText(double share); // "65 %"
    // Re-announces headers and display texts after the application's language changed.
    void retranslate();

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section,
                        Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    // Anything changed: a window, the rows, the mode, or a load.
    void scheduleChanged();
    // An edit was refused; `reason` is the translated sentence.
    void editRefused(const QString &reason);

private:
    // `policy`, when given, receives the schedule as the policy reads it (set only when ok).
    ScheduleProblem check(const QList<ScheduleWindow> &windows,
                          const QJsonObject &params,
                          int focus,
                          std::shared_ptr<const Policy::TimeWindows> *policy = nullptr) const;
    bool refuse(const ScheduleProblem &problem, QString *error);
    bool accept(QString *error);
    // Takes the policy check() built for the schedule now held, and forgets what was computed
    // from the one before.
    void adopt(std::shared_ptr<const Policy::TimeWindows> policy);
    QVariant displayData(const ScheduleWindow &w, int column) const;

    QList<ScheduleWindow> m_windows;
    QJsonObject m_params; // everything but "windows"
    ScheduleProblem m_lastProblem;
    // The schedule held, as the policy reads it (null while nothing is loaded).
    std::shared_ptr<const Policy::TimeWindows> m_policy;

    // nextSwitches(): the window in force at each minute of the week (empty: not built yet),
    // and the last answer, which holds until the local minute or the schedule changes.
    struct SwitchCache
    {
        bool valid = false;
        qint64 minuteStartMs = 0; // the start of the local minute asked about (local epoch ms)
        int utcOffsetSeconds = 0;
        int count = 0;
        QList<ScheduleSwitch> switches;
    };
    mutable std::vector<int> m_owner;
    mutable SwitchCache m_switchCache;
};

} // namespace Zhaoxi::Models

Q_DECLARE_METATYPE(Zhaoxi::Models::ScheduleWindow)
