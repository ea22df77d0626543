// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cardtile.h"
#include "preemptiondialog.h"

#include "core/session/session.h"

#include <QAbstractScrollArea>
#include <QHash>
#include <QList>
#include <QPixmap>
#include <QPointer>
#include <QUndoStack>

#include <functional>
#include <optional>

class QAction;
class QMenu;

namespace Zhaoxi::Models {
class SessionClient;
}

namespace Zhaoxi::Widgets {

// The card map: every card of the appliance as a tile, grouped by host (a header per host) with
// its fast-link domains bracketed ("NVLink 0"), each card drawn as its partition strip: MIG
// cards as their 8 memory slots with each instance at its real start and span and its profile
// name, and the 7 compute slices beneath; soft-sliced cards (time-slicing, MPS) as their
// shares; whole cards as one block. A unit's outline is its allocation (coloured by class:
// inference, training, batch), its fill whether its job is busy now, so "allocated but idle"
// shows; reconfiguring partitions are hatched ("reconf"), victims about to leave are striped
// ("draining"), failed cards veiled ("FAILED"). Temperature and power badges go green, amber
// (▲) and red by thresholds. Words accompany every colour.
//
// Clicking selects a card, a partition and its job (signals below); a tooltip tells a
// partition's profile, memory, job and state. Zoom in, out, or fit (the tile size follows the
// viewport so the whole appliance shows; 64 cards fit a 1600x1000 window).
//
// Jobs dropped from a JobTableModel (MIME type JobTableModel::mimeType()) go onto a card: while
// dragging, the card under the cursor asks the session "could this job run here?"
// (SessionClient::previewPlacement, answers cached per job, card and snapshot) and turns green
// (fits), amber (fits if running jobs are preempted), red (refused, with the reason as a label)
// or grey ("checking…") until the answer comes; the GUI never waits. A drop places the job
// (placeJob without preemption); one that needs preemption first asks the operator, listing the
// victims and the work they lose (setPreemptionConfirmation() replaces the dialog, e.g. in
// tests); a drop refused for the class budget may be placed anyway, over it, after the same
// question; a drop refused as the card is laid out, when another layout would take the job
// (Scheduler::layoutToFit), offers that layout ("It fits on GPU 6 as 3g.71gb + 3×1g.18gb.") and
// on a yes opens it in the repartition editor (layoutProposed), never applying it itself; any
// other refused drop is ignored with its reason (statusMessage). With an undo stack, a
// placement can be undone (the job goes back to the queue) and redone (placed again on the same
// card, preempting again if the original placement did).
//
// Talks only to its SessionClient. GUI thread only.
class CardMapView : public QAbstractScrollArea
{
    Q_OBJECT

public:
    // What is under a point: a card, one of its units (uid, -1 for none) and that unit's job.
    struct Hit
    {
        Domain::CardId card;
        int unitUid = -1;
        Domain::JobId job;
    };

    // The state of the card under a drag.
    enum class DropState {
        None,            // no drag, or not over a card
        Checking,        // the question is out
        Fits,            // it fits as the card is
        NeedsPreemption, // it fits once the listed jobs leave
        Refused,         // it cannot go there now (dropText() says why)
    };
    Q_ENUM(DropState)

    using ConfirmPreemption = std::function<bool(const PreemptionRequest &)>;

    // `client` may be null (a map fed by setSnapshot() alone, e.g. for screenshots and
    // benchmarks: it takes no drops).
    explicit CardMapView(Models::SessionClient *client, QWidget *parent = nullptr);
    ~CardMapView() override;

    // Successful drops push an undoable command here (null: no undo). Not owned.
    void setUndoStack(QUndoStack *stack);
    QUndoStack *undoStack() const { return m_undoStack; }
    // Badge thresholds (the main window loads them from its settings).
    void setThresholds(const CardMapThresholds &thresholds);
    CardMapThresholds thresholds() const { return m_thresholds; }
    // Replaces the confirmation dialog for drops that preempt (null: the dialog). Returns true
    // to go ahead.
    void setPreemptionConfirmation(ConfirmPreemption confirm);
    // Replaces the question before "Drain…" (the jobs that leave and how, drainLines): returns
    // true to go ahead. Tests replace it.
    using ConfirmDrain = std::function<bool(Domain::CardId, const QStringList &lines)>;
    void setDrainConfirmation(ConfirmDrain confirm) { m_confirmDrain = std::move(confirm); }
    // One line per job a drain of `card` sends back to the queue: "name: leaves at ...".
    QStringList drainLines(Domain::CardId card) const;
    // A refused drop's hint at when it could start ("It fits at 20:00, when ‘night’ opens."),
    // from the preview's startsAtMs; empty when there is none.
    QString startHintText(const Session::PlacementPreview &preview) const;
    // A refused drop's hint at a layout that would let it run ("It fits on dgx GPU 6 as
    // 3g.71gb + 3×1g.18gb."), from the preview's layoutCard and layoutTarget; empty when none.
    QString layoutHintText(const Session::PlacementPreview &preview) const;
    // Asked when a job is dropped on a target whose hint is a layout: true opens that layout
    // in the repartition editor (layoutProposed). Null: a question box with "Open this layout".
    // Tests replace it.
    using ConfirmLayout = std::function<bool(const Session::PlacementPreview &, const QString &)>;
    void setLayoutConfirmation(ConfirmLayout confirm) { m_confirmLayout = std::move(confirm); }

    // Zoom: 1 = the natural tile size (about 230 x 120 px). Fit mode follows the viewport.
    double zoom() const { return m_zoom; }
    bool isFitMode() const { return m_fit; }
    QAction *zoomInAction() const { return m_zoomInAction; }
    QAction *zoomOutAction() const { return m_zoomOutAction; }
    QAction *fitAction() const { return m_fitAction; }

    const Session::SnapshotPtr &snapshot() const { return m_snapshot; }

    // Hit testing and geometry, in viewport coordinates.
    Hit hitTest(const QPoint &viewportPos) const;
    QRect cardRect(Domain::CardId card) const;          // empty when unknown
    QRect unitRect(Domain::CardId card, int uid) const; // empty when unknown
    // The link-domain brackets' labels as drawn, host by host ("NVLink 0", "NVLink 1 (2/2)").
    QStringList linkDomainLabels() const;

    // The selection (invalid / -1 when nothing is selected).
    Domain::CardId selectedCard() const { return m_selection.card; }
    int selectedUnit() const { return m_selection.unitUid; }
    Domain::JobId selectedJob() const { return m_selection.job; }
    // Selects a card (and a unit) as a click would, without emitting signals.
    void select(Domain::CardId card, int unitUid = -1);

    // The drag in progress, for the main window's status bar and for tests.
    DropState dropState() const { return m_drag.state; }
    Domain::CardId dropCard() const { return m_drag.card; }
    QString dropText() const { return m_drag.text; }

    QSize sizeHint() const override;

    // The menu a right-click on `card` opens (the caller owns it): repartition the card, pin or
    // unpin its layout. Null for no card.
    QMenu *createCardMenu(Domain::CardId card, QWidget *parent);

public Q_SLOTS:
    // Shows a snapshot (connected to SessionClient::snapshotChanged).
    void setSnapshot(const Zhaoxi::Session::SnapshotPtr &snapshot);
    // Selects the (first) unit a job is bound to, e.g. the job chosen in the jobs table; a job
    // that is not placed clears the selection. Emits nothing.
    void selectJob(Zhaoxi::Domain::JobId job);
    void zoomIn();
    void zoomOut();
    void setZoom(double zoom); // leaves fit mode
    void fitToView();          // enters fit mode

Q_SIGNALS:
    // A click on a card (and, when it landed on one, a partition and its job).
    void cardSelected(Zhaoxi::Domain::CardId card);
    void partitionSelected(Zhaoxi::Domain::CardId card, int unitUid);
    void jobSelected(Zhaoxi::Domain::JobId job);
    void zoomChanged(double zoom);
    // A dropped job was placed (`preempted`: running jobs were evicted for it).
    void jobPlaced(Zhaoxi::Domain::JobId job, Zhaoxi::Domain::CardId card, bool preempted);
    // A sentence for the status bar: a refused drop and why, a failed placement, an undo.
    void statusMessage(const QString &message);
    // "Repartition…" in a card's menu: the main window opens the editor on it.
    void repartitionRequested(Zhaoxi::Domain::CardId card);
    // The operator chose to open the layout a refused drop's hint proposed: the main window
    // shows it in the repartition editor as the planned layout (applied only from there).
    void layoutProposed(Zhaoxi::Domain::CardId card,
                        const QList<Zhaoxi::Domain::MigPlacement> &layout);
    // A right-click on a job's partition: the main window opens the job's menu there.
    void jobMenuRequested(Zhaoxi::Domain::JobId job, const QPoint &globalPos);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void changeEvent(QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    friend class PlacementCommand;

    struct HostBlock
    {
        Domain::HostId host;
        QRect header;  // content coordinates
        QString title; // "dgx-h200 · 8 cards"
        struct Bracket
        {
            QRect rect; // the line above a run of tiles of one link domain
            int domain = 0;
            // A domain wider than a row goes on over the next ones: one bracket per row, open
            // on the sides it wraps at and numbered ("NVLink 0 (1/2)", "NVLink 0 (2/2)"),
            // never two brackets that both read "NVLink 0".
            int part = 0;
            int parts = 1;
            bool continuesLeft() const { return part > 0; }
            bool continuesRight() const { return part + 1 < parts; }
        };
        QList<Bracket> brackets;
    };
    // Where everything goes at one zoom and width (content coordinates).
    struct Layout
    {
        CardTile::Style style;
        QRect legend;
        QList<HostBlock> hosts;
        QList<QRect> tiles; // by card id
        QSize content;
    };
    struct Tile
    {
        CardTile::Data data;
        QRect rect; // content coordinates
        QPixmap pixmap;
        bool dirty = true;
    };
    struct Drag
    {
        bool active = false;
        Domain::JobId job;
        Domain::CardId card;
        DropState state = DropState::None;
        QString text;
        bool anyway = false; // refused for the class budget, but may be placed over it (asked)
        bool layout = false; // refused as laid out; a drop offers the layout that would fit
    };
    struct CachedPreview
    {
        quint64 serial = 0;
        Session::PlacementPreview preview;
    };
    struct PendingCommand
    {
        enum class Kind { Place, UndoRequeue, RedoPlace };
        Kind kind = Kind::Place;
        Domain::JobId job;
        Domain::CardId card;
        bool allowPreemption = false;
        // The victims the operator confirmed (a first placement with preemption): the session
        // refuses when its plan differs, and the map asks again.
        QList<int> confirmedVictims = {};
        bool confirmed = false;
        // The operator's "place anyway, over the class budget", confirmed (with the victims
        // above: the over-budget plan's).
        bool overBudget = false;
    };
    using Key = QPair<int, int>; // job, card

    void rebuildTiles();
    void relayout();
    // `stretch`: widen the tiles into the room left on the right (fit mode).
    Layout layoutFor(double zoom, int width, bool stretch) const;
    double fitZoom() const;
    void retranslateUi();
    void applyZoom(double zoom, bool fit);
    CardTile::Style styleFor(double zoom) const;
    void invalidateTiles();
    const QPixmap &tilePixmap(Tile &tile);
    QPoint offset() const;
    QString cardName(Domain::CardId card) const;
    QString jobName(Domain::JobId job) const;
    QString unitToolTip(const Hit &hit) const;
    void paintLegend(QPainter &p, const QRect &rect) const;
    void paintDropTarget(QPainter &p) const;

    // Drag and drop.
    void updateDragTarget(const QPoint &viewportPos);
    void refreshDragState();
    void requestPreview(Domain::JobId job, Domain::CardId card);
    void onPreviewReady(const Session::PlacementPreview &preview);
    void takePreview(const Session::PlacementPreview &preview, quint64 serial);
    void actOnDrop(const Session::PlacementPreview &preview);
    bool confirmLayout(const Session::PlacementPreview &preview);
    static QString bracketLabel(const HostBlock::Bracket &bracket);
    void issue(const PendingCommand &command);
    void onCommandFinished(const Session::CommandResult &result);
    void finishCommand(const PendingCommand &command, const Session::CommandResult &result);
    void clearDrag();
    bool confirmPreemption(const PreemptionRequest &request);

    QPointer<Models::SessionClient> m_client;
    QPointer<QUndoStack> m_undoStack;
    Session::SnapshotPtr m_snapshot;
    CardMapThresholds m_thresholds;
    ConfirmPreemption m_confirm;
    ConfirmDrain m_confirmDrain;
    ConfirmLayout m_confirmLayout;

    QList<Tile> m_tiles; // by card id
    QList<HostBlock> m_hosts;
    QRect m_legend;
    QSize m_contentSize;
    QByteArray m_topology; // what the layout depends on: hosts, their cards and link domains
    double m_zoom = 1;
    bool m_fit = true;
    CardTile::Style m_style;
    qreal m_pixelRatio = 1;

    Hit m_selection;

    QAction *m_zoomInAction = nullptr;
    QAction *m_zoomOutAction = nullptr;
    QAction *m_fitAction = nullptr;

    Drag m_drag;
    QHash<Key, CachedPreview> m_previews;
    QHash<quint64, QPair<Key, quint64>> m_previewRequests; // request -> (key, serial asked at)
    std::optional<Key> m_pendingDrop;                      // dropped before its answer came
    QHash<quint64, PendingCommand> m_commands;
};

} // namespace Zhaoxi::Widgets
