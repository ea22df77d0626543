// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewview.h"

#include "cardmap/cardtile.h"
#include "cardmap/reasontext.h"
#include "charts/qcp.h"

#include "core/models/sessionclient.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QTextDocumentFragment>
#include <QTimeZone>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Widgets {

namespace {

constexpr qint64 kPointEveryMs = 60'000;        // one history point per minute
constexpr qint64 kHistoryMs = 24 * 3600 * 1000; // the chart's day
constexpr qint64 kWhatIfMinMs = 15 * 60'000;    // the shortest period worth a replay
constexpr qint64 kSnapMs = 5 * 60'000;          // a period dragged snaps to five minutes

QString percent(double v, int decimals)
{
    return trimmedNumberText(v * 100.0, decimals) + QStringLiteral(" %");
}

QString cards(double v)
{
    return trimmedNumberText(v, 1);
}

} // namespace

CardHolders cardHoldersOf(const Session::Snapshot &s)
{
    CardHolders h;
    const Sched::ClusterState &st = s.state;
    for (const Sched::CardState &c : st.cards()) {
        const int i = c.id.value();
        const bool lost = (i < s.cards.size() && s.cards[i].lost)
                          || c.health == Sched::CardHealth::Failed || !st.host(c.host).up;
        if (lost) {
            h.lost += 1;
            continue;
        }
        if (i < s.cards.size() && !std::isnan(s.cards[i].utilisation))
            h.utilised += std::clamp(s.cards[i].utilisation, 0.0, 1.0);
        double held = 0;
        for (const Sched::Unit &u : c.units) {
            const double share = std::clamp(st.unitMilli(c, u) / 1000.0, 0.0, 1.0);
            held += share;
            if (u.state != Sched::UnitState::Ready) {
                h.reconfiguring += share;
            } else if (u.job.isValid() && u.job.value() < st.jobs().size()) {
                switch (st.job(u.job).spec.kind) {
                case Domain::WorkloadKind::Inference:
                    h.inference += share;
                    break;
                case Domain::WorkloadKind::Training:
                    h.training += share;
                    break;
                case Domain::WorkloadKind::Batch:
                    h.batch += share;
                    break;
                }
            } else {
                h.idle += share;
            }
        }
        h.idle += std::max(0.0, 1.0 - held); // capacity no unit takes
    }
    return h;
}

OverviewFigures overviewFiguresOf(const Session::Snapshot &s,
                                  const QHash<int, Sched::Status> &reasons)
{
    OverviewFigures f;
    for (const Session::ServiceSample &v : s.services) {
        OverviewFigures::Service o;
        o.name = v.name;
        o.sloMs = v.sloMs;
        o.p99Ms = v.p99Ms;
        o.today = v.attainment;
        o.metNow = v.sloMs <= 0 || v.p99Ms <= v.sloMs;
        o.replicas = v.replicas;
        o.targetReplicas = v.targetReplicas;
        f.services << o;
    }
    for (const Session::TrainingSample &t : s.training) {
        f.training << OverviewFigures::Training{t.name, t.progress, t.speed, t.completed};
        f.trainingDoneHours += t.doneHours;
        f.trainingWorkHours += t.workHours;
    }
    f.holders = cardHoldersOf(s);
    f.cards = int(s.state.cards().size());
    const Sched::ClusterState &st = s.state;
    for (const Domain::JobId id : s.queue) {
        if (!id.isValid() || id.value() >= st.jobs().size())
            continue;
        const Sched::Job &j = st.job(id);
        if (j.state != Sched::JobState::Pending)
            continue;
        ++f.waiting;
        // Since its submission, or since it last left its cards (its progress was counted up to
        // then): a job evicted at 08:00 has waited since 08:00, not since the night before.
        const qint64 waited
                = std::max<qint64>(0, s.nowMs - std::max(j.submittedMs, j.accountedAtMs));
        if (!f.oldest.isValid() || waited > f.oldestWaitMs) {
            f.oldest = id;
            f.oldestName = j.spec.name;
            f.oldestWaitMs = waited;
        }
    }
    if (f.oldest.isValid())
        f.oldestReason = reasons.value(f.oldest.value(), Sched::Status::success());
    f.window = s.window;
    f.policy = s.policy;
    return f;
}

OverviewView::OverviewView(Models::SessionClient *client, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
{
    setObjectName(QStringLiteral("overview"));
    auto *grid = new QGridLayout;
    const auto box = [this](const char *name) {
        auto *l = new QLabel(this);
        l->setObjectName(QLatin1String(name));
        l->setTextFormat(Qt::RichText);
        l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setFrameShape(QFrame::StyledPanel);
        l->setMargin(6);
        return l;
    };
    m_services = box("overviewServices");
    m_training = box("overviewTraining");
    m_cards = box("overviewCards");
    m_waiting = box("overviewWaiting");
    grid->addWidget(m_services, 0, 0);
    grid->addWidget(m_training, 0, 1);
    grid->addWidget(m_cards, 0, 2);
    grid->addWidget(m_waiting, 0, 3);
    for (int c = 0; c < 4; ++c)
        grid->setColumnStretch(c, 1);
    m_chartTitle = new QLabel(this);
    m_chartTitle->setObjectName(QStringLiteral("overviewChartTitle"));
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("overviewHolders"));
    m_plot->setMinimumHeight(140);
    // The legend as one row above the areas, not a box over them.
    m_plot->legend->setVisible(true);
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    m_plot->legend->setFont(legendFont);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(7);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200));
    m_plot->legend->setRowSpacing(0);
    m_plot->legend->setColumnSpacing(6);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
    ticker->setDateTimeFormat(QStringLiteral("HH:mm"));
    m_plot->xAxis->setTicker(ticker);
    // Bottom to top: lost, reconfiguring, batch, training, inference, idle; each filled down
    // to the one below, so that the areas stack.
    const QList<QColor> colours{QColor(0xc8, 0x2a, 0x2a),
                                QColor(0xd9, 0xa4, 0x00),
                                CardTile::classColor(CardTile::UnitClass::Batch),
                                CardTile::classColor(CardTile::UnitClass::Training),
                                CardTile::classColor(CardTile::UnitClass::Inference),
                                QColor(0xdd, 0xdd, 0xdd)};
    QCPGraph *below = nullptr;
    for (const QColor &c : colours) {
        QCPGraph *g = m_plot->addGraph();
        g->setPen(QPen(c.darker(115), 1));
        QColor fill = c;
        fill.setAlpha(200);
        g->setBrush(fill);
        if (below)
            g->setChannelFillGraph(below);
        below = g;
    }
    QCPGraph *util = m_plot->addGraph();
    util->setPen(QPen(QColor(0x20, 0x20, 0x20), 2));
    m_refresh = new QTimer(this);
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(0);
    connect(m_refresh, &QTimer::timeout, this, &OverviewView::refreshNow);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    // The chart's title, the period selected on it and "What if?…" on one line above it.
    m_selectionLabel = new QLabel(this);
    m_selectionLabel->setObjectName(QStringLiteral("overviewSelection"));
    m_whatIfAction = new QAction(this);
    m_whatIfAction->setObjectName(QStringLiteral("overviewWhatIf"));
    m_whatIfAction->setEnabled(false);
    connect(m_whatIfAction, &QAction::triggered, this, [this] {
        if (m_selection.isValid())
            Q_EMIT whatIfRequested(m_selection.fromMs, m_selection.toMs);
    });
    m_whatIfButton = new QToolButton(this);
    m_whatIfButton->setObjectName(QStringLiteral("overviewWhatIfButton"));
    m_whatIfButton->setDefaultAction(m_whatIfAction);
    m_whatIfButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *titleRow = new QHBoxLayout;
    titleRow->addWidget(m_chartTitle, 1);
    titleRow->addWidget(m_selectionLabel);
    titleRow->addWidget(m_whatIfButton);
    layout->addLayout(titleRow);
    layout->addWidget(m_plot, 1);
    // A click names a moment; a drag across the chart selects a period (shaded, kept after the
    // drag) for "What if?"; Esc or a click clears it.
    m_plot->setFocusPolicy(Qt::ClickFocus);
    connect(m_plot, &QCustomPlot::mousePress, this, &OverviewView::onChartPress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &OverviewView::onChartMove);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &OverviewView::onChartRelease);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &OverviewView::onChartContextMenu);
    if (m_client) {
        connect(m_client,
                &Models::SessionClient::snapshotChanged,
                this,
                &OverviewView::setSnapshot);
        if (m_client->snapshot())
            setSnapshot(m_client->snapshot());
    }
    retranslateUi();
}

OverviewView::~OverviewView() = default;

void OverviewView::setSnapshot(const Session::SnapshotPtr &snapshot)
{
    if (!snapshot)
        return;
    // A clock that went back (the day restarted, another day) starts the history again.
    if (!m_history.isEmpty() && snapshot->nowMs < m_history.last().atMs) {
        m_history.clear();
        m_reasons.clear();
        clearSelection();
    }
    m_snapshot = snapshot;
    for (const Sched::DecisionTrace &t : snapshot->traces)
        m_reasons.insert(t.job.value(), t.result);
    m_figures = overviewFiguresOf(*snapshot, m_reasons);
    // A point per minute.
    if (m_history.isEmpty() || snapshot->nowMs - m_history.last().atMs >= kPointEveryMs) {
        m_history.append(Point{snapshot->nowMs, m_figures.holders, snapshot->window});
        while (!m_history.isEmpty() && m_history.first().atMs < snapshot->nowMs - kHistoryMs)
            m_history.removeFirst();
        m_chartDirty = true;
        updateWhatIf(); // the day moves on under the selection
    }
    m_textDirty = true;
    scheduleRefresh();
}

void OverviewView::scheduleRefresh()
{
    if (!m_refresh->isActive())
        m_refresh->start(0);
}

void OverviewView::refreshNow()
{
    constexpr qint64 kChartEveryMs = 250;
    if (m_textDirty)
        refreshText();
    if (!m_chartDirty || !isVisible())
        return;
    if (m_chartDrawn.isValid() && m_chartDrawn.elapsed() < kChartEveryMs) {
        m_refresh->start(int(kChartEveryMs - m_chartDrawn.elapsed()));
        return;
    }
    refreshChart();
    m_chartDrawn.start();
}

void OverviewView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refreshChart();
}

QString OverviewView::headlineText() const
{
    if (m_textDirty)
        const_cast<OverviewView *>(this)->refreshText();
    QStringList parts;
    for (const QLabel *l : {m_services, m_training, m_cards, m_waiting})
        parts << QTextDocumentFragment::fromHtml(l->text()).toPlainText();
    return parts.join(QLatin1Char('\n'));
}

void OverviewView::refreshText()
{
    m_textDirty = false;
    const OverviewFigures &f = m_figures;
    // Services: now and today against the SLO.
    QString s = QStringLiteral("<b>%1</b>").arg(tr("Services").toHtmlEscaped());
    if (f.services.isEmpty())
        s += QStringLiteral("<br>") + tr("none").toHtmlEscaped();
    for (const OverviewFigures::Service &v : f.services) {
        const QString colour = v.metNow ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828");
        s += QStringLiteral("<br><span style='color:%1'>%2</span> ")
                     .arg(colour, v.metNow ? QStringLiteral("\u25cf") : QStringLiteral("\u25b2"))
             + tr("%1: p99 %2 of %3 ms now; %4 within the SLO today; %5 of %6 replicas")
                       .arg(v.name,
                            trimmedNumberText(v.p99Ms, 0),
                            trimmedNumberText(v.sloMs, 0),
                            percent(v.today, 1))
                       .arg(v.replicas)
                       .arg(v.targetReplicas)
                       .toHtmlEscaped();
    }
    m_services->setText(s);
    // Training: delivered so far, and each job's progress.
    QString t = QStringLiteral("<b>%1</b>").arg(tr("Training").toHtmlEscaped());
    if (f.trainingWorkHours > 0)
        t += QStringLiteral("<br>")
             + tr("%1 of %2 card-hours delivered")
                       .arg(trimmedNumberText(f.trainingDoneHours, 1),
                            trimmedNumberText(f.trainingWorkHours, 1))
                       .toHtmlEscaped();
    // The running jobs by progress (at most eight lines), then how many wait or are done.
    QList<OverviewFigures::Training> running;
    int waitingJobs = 0, done = 0;
    for (const OverviewFigures::Training &j : f.training) {
        if (j.completed)
            ++done;
        else if (j.speed > 0)
            running << j;
        else
            ++waitingJobs;
    }
    std::stable_sort(running.begin(), running.end(), [](const auto &a, const auto &b) {
        return a.progress > b.progress;
    });
    constexpr int kShown = 8;
    for (int i = 0; i < running.size() && i < kShown; ++i)
        t += QStringLiteral("<br>")
             + tr("%1: %2 done")
                       .arg(running[i].name, percent(running[i].progress, 0))
                       .toHtmlEscaped();
    if (running.size() > kShown)
        t += QStringLiteral("<br>")
             + tr("%n more running", nullptr, int(running.size()) - kShown).toHtmlEscaped();
    if (waitingJobs > 0 || done > 0)
        t += QStringLiteral("<br>")
             + tr("%1 waiting, %2 completed").arg(waitingJobs).arg(done).toHtmlEscaped();
    m_training->setText(t);
    // The cards by holder now.
    const CardHolders &h = f.holders;
    QString c = QStringLiteral("<b>%1</b>").arg(tr("Cards now").toHtmlEscaped());
    const auto line = [&c](const QString &what, double n) {
        if (n > 0.005)
            c += QStringLiteral("<br>")
                 + QStringLiteral("%1: %2").arg(what, cards(n)).toHtmlEscaped();
    };
    line(tr("inference"), h.inference);
    line(tr("training"), h.training);
    line(tr("batch"), h.batch);
    line(tr("reconfiguring"), h.reconfiguring);
    line(tr("idle"), h.idle);
    line(tr("lost"), h.lost);
    c += QStringLiteral("<br>")
         + tr("busy: %1 of %2 cards").arg(cards(h.utilised)).arg(f.cards).toHtmlEscaped();
    m_cards->setText(c);
    // Waiting, with the oldest wait and its reason; the window and policy in force.
    QString w = QStringLiteral("<b>%1</b>").arg(tr("Waiting").toHtmlEscaped());
    if (f.waiting == 0) {
        w += QStringLiteral("<br>") + tr("no job waits").toHtmlEscaped();
    } else {
        w += QStringLiteral("<br>") + tr("%n job(s) waiting", nullptr, f.waiting).toHtmlEscaped();
        w += QStringLiteral("<br>")
             + tr("the oldest: %1, for %2 h %3 min")
                       .arg(f.oldestName)
                       .arg(f.oldestWaitMs / 3'600'000)
                       .arg((f.oldestWaitMs / 60'000) % 60)
                       .toHtmlEscaped();
        if (!f.oldestReason.isSuccess())
            w += QStringLiteral("<br>") + reasonText(f.oldestReason).toHtmlEscaped();
    }
    if (!f.window.isEmpty())
        w += QStringLiteral("<br>")
             + tr("window: %1").arg(windowNameText(f.window)).toHtmlEscaped();
    if (!f.policy.isEmpty())
        w += QStringLiteral("<br>")
             + tr("policy: %1").arg(policyNameText(f.policy)).toHtmlEscaped();
    m_waiting->setText(w);
}

void OverviewView::refreshChart()
{
    m_chartDirty = false;
    const int offset = m_snapshot ? m_snapshot->utcOffsetSeconds : 0;
    QVector<double> x;
    QVector<QVector<double>> layers(6);
    QVector<double> util;
    x.reserve(m_history.size());
    for (const Point &p : m_history) {
        // The time axis in the appliance's local time.
        x << double(p.atMs) / 1000.0 + offset;
        const CardHolders &h = p.holders;
        const double values[6]
                = {h.lost, h.reconfiguring, h.batch, h.training, h.inference, h.idle};
        double sum = 0;
        for (int k = 0; k < 6; ++k) {
            sum += values[k];
            layers[k] << sum;
        }
        util << h.utilised;
    }
    for (int k = 0; k < 6; ++k)
        m_plot->graph(k)->setData(x, layers[k], true);
    m_plot->graph(6)->setData(x, util, true);
    if (!x.isEmpty()) {
        const double end = x.last();
        m_plot->xAxis->setRange(std::max(x.first(), end - kHistoryMs / 1000.0),
                                std::max(end, x.first() + 60));
    }
    const double top = std::max(1, m_figures.cards) * 1.02;
    m_plot->yAxis->setRange(0, top);
    // The time windows shaded behind, each stretch named at its top.
    for (QCPAbstractItem *item : std::as_const(m_bandItems))
        m_plot->removeItem(item);
    m_bandItems.clear();
    const QList<Band> bands = windowBands();
    for (const Band &b : bands) {
        if (b.window.isEmpty())
            continue;
        const double x0 = double(b.fromMs) / 1000.0 + offset;
        const double x1 = double(b.toMs) / 1000.0 + offset;
        const QColor fill = b.window == QLatin1String("night") ? QColor(0x3f, 0x51, 0xb5, 28)
                            : b.window == QLatin1String("day") ? QColor(0xff, 0xc1, 0x07, 30)
                                                               : QColor(0x60, 0x7d, 0x8b, 26);
        auto *rect = new QCPItemRect(m_plot);
        rect->setLayer(QStringLiteral("background"));
        rect->setClipToAxisRect(true);
        rect->topLeft->setCoords(x0, top);
        rect->bottomRight->setCoords(x1, 0);
        rect->setPen(Qt::NoPen);
        rect->setBrush(fill);
        m_bandItems << rect;
        auto *name = new QCPItemText(m_plot);
        name->setLayer(QStringLiteral("background"));
        name->setClipToAxisRect(true);
        name->position->setCoords(x0, top);
        name->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        name->setPadding(QMargins(4, 2, 4, 2));
        name->setColor(QColor(0x55, 0x55, 0x55));
        name->setText(windowNameText(b.window));
        m_bandItems << name;
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QList<OverviewView::Band> OverviewView::windowBands() const
{
    QList<Band> out;
    for (const Point &p : m_history) {
        if (!out.isEmpty() && out.last().window == p.window) {
            out.last().toMs = p.atMs;
            continue;
        }
        if (!out.isEmpty())
            out.last().toMs = p.atMs; // a stretch ends where the next begins
        out.append(Band{p.atMs, p.atMs, p.window});
    }
    return out;
}

qint64 OverviewView::momentAt(const QPoint &chartPos) const
{
    if (m_history.isEmpty() || !m_plot->axisRect()->rect().contains(chartPos))
        return -1;
    const int offset = m_snapshot ? m_snapshot->utcOffsetSeconds : 0;
    const qint64 at = qRound64((m_plot->xAxis->pixelToCoord(chartPos.x()) - offset) * 1000.0);
    if (at < m_history.first().atMs || at > m_history.last().atMs)
        return -1;
    return at;
}

qint64 OverviewView::clampedMomentAt(int x) const
{
    if (m_history.isEmpty())
        return -1;
    const int offset = m_snapshot ? m_snapshot->utcOffsetSeconds : 0;
    const qint64 at = qRound64((m_plot->xAxis->pixelToCoord(x) - offset) * 1000.0);
    // On the local clock's five minutes: a pixel is about a minute, and "07:00 – 11:00" is what
    // the hand meant.
    const qint64 local = at + qint64(offset) * 1000;
    const qint64 snapped
            = qRound64(double(local) / double(kSnapMs)) * kSnapMs - qint64(offset) * 1000;
    return std::clamp(snapped, m_history.first().atMs, m_history.last().atMs);
}

void OverviewView::onChartPress(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_pressed = false;
    m_dragging = false;
    if (m_history.isEmpty() || !m_plot->axisRect()->rect().contains(event->pos()))
        return;
    m_pressed = true;
    m_pressPos = event->pos();
    m_pressMs = clampedMomentAt(event->pos().x());
}

void OverviewView::onChartMove(QMouseEvent *event)
{
    if (!m_pressed)
        return;
    if (!m_dragging
        && std::abs(event->pos().x() - m_pressPos.x()) < QApplication::startDragDistance())
        return;
    m_dragging = true;
    const qint64 at = clampedMomentAt(event->pos().x());
    m_selection = Period{std::min(m_pressMs, at), std::max(m_pressMs, at)};
    drawSelection();
    updateWhatIf();
}

void OverviewView::onChartRelease(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_pressed)
        return;
    onChartMove(event); // where the drag ended, if it is one
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        if (m_selection.isValid())
            Q_EMIT selectionChanged(m_selection.fromMs, m_selection.toMs);
        else
            clearSelection();
        return;
    }
    // A click: a moment, as before there were periods; a period selected goes.
    clearSelection();
    const qint64 at = momentAt(event->pos());
    if (at >= 0)
        Q_EMIT momentClicked(at);
}

void OverviewView::onChartContextMenu(const QPoint &pos)
{
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->setToolTipsVisible(true);
    menu->addAction(m_whatIfAction);
    QAction *clear = menu->addAction(tr("Clear the selection"));
    clear->setEnabled(m_selection.isValid());
    connect(clear, &QAction::triggered, this, &OverviewView::clearSelection);
    menu->popup(m_plot->mapToGlobal(pos));
}

void OverviewView::setSelection(qint64 fromMs, qint64 toMs)
{
    Period p;
    if (!m_history.isEmpty() && toMs > fromMs) {
        p.fromMs = std::max(fromMs, m_history.first().atMs);
        p.toMs = std::min(toMs, m_history.last().atMs);
    }
    if (!p.isValid()) {
        clearSelection();
        return;
    }
    m_selection = p;
    drawSelection();
    updateWhatIf();
    Q_EMIT selectionChanged(p.fromMs, p.toMs);
}

void OverviewView::clearSelection()
{
    const bool had = m_selection.isValid();
    m_selection = Period{};
    m_dragging = false;
    drawSelection();
    updateWhatIf();
    if (had)
        Q_EMIT selectionChanged(-1, -1);
}

void OverviewView::setWhatIfAvailable(bool available, const QString &why)
{
    m_whatIfAvailable = available;
    m_whatIfUnavailable = why;
    updateWhatIf();
}

void OverviewView::drawSelection()
{
    if (!m_selection.isValid()) {
        if (m_selectionItem) {
            m_plot->removeItem(m_selectionItem);
            m_selectionItem = nullptr;
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        }
        return;
    }
    if (!m_selectionItem) {
        // Over the areas, the whole height of the axis rect, whatever the cards' scale.
        m_selectionItem = new QCPItemRect(m_plot);
        m_selectionItem->setClipToAxisRect(true);
        m_selectionItem->setPen(QPen(QColor(0x0d, 0x47, 0xa1), 1, Qt::DashLine));
        m_selectionItem->setBrush(QColor(0x19, 0x76, 0xd2, 70));
        m_selectionItem->setSelectable(false);
        m_selectionItem->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        m_selectionItem->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    const int offset = m_snapshot ? m_snapshot->utcOffsetSeconds : 0;
    m_selectionItem->topLeft->setCoords(double(m_selection.fromMs) / 1000.0 + offset, 0);
    m_selectionItem->bottomRight->setCoords(double(m_selection.toMs) / 1000.0 + offset, 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OverviewView::updateWhatIf()
{
    if (!m_whatIfAction)
        return;
    const Period &p = m_selection;
    const bool inside = p.isValid() && !m_history.isEmpty() && p.fromMs >= m_history.first().atMs
                        && p.toMs <= m_history.last().atMs;
    const bool longEnough = p.isValid() && p.toMs - p.fromMs >= kWhatIfMinMs;
    const int offset = m_snapshot ? m_snapshot->utcOffsetSeconds : 0;
    const auto hhmm = [offset](qint64 ms) {
        return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone(offset))
                .toString(QStringLiteral("HH:mm"));
    };
    m_selectionLabel->setText(p.isValid() ? tr("%1 – %2 selected").arg(hhmm(p.fromMs), hhmm(p.toMs))
                                          : QString());
    QString tip;
    if (!m_whatIfAvailable)
        tip = m_whatIfUnavailable;
    else if (!p.isValid())
        tip = tr("Drag across the chart to choose a period, then compare what each policy would "
                 "have done in it");
    else if (!longEnough)
        tip = tr("Choose a period of at least 15 minutes");
    else if (!inside)
        tip = tr("Choose a period within what was recorded");
    else
        tip = tr("Replay %1 – %2 under every policy, beside what happened")
                      .arg(hhmm(p.fromMs), hhmm(p.toMs));
    m_whatIfAction->setEnabled(m_whatIfAvailable && longEnough && inside);
    m_whatIfAction->setToolTip(tip);
}

void OverviewView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && m_selection.isValid()) {
        clearSelection();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

void OverviewView::mousePressEvent(QMouseEvent *event)
{
    // A click on the view beside the chart lets the period go.
    if (event->button() == Qt::LeftButton)
        clearSelection();
    QWidget::mousePressEvent(event);
}

void OverviewView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void OverviewView::retranslateUi()
{
    const QStringList names{tr("lost"),
                            tr("reconfiguring"),
                            tr("batch"),
                            tr("training"),
                            tr("inference"),
                            tr("idle"),
                            tr("measured utilisation")};
    for (int k = 0; k < names.size(); ++k)
        m_plot->graph(k)->setName(names[k]);
    m_plot->yAxis->setLabel(tr("cards"));
    m_chartTitle->setText(tr("Who held the cards, the last 24 hours (utilisation drawn over)"));
    m_plot->setToolTip(tr("Click a moment to move the charts and the event log to it; drag "
                          "across a period to compare the policies in it"));
    m_whatIfAction->setText(tr("What if?…"));
    updateWhatIf();
    refreshText();
    refreshChart();
}

} // namespace Zhaoxi::Widgets
