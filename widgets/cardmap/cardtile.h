// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/session/snapshot.h"

#include <QColor>
#include <QFont>
#include <QList>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>

class QPainter;

namespace Zhaoxi::Widgets {

// The card map's warning levels for the badges: a reading at or above `amber` shows amber (with
// a ▲), at or above `red` shows red. Power is a fraction of the card's power limit.
// The console's own badge thresholds, for a card whose model (the catalogue) and driver give no
// slowdown temperature: only then are temperature and power judged against one number.
struct CardMapThresholds
{
    double temperatureAmberC = 75;
    double temperatureRedC = 85;
    double powerAmber = 0.80;
    double powerRed = 0.95;
    friend bool operator==(const CardMapThresholds &, const CardMapThresholds &) = default;
};

namespace CardTile {

// What a unit serves, for its colour (and its legend word).
enum class UnitClass : std::uint8_t { Free, Inference, Training, Batch };
// A state that overrides the class's look: a partition being created or destroyed, or a job
// that was chosen as a victim and leaves soon.
enum class UnitCondition : std::uint8_t { Normal, Reconfiguring, Draining };
enum class Level : std::uint8_t { None, Green, Amber, Red };

// One unit of a card as the map draws it: where in the strip (0..1 of its width), what it is,
// whom it serves and whether that job is working now.
struct Unit
{
    int uid = -1;
    QString profile; // MIG profile name; empty for whole cards and shares
    int start = -1;  // MIG start slot
    int computeSlices = 0;
    double x0 = 0;
    double x1 = 1;
    int milli = 1000;
    qint64 memoryMiB = 0;
    Domain::JobId job;
    QString jobName;
    UnitClass unitClass = UnitClass::Free;
    UnitCondition condition = UnitCondition::Normal;
    Sched::UnitState state = Sched::UnitState::Ready;
    bool busy = false; // its job is working now (CardSample::busyUnits)
    friend bool operator==(const Unit &, const Unit &) = default;
};

// Everything one tile shows, taken from one snapshot; tiles whose Data compare equal look the
// same, so the map keeps their pixmaps.
struct Data
{
    Domain::CardId card;
    int indexOnHost = 0;
    QString model;
    Domain::PartitionMode mode = Domain::PartitionMode::Whole;
    int memorySlices = 8;  // MIG: the model's memory slots
    int computeSlices = 7; // MIG: the model's compute slices
    Sched::CardHealth health = Sched::CardHealth::Healthy;
    bool hostUp = true;
    bool lost = false;
    bool throttled = false;
    int utilisationPermille = -1; // -1: not available
    int temperatureC = -1;        // -1: no reading
    int powerW = -1;
    int powerPermille = -1; // of the power limit; -1: no limit known
    qint64 memoryUsedMiB = 0;
    qint64 memoryTotalMiB = 0;
    // Whose the used memory is (-1: not known, as in the twin) and the processes on the card
    // that are none of Zhaoxi's jobs' (a real card's NVML list).
    qint64 trainingMemoryMiB = -1;
    qint64 inferenceMemoryMiB = -1;
    qint64 otherMemoryMiB = -1;
    int otherProcesses = 0;
    int trainingPermille = -1; // of the card's utilisation serving training (-1: not available)
    int inferencePermille = -1;
    bool utilisationPerProcess = false; // the split is the processes' own samples
    // An operator's pin on the layout: 0 none, -1 until unpinned, else its end (appliance time).
    qint64 layoutPinnedUntilMs = 0;
    // An operator's cordon: the card takes no new work.
    bool cordoned = false;
    // Health: the clocks' throttle reasons (NVML's bits), the card's own slowdown and shutdown
    // temperatures (0: unknown), errors seen.
    quint64 throttleReasons = 0;
    int slowdownTempC = 0;
    int shutdownTempC = 0;
    int xidErrors = 0;
    qint64 eccUncorrected = 0;
    QList<Unit> units;
    friend bool operator==(const Data &, const Data &) = default;
};

Data makeData(const Session::Snapshot &snapshot, const Sched::CardState &card);

// A card's temperature against its own slowdown and shutdown temperatures: amber from the
// slowdown, red from the shutdown less 3 °C, else no alarm (None: a plain badge). Without them
// (an unknown model), the console's thresholds `t`.
Level temperatureLevel(const Data &d, const CardMapThresholds &t);
// Drawing power is not an alarm, whatever the load: amber only while the clocks are held down
// for power (a cap, a power brake). Without the card's thresholds, the console's `t`.
Level powerLevel(const Data &d, const CardMapThresholds &t);

// Whether a card needs the administrator, and why (the reasons in words): red for a failed or
// lost card, a host down, Xid or uncorrectable ECC errors, the shutdown temperature near; amber
// for throttled clocks (with the reason) or the slowdown temperature reached. Full-power work at
// a normal temperature is None.
struct Attention
{
    Level level = Level::None;
    QStringList reasons;
};
Attention attention(const Data &d, const CardMapThresholds &t);
// The same level without the words (painting a tile).
Level attentionLevel(const Data &d, const CardMapThresholds &t);
// The throttle reasons in words ("thermal slowdown", "power cap"); empty when none alarming.
QStringList throttleReasonTexts(quint64 reasons);

// Texts laid out once (QStaticText per text, font and width, elided to fit) so that painting a
// tile draws glyph runs instead of laying its texts out again: a map of 64 tiles whose readings
// all changed repaints in a few milliseconds. One per Style (its fonts); not thread-safe.
class TextCache;

// Fonts and colours of one rendering; the map builds it from its palette and zoom.
struct Style
{
    QFont titleFont; // bold
    QFont smallFont;
    QFont boldFont;         // smallFont, bold
    qreal titleHeight = 14; // line heights of titleFont and smallFont
    qreal smallHeight = 12;
    QColor base;
    QColor text;
    QColor mid;
    double zoom = 1;
    // Shared by the renderings of this style.
    std::shared_ptr<TextCache> texts;
};
// The fonts (scaled from `font` by `zoom`), their line heights and a new text cache.
Style makeStyle(
        const QFont &font, const QColor &base, const QColor &text, const QColor &mid, double zoom);

QColor classColor(UnitClass c);
QColor levelColor(Level l);
QColor reconfiguringColor();
QColor drainingColor();
QColor failedColor();

// Where the parts of a tile are, in the tile's coordinates (shared by painting and hit tests).
struct Geometry
{
    QRectF title;
    QRectF strip; // the units
    QRectF gauge; // MIG compute slices (empty otherwise)
    QRectF footer;
};
Geometry geometry(const QRectF &tile, const Style &style, bool mig);
// A unit's rectangle within the strip.
QRectF unitRect(const Geometry &g, const Unit &u);

// Draws `text` in `font` (one of the style's) into `rect`, vertically centred, elided to the
// rect's width; nothing when fewer than three characters would show. Uses the style's text
// cache. Returns the width drawn (0: nothing).
qreal drawText(QPainter &p,
               const Style &style,
               const QFont &font,
               const QRectF &rect,
               Qt::Alignment align,
               const QString &text);

// Paints a tile into `rect`.
void paint(QPainter &p,
           const QRectF &rect,
           const Data &d,
           const Style &style,
           const CardMapThresholds &thresholds);

// Words shared by the tile and the map's tooltips and legend (translated).
QString classText(UnitClass c);
QString modeShortText(Domain::PartitionMode mode);
QString cardStateText(const Data &d); // "failed", "lost", "throttled", "reconf"... or empty

} // namespace CardTile
} // namespace Zhaoxi::Widgets
