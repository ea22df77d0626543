// SPDX-License-Identifier: GPL-3.0-or-later
// CardMapView: the tiles and their layout, zoom, selection and tooltips (painting is in
// cardmapviewpainting.cpp, drag and drop in cardmapviewdrop.cpp).
#include "cardmapview.h"

#include "reasontext.h"

#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"
#include "core/runtime/appliancecore.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QDateTime>
#include <QDragEnterEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeySequence>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QTimeZone>
#include <QToolTip>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Widgets {

using Domain::CardId;
using Domain::HostId;
using Domain::JobId;
using Domain::PartitionMode;
using Session::PlacementPreview;

namespace {

constexpr int kMargin = 8;
constexpr double kTileWidth = 230;
constexpr double kTileHeight = 118;
constexpr double kMinZoom = 0.3;
constexpr double kMaxZoom = 3.0;
constexpr double kZoomStep = 1.25;

} // namespace

CardMapView::CardMapView(Models::SessionClient *client, QWidget *parent)
    : QAbstractScrollArea(parent)
    , m_client(client)
{
    setObjectName(QStringLiteral("cardMap"));
    viewport()->setAcceptDrops(client != nullptr);
    viewport()->setMouseTracking(false);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
    m_pixelRatio = devicePixelRatioF();

    m_zoomInAction = new QAction(this);
    m_zoomInAction->setObjectName(QStringLiteral("cardMapZoomIn"));
    m_zoomInAction->setShortcut(QKeySequence::ZoomIn);
    m_zoomInAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_zoomInAction, &QAction::triggered, this, &CardMapView::zoomIn);
    m_zoomOutAction = new QAction(this);
    m_zoomOutAction->setObjectName(QStringLiteral("cardMapZoomOut"));
    m_zoomOutAction->setShortcut(QKeySequence::ZoomOut);
    m_zoomOutAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_zoomOutAction, &QAction::triggered, this, &CardMapView::zoomOut);
    m_fitAction = new QAction(this);
    m_fitAction->setObjectName(QStringLiteral("cardMapFit"));
    m_fitAction->setCheckable(true);
    m_fitAction->setChecked(true);
    m_fitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_fitAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_fitAction, &QAction::triggered, this, &CardMapView::fitToView);
    addAction(m_zoomInAction);
    addAction(m_zoomOutAction);
    addAction(m_fitAction);
    retranslateUi();

    if (client) {
        connect(client, &Models::SessionClient::snapshotChanged, this, &CardMapView::setSnapshot);
        connect(client,
                &Models::SessionClient::placementPreviewReady,
                this,
                &CardMapView::onPreviewReady);
        connect(client,
                &Models::SessionClient::commandFinished,
                this,
                &CardMapView::onCommandFinished);
        if (client->snapshot())
            setSnapshot(client->snapshot());
    }
}

CardMapView::~CardMapView() = default;

void CardMapView::setUndoStack(QUndoStack *stack)
{
    m_undoStack = stack;
}

void CardMapView::setThresholds(const CardMapThresholds &thresholds)
{
    if (thresholds == m_thresholds)
        return;
    m_thresholds = thresholds;
    invalidateTiles();
}

void CardMapView::setPreemptionConfirmation(ConfirmPreemption confirm)
{
    m_confirm = std::move(confirm);
}

QSize CardMapView::sizeHint() const
{
    return QSize(960, 640);
}

// --- Snapshots and layout ------------------------------------------------------------------

void CardMapView::setSnapshot(const Session::SnapshotPtr &snapshot)
{
    if (!snapshot)
        return;
    m_snapshot = snapshot;
    rebuildTiles();
    // The layout depends on the hosts (names, up or down, cards) and the cards' link domains
    // only: most snapshots change neither.
    QByteArray topology;
    for (const Sched::HostState &h : snapshot->state.hosts()) {
        topology += h.name.toUtf8() + (h.up ? '+' : '-') + QByteArray::number(h.cardCount) + ';';
        for (int i = 0; i < h.cardCount; ++i)
            topology += QByteArray::number(snapshot->state.cards()[h.firstCard + i].linkDomain)
                        + ',';
    }
    if (topology != m_topology) {
        m_topology = topology;
        relayout();
    }
    if (m_selection.card.isValid()) {
        // Keep the selected card; the unit (and its job) only while it still exists.
        if (m_selection.card.value() >= m_tiles.size()) {
            m_selection = Hit();
        } else {
            const CardTile::Data &d = m_tiles[m_selection.card.value()].data;
            const auto u = std::find_if(d.units.cbegin(), d.units.cend(), [this](const auto &x) {
                return x.uid == m_selection.unitUid;
            });
            m_selection.unitUid = u == d.units.cend() ? -1 : u->uid;
            m_selection.job = u == d.units.cend() ? JobId() : u->job;
        }
    }
    if (m_drag.active)
        refreshDragState();
    viewport()->update();
}

void CardMapView::rebuildTiles()
{
    const QList<Sched::CardState> &cards = m_snapshot->state.cards();
    if (m_tiles.size() != cards.size()) {
        m_tiles.clear();
        m_tiles.resize(cards.size());
    }
    for (int i = 0; i < cards.size(); ++i) {
        CardTile::Data d = CardTile::makeData(*m_snapshot, cards[i]);
        Tile &t = m_tiles[i];
        if (t.pixmap.isNull() || !(d == t.data)) {
            t.data = std::move(d);
            t.dirty = true;
        }
    }
}

CardTile::Style CardMapView::styleFor(double zoom) const
{
    return CardTile::makeStyle(font(),
                               palette().color(QPalette::Base),
                               palette().color(QPalette::Text),
                               palette().color(QPalette::Mid),
                               zoom);
}

CardMapView::Layout CardMapView::layoutFor(double zoom, int width, bool stretch) const
{
    Layout l;
    l.style = styleFor(zoom);
    const QFontMetrics titleFm(l.style.titleFont);
    const QFontMetrics smallFm(l.style.smallFont);
    const int gap = std::max(3, int(std::lround(8 * zoom)));
    int tileW = int(std::lround(kTileWidth * zoom));
    const int tileH = int(std::lround(kTileHeight * zoom));
    const int legendH = smallFm.height() + 6;
    const int headerH = titleFm.height() + 4;
    const int bandH = smallFm.height() + 2;
    const int contentW = std::max(tileW, width - 2 * kMargin);
    const int cols = std::max(1, (contentW + gap) / (tileW + gap));
    if (stretch && m_snapshot) {
        // Fit mode is usually short of height, not width: widen the tiles into the room the
        // widest host leaves (up to half as wide again), for longer names.
        int widest = 1;
        for (const Sched::HostState &h : m_snapshot->state.hosts())
            widest = std::max(widest, h.cardCount);
        const int used = std::min(cols, widest);
        tileW = std::clamp((contentW + gap) / used - gap, tileW, tileW * 3 / 2);
    }

    int y = kMargin;
    int maxRight = kMargin + tileW;
    l.legend = QRect(kMargin, y, contentW, legendH);
    y += legendH + gap / 2;
    if (!m_snapshot) {
        l.content = QSize(width, y + kMargin);
        return l;
    }
    const Sched::ClusterState &st = m_snapshot->state;
    l.tiles.resize(st.cards().size());
    for (const Sched::HostState &h : st.hosts()) {
        HostBlock block;
        block.host = h.id;
        block.header = QRect(kMargin, y, contentW, headerH);
        block.title = tr("%1 \u00b7 %n card(s)", nullptr, h.cardCount).arg(h.name);
        if (!h.up)
            block.title += QStringLiteral(" \u00b7 ") + tr("host down");
        y += headerH;
        // Brackets only for link domains that join two or more of the host's cards.
        QHash<int, int> perDomain;
        for (int i = 0; i < h.cardCount; ++i)
            ++perDomain[st.cards()[h.firstCard + i].linkDomain];
        bool banded = false;
        for (auto it = perDomain.cbegin(); it != perDomain.cend(); ++it)
            banded |= it.value() > 1;
        const int band = banded ? bandH : 0;
        const int rows = (h.cardCount + cols - 1) / cols;
        for (int i = 0; i < h.cardCount; ++i) {
            const int row = i / cols;
            const int col = i % cols;
            const QRect r(kMargin + col * (tileW + gap),
                          y + row * (tileH + gap + band) + band,
                          tileW,
                          tileH);
            maxRight = std::max(maxRight, r.right() + 1);
            const int card = h.firstCard + i;
            if (card < l.tiles.size())
                l.tiles[card] = r;
            if (band == 0)
                continue;
            const int domain = st.cards()[card].linkDomain;
            const bool continues = col > 0 && !block.brackets.isEmpty()
                                   && block.brackets.last().domain == domain
                                   && st.cards()[card - 1].linkDomain == domain;
            // The domain went on to the end of the row above: this row continues it.
            const bool wraps = col == 0 && i > 0 && !block.brackets.isEmpty()
                               && block.brackets.last().domain == domain
                               && st.cards()[card - 1].linkDomain == domain;
            if (continues)
                block.brackets.last().rect.setRight(r.right());
            else if (perDomain.value(domain) > 1)
                block.brackets.append({QRect(r.left(), r.top() - band, r.width(), band),
                                       domain,
                                       wraps ? block.brackets.last().part + 1 : 0});
        }
        // Each wrapped run's brackets learn how many rows it spans.
        for (qsizetype b = block.brackets.size() - 1; b >= 0; --b) {
            HostBlock::Bracket &bracket = block.brackets[b];
            const bool last = b + 1 == block.brackets.size() || block.brackets[b + 1].part == 0;
            bracket.parts = last ? bracket.part + 1 : block.brackets[b + 1].parts;
        }
        y += rows * (tileH + gap + band) + gap;
        l.hosts.append(block);
    }
    l.content = QSize(std::max(maxRight + kMargin, width), y + kMargin);
    return l;
}

double CardMapView::fitZoom() const
{
    // The largest zoom at which every tile shows without scrolling (a layout is a few dozen
    // rectangles: cheap), found by bisection.
    const int w = viewport()->width();
    const int h = viewport()->height();
    auto fits = [&](double z) {
        return layoutFor(z, w, false).content.height() <= h
               && int(std::lround(kTileWidth * z)) <= w - 2 * kMargin;
    };
    if (fits(kMaxZoom))
        return kMaxZoom;
    double lo = kMinZoom;
    double hi = kMaxZoom;
    for (int i = 0; i < 18; ++i) {
        const double mid = (lo + hi) / 2;
        if (fits(mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void CardMapView::relayout()
{
    if (m_fit)
        m_zoom = fitZoom();
    Layout l = layoutFor(m_zoom, viewport()->width(), m_fit);
    const bool restyle = !m_style.texts || l.style.zoom != m_style.zoom
                         || l.style.titleFont != m_style.titleFont || l.style.base != m_style.base
                         || l.style.text != m_style.text || l.style.mid != m_style.mid;
    if (!restyle)
        l.style.texts = m_style.texts; // the laid-out texts stay good
    m_style = l.style;
    m_legend = l.legend;
    m_hosts = std::move(l.hosts);
    m_contentSize = l.content;
    for (int i = 0; i < m_tiles.size() && i < l.tiles.size(); ++i) {
        if (restyle || m_tiles[i].rect.size() != l.tiles[i].size())
            m_tiles[i].dirty = true;
        m_tiles[i].rect = l.tiles[i];
    }
    horizontalScrollBar()->setRange(0, std::max(0, m_contentSize.width() - viewport()->width()));
    verticalScrollBar()->setRange(0, std::max(0, m_contentSize.height() - viewport()->height()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    verticalScrollBar()->setPageStep(viewport()->height());
    horizontalScrollBar()->setSingleStep(20);
    verticalScrollBar()->setSingleStep(20);
    viewport()->update();
}

void CardMapView::applyZoom(double zoom, bool fit)
{
    const double old = m_zoom;
    m_fit = fit;
    m_fitAction->setChecked(fit);
    m_zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    relayout();
    if (!qFuzzyCompare(old, m_zoom))
        Q_EMIT zoomChanged(m_zoom);
}

void CardMapView::zoomIn()
{
    applyZoom(m_zoom * kZoomStep, false);
}

void CardMapView::zoomOut()
{
    applyZoom(m_zoom / kZoomStep, false);
}

void CardMapView::setZoom(double zoom)
{
    applyZoom(zoom, false);
}

void CardMapView::fitToView()
{
    applyZoom(m_zoom, true);
}

void CardMapView::invalidateTiles()
{
    for (Tile &t : m_tiles)
        t.dirty = true;
    viewport()->update();
}

const QPixmap &CardMapView::tilePixmap(Tile &tile)
{
    // Tiles are painted once per change into a pixmap: a repaint of the map is then a few dozen
    // blits, however much text the tiles hold.
    const QSize px = tile.rect.size() * m_pixelRatio;
    if (tile.dirty || tile.pixmap.size() != px) {
        if (tile.pixmap.size() != px)
            tile.pixmap = QPixmap(px);
        tile.pixmap.setDevicePixelRatio(m_pixelRatio);
        // Opaque: blitting it is a copy, not a blend.
        tile.pixmap.fill(m_style.base);
        QPainter p(&tile.pixmap);
        CardTile::paint(p,
                        QRectF(0, 0, tile.rect.width(), tile.rect.height()),
                        tile.data,
                        m_style,
                        m_thresholds);
        tile.dirty = false;
    }
    return tile.pixmap;
}

QPoint CardMapView::offset() const
{
    return QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
}

void CardMapView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    relayout();
}

void CardMapView::scrollContentsBy(int, int)
{
    viewport()->update();
}

void CardMapView::retranslateUi()
{
    if (!m_zoomInAction)
        return;
    m_zoomInAction->setText(tr("Zoom &In"));
    m_zoomInAction->setToolTip(tr("Larger card tiles"));
    m_zoomOutAction->setText(tr("Zoom &Out"));
    m_zoomOutAction->setToolTip(tr("Smaller card tiles"));
    m_fitAction->setText(tr("&Fit All Cards"));
    m_fitAction->setToolTip(tr("Size the tiles so that every card shows"));
}

void CardMapView::changeEvent(QEvent *event)
{
    switch (event->type()) {
    case QEvent::LanguageChange:
        retranslateUi();
        [[fallthrough]];
    case QEvent::PaletteChange:
    case QEvent::FontChange:
    case QEvent::StyleChange:
        m_pixelRatio = devicePixelRatioF();
        relayout(); // host titles, fonts, colours
        invalidateTiles();
        break;
    default:
        break;
    }
    QAbstractScrollArea::changeEvent(event);
}

// --- Hit testing, selection, tooltips --------------------------------------------------------

CardMapView::Hit CardMapView::hitTest(const QPoint &viewportPos) const
{
    Hit hit;
    const QPoint pos = viewportPos + offset();
    for (const Tile &t : m_tiles) {
        if (!t.rect.contains(pos))
            continue;
        hit.card = t.data.card;
        const CardTile::Geometry g
                = CardTile::geometry(QRectF(t.rect), m_style, t.data.mode == PartitionMode::Mig);
        for (const CardTile::Unit &u : t.data.units) {
            if (CardTile::unitRect(g, u).contains(QPointF(pos))) {
                hit.unitUid = u.uid;
                hit.job = u.job;
                break;
            }
        }
        break;
    }
    return hit;
}

QRect CardMapView::cardRect(CardId card) const
{
    if (!card.isValid() || card.value() >= m_tiles.size())
        return QRect();
    return m_tiles[card.value()].rect.translated(-offset());
}

QStringList CardMapView::linkDomainLabels() const
{
    QStringList labels;
    for (const HostBlock &h : m_hosts) {
        for (const HostBlock::Bracket &b : h.brackets)
            labels << bracketLabel(b);
    }
    return labels;
}

QString CardMapView::bracketLabel(const HostBlock::Bracket &b)
{
    if (b.parts > 1)
        return tr("NVLink %1 (%2/%3)").arg(b.domain).arg(b.part + 1).arg(b.parts);
    return tr("NVLink %1").arg(b.domain);
}

QRect CardMapView::unitRect(CardId card, int uid) const
{
    if (!card.isValid() || card.value() >= m_tiles.size())
        return QRect();
    const Tile &t = m_tiles[card.value()];
    const CardTile::Geometry g
            = CardTile::geometry(QRectF(t.rect), m_style, t.data.mode == PartitionMode::Mig);
    for (const CardTile::Unit &u : t.data.units) {
        if (u.uid == uid)
            return CardTile::unitRect(g, u).toAlignedRect().translated(-offset());
    }
    return QRect();
}

void CardMapView::select(CardId card, int unitUid)
{
    m_selection = Hit();
    if (!card.isValid() || card.value() >= m_tiles.size()) {
        viewport()->update();
        return;
    }
    m_selection.card = card;
    for (const CardTile::Unit &u : m_tiles[card.value()].data.units) {
        if (u.uid == unitUid) {
            m_selection.unitUid = unitUid;
            m_selection.job = u.job;
        }
    }
    viewport()->update();
}

void CardMapView::selectJob(JobId job)
{
    for (const Tile &t : std::as_const(m_tiles)) {
        for (const CardTile::Unit &u : t.data.units) {
            if (job.isValid() && u.job == job) {
                select(t.data.card, u.uid);
                return;
            }
        }
    }
    select(CardId());
}

void CardMapView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    const Hit hit = hitTest(event->position().toPoint());
    m_selection = hit;
    viewport()->update();
    Q_EMIT cardSelected(hit.card);
    if (hit.card.isValid() && hit.unitUid >= 0)
        Q_EMIT partitionSelected(hit.card, hit.unitUid);
    if (hit.job.isValid())
        Q_EMIT jobSelected(hit.job);
    event->accept();
}

void CardMapView::contextMenuEvent(QContextMenuEvent *event)
{
    const Hit hit = hitTest(event->pos());
    if (!hit.card.isValid()) {
        QAbstractScrollArea::contextMenuEvent(event);
        return;
    }
    m_selection = hit;
    viewport()->update();
    Q_EMIT cardSelected(hit.card);
    if (hit.job.isValid()) {
        // On a job's partition: the job's actions (cancel, requeue, priority, log, why).
        Q_EMIT jobSelected(hit.job);
        Q_EMIT jobMenuRequested(hit.job, event->globalPos());
        event->accept();
        return;
    }
    const std::unique_ptr<QMenu> menu(createCardMenu(hit.card, this));
    if (menu)
        menu->exec(event->globalPos());
    event->accept();
}

QMenu *CardMapView::createCardMenu(CardId card, QWidget *parent)
{
    if (!m_snapshot || !card.isValid() || card.value() >= m_snapshot->state.cards().size())
        return nullptr;
    const Sched::CardState &c = m_snapshot->state.card(card);
    const bool canChange
            = m_client && !m_snapshot->readOnly && c.health != Sched::CardHealth::Failed;
    auto *menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("cardMenu"));
    QAction *title = menu->addAction(cardName(card));
    title->setEnabled(false);
    menu->addSeparator();
    QAction *repartition = menu->addAction(tr("&Repartition…"));
    repartition->setObjectName(QStringLiteral("repartitionCard"));
    repartition->setEnabled(c.mode == PartitionMode::Mig);
    connect(repartition, &QAction::triggered, this, [this, card] {
        Q_EMIT repartitionRequested(card);
    });
    if (c.layoutPinnedUntilMs == 0) {
        QAction *pin = menu->addAction(tr("&Pin layout"));
        pin->setObjectName(QStringLiteral("pinLayout"));
        pin->setToolTip(tr("Until unpinned, the scheduler neither creates nor destroys instances "
                           "on this card nor switches its mode"));
        pin->setEnabled(canChange);
        connect(pin, &QAction::triggered, this, [this, card] {
            if (m_client)
                m_client->pinLayout(card, -1);
        });
    } else {
        QAction *unpin = menu->addAction(tr("&Unpin layout"));
        unpin->setObjectName(QStringLiteral("unpinLayout"));
        unpin->setEnabled(canChange);
        connect(unpin, &QAction::triggered, this, [this, card] {
            if (m_client)
                m_client->pinLayout(card, 0);
        });
    }
    menu->addSeparator();
    if (!c.operatorCordoned) {
        QAction *cordon = menu->addAction(tr("&Cordon"));
        cordon->setObjectName(QStringLiteral("cordonCard"));
        cordon->setToolTip(tr("The card takes no new work; what runs on it stays"));
        cordon->setEnabled(canChange);
        connect(cordon, &QAction::triggered, this, [this, card] {
            if (m_client)
                m_client->cordonCard(card, true, false);
        });
    } else {
        QAction *uncordon = menu->addAction(tr("Un&cordon"));
        uncordon->setObjectName(QStringLiteral("uncordonCard"));
        uncordon->setEnabled(canChange);
        connect(uncordon, &QAction::triggered, this, [this, card] {
            if (m_client)
                m_client->cordonCard(card, false, false);
        });
    }
    const QStringList leaving = drainLines(card);
    QAction *drain = menu->addAction(tr("&Drain…"));
    drain->setObjectName(QStringLiteral("drainCard"));
    drain->setToolTip(tr("Cordon the card and send what runs on it back to the queue"));
    drain->setEnabled(canChange && !leaving.isEmpty());
    connect(drain, &QAction::triggered, this, [this, card] {
        const QStringList lines = drainLines(card);
        if (!m_client || lines.isEmpty())
            return;
        bool go = false;
        if (m_confirmDrain) {
            go = m_confirmDrain(card, lines);
        } else {
            QMessageBox box(QMessageBox::Question,
                            tr("Drain %1?").arg(cardName(card)),
                            tr("The card takes no new work, and %n job(s) on it go back to the "
                               "queue:",
                               nullptr,
                               int(lines.size())),
                            QMessageBox::NoButton,
                            this);
            box.setInformativeText(lines.join(QLatin1Char('\n')));
            QPushButton *yes = box.addButton(tr("Drain"), QMessageBox::AcceptRole);
            box.setDefaultButton(box.addButton(QMessageBox::Cancel));
            box.exec();
            go = box.clickedButton() == yes;
        }
        if (go)
            m_client->cordonCard(card, true, true);
    });
    menu->setToolTipsVisible(true);
    return menu;
}

QStringList CardMapView::drainLines(CardId card) const
{
    QStringList lines;
    if (!m_snapshot || !card.isValid() || card.value() >= m_snapshot->state.cards().size())
        return lines;
    for (const Runtime::DrainStep &step : Runtime::drainPlan(m_snapshot->state, card))
        lines << (step.atCheckpoint ? tr("%1: leaves at its next checkpoint, losing nothing")
                                    : tr("%1: leaves at once and starts again elsewhere"))
                         .arg(jobName(step.job));
    return lines;
}

void CardMapView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        const int steps = event->angleDelta().y();
        if (steps > 0)
            zoomIn();
        else if (steps < 0)
            zoomOut();
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

QString CardMapView::cardName(CardId card) const
{
    if (!m_snapshot || !card.isValid() || card.value() >= m_snapshot->state.cards().size())
        return tr("card %1").arg(card.value());
    const Sched::CardState &c = m_snapshot->state.card(card);
    return tr("%1 GPU %2").arg(m_snapshot->state.host(c.host).name).arg(c.indexOnHost);
}

QString CardMapView::jobName(JobId job) const
{
    if (!m_snapshot || !job.isValid() || job.value() >= m_snapshot->state.jobs().size())
        return tr("job %1").arg(job.value());
    return m_snapshot->state.job(job).spec.name;
}

QString CardMapView::unitToolTip(const Hit &hit) const
{
    if (!hit.card.isValid() || hit.card.value() >= m_tiles.size())
        return QString();
    const CardTile::Data &d = m_tiles[hit.card.value()].data;
    QStringList lines;
    lines << tr("%1 \u00b7 %2 \u00b7 %3")
                     .arg(cardName(hit.card), d.model, CardTile::modeShortText(d.mode));
    const auto u = std::find_if(d.units.cbegin(), d.units.cend(), [&](const CardTile::Unit &x) {
        return x.uid == hit.unitUid;
    });
    if (u != d.units.cend()) {
        if (!u->profile.isEmpty()) {
            lines << tr("Partition %1 at slot %2: %3 of %4 compute slices, %5")
                             .arg(u->profile)
                             .arg(u->start)
                             .arg(u->computeSlices)
                             .arg(d.computeSlices)
                             .arg(memoryAmountText(u->memoryMiB));
        } else if (d.mode == PartitionMode::Whole) {
            lines << tr("Whole card: %1").arg(memoryAmountText(u->memoryMiB));
        } else {
            lines << tr("Share: %1% of the card, %2")
                             .arg(QString::number(u->milli / 10.0, 'f', 1),
                                  memoryAmountText(u->memoryMiB));
        }
        if (u->job.isValid()) {
            const QString activity = u->condition == CardTile::UnitCondition::Draining
                                             ? tr("draining: preempted, leaving soon")
                                     : u->busy ? tr("busy")
                                               : tr("allocated but idle");
            lines << tr("Job: %1 (%2), %3")
                             .arg(u->jobName, CardTile::classText(u->unitClass), activity);
            if (m_snapshot && u->job.value() < m_snapshot->state.jobs().size()
                && m_snapshot->state.job(u->job).overBudget)
                lines << tr("Placed by an operator over its class budget");
        } else {
            lines << tr("Job: none (free)");
        }
        switch (u->state) {
        case Sched::UnitState::Ready:
            lines << tr("State: ready");
            break;
        case Sched::UnitState::Creating:
            lines << tr("State: being created (reconfiguring)");
            break;
        case Sched::UnitState::Destroying:
            lines << tr("State: being destroyed (reconfiguring)");
            break;
        }
    } else {
        lines << (d.utilisationPermille < 0
                          ? tr("Utilisation: not available")
                          : tr("Utilisation: %1%")
                                    .arg(QString::number(d.utilisationPermille / 10.0, 'f', 1)));
        if (d.temperatureC >= 0 && !d.lost)
            lines << tr("Temperature: %1 °C").arg(d.temperatureC);
        if (d.powerW >= 0 && !d.lost) {
            lines << (d.powerPermille >= 0
                              ? tr("Power: %1 W (%2% of its limit)")
                                        .arg(d.powerW)
                                        .arg(QString::number(d.powerPermille / 10.0, 'f', 0))
                              : tr("Power: %1 W").arg(d.powerW));
        }
        if (d.trainingPermille >= 0 && !d.lost) {
            const QString training = QString::number(d.trainingPermille / 10.0, 'f', 1);
            const QString inference = QString::number(d.inferencePermille / 10.0, 'f', 1);
            lines << (d.utilisationPerProcess
                              ? tr("Training %1%, inference %2% (the processes' own samples)")
                              : tr("Training %1%, inference %2% (by the units they hold)"))
                             .arg(training, inference);
        }
        if (d.memoryUsedMiB < 0)
            lines << tr("Memory: %1; its use is not reported")
                             .arg(memoryAmountText(d.memoryTotalMiB));
        else
            lines << tr("Memory: %1 of %2 in use")
                             .arg(memoryAmountText(d.memoryUsedMiB),
                                  memoryAmountText(d.memoryTotalMiB));
        if (d.trainingMemoryMiB >= 0 && !d.lost)
            lines << tr("Memory by use: training %1, inference %2, other %3")
                             .arg(memoryAmountText(d.trainingMemoryMiB),
                                  memoryAmountText(d.inferenceMemoryMiB),
                                  memoryAmountText(d.otherMemoryMiB));
        if (d.otherProcesses > 0 && !d.lost)
            lines << tr("%n compute process(es) not started by Zhaoxi", "", d.otherProcesses);
        const QString state = CardTile::cardStateText(d);
        if (!state.isEmpty())
            lines << tr("State: %1").arg(state);
        const CardTile::Attention a = CardTile::attention(d, m_thresholds);
        if (a.level == CardTile::Level::Amber || a.level == CardTile::Level::Red)
            lines << tr("Needs attention: %1").arg(a.reasons.join(tr("; ")));
        if (d.slowdownTempC > 0 && d.temperatureC >= 0 && !d.lost)
            lines << tr("Slows down at %1 °C, shuts down at %2 °C")
                             .arg(d.slowdownTempC)
                             .arg(d.shutdownTempC > 0 ? d.shutdownTempC : d.slowdownTempC + 5);
        if (d.cordoned)
            lines << tr("Cordoned: takes no new work until uncordoned");
        if (d.layoutPinnedUntilMs == -1) {
            lines << tr("Layout pinned until unpinned: the scheduler does not change it");
        } else if (d.layoutPinnedUntilMs > 0) {
            const QDateTime at = QDateTime::fromMSecsSinceEpoch(
                    d.layoutPinnedUntilMs,
                    QTimeZone(m_snapshot ? m_snapshot->utcOffsetSeconds : 0));
            lines << tr("Layout pinned until %1: the scheduler does not change it before then")
                             .arg(QLocale().toString(at.time(), QLocale::ShortFormat));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

bool CardMapView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const Hit hit = hitTest(help->pos());
        const QString text = unitToolTip(hit);
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            const QRect area
                    = hit.unitUid >= 0 ? unitRect(hit.card, hit.unitUid) : cardRect(hit.card);
            QToolTip::showText(help->globalPos(), text, viewport(), area);
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

} // namespace Zhaoxi::Widgets
