// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventlogview.h"

#include "eventtext.h"
#include "whyview.h"

#include "core/models/sessionclient.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDateTimeEdit>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStringListModel>
#include <QStylePainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <climits>
#include <functional>
#include <tuple>

namespace Zhaoxi::Widgets {

using Models::EventCriteria;
using Models::EventLogModel;
using Storage::Severity;
using Storage::Source;

namespace {

constexpr Severity kSeverities[]
        = {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical};
constexpr Source kSources[]
        = {Source::Scheduler, Source::Policy, Source::Device, Source::Operator, Source::System};
// The presets as QSettings spells them, in TimePreset order.
const char *const kPresetIds[] = {"all", "15m", "1h", "6h", "today", "custom"};
constexpr int kDebounceMs = 250;

QIcon severityIcon(const QStyle *style, Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return style->standardIcon(QStyle::SP_MessageBoxInformation);
    case Severity::Warning:
        return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case Severity::Error:
    case Severity::Critical:
        return style->standardIcon(QStyle::SP_MessageBoxCritical);
    }
    return {};
}

// The severity column: its icon beside its word (the model has no icons; HOUSE_STYLE 8).
class SeverityDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const QStyle *style = option->widget ? option->widget->style() : nullptr;
        if (!style)
            return;
        option->icon
                = severityIcon(style, Severity(index.data(EventLogModel::SeverityRole).toInt()));
        option->features |= QStyleOptionViewItem::HasDecoration;
        const int size = style->pixelMetric(QStyle::PM_SmallIconSize, nullptr, option->widget);
        option->decorationSize = QSize(size, size);
    }
};

} // namespace

// A combo box whose items are check boxes; the popup stays open while they are toggled and the
// box shows a summary ("All severities" or the checked ones).
class CheckableComboBox : public QComboBox
{
public:
    explicit CheckableComboBox(QWidget *parent = nullptr)
        : QComboBox(parent)
        , m_items(new QStandardItemModel(this))
    {
        setModel(m_items);
        view()->viewport()->installEventFilter(this);
        view()->installEventFilter(this);
        setSizeAdjustPolicy(QComboBox::AdjustToContents);
    }

    std::function<void()> changed;

    void addCheckItem(const QIcon &icon, const QString &text, const QVariant &value)
    {
        auto *item = new QStandardItem(icon, text);
        item->setData(value, Qt::UserRole);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setData(Qt::Unchecked, Qt::CheckStateRole);
        m_items->appendRow(item);
    }
    void setItemLabel(int row, const QString &text) { m_items->item(row)->setText(text); }
    void setEmptySummary(const QString &text)
    {
        m_empty = text;
        update();
    }
    QList<QVariant> checkedData() const
    {
        QList<QVariant> r;
        for (int i = 0; i < m_items->rowCount(); ++i) {
            if (m_items->item(i)->checkState() == Qt::Checked)
                r << m_items->item(i)->data(Qt::UserRole);
        }
        return r;
    }
    void setCheckedData(const QList<QVariant> &values)
    {
        for (int i = 0; i < m_items->rowCount(); ++i) {
            QStandardItem *item = m_items->item(i);
            item->setCheckState(values.contains(item->data(Qt::UserRole)) ? Qt::Checked
                                                                          : Qt::Unchecked);
        }
        update();
    }
    QString summary() const
    {
        QStringList checked;
        for (int i = 0; i < m_items->rowCount(); ++i) {
            if (m_items->item(i)->checkState() == Qt::Checked)
                checked << m_items->item(i)->text();
        }
        // None checked filters nothing: the same as all.
        if (checked.isEmpty() || checked.size() == m_items->rowCount())
            return m_empty;
        return checked.join(QStringLiteral(", "));
    }
    void toggle(int row)
    {
        QStandardItem *item = m_items->item(row);
        if (!item)
            return;
        item->setCheckState(item->checkState() == Qt::Checked ? Qt::Unchecked : Qt::Checked);
        update();
        if (changed)
            changed();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == view()->viewport() && event->type() == QEvent::MouseButtonPress)
            m_pressedInPopup = true;
        if (watched == view()->viewport() && event->type() == QEvent::MouseButtonRelease) {
            // The release of the click that opened the popup lands on an item too: only a click
            // made inside the open popup toggles.
            const auto *me = static_cast<QMouseEvent *>(event);
            const QModelIndex index = view()->indexAt(me->position().toPoint());
            if (index.isValid() && m_pressedInPopup)
                toggle(index.row());
            m_pressedInPopup = false;
            return true; // keep the popup open
        }
        if (watched == view() && event->type() == QEvent::KeyPress) {
            const auto *ke = static_cast<QKeyEvent *>(event);
            if (ke->key() == Qt::Key_Space || ke->key() == Qt::Key_Return
                || ke->key() == Qt::Key_Enter) {
                toggle(view()->currentIndex().row());
                return true;
            }
        }
        return QComboBox::eventFilter(watched, event);
    }
    void showPopup() override
    {
        m_pressedInPopup = false;
        QComboBox::showPopup();
    }
    void paintEvent(QPaintEvent *) override
    {
        QStylePainter painter(this);
        painter.setPen(palette().color(QPalette::Text));
        QStyleOptionComboBox option;
        initStyleOption(&option);
        option.currentText = summary();
        option.currentIcon = QIcon();
        painter.drawComplexControl(QStyle::CC_ComboBox, option);
        painter.drawControl(QStyle::CE_ComboBoxLabel, option);
    }
    QSize sizeHint() const override
    {
        QSize s = QComboBox::sizeHint();
        s.setWidth(std::max(s.width(), fontMetrics().horizontalAdvance(m_empty) + 48));
        return s;
    }

private:
    QStandardItemModel *m_items;
    QString m_empty;
    bool m_pressedInPopup = false;
};

EventLogView::EventLogView(Models::SessionClient *client, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_model(new EventLogModel(this))
    , m_filter(new Models::EventFilterModel(this))
    , m_export(new Models::EventExportJob(this))
{
    m_model->setMessageFunction(
            Models::NamedMessageFn([](const Storage::Event &e, const Models::EventNames &n) {
                return eventMessage(e, n);
            }));
    m_filter->setSourceModel(m_model);
    buildUi();
    retranslateUi();
    connect(m_model, &EventLogModel::namesChanged, this, &EventLogView::onNamesChanged);
    connect(m_export, &Models::EventExportJob::finished, this, &EventLogView::onExportFinished);
    if (m_client) {
        connect(m_client, &Models::SessionClient::snapshotChanged, this, &EventLogView::onSnapshot);
        if (m_client->snapshot())
            onSnapshot();
    }
    applyFilter();
}

EventLogView::~EventLogView() = default;

void EventLogView::buildUi()
{
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &EventLogView::applyFilter);
    m_statusTimer = new QTimer(this);
    m_statusTimer->setSingleShot(true);
    m_statusTimer->setInterval(0);
    connect(m_statusTimer, &QTimer::timeout, this, &EventLogView::updateStatus);

    // The filter bar, two rows.
    m_presetLabel = new QLabel(this);
    m_preset = new QComboBox(this);
    for (int i = 0; i < int(std::size(kPresetIds)); ++i)
        m_preset->addItem(QString(), i);
    m_presetLabel->setBuddy(m_preset);
    m_fromLabel = new QLabel(this);
    m_from = new QDateTimeEdit(this);
    m_toLabel = new QLabel(this);
    m_to = new QDateTimeEdit(this);
    for (QDateTimeEdit *e : {m_from, m_to}) {
        e->setTimeSpec(Qt::UTC); // the appliance's local wall time, kept as a naive value
        e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        e->setCalendarPopup(true);
    }
    m_fromLabel->setBuddy(m_from);
    m_toLabel->setBuddy(m_to);
    m_severity = new CheckableComboBox(this);
    m_severity->setObjectName(QStringLiteral("severity"));
    for (Severity s : kSeverities)
        m_severity->addCheckItem(severityIcon(style(), s), QString(), int(s));
    m_source = new QComboBox(this);
    m_source->addItem(QString(), -1);
    for (Source s : kSources)
        m_source->addItem(QString(), int(s));
    m_card = new QComboBox(this);
    m_card->addItem(QString(), -1);
    m_card->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_job = new QLineEdit(this);
    m_job->setClearButtonEnabled(true);
    m_jobNames = new QStringListModel(this);
    m_jobCompleter = new QCompleter(m_jobNames, this);
    m_jobCompleter->setCaseSensitivity(Qt::CaseInsensitive);
    m_jobCompleter->setFilterMode(Qt::MatchContains);
    m_job->setCompleter(m_jobCompleter);
    m_code = new QLineEdit(this);
    m_code->setClearButtonEnabled(true);
    m_text = new QLineEdit(this);
    m_text->setClearButtonEnabled(true);
    m_routine = new QCheckBox(this);
    m_routine->setObjectName(QStringLiteral("showRoutine"));
    m_clear = new QToolButton(this);
    m_exportButton = new QToolButton(this);
    m_exportButton->setPopupMode(QToolButton::MenuButtonPopup);
    auto *exportMenu = new QMenu(m_exportButton);
    m_bomAction = exportMenu->addAction(QString());
    m_bomAction->setCheckable(true);
    m_bomAction->setChecked(true);
    m_exportButton->setMenu(exportMenu);
    m_whyButton = new QToolButton(this);
    m_whyButton->setCheckable(true);
    m_whyButton->setEnabled(false);
    m_status = new QLabel(this);
    m_exportStatus = new QLabel(this);
    m_exportStatus->setTextFormat(Qt::PlainText);

    auto *row1 = new QHBoxLayout;
    row1->addWidget(m_presetLabel);
    row1->addWidget(m_preset);
    row1->addWidget(m_fromLabel);
    row1->addWidget(m_from);
    row1->addWidget(m_toLabel);
    row1->addWidget(m_to);
    row1->addWidget(m_severity);
    row1->addWidget(m_source);
    row1->addWidget(m_card);
    row1->addWidget(m_routine);
    row1->addStretch(1);
    auto *row2 = new QHBoxLayout;
    row2->addWidget(m_job, 2);
    row2->addWidget(m_code, 2);
    row2->addWidget(m_text, 3);
    row2->addWidget(m_clear);
    row2->addWidget(m_whyButton);
    row2->addWidget(m_exportButton);
    auto *row3 = new QHBoxLayout;
    row3->addWidget(m_status);
    row3->addStretch(1);
    row3->addWidget(m_exportStatus);

    m_table = new QTableView(this);
    m_table->setModel(m_filter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setItemDelegateForColumn(EventLogModel::SeverityColumn, new SeverityDelegate(m_table));
    m_table->verticalHeader()->hide();
    // Fixed row heights: the table never measures 100,000 rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    const int em = m_table->fontMetrics().horizontalAdvance(QLatin1Char('M'));
    // The whole stamp, seconds included (12 em cut them off).
    m_table->setColumnWidth(
            EventLogModel::TimeColumn,
            m_table->fontMetrics().horizontalAdvance(QStringLiteral("0000-00-00 00:00:00")) + em);
    m_table->setColumnWidth(EventLogModel::SeverityColumn, 7 * em);
    m_table->setColumnWidth(EventLogModel::SourceColumn, 6 * em);
    m_table->setColumnWidth(EventLogModel::CodeColumn, 10 * em);
    m_table->setColumnWidth(EventLogModel::CardColumn, 8 * em);
    m_table->setColumnWidth(EventLogModel::JobColumn, 8 * em);

    m_why = new WhyView(m_client, this);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->addWidget(m_table);
    m_splitter->addWidget(m_why);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    m_why->hide();

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row1);
    layout->addLayout(row2);
    layout->addWidget(m_splitter, 1);
    layout->addLayout(row3);

    // Follow the newest row while the table is scrolled to the bottom.
    QScrollBar *bar = m_table->verticalScrollBar();
    connect(bar, &QScrollBar::valueChanged, this, [this, bar](int value) {
        m_follow = value >= bar->maximum();
    });
    connect(bar, &QScrollBar::rangeChanged, this, [this, bar](int, int max) {
        if (m_follow)
            bar->setValue(max);
    });

    connect(m_preset, &QComboBox::currentIndexChanged, this, [this] {
        const bool custom = TimePreset(m_preset->currentData().toInt()) == TimePreset::Custom;
        if (custom && !m_applying) {
            // Start from what the log holds.
            const auto span = m_model->timeRange();
            const qint64 now = m_model->latestNowMs();
            m_from->setDateTime(utcToLocal(span ? span->first : now));
            m_to->setDateTime(utcToLocal((span ? std::max(span->second, now) : now) + 1000));
        }
        m_from->setEnabled(custom);
        m_to->setEnabled(custom);
        if (!m_applying)
            applyFilter();
    });
    for (QDateTimeEdit *e : {m_from, m_to})
        connect(e, &QDateTimeEdit::dateTimeChanged, this, [this] {
            if (!m_applying)
                m_debounce->start();
        });
    m_severity->changed = [this] {
        if (!m_applying)
            applyFilter();
    };
    for (QComboBox *c : {m_source, m_card})
        connect(c, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_applying)
                applyFilter();
        });
    connect(m_routine, &QCheckBox::toggled, this, [this] {
        if (!m_applying)
            applyFilter();
    });
    for (QLineEdit *e : {m_job, m_code, m_text})
        connect(e, &QLineEdit::textChanged, this, [this] {
            if (!m_applying)
                m_debounce->start();
        });
    connect(m_clear, &QToolButton::clicked, this, &EventLogView::clearFilter);
    connect(m_exportButton, &QToolButton::clicked, this, &EventLogView::exportShown);
    connect(m_whyButton, &QToolButton::toggled, this, [this](bool on) {
        m_why->setVisible(on);
        if (on)
            m_why->setJob(selectedJob());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        const Domain::JobId job = selectedJob();
        m_whyButton->setEnabled(job.isValid() || m_whyButton->isChecked());
        if (m_why->isVisible())
            m_why->setJob(job);
        Q_EMIT jobSelected(job);
    });
    // The count of rows shown, once per burst of changes.
    const auto status = [this] { m_statusTimer->start(); };
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, status);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, status);
    connect(m_filter, &QAbstractItemModel::modelReset, this, status);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, status);
    m_from->setEnabled(false);
    m_to->setEnabled(false);
}

void EventLogView::retranslateUi()
{
    m_presetLabel->setText(tr("&Time:"));
    const QString presets[] = {tr("All"),
                               tr("Last 15 minutes"),
                               tr("Last hour"),
                               tr("Last 6 hours"),
                               tr("Today"),
                               tr("Custom range")};
    for (int i = 0; i < m_preset->count(); ++i)
        m_preset->setItemText(i, presets[i]);
    m_fromLabel->setText(tr("&From:"));
    m_toLabel->setText(tr("T&o:"));
    m_from->setToolTip(tr("From this time (the appliance's local time), inclusive"));
    m_to->setToolTip(tr("Up to this time (the appliance's local time), exclusive"));
    for (int i = 0; i < int(std::size(kSeverities)); ++i)
        m_severity->setItemLabel(i, EventLogModel::severityText(kSeverities[i]));
    m_severity->setEmptySummary(tr("All severities"));
    m_severity->setToolTip(tr("Severities to show"));
    m_source->setItemText(0, tr("All sources"));
    for (int i = 0; i < int(std::size(kSources)); ++i)
        m_source->setItemText(i + 1, EventLogModel::sourceText(kSources[i]));
    m_source->setToolTip(tr("Source of the events"));
    m_card->setItemText(0, tr("All cards"));
    m_card->setToolTip(tr("Events about one card"));
    m_job->setPlaceholderText(tr("Job name or #id"));
    m_job->setToolTip(tr("Events about one job"));
    m_code->setPlaceholderText(tr("Code, e.g. job-placed or job-*"));
    m_code->setToolTip(tr("An event code; end it with * to match every code that starts so"));
    m_text->setPlaceholderText(tr("Search the messages"));
    m_routine->setText(tr("Routine"));
    m_routine->setToolTip(tr("Also show routine events (the forecast's ramps): many a day, "
                             "informational. A code typed in the filter shows its events anyway."));
    m_text->setToolTip(tr("Shows events whose message or code contains this text (any case)"));
    m_clear->setText(tr("Clear filter"));
    m_exportButton->setText(tr("Export…"));
    m_exportButton->setToolTip(tr("Save the events shown as CSV or JSON Lines"));
    m_bomAction->setText(tr("Start CSV files with a byte-order mark (for Excel)"));
    m_whyButton->setText(tr("Why?"));
    m_whyButton->setToolTip(tr("Explain the selected job: why it waits, why it runs there, or why "
                               "it was preempted"));
    m_model->retranslate();
    onNamesChanged();
    updateStatus();
}

void EventLogView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void EventLogView::onSnapshot()
{
    const Session::SnapshotPtr s = m_client->snapshot();
    if (!s)
        return;
    m_model->appendSnapshot(*s);
    // Relative presets move with the appliance's clock; a minute's step is fine enough and
    // spares refiltering on every snapshot.
    const auto preset = TimePreset(m_preset->currentData().toInt());
    if (preset != TimePreset::All && preset != TimePreset::Custom
        && std::abs(s->nowMs - m_presetNowMs) >= 60'000)
        applyTimePreset();
}

void EventLogView::onNamesChanged()
{
    const std::shared_ptr<const Models::EventNames> names = m_model->names();
    // The card list: rebuilt when the appliance's cards change (or the language).
    if (m_card->count() - 1 != names->cards.size() || m_cardListLanguage != tr("All cards")) {
        const int current = m_card->currentData().toInt();
        const bool was = m_applying;
        m_applying = true;
        while (m_card->count() > 1)
            m_card->removeItem(1);
        for (int c = 0; c < names->cards.size(); ++c)
            m_card->addItem(m_model->cardText(c), c);
        m_card->setCurrentIndex(std::max(0, m_card->findData(current)));
        m_cardListLanguage = tr("All cards");
        m_applying = was;
    }
    if (m_jobNames->rowCount() != names->jobs.size())
        m_jobNames->setStringList(names->jobs);
    // A job typed before the appliance knew it.
    if (!m_job->text().trimmed().isEmpty() && resolveJob(m_job->text()) != m_filter->criteria().job)
        m_debounce->start();
}

int EventLogView::resolveJob(const QString &text) const
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return -1;
    const std::shared_ptr<const Models::EventNames> names = m_model->names();
    const qsizetype byName = names->jobs.indexOf(t);
    if (byName >= 0)
        return int(byName);
    QString digits = t;
    if (digits.startsWith(QLatin1Char('#')))
        digits.remove(0, 1);
    bool ok = false;
    const int id = digits.toInt(&ok);
    if (ok && id >= 0)
        return id;
    return -2; // no such job: nothing matches
}

qint64 EventLogView::localToUtc(const QDateTime &local) const
{
    return local.toMSecsSinceEpoch() - qint64(m_model->utcOffsetSeconds()) * 1000;
}

QDateTime EventLogView::utcToLocal(qint64 ms) const
{
    return QDateTime::fromMSecsSinceEpoch(ms + qint64(m_model->utcOffsetSeconds()) * 1000, Qt::UTC);
}

void EventLogView::applyTimePreset()
{
    const auto [from, to] = timePresetRange();
    m_filter->setTimeRange(from, to);
}

std::pair<std::optional<qint64>, std::optional<qint64>> EventLogView::timePresetRange()
{
    const qint64 now = m_model->latestNowMs();
    m_presetNowMs = now;
    std::optional<qint64> from, to;
    switch (TimePreset(m_preset->currentData().toInt())) {
    case TimePreset::All:
        break;
    case TimePreset::Last15Minutes:
        from = now - 15 * 60'000;
        break;
    case TimePreset::LastHour:
        from = now - 3'600'000;
        break;
    case TimePreset::Last6Hours:
        from = now - 6 * 3'600'000;
        break;
    case TimePreset::Today: {
        const qint64 offsetMs = qint64(m_model->utcOffsetSeconds()) * 1000;
        const qint64 local = now + offsetMs;
        const qint64 day = local >= 0 ? local / 86'400'000 : (local - 86'399'999) / 86'400'000;
        from = day * 86'400'000 - offsetMs;
        break;
    }
    case TimePreset::Custom:
        from = localToUtc(m_from->dateTime());
        to = localToUtc(m_to->dateTime());
        break;
    }
    return {from, to};
}

void EventLogView::applyFilter()
{
    m_debounce->stop();
    EventCriteria c = m_filter->criteria();
    c.severities.clear();
    for (const QVariant &v : m_severity->checkedData())
        c.severities << Severity(v.toInt());
    if (c.severities.size() == int(std::size(kSeverities)))
        c.severities.clear();
    c.sources.clear();
    if (const int s = m_source->currentData().toInt(); s >= 0)
        c.sources << Source(s);
    c.card = m_card->currentData().toInt();
    c.job = resolveJob(m_job->text());
    QString code = m_code->text().trimmed();
    c.codeMatch = EventCriteria::CodeMatch::Exact;
    if (code.endsWith(QLatin1Char('*'))) {
        code.chop(1);
        c.codeMatch = EventCriteria::CodeMatch::Prefix;
    }
    c.code = code;
    c.text = m_text->text().trimmed();
    c.showRoutine = m_routine->isChecked();
    // The time range too, so that the rows are filtered once.
    std::tie(c.fromMs, c.toMs) = timePresetRange();
    m_filter->setCriteria(c);
    updateStatus();
}

void EventLogView::clearFilter()
{
    setFilterState({});
}

QVariantMap EventLogView::filterState() const
{
    QVariantMap m;
    const auto preset = TimePreset(m_preset->currentData().toInt());
    m.insert(QStringLiteral("timePreset"), QLatin1String(kPresetIds[int(preset)]));
    if (preset == TimePreset::Custom) {
        m.insert(QStringLiteral("fromMs"), localToUtc(m_from->dateTime()));
        m.insert(QStringLiteral("toMs"), localToUtc(m_to->dateTime()));
    }
    QStringList severities;
    for (const QVariant &v : m_severity->checkedData())
        severities << QLatin1String(Storage::toString(Severity(v.toInt())));
    m.insert(QStringLiteral("severities"), severities);
    QStringList sources;
    if (const int s = m_source->currentData().toInt(); s >= 0)
        sources << QLatin1String(Storage::toString(Source(s)));
    m.insert(QStringLiteral("sources"), sources);
    m.insert(QStringLiteral("card"), m_card->currentData().toInt());
    m.insert(QStringLiteral("job"), m_job->text());
    m.insert(QStringLiteral("code"), m_code->text());
    m.insert(QStringLiteral("text"), m_text->text());
    m.insert(QStringLiteral("routine"), m_routine->isChecked());
    return m;
}

void EventLogView::setFilterState(const QVariantMap &state)
{
    m_applying = true;
    const QString preset = state.value(QStringLiteral("timePreset")).toString();
    int presetIndex = 0;
    for (int i = 0; i < int(std::size(kPresetIds)); ++i) {
        if (preset == QLatin1String(kPresetIds[i]))
            presetIndex = i;
    }
    m_preset->setCurrentIndex(m_preset->findData(presetIndex));
    const bool custom = TimePreset(presetIndex) == TimePreset::Custom;
    m_from->setEnabled(custom);
    m_to->setEnabled(custom);
    if (custom) {
        m_from->setDateTime(utcToLocal(state.value(QStringLiteral("fromMs")).toLongLong()));
        m_to->setDateTime(utcToLocal(state.value(QStringLiteral("toMs")).toLongLong()));
    }
    QList<QVariant> severities;
    for (const QString &s : state.value(QStringLiteral("severities")).toStringList()) {
        if (const auto v = Storage::severityFromString(s))
            severities << int(*v);
    }
    m_severity->setCheckedData(severities);
    int source = -1;
    for (const QString &s : state.value(QStringLiteral("sources")).toStringList()) {
        if (const auto v = Storage::sourceFromString(s))
            source = int(*v);
    }
    m_source->setCurrentIndex(std::max(0, m_source->findData(source)));
    const int card = state.value(QStringLiteral("card"), -1).toInt();
    int cardIndex = m_card->findData(card);
    if (cardIndex < 0 && card >= 0) {
        // The appliance has not told its cards yet: keep the choice until it does.
        m_card->addItem(m_model->cardText(card), card);
        cardIndex = m_card->count() - 1;
    }
    m_card->setCurrentIndex(std::max(0, cardIndex));
    m_job->setText(state.value(QStringLiteral("job")).toString());
    m_code->setText(state.value(QStringLiteral("code")).toString());
    m_text->setText(state.value(QStringLiteral("text")).toString());
    m_routine->setChecked(state.value(QStringLiteral("routine"), false).toBool());
    m_applying = false;
    applyFilter();
}

bool EventLogView::csvByteOrderMark() const
{
    return m_bomAction->isChecked();
}

void EventLogView::setCsvByteOrderMark(bool on)
{
    m_bomAction->setChecked(on);
}

void EventLogView::setStorePath(const QString &path)
{
    m_model->setStorePath(path);
}

QString EventLogView::storePath() const
{
    return m_model->storePath();
}

Domain::JobId EventLogView::selectedJob() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    if (!current.isValid())
        return {};
    const int job = current.data(EventLogModel::JobRole).toInt();
    return job >= 0 ? Domain::JobId(job) : Domain::JobId();
}

bool EventLogView::isExporting() const
{
    return m_export->isRunning();
}

bool EventLogView::showMoment(qint64 atMs)
{
    // The rows shown are in time order: the first at or after the moment, by bisection.
    const int n = m_filter->rowCount();
    if (n == 0)
        return false;
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        const int source = m_filter->mapToSource(m_filter->index(mid, 0)).row();
        if (m_model->event(source).atMs < atMs)
            lo = mid + 1;
        else
            hi = mid;
    }
    const int row = std::min(lo, n - 1);
    const QModelIndex index = m_filter->index(row, 0);
    m_table->scrollTo(index, QAbstractItemView::PositionAtCenter);
    m_table->selectRow(row);
    m_follow = false; // even when the row is on the last page: stay on it as events come
    return true;
}

void EventLogView::explainJob(Domain::JobId job)
{
    m_whyButton->setEnabled(true);
    m_whyButton->setChecked(true);
    m_why->show();
    m_why->setJob(job);
}

void EventLogView::exportShown()
{
    const QString csvFilter = tr("CSV (*.csv)");
    const QString jsonFilter = tr("JSON Lines (*.jsonl)");
    QString selected = csvFilter;
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QString path = QFileDialog::getSaveFileName(this,
                                                tr("Export events"),
                                                dir + QStringLiteral("/events.csv"),
                                                csvFilter + QStringLiteral(";;") + jsonFilter,
                                                &selected);
    if (path.isEmpty())
        return;
    const QString suffix = QFileInfo(path).suffix().toLower();
    Storage::ExportFormat format = Storage::ExportFormat::Csv;
    if (suffix == QLatin1String("jsonl") || suffix == QLatin1String("json")
        || (suffix != QLatin1String("csv") && selected == jsonFilter))
        format = Storage::ExportFormat::JsonLines;
    if (suffix.isEmpty())
        path += format == Storage::ExportFormat::Csv ? QStringLiteral(".csv")
                                                     : QStringLiteral(".jsonl");
    exportTo(path, format);
}

bool EventLogView::exportTo(const QString &path, Storage::ExportFormat format)
{
    if (m_export->isRunning())
        return false;
    if (m_model->storePath().isEmpty()) {
        m_exportStatus->setText(tr("Export is not possible: this session keeps no event store."));
        return false;
    }
    const Models::EventExportRequest request = m_filter->exportRequest(
            path, format, format == Storage::ExportFormat::Csv && csvByteOrderMark());
    if (!m_export->start(request))
        return false;
    m_exportButton->setEnabled(false);
    m_exportStatus->setText(tr("Exporting %n event(s)…", nullptr, m_filter->rowCount()));
    return true;
}

void EventLogView::onExportFinished(const Models::EventExportResult &result)
{
    m_exportButton->setEnabled(true);
    if (result.ok)
        m_exportStatus->setText(tr("Exported %n event(s) to %1", nullptr, int(result.rows))
                                        .arg(QDir::toNativeSeparators(result.path)));
    else
        m_exportStatus->setText(tr("Export failed: %1").arg(result.error));
    Q_EMIT exportFinished(result);
}

void EventLogView::updateStatus()
{
    QString text
            = tr("%1 of %n event(s) shown", nullptr, m_model->rowCount()).arg(m_filter->rowCount());
    if (m_model->droppedCount() > 0)
        text += QLatin1Char(' ')
                + tr("(%n older event(s) are only in the store)",
                     nullptr,
                     int(std::min<qint64>(m_model->droppedCount(), INT_MAX)));
    if (!m_routine->isChecked())
        text += QLatin1Char(' ') + tr("(routine events hidden)");
    m_status->setText(text);
}

} // namespace Zhaoxi::Widgets
