// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardmapview.h"

#include "reasontext.h"

#include "core/models/jobtablemodel.h"
#include "core/models/sessionclient.h"
#include "widgets/appliedcommand.h"

#include <QAction>
#include <QDragEnterEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeySequence>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QUndoCommand>
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

const QString kIconFits = QStringLiteral("\u2713");     // ✓
const QString kIconPreempt = QStringLiteral("\u26a0");  // ⚠
const QString kIconRefused = QStringLiteral("\u2717");  // ✗
const QString kIconChecking = QStringLiteral("\u2026"); // …

QColor dropColor(CardMapView::DropState s)
{
    switch (s) {
    case CardMapView::DropState::Fits:
        return CardTile::levelColor(CardTile::Level::Green);
    case CardMapView::DropState::NeedsPreemption:
        return CardTile::levelColor(CardTile::Level::Amber);
    case CardMapView::DropState::Refused:
        return CardTile::levelColor(CardTile::Level::Red);
    case CardMapView::DropState::Checking:
    case CardMapView::DropState::None:
        break;
    }
    return QColor(0x80, 0x80, 0x80);
}

QString dropIcon(CardMapView::DropState s)
{
    switch (s) {
    case CardMapView::DropState::Fits:
        return kIconFits;
    case CardMapView::DropState::NeedsPreemption:
        return kIconPreempt;
    case CardMapView::DropState::Refused:
        return kIconRefused;
    case CardMapView::DropState::Checking:
        return kIconChecking;
    case CardMapView::DropState::None:
        break;
    }
    return QString();
}

} // namespace

// A placement made by a drop: undo takes the job back to the queue, redo places it again on
// the same card (preempting again when the original drop did: the operator agreed to that).
// The drop has already placed it when the command is pushed, so the first redo does nothing
// (AppliedCommand).
class PlacementCommand : public AppliedCommand
{
public:
    PlacementCommand(
            CardMapView *view, JobId job, CardId card, bool allowPreemption, const QString &text)
        : AppliedCommand(text)
        , m_view(view)
        , m_job(job)
        , m_card(card)
        , m_allowPreemption(allowPreemption)
    {}

    void undo() override
    {
        if (m_view)
            m_view->issue({CardMapView::PendingCommand::Kind::UndoRequeue, m_job, m_card, false});
    }

protected:
    void replay() override
    {
        if (m_view) {
            m_view->issue({CardMapView::PendingCommand::Kind::RedoPlace,
                           m_job,
                           m_card,
                           m_allowPreemption});
        }
    }

private:
    QPointer<CardMapView> m_view;
    JobId m_job;
    CardId m_card;
    bool m_allowPreemption = false;
};

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
            if (continues)
                block.brackets.last().rect.setRight(r.right());
            else if (perDomain.value(domain) > 1)
                block.brackets.append({QRect(r.left(), r.top() - band, r.width(), band), domain});
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

// --- Painting --------------------------------------------------------------------------------

void CardMapView::paintLegend(QPainter &p, const QRect &rect) const
{
    struct Entry
    {
        QColor color;
        Qt::BrushStyle brush;
        bool outlineOnly;
        QString text;
    };
    using CardTile::UnitClass;
    const QList<Entry> entries{
            {CardTile::classColor(UnitClass::Inference),
             Qt::SolidPattern,
             false,
             CardTile::classText(UnitClass::Inference)},
            {CardTile::classColor(UnitClass::Training),
             Qt::SolidPattern,
             false,
             CardTile::classText(UnitClass::Training)},
            {CardTile::classColor(UnitClass::Batch),
             Qt::SolidPattern,
             false,
             CardTile::classText(UnitClass::Batch)},
            {CardTile::classColor(UnitClass::Training),
             Qt::SolidPattern,
             true,
             tr("allocated, idle")},
            {m_style.mid, Qt::NoBrush, true, CardTile::classText(UnitClass::Free)},
            {CardTile::reconfiguringColor(), Qt::BDiagPattern, false, tr("reconf")},
            {CardTile::drainingColor(), Qt::FDiagPattern, false, tr("draining")},
    };
    p.setFont(m_style.smallFont);
    const QFontMetrics fm(m_style.smallFont);
    const int box = fm.height() - 4;
    int x = rect.left();
    const int cy = rect.center().y();
    for (const Entry &e : entries) {
        const QRect swatch(x, cy - box / 2, box * 2, box);
        if (e.outlineOnly) {
            QColor fill = e.color;
            fill.setAlpha(45);
            p.setPen(QPen(e.color, e.brush == Qt::NoBrush ? 1 : 2));
            p.setBrush(e.brush == Qt::NoBrush ? QBrush(Qt::NoBrush) : QBrush(fill));
        } else {
            p.setPen(QPen(e.color, 1));
            p.setBrush(QBrush(e.color, e.brush));
        }
        p.drawRect(swatch.adjusted(0, 0, -1, -1));
        x += swatch.width() + 4;
        p.setPen(m_style.text);
        const qreal w = CardTile::drawText(p,
                                           m_style,
                                           m_style.smallFont,
                                           QRectF(x, rect.top(), rect.right() - x, rect.height()),
                                           Qt::AlignLeft,
                                           e.text);
        x += int(w) + 14;
        if (x > rect.right())
            break;
    }
}

void CardMapView::paintEvent(QPaintEvent *event)
{
    QPainter p(viewport());
    p.fillRect(event->rect(), palette().color(QPalette::Window));
    if (!m_snapshot)
        return;
    const QPoint off = offset();
    p.translate(-off);
    const QRect visible = event->rect().translated(off);

    if (m_legend.intersects(visible))
        paintLegend(p, m_legend);

    const QFontMetrics smallFm(m_style.smallFont);
    for (const HostBlock &h : std::as_const(m_hosts)) {
        if (h.header.intersects(visible)) {
            p.setPen(m_style.text);
            CardTile::drawText(p,
                               m_style,
                               m_style.titleFont,
                               h.header.adjusted(0, 0, 0, -2),
                               Qt::AlignLeft,
                               h.title);
            p.setPen(m_style.mid);
            p.drawLine(h.header.bottomLeft(), h.header.bottomRight());
        }
        p.setFont(m_style.smallFont);
        for (const HostBlock::Bracket &b : h.brackets) {
            if (!b.rect.intersects(visible))
                continue;
            // ┌── NVLink 0 ──┐ over the tiles the link joins.
            const int y = b.rect.center().y() + 1;
            const QString label = tr("NVLink %1").arg(b.domain);
            const int lw = smallFm.horizontalAdvance(label) + 8;
            p.setPen(QPen(m_style.text, 1));
            p.drawLine(b.rect.left() + 1, y, b.rect.left() + 1, b.rect.bottom());
            p.drawLine(b.rect.right() - 1, y, b.rect.right() - 1, b.rect.bottom());
            p.drawLine(b.rect.left() + 1, y, b.rect.left() + 6, y);
            p.drawLine(b.rect.left() + 6 + lw, y, b.rect.right() - 1, y);
            CardTile::drawText(p,
                               m_style,
                               m_style.smallFont,
                               QRect(b.rect.left() + 8, b.rect.top(), lw, b.rect.height()),
                               Qt::AlignLeft,
                               label);
        }
    }

    for (Tile &t : m_tiles) {
        if (t.rect.intersects(visible))
            p.drawPixmap(t.rect.topLeft(), tilePixmap(t));
    }

    // The selection: the card, and the partition within it.
    if (m_selection.card.isValid() && m_selection.card.value() < m_tiles.size()) {
        const Tile &t = m_tiles[m_selection.card.value()];
        QColor hl = palette().color(QPalette::Highlight);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(hl, 3));
        p.drawRect(t.rect.adjusted(-2, -2, 1, 1));
        const QRect u = unitRect(m_selection.card, m_selection.unitUid).translated(off);
        if (!u.isEmpty()) {
            p.setPen(QPen(hl, 2, Qt::DashLine));
            p.drawRect(u.adjusted(1, 1, -2, -2));
        }
    }
    paintDropTarget(p);
}

void CardMapView::paintDropTarget(QPainter &p) const
{
    if (!m_drag.active || !m_drag.card.isValid() || m_drag.card.value() >= m_tiles.size())
        return;
    const QRect r = m_tiles[m_drag.card.value()].rect;
    const QColor c = dropColor(m_drag.state);
    QColor veil = c;
    veil.setAlpha(50);
    p.setPen(QPen(c, 4, m_drag.state == DropState::Checking ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(veil);
    p.drawRect(r.adjusted(-1, -1, 0, 0));

    // The answer in words next to the card (never colour alone).
    const QString label = dropIcon(m_drag.state) + QLatin1Char(' ') + m_drag.text;
    QFont f = m_style.smallFont;
    f.setPixelSize(std::max(11, f.pixelSize()));
    p.setFont(f);
    const QFontMetrics fm(f);
    const int maxW = std::max(r.width() * 2, 240);
    QRect textRect = fm.boundingRect(QRect(0, 0, maxW, 1000), Qt::TextWordWrap, label);
    textRect.adjust(-6, -4, 6, 4);
    QPoint at(r.left(), r.bottom() + 4);
    const QRect content(QPoint(0, 0), m_contentSize);
    if (at.y() + textRect.height() > content.bottom())
        at.setY(r.top() - 4 - textRect.height());
    if (at.x() + textRect.width() > content.right())
        at.setX(std::max(0, content.right() - textRect.width()));
    textRect.moveTopLeft(at);
    p.setPen(QPen(c, 1));
    p.setBrush(palette().color(QPalette::ToolTipBase));
    p.drawRoundedRect(textRect, 4, 4);
    p.setPen(palette().color(QPalette::ToolTipText));
    p.drawText(textRect.adjusted(6, 4, -6, -4), Qt::TextWordWrap, label);
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

// --- Drag and drop ---------------------------------------------------------------------------

void CardMapView::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<JobId> jobs = Models::JobTableModel::jobIdsFromMimeData(event->mimeData());
    if (jobs.isEmpty() || !m_client || !m_snapshot) {
        event->ignore();
        return;
    }
    // One job per drop: the first the drag carries.
    m_drag = Drag();
    m_drag.active = true;
    m_drag.job = jobs.first();
    m_previews.clear();
    event->acceptProposedAction();
    updateDragTarget(event->position().toPoint());
}

void CardMapView::dragMoveEvent(QDragMoveEvent *event)
{
    if (!m_drag.active) {
        event->ignore();
        return;
    }
    updateDragTarget(event->position().toPoint());
    // "Checking" accepts: the drop waits for the answer rather than the cursor saying no.
    if (m_drag.state == DropState::None || m_drag.state == DropState::Refused)
        event->ignore();
    else
        event->acceptProposedAction();
}

void CardMapView::dragLeaveEvent(QDragLeaveEvent *event)
{
    clearDrag();
    event->accept();
}

void CardMapView::dropEvent(QDropEvent *event)
{
    if (!m_drag.active) {
        event->ignore();
        return;
    }
    updateDragTarget(event->position().toPoint());
    const JobId job = m_drag.job;
    const CardId card = m_drag.card;
    const Key key(job.value(), card.value());
    const auto cached = m_previews.constFind(key);
    const bool fresh = cached != m_previews.cend() && cached->serial == m_snapshot->serial;
    // Refused by a fresh answer, or the job is not waiting any more (no answer needed).
    const bool refused
            = m_drag.state == DropState::Refused && (fresh || cached == m_previews.cend());
    if (!card.isValid() || refused) {
        if (card.isValid()) {
            Q_EMIT statusMessage(
                    tr("%1 cannot go on %2: %3").arg(jobName(job), cardName(card), m_drag.text));
        }
        event->ignore();
        clearDrag();
        return;
    }
    event->acceptProposedAction();
    clearDrag();
    if (fresh) {
        const PlacementPreview preview = cached->preview;
        QMetaObject::invokeMethod(
                this, [this, preview] { actOnDrop(preview); }, Qt::QueuedConnection);
    } else {
        // No answer for this snapshot yet: act when it comes.
        m_pendingDrop = key;
        requestPreview(job, card);
    }
}

void CardMapView::clearDrag()
{
    const bool wasShown = m_drag.active && m_drag.card.isValid();
    m_drag = Drag();
    if (wasShown)
        viewport()->update();
}

void CardMapView::updateDragTarget(const QPoint &viewportPos)
{
    const CardId card = hitTest(viewportPos).card;
    if (card == m_drag.card && m_drag.state != DropState::None)
        return;
    m_drag.card = card;
    refreshDragState();
    viewport()->update();
}

void CardMapView::refreshDragState()
{
    const CardId card = m_drag.card;
    const JobId job = m_drag.job;
    if (!card.isValid() || !m_snapshot) {
        m_drag.state = DropState::None;
        m_drag.text.clear();
        return;
    }
    const Sched::ClusterState &st = m_snapshot->state;
    if (!job.isValid() || job.value() >= st.jobs().size()
        || st.job(job).state != Sched::JobState::Pending) {
        m_drag.state = DropState::Refused;
        m_drag.text = tr("%1 is no longer waiting.").arg(jobName(job));
        return;
    }
    const Key key(job.value(), card.value());
    const auto cached = m_previews.constFind(key);
    if (cached == m_previews.cend() || cached->serial != m_snapshot->serial)
        requestPreview(job, card); // may answer at once (a session on this thread)
    const auto answer = m_previews.constFind(key);
    if (answer == m_previews.cend()) {
        m_drag.state = DropState::Checking;
        m_drag.text
                = tr("Checking whether %1 can run on %2\u2026").arg(jobName(job), cardName(card));
        return;
    }
    // An answer of an older snapshot stays up until the fresh one comes (no flicker).
    const PlacementPreview &p = answer->preview;
    switch (p.outcome) {
    case PlacementPreview::Outcome::Direct:
        m_drag.state = DropState::Fits;
        m_drag.text = tr("%1 fits on %2.").arg(jobName(job), cardName(card));
        break;
    case PlacementPreview::Outcome::NeedsPreemption: {
        m_drag.state = DropState::NeedsPreemption;
        QStringList names = p.victimNames;
        names.removeAll(QString());
        m_drag.text
                = tr("Fits on %1 if %n job(s) are preempted: %2", nullptr, int(p.victims.size()))
                          .arg(cardName(card), names.join(QStringLiteral(", ")));
        break;
    }
    case PlacementPreview::Outcome::Refused:
        m_drag.state = DropState::Refused;
        m_drag.text = reasonText(p.status);
        break;
    }
}

void CardMapView::requestPreview(JobId job, CardId card)
{
    if (!m_client || !m_snapshot)
        return;
    const Key key(job.value(), card.value());
    const quint64 serial = m_snapshot->serial;
    for (auto it = m_previewRequests.cbegin(); it != m_previewRequests.cend(); ++it) {
        if (it.value().first == key && it.value().second == serial)
            return; // asked already; the answer is on its way
    }
    // A session on this thread answers inside the call, before its request id is known: the
    // answer is matched by m_askingNow then.
    m_askingNow = qMakePair(key, serial);
    const quint64 request = m_client->previewPlacement(job, card);
    if (m_askingNow)
        m_previewRequests.insert(request, *m_askingNow);
    m_askingNow.reset();
}

void CardMapView::onPreviewReady(const PlacementPreview &preview)
{
    const Key key(preview.job.value(), preview.card.value());
    if (m_askingNow && m_askingNow->first == key) {
        const quint64 serial = m_askingNow->second;
        m_askingNow.reset();
        takePreview(preview, serial);
        return;
    }
    const auto it = m_previewRequests.find(preview.request);
    if (it == m_previewRequests.end() || it.value().first != key)
        return; // someone else's question
    const quint64 serial = it.value().second;
    m_previewRequests.erase(it);
    takePreview(preview, serial);
}

void CardMapView::takePreview(const PlacementPreview &preview, quint64 serial)
{
    const Key key(preview.job.value(), preview.card.value());
    const auto old = m_previews.constFind(key);
    if (old == m_previews.cend() || old->serial <= serial)
        m_previews.insert(key, CachedPreview{serial, preview});
    if (m_drag.active && m_drag.job == preview.job && m_drag.card == preview.card) {
        refreshDragState();
        viewport()->update();
    }
    if (m_pendingDrop && *m_pendingDrop == key) {
        m_pendingDrop.reset();
        QMetaObject::invokeMethod(
                this, [this, preview] { actOnDrop(preview); }, Qt::QueuedConnection);
    }
}

bool CardMapView::confirmPreemption(const PreemptionRequest &request)
{
    if (m_confirm)
        return m_confirm(request);
    PreemptionDialog dialog(request, this);
    return dialog.exec() == QDialog::Accepted;
}

void CardMapView::actOnDrop(const PlacementPreview &preview)
{
    if (!m_client)
        return;
    const QString job = jobName(preview.job);
    const QString card = cardName(preview.card);
    switch (preview.outcome) {
    case PlacementPreview::Outcome::Direct:
        issue({PendingCommand::Kind::Place, preview.job, preview.card, false});
        break;
    case PlacementPreview::Outcome::NeedsPreemption: {
        PreemptionRequest request;
        request.preview = preview;
        request.jobName = job;
        request.cardName = card;
        if (confirmPreemption(request))
            issue({PendingCommand::Kind::Place, preview.job, preview.card, true});
        else
            Q_EMIT statusMessage(tr("%1 was not placed: preemption declined.").arg(job));
        break;
    }
    case PlacementPreview::Outcome::Refused:
        Q_EMIT statusMessage(
                tr("%1 cannot go on %2: %3").arg(job, card, reasonText(preview.status)));
        break;
    }
}

void CardMapView::issue(const PendingCommand &command)
{
    if (!m_client)
        return;
    // As with previews: a session on this thread answers before the request id is known.
    m_issuingNow = command;
    m_answeredNow.reset();
    const quint64 request
            = command.kind == PendingCommand::Kind::UndoRequeue
                      ? m_client->requeueJob(command.job)
                      : m_client->placeJob(command.job, command.card, command.allowPreemption);
    m_issuingNow.reset();
    if (m_answeredNow) {
        const Session::CommandResult result = *m_answeredNow;
        m_answeredNow.reset();
        finishCommand(command, result);
    } else {
        m_commands.insert(request, command);
    }
}

void CardMapView::onCommandFinished(const Session::CommandResult &result)
{
    const auto it = m_commands.find(result.request);
    if (it != m_commands.end()) {
        const PendingCommand command = it.value();
        m_commands.erase(it);
        finishCommand(command, result);
        return;
    }
    if (m_issuingNow && !m_answeredNow)
        m_answeredNow = result;
}

void CardMapView::finishCommand(const PendingCommand &command, const Session::CommandResult &result)
{
    const QString job = jobName(command.job);
    const QString card = cardName(command.card);
    switch (command.kind) {
    case PendingCommand::Kind::Place:
    case PendingCommand::Kind::RedoPlace:
        if (result.ok) {
            if (command.kind == PendingCommand::Kind::Place && m_undoStack) {
                m_undoStack->push(new PlacementCommand(this,
                                                       command.job,
                                                       command.card,
                                                       command.allowPreemption,
                                                       tr("Place %1 on %2").arg(job, card)));
            }
            Q_EMIT jobPlaced(command.job, command.card, command.allowPreemption);
            Q_EMIT statusMessage(
                    command.allowPreemption
                            ? tr("%1 goes on %2 once the preempted jobs have left.").arg(job, card)
                            : tr("Placed %1 on %2.").arg(job, card));
        } else {
            // A failure without a reason: the job was no longer waiting, or is gone.
            const Sched::Status why = result.status.isSuccess()
                                              ? Sched::Status::error(Sched::Reason::None)
                                              : result.status;
            Q_EMIT statusMessage(
                    tr("Could not place %1 on %2: %3").arg(job, card, reasonText(why)));
        }
        break;
    case PendingCommand::Kind::UndoRequeue:
        Q_EMIT statusMessage(
                result.ok ? tr("%1 went back to the queue.").arg(job)
                          : tr("Could not take %1 back to the queue: it is not running.").arg(job));
        break;
    }
}

} // namespace Zhaoxi::Widgets
