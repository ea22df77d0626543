// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardtile.h"

#include "core/device/devicebackend.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QSet>
#include <QStaticText>

#include <algorithm>
#include <climits>
#include <cmath>

namespace Zhaoxi::Widgets::CardTile {

using Domain::PartitionMode;
using Domain::WorkloadKind;
using Sched::CardHealth;
using Sched::JobState;
using Sched::UnitState;

// One translation context for the tile's words.
class TileText
{
    Q_DECLARE_TR_FUNCTIONS(Zhaoxi::Widgets::CardTile)
};

namespace {

int roundInt(double v)
{
    return int(std::lround(v));
}

UnitClass classOf(WorkloadKind kind)
{
    switch (kind) {
    case WorkloadKind::Inference:
        return UnitClass::Inference;
    case WorkloadKind::Training:
        return UnitClass::Training;
    case WorkloadKind::Batch:
        return UnitClass::Batch;
    }
    return UnitClass::Batch;
}

// `a` with `t` (0..1) of `b`: the opaque colour a translucent `b` over `a` would give.
QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

// An outline `width` pixels wide inside `r`, as four filled rectangles.
void frame(QPainter &p, const QRect &r, const QColor &c, int width)
{
    if (r.width() <= 2 * width || r.height() <= 2 * width) {
        p.fillRect(r, c);
        return;
    }
    p.fillRect(QRect(r.left(), r.top(), r.width(), width), c);
    p.fillRect(QRect(r.left(), r.bottom() - width + 1, r.width(), width), c);
    p.fillRect(QRect(r.left(), r.top() + width, width, r.height() - 2 * width), c);
    p.fillRect(QRect(r.right() - width + 1, r.top() + width, width, r.height() - 2 * width), c);
}

QString percentText(int permille)
{
    return TileText::tr("%1%").arg(roundInt(permille / 10.0));
}

QString gibText(qint64 mib)
{
    return QString::number(double(mib) / 1024.0, 'f', 0);
}

} // namespace

class TextCache
{
public:
    struct Entry
    {
        QStaticText text;
        QSizeF size;
        bool empty = true;
    };

    // `text` in `font`, elided to `width` (<= 0: as wide as it is); empty when too little of it
    // would show (fewer than three characters).
    const Entry &get(const QFont &font, const QString &text, qreal width)
    {
        const int w = width > 0 ? int(width) : -1;
        // Fonts are few (a style's three): tell them apart by their size and weight.
        Key key{font.pixelSize() * 2 + (font.bold() ? 1 : 0), text, w};
        const auto it = m_entries.constFind(key);
        if (it != m_entries.cend())
            return *it;
        if (m_entries.size() > 8192)
            m_entries.clear(); // readings change every snapshot: keep the cache bounded
        Entry e;
        QString shown = text;
        const QFontMetricsF fm(font);
        if (w > 0 && fm.horizontalAdvance(text) > w) {
            shown = fm.elidedText(text, Qt::ElideRight, w);
            if (shown.size() < std::min<qsizetype>(text.size(), 4) + 1)
                shown.clear();
        }
        if (!shown.isEmpty()) {
            e.text = QStaticText(shown);
            e.text.setTextFormat(Qt::PlainText);
            e.text.setPerformanceHint(QStaticText::AggressiveCaching);
            e.text.prepare(QTransform(), font);
            e.size = QSizeF(fm.horizontalAdvance(shown), fm.height());
            e.empty = false;
        }
        return *m_entries.insert(key, e);
    }

private:
    struct Key
    {
        int font = 0;
        QString text;
        int width = -1;
        friend bool operator==(const Key &, const Key &) = default;
        friend size_t qHash(const Key &k, size_t seed = 0) noexcept
        {
            return qHashMulti(seed, k.font, k.text, k.width);
        }
    };
    QHash<Key, Entry> m_entries;
};

Style makeStyle(
        const QFont &font, const QColor &base, const QColor &text, const QColor &mid, double zoom)
{
    Style s;
    s.zoom = zoom;
    s.titleFont = font;
    s.titleFont.setPixelSize(std::clamp(int(std::lround(12 * zoom)), 7, 22));
    s.titleFont.setBold(true);
    s.smallFont = font;
    s.smallFont.setPixelSize(std::clamp(int(std::lround(10.5 * zoom)), 7, 18));
    s.smallFont.setBold(false);
    s.boldFont = s.smallFont;
    s.boldFont.setBold(true);
    s.titleHeight = QFontMetricsF(s.titleFont).height();
    s.smallHeight = QFontMetricsF(s.smallFont).height();
    s.base = base;
    s.text = text;
    s.mid = mid;
    s.texts = std::make_shared<TextCache>();
    return s;
}

namespace {

TextCache &textsOf(const Style &style)
{
    if (style.texts)
        return *style.texts;
    static TextCache fallback;
    return fallback;
}

} // namespace

qreal drawText(QPainter &p,
               const Style &style,
               const QFont &font,
               const QRectF &rect,
               Qt::Alignment align,
               const QString &text)
{
    if (text.isEmpty() || rect.width() < 6)
        return 0;
    const TextCache::Entry &e = textsOf(style).get(font, text, rect.width());
    if (e.empty || rect.height() < e.size.height() * 0.75)
        return 0;
    qreal x = rect.left();
    if (align & Qt::AlignHCenter)
        x = rect.center().x() - e.size.width() / 2;
    else if (align & Qt::AlignRight)
        x = rect.right() - e.size.width();
    p.setFont(font);
    p.drawStaticText(QPointF(x, rect.center().y() - e.size.height() / 2), e.text);
    return e.size.width();
}

namespace {

// A reading's badge, right-aligned at `right`; returns its left edge. The level is told by the
// colour and, for amber and red, by a ▲ as well (never colour alone).
qreal drawBadge(QPainter &p,
                const Style &style,
                const QRectF &row,
                qreal right,
                const QString &text,
                Level level)
{
    if (text.isEmpty())
        return right;
    const QString shown
            = level == Level::Amber || level == Level::Red ? QStringLiteral("\u25b2") + text : text;
    const TextCache::Entry &e = textsOf(style).get(style.smallFont, shown, -1);
    const qreal w = e.size.width() + 6;
    const QRectF r(right - w, row.top() + 1, w, row.height() - 2);
    if (e.empty || r.left() < row.left() + row.width() * 0.35)
        return right; // no room next to the title: leave it to the tooltip
    p.fillRect(r,
               level == Level::Green ? mix(style.base, levelColor(level), 0.3) : levelColor(level));
    p.setPen(level == Level::Red ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20));
    drawText(p, style, style.smallFont, r, Qt::AlignHCenter, shown);
    return r.left() - 3;
}

} // namespace

QString classText(UnitClass c)
{
    switch (c) {
    case UnitClass::Free:
        return TileText::tr("free");
    case UnitClass::Inference:
        return TileText::tr("inference");
    case UnitClass::Training:
        return TileText::tr("training");
    case UnitClass::Batch:
        return TileText::tr("batch");
    }
    return QString();
}

QString modeShortText(PartitionMode mode)
{
    switch (mode) {
    case PartitionMode::Whole:
        return TileText::tr("whole");
    case PartitionMode::Mig:
        return TileText::tr("MIG");
    case PartitionMode::TimeSlicing:
        return TileText::tr("time-sliced");
    case PartitionMode::Mps:
        return TileText::tr("MPS");
    }
    return QString();
}

namespace {

// What the footer's state word says about a card, the most serious first.
enum class CardCondition { Normal, HostDown, Lost, Failed, Reconfiguring, Throttled };

CardCondition cardCondition(const Data &d)
{
    if (!d.hostUp)
        return CardCondition::HostDown;
    if (d.lost)
        return CardCondition::Lost;
    if (d.health == CardHealth::Failed)
        return CardCondition::Failed;
    for (const Unit &u : d.units) {
        if (u.condition == UnitCondition::Reconfiguring)
            return CardCondition::Reconfiguring;
    }
    if (d.throttled || d.health == CardHealth::Throttled)
        return CardCondition::Throttled;
    return CardCondition::Normal;
}

// A host down, a lost card and a failed one are shown the same way: veiled, in red.
bool isBad(CardCondition c)
{
    return c == CardCondition::HostDown || c == CardCondition::Lost || c == CardCondition::Failed;
}

} // namespace

QString cardStateText(const Data &d)
{
    switch (cardCondition(d)) {
    case CardCondition::Normal:
        return QString();
    case CardCondition::HostDown:
        return TileText::tr("host down");
    case CardCondition::Lost:
        return TileText::tr("lost");
    case CardCondition::Failed:
        return TileText::tr("failed");
    case CardCondition::Reconfiguring:
        return TileText::tr("reconf");
    case CardCondition::Throttled:
        return TileText::tr("throttled");
    }
    return QString();
}

QColor classColor(UnitClass c)
{
    switch (c) {
    case UnitClass::Free:
        return QColor(0x9a, 0xa0, 0xa6);
    case UnitClass::Inference:
        return QColor(0x2f, 0x6f, 0xc0);
    case UnitClass::Training:
        return QColor(0x86, 0x4f, 0xbf);
    case UnitClass::Batch:
        return QColor(0x1f, 0x8a, 0x80);
    }
    return QColor(Qt::gray);
}

QColor levelColor(Level l)
{
    switch (l) {
    case Level::None:
        return QColor(0xb0, 0xb0, 0xb0);
    case Level::Green:
        return QColor(0x2e, 0x9e, 0x48);
    case Level::Amber:
        return QColor(0xe8, 0xa3, 0x00);
    case Level::Red:
        return QColor(0xc8, 0x2a, 0x2a);
    }
    return QColor(Qt::gray);
}

QColor reconfiguringColor()
{
    return QColor(0xd9, 0xa4, 0x00);
}

QColor drainingColor()
{
    return QColor(0xd8, 0x55, 0x20);
}

QColor failedColor()
{
    return QColor(0xc0, 0x20, 0x20);
}

Data makeData(const Session::Snapshot &snapshot, const Sched::CardState &card)
{
    const Sched::ClusterState &st = snapshot.state;
    const Domain::CardModel &model = st.model(card);
    Data d;
    d.card = card.id;
    d.indexOnHost = card.indexOnHost;
    d.model = model.name;
    d.mode = card.mode;
    d.memorySlices = std::max(1, model.migMemorySlices);
    d.computeSlices = std::max(1, model.migComputeSlices);
    d.health = card.health;
    d.hostUp = st.host(card.host).up;
    d.memoryTotalMiB = model.memoryMiB;
    d.layoutPinnedUntilMs = card.layoutPinnedUntilMs;
    d.cordoned = card.operatorCordoned;
    d.slowdownTempC = model.slowdownTempC;
    d.shutdownTempC = model.shutdownTempC;

    QSet<int> busy;
    const int i = card.id.value();
    if (i >= 0 && i < snapshot.cards.size() && snapshot.cards[i].card == i) {
        const Session::CardSample &s = snapshot.cards[i];
        d.lost = s.lost;
        d.throttled = s.throttled;
        d.throttleReasons = s.throttleReasons;
        if (s.slowdownTempC > 0)
            d.slowdownTempC = s.slowdownTempC;
        if (s.shutdownTempC > 0)
            d.shutdownTempC = s.shutdownTempC;
        d.xidErrors = s.xidErrors;
        d.eccUncorrected = s.eccUncorrected;
        d.utilisationPermille = std::isnan(s.utilisation)
                                        ? -1
                                        : std::clamp(roundInt(s.utilisation * 1000), 0, 1000);
        // NaN: not reported (a fleet's Slurm says nothing of temperature or power).
        d.temperatureC = std::isnan(s.temperatureC) ? -1 : roundInt(s.temperatureC);
        d.powerW = std::isnan(s.powerW) ? -1 : roundInt(s.powerW);
        d.powerPermille = s.powerLimitW > 0 && !std::isnan(s.powerW)
                                  ? roundInt(s.powerW / s.powerLimitW * 1000)
                                  : -1;
        d.memoryUsedMiB = s.memoryUsedMiB;
        d.trainingMemoryMiB = s.trainingMemoryMiB;
        d.inferenceMemoryMiB = s.inferenceMemoryMiB;
        d.otherMemoryMiB = s.otherMemoryMiB;
        d.otherProcesses = s.otherProcesses;
        if (d.utilisationPermille >= 0) {
            d.trainingPermille = std::clamp(roundInt(s.trainingUtilisation * 1000), 0, 1000);
            d.inferencePermille = std::clamp(roundInt(s.inferenceUtilisation * 1000), 0, 1000);
            d.utilisationPerProcess = s.utilisationMeasuredPerProcess;
        }
        if (s.memoryTotalMiB > 0)
            d.memoryTotalMiB = s.memoryTotalMiB;
        busy = QSet<int>(s.busyUnits.cbegin(), s.busyUnits.cend());
    }

    int softTotal = 0;
    for (const Sched::Unit &u : card.units)
        softTotal += st.unitMilli(card, u);
    const double softScale = softTotal > 1000 ? 1000.0 / softTotal : 1.0;
    double acc = 0;
    d.units.reserve(card.units.size());
    for (const Sched::Unit &u : card.units) {
        Unit t;
        t.uid = u.uid;
        t.state = u.state;
        t.memoryMiB = u.memoryMiB;
        t.milli = st.unitMilli(card, u);
        switch (card.mode) {
        case PartitionMode::Mig:
            if (u.profile >= 0 && u.profile < model.migProfiles.size()) {
                const Domain::MigProfile &mp = model.migProfiles[u.profile];
                t.profile = mp.name;
                const int span = mp.span > 0 ? mp.span : mp.memorySlices;
                t.start = u.start;
                t.computeSlices = mp.computeSlices;
                t.x0 = double(u.start) / d.memorySlices;
                t.x1 = double(u.start + span) / d.memorySlices;
            }
            break;
        case PartitionMode::TimeSlicing:
        case PartitionMode::Mps:
            t.x0 = acc / 1000.0;
            acc += t.milli * softScale;
            t.x1 = acc / 1000.0;
            break;
        case PartitionMode::Whole:
            t.x0 = 0;
            t.x1 = 1;
            break;
        }
        if (u.job.isValid() && u.job.value() < st.jobs().size()) {
            const Sched::Job &job = st.job(u.job);
            t.job = u.job;
            t.jobName = job.spec.name;
            t.unitClass = classOf(job.spec.kind);
            if (job.state == JobState::Preempting)
                t.condition = UnitCondition::Draining;
            t.busy = busy.contains(u.uid);
        }
        if (u.state != UnitState::Ready)
            t.condition = UnitCondition::Reconfiguring;
        d.units.append(t);
    }
    return d;
}

Level temperatureLevel(const Data &d, const CardMapThresholds &t)
{
    if (d.temperatureC < 0 || d.lost)
        return Level::None;
    if (d.slowdownTempC > 0) {
        const int shutdown = d.shutdownTempC > 0 ? d.shutdownTempC : d.slowdownTempC + 5;
        if (d.temperatureC >= shutdown - 3)
            return Level::Red;
        if (d.temperatureC >= d.slowdownTempC)
            return Level::Amber;
        return Level::None;
    }
    if (d.temperatureC >= t.temperatureRedC)
        return Level::Red;
    if (d.temperatureC >= t.temperatureAmberC)
        return Level::Amber;
    return Level::Green;
}

Level powerLevel(const Data &d, const CardMapThresholds &t)
{
    if (d.powerPermille < 0 || d.lost)
        return Level::None;
    using namespace Device::ThrottleReason;
    if (d.throttleReasons & (SwPowerCap | HwPowerBrake))
        return Level::Amber;
    if (d.slowdownTempC > 0)
        return Level::None;
    const double f = d.powerPermille / 1000.0;
    if (f >= t.powerRed)
        return Level::Red;
    if (f >= t.powerAmber)
        return Level::Amber;
    return Level::Green;
}

QStringList throttleReasonTexts(quint64 reasons)
{
    using namespace Device::ThrottleReason;
    QStringList out;
    if (reasons & (HwThermal | SwThermal))
        out << TileText::tr("thermal slowdown");
    if (reasons & HwSlowdown)
        out << TileText::tr("hardware slowdown");
    if (reasons & SwPowerCap)
        out << TileText::tr("power cap");
    if (reasons & HwPowerBrake)
        out << TileText::tr("power brake");
    return out;
}

namespace {

// The attention rule once; the reasons' words only when asked (painting needs the level alone).
Attention evaluate(const Data &d, const CardMapThresholds &t, bool words)
{
    Attention a;
    auto raise = [&](Level l, auto &&why) {
        if (int(l) > int(a.level))
            a.level = l;
        if (words)
            a.reasons << why();
    };
    if (!d.hostUp)
        raise(Level::Red, [] { return TileText::tr("host down"); });
    if (d.lost)
        raise(Level::Red, [] { return TileText::tr("lost"); });
    if (d.health == CardHealth::Failed)
        raise(Level::Red, [] { return TileText::tr("failed"); });
    if (d.xidErrors > 0)
        raise(Level::Red, [&] { return TileText::tr("%n Xid error(s)", nullptr, d.xidErrors); });
    if (d.eccUncorrected > 0)
        raise(Level::Red, [&] {
            return TileText::tr("%n uncorrectable ECC error(s)",
                                nullptr,
                                int(std::min<qint64>(d.eccUncorrected, INT_MAX)));
        });
    const Level temp = temperatureLevel(d, t);
    if (temp == Level::Red || temp == Level::Amber)
        raise(temp, [&] {
            return d.slowdownTempC > 0 && temp == Level::Amber
                           ? TileText::tr("%1 °C, at its slowdown temperature (%2 °C)")
                                     .arg(d.temperatureC)
                                     .arg(d.slowdownTempC)
                           : TileText::tr("%1 °C").arg(d.temperatureC);
        });
    const bool throttledFor = (d.throttleReasons & Device::ThrottleReason::Alarming) != 0;
    if (throttledFor)
        raise(Level::Amber, [&] {
            return TileText::tr("throttled: %1")
                    .arg(throttleReasonTexts(d.throttleReasons).join(TileText::tr(", ")));
        });
    else if ((d.throttled || d.health == CardHealth::Throttled) && !d.lost)
        raise(Level::Amber, [] { return TileText::tr("throttled"); });
    const Level power = powerLevel(d, t);
    if ((power == Level::Red || power == Level::Amber) && !throttledFor)
        raise(power, [&] { return TileText::tr("%1 W").arg(d.powerW); });
    return a;
}

} // namespace

Attention attention(const Data &d, const CardMapThresholds &t)
{
    return evaluate(d, t, true);
}

Level attentionLevel(const Data &d, const CardMapThresholds &t)
{
    return evaluate(d, t, false).level;
}

Geometry geometry(const QRectF &tile, const Style &style, bool mig)
{
    const qreal pad = std::max<qreal>(2, std::round(4 * style.zoom));
    const qreal titleH = style.titleHeight + 2;
    const qreal footerH = style.smallHeight + 1;
    const qreal gaugeH = mig ? std::max<qreal>(3, std::round(5 * style.zoom)) : 0;
    const qreal x = tile.left() + pad;
    const qreal w = tile.width() - 2 * pad;
    Geometry g;
    g.title = QRectF(x, tile.top() + pad * 0.5, w, titleH);
    g.footer = QRectF(x, tile.bottom() - pad * 0.5 - footerH, w, footerH);
    qreal stripBottom = g.footer.top() - 2;
    if (mig) {
        g.gauge = QRectF(x, stripBottom - gaugeH, w, gaugeH);
        stripBottom = g.gauge.top() - 2;
    }
    const qreal top = g.title.bottom() + 1;
    g.strip = QRectF(x, top, w, std::max<qreal>(4, stripBottom - top));
    return g;
}

QRectF unitRect(const Geometry &g, const Unit &u)
{
    const QRectF &s = g.strip;
    return QRectF(s.left() + u.x0 * s.width(), s.top(), (u.x1 - u.x0) * s.width(), s.height());
}

void paint(QPainter &p,
           const QRectF &rect,
           const Data &d,
           const Style &style,
           const CardMapThresholds &thresholds)
{
    const bool mig = d.mode == PartitionMode::Mig;
    const Geometry g = geometry(rect, style, mig);
    const qreal lineH = style.smallHeight;

    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);

    // The tile, framed in amber or red when the card needs attention.
    const QRect tile = rect.toRect();
    p.fillRect(tile, style.base);
    const Level alert = attentionLevel(d, thresholds);
    if (alert == Level::Amber || alert == Level::Red)
        frame(p, tile, levelColor(alert), 2);
    else
        frame(p, tile, style.mid, 1);

    // Title: "GPU 3 · H200-141GB · MIG" and the temperature and power badges.
    qreal right = g.title.right();
    right = drawBadge(p,
                      style,
                      g.title,
                      right,
                      d.powerW >= 0 && !d.lost ? TileText::tr("%1 W").arg(d.powerW) : QString(),
                      powerLevel(d, thresholds));
    right = drawBadge(p,
                      style,
                      g.title,
                      right,
                      d.temperatureC >= 0 && !d.lost ? TileText::tr("%1 °C").arg(d.temperatureC)
                                                     : QString(),
                      temperatureLevel(d, thresholds));
    right = drawBadge(p,
                      style,
                      g.title,
                      right,
                      d.layoutPinnedUntilMs != 0 ? TileText::tr("pinned") : QString(),
                      Level::None);
    right = drawBadge(p,
                      style,
                      g.title,
                      right,
                      d.cordoned ? TileText::tr("cordoned") : QString(),
                      Level::None);
    p.setPen(style.text);
    const QRectF titleRect(g.title.left(), g.title.top(), right - g.title.left(), g.title.height());
    const qreal gpuW = drawText(p,
                                style,
                                style.titleFont,
                                titleRect,
                                Qt::AlignLeft,
                                TileText::tr("GPU %1").arg(d.indexOnHost));
    drawText(p,
             style,
             style.smallFont,
             titleRect.adjusted(gpuW + 4, 0, 0, 0),
             Qt::AlignLeft,
             modeShortText(d.mode) + QStringLiteral(" \u00b7 ") + d.model);

    // The strip's background: free memory slots (MIG) or free capacity. Opaque colours and
    // plain rectangles only: blended fills and stroked pens cost the raster engine far more.
    const QColor freeFill = mix(style.base, style.mid, 0.16);
    p.fillRect(g.strip, freeFill);
    if (mig) {
        const QColor slotLine = mix(style.base, style.mid, 0.6);
        for (int s = 1; s < d.memorySlices; ++s) {
            const qreal x = std::round(g.strip.left() + g.strip.width() * s / d.memorySlices);
            p.fillRect(QRectF(x, g.strip.top(), 1, g.strip.height()), slotLine);
        }
        if (d.units.isEmpty()) {
            p.setPen(style.text);
            drawText(p,
                     style,
                     style.smallFont,
                     g.strip,
                     Qt::AlignHCenter,
                     TileText::tr("no partitions"));
        }
    } else if (d.mode != PartitionMode::Whole && d.units.isEmpty()) {
        p.setPen(style.text);
        drawText(p, style, style.smallFont, g.strip, Qt::AlignHCenter, TileText::tr("no clients"));
    }

    // The units: outline = allocated (the class's colour), fill = busy now.
    for (const Unit &u : d.units) {
        const QRectF ur = unitRect(g, u).adjusted(1, 1, -1, -1);
        if (ur.width() < 1)
            continue;
        const QColor c = classColor(u.unitClass);
        const bool allocated = u.job.isValid();
        QColor textColor = style.text;
        const QRect box = ur.toRect();
        if (!allocated) {
            frame(p, box, style.mid, 1);
        } else {
            // Allocated but idle: the outline with a pale fill; busy: filled.
            p.fillRect(box, u.busy ? c : mix(style.base, c, 0.18));
            frame(p, box, c, 2);
            if (u.busy)
                textColor = Qt::white;
        }
        if (u.condition != UnitCondition::Normal) {
            const bool reconf = u.condition == UnitCondition::Reconfiguring;
            p.setPen(Qt::NoPen);
            p.setBrush(QBrush(reconf ? reconfiguringColor() : drainingColor(),
                              reconf ? Qt::BDiagPattern : Qt::FDiagPattern));
            p.drawRect(ur);
        }

        // Profile (or share), job, state word; a narrow unit keeps what fits, a profile
        // shortens to its compute part ("1g").
        struct Line
        {
            QString text;
            QString brief;
        };
        QList<Line> lines;
        if (!u.profile.isEmpty())
            lines.append({u.profile, u.profile.section(QLatin1Char('.'), 0, 0)});
        else if (d.mode == PartitionMode::TimeSlicing || d.mode == PartitionMode::Mps)
            lines.append({percentText(u.milli), QString()});
        lines.append({allocated ? u.jobName : classText(UnitClass::Free), QString()});
        if (u.condition == UnitCondition::Reconfiguring)
            lines.append({TileText::tr("reconf"), QString()});
        else if (u.condition == UnitCondition::Draining)
            lines.append({TileText::tr("draining"), QString()});
        else if (allocated && !u.busy)
            lines.append({TileText::tr("idle"), QString()});
        const int fit = std::max(0, int((ur.height() - 2) / lineH));
        if (fit < int(lines.size()) && lines.size() > 2 && fit >= 2) {
            // Keep the state word, drop the job name: the tooltip has it.
            lines.removeAt(lines.size() - 2);
        }
        p.setPen(textColor);
        const qreal textH = std::min<qreal>(fit, lines.size()) * lineH;
        qreal y = ur.top() + std::max<qreal>(1, (ur.height() - textH) / 2);
        for (int l = 0; l < lines.size() && l < fit; ++l) {
            const QRectF line(ur.left() + 1, y, ur.width() - 2, lineH);
            if (drawText(p, style, style.smallFont, line, Qt::AlignHCenter, lines[l].text) == 0)
                drawText(p, style, style.smallFont, line, Qt::AlignHCenter, lines[l].brief);
            y += lineH;
        }
    }

    // MIG: the compute slices the instances hold, in slot order, coloured by what they serve.
    if (mig && g.gauge.height() > 0) {
        QList<const Unit *> ordered;
        for (const Unit &u : d.units)
            ordered.append(&u);
        std::sort(ordered.begin(), ordered.end(), [](const Unit *a, const Unit *b) {
            return a->start < b->start;
        });
        const qreal cw = g.gauge.width() / d.computeSlices;
        int cell = 0;
        for (const Unit *u : std::as_const(ordered)) {
            const QColor c = classColor(u->unitClass);
            const QColor fill = !u->job.isValid() ? mix(style.base, c, 0.3)
                                : u->busy         ? c
                                                  : mix(style.base, c, 0.45);
            for (int k = 0; k < u->computeSlices && cell < d.computeSlices; ++k, ++cell) {
                p.fillRect(QRectF(g.gauge.left() + cell * cw + 1,
                                  g.gauge.top(),
                                  cw - 2,
                                  g.gauge.height()),
                           fill);
            }
        }
        for (; cell < d.computeSlices; ++cell) {
            frame(p,
                  QRectF(g.gauge.left() + cell * cw + 1, g.gauge.top(), cw - 2, g.gauge.height())
                          .toRect(),
                  style.mid,
                  1);
        }
    }

    // Footer: measured utilisation (a bar and its number), memory, and the card's state.
    const CardCondition condition = cardCondition(d);
    const QString state = cardStateText(d);
    const QString util = d.utilisationPermille < 0
                                 ? TileText::tr("util n/a")
                                 : TileText::tr("util %1").arg(percentText(d.utilisationPermille));
    const QString memory
            = d.memoryUsedMiB < 0
                      ? TileText::tr("?/%1 GiB").arg(gibText(d.memoryTotalMiB))
                      : TileText::tr("%1/%2 GiB")
                                .arg(gibText(d.memoryUsedMiB), gibText(d.memoryTotalMiB));
    const qreal barW = std::min<qreal>(g.footer.width() * 0.25, 40 * style.zoom);
    const QRectF bar(g.footer.left(), g.footer.center().y() - 2, barW, 4);
    p.fillRect(bar, freeFill);
    if (d.utilisationPermille > 0) {
        p.fillRect(QRectF(bar.left(),
                          bar.top(),
                          bar.width() * d.utilisationPermille / 1000.0,
                          bar.height()),
                   style.text);
    }
    QRectF footerText = g.footer.adjusted(barW + 4, 0, 0, 0);
    const bool bad = isBad(condition);
    if (!state.isEmpty()) {
        p.setPen(bad ? failedColor()
                 : condition == CardCondition::Reconfiguring
                         ? reconfiguringColor().darker(130)
                         : levelColor(Level::Amber).darker(130));
        const qreal sw = drawText(p, style, style.boldFont, footerText, Qt::AlignRight, state);
        footerText.setRight(footerText.right() - sw - 4);
    }
    p.setPen(style.text);
    drawText(p,
             style,
             style.smallFont,
             footerText,
             Qt::AlignLeft,
             util + QStringLiteral(" \u00b7 ") + memory);

    // A failed or lost card (or a host down): a veil over the whole tile, and the word on a
    // plate of its own in the middle of the strip.
    if (bad) {
        QColor veil = failedColor();
        veil.setAlpha(60);
        p.fillRect(rect, veil);
        frame(p, rect.toRect(), failedColor(), 2);
        const QString word = state.toUpper();
        const TextCache::Entry &e = textsOf(style).get(style.titleFont, word, g.strip.width() - 8);
        if (!e.empty) {
            const QRectF plate(g.strip.center().x() - e.size.width() / 2 - 6,
                               g.strip.center().y() - e.size.height() / 2 - 2,
                               e.size.width() + 12,
                               e.size.height() + 4);
            p.fillRect(plate, failedColor());
            p.setPen(Qt::white);
            drawText(p, style, style.titleFont, plate, Qt::AlignHCenter, word);
        }
    }
    p.restore();
}

} // namespace Zhaoxi::Widgets::CardTile
