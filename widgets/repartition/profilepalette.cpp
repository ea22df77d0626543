// SPDX-License-Identifier: GPL-3.0-or-later
#include "profilepalette.h"

#include "layoutedit.h"
#include "repartitiontext.h"

#include <QEvent>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QMimeData>

#include <algorithm>

namespace Zhaoxi::Widgets {

namespace {
constexpr int ProfileRole = Qt::UserRole + 1;
}

QMimeData *ProfilePalette::encode(int modelIndex, int profile)
{
    auto *data = new QMimeData;
    const QJsonObject o{{QStringLiteral("model"), modelIndex},
                        {QStringLiteral("profile"), profile}};
    data->setData(QString::fromLatin1(kMimeType), QJsonDocument(o).toJson(QJsonDocument::Compact));
    return data;
}

bool ProfilePalette::decode(const QMimeData *data, int *modelIndex, int *profile)
{
    if (!data || !data->hasFormat(QString::fromLatin1(kMimeType)))
        return false;
    const QJsonDocument doc = QJsonDocument::fromJson(data->data(QString::fromLatin1(kMimeType)));
    if (!doc.isObject())
        return false;
    const QJsonObject o = doc.object();
    const QJsonValue m = o.value(QStringLiteral("model")), p = o.value(QStringLiteral("profile"));
    if (!m.isDouble() || !p.isDouble() || m.toInt(-1) < 0 || p.toInt(-1) < 0)
        return false;
    if (modelIndex)
        *modelIndex = m.toInt();
    if (profile)
        *profile = p.toInt();
    return true;
}

ProfilePalette::ProfilePalette(QWidget *parent)
    : QTreeWidget(parent)
{
    setObjectName(QStringLiteral("profilePalette"));
    setColumnCount(ColumnCount);
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setDragEnabled(true);
    setDragDropMode(QAbstractItemView::DragOnly);
    setDefaultDropAction(Qt::CopyAction);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        if (m_editable && item)
            Q_EMIT profileActivated(item->data(ProfileColumn, ProfileRole).toInt());
    });
    retranslateUi();
}

void ProfilePalette::setCardModel(const Domain::CardModel *model, int modelIndex)
{
    if (model == m_model && modelIndex == m_modelIndex)
        return;
    m_model = model;
    m_modelIndex = modelIndex;
    rebuild();
}

void ProfilePalette::setPendingLayout(const QList<Domain::MigPlacement> &layout)
{
    m_layout = layout;
    refreshWhere();
}

void ProfilePalette::setEditable(bool editable)
{
    if (m_editable == editable)
        return;
    m_editable = editable;
    setDragEnabled(editable);
    refreshWhere();
}

void ProfilePalette::rebuild()
{
    clear();
    if (!m_model)
        return;
    for (int i = 0; i < m_model->migProfiles.size(); ++i) {
        auto *item = new QTreeWidgetItem(this);
        item->setData(ProfileColumn, ProfileRole, i);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
    }
    retranslateUi();
}

void ProfilePalette::refreshWhere()
{
    if (!m_model)
        return;
    for (int row = 0; row < topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = topLevelItem(row);
        const int profile = item->data(ProfileColumn, ProfileRole).toInt();
        const QList<int> starts = LayoutEdit::legalStarts(*m_model, m_layout, profile);
        if (!starts.isEmpty()) {
            item->setText(WhereColumn, RepartitionText::slotList(starts));
            item->setToolTip(WhereColumn,
                             tr("Drag onto the strip, or double-click to add at %1.")
                                     .arg(RepartitionText::slotList({starts.first()})));
        } else {
            const LayoutEdit::EditResult r
                    = LayoutEdit::addAtFirstFreeStart(*m_model, m_layout, profile);
            item->setText(WhereColumn, tr("no room"));
            item->setToolTip(WhereColumn,
                             RepartitionText::problem(*m_model, r.verdictLayout, r.verdict));
        }
    }
}

void ProfilePalette::retranslateUi()
{
    setHeaderLabels({tr("Profile"), tr("Memory"), tr("Compute"), tr("Max"), tr("Can go at")});
    headerItem()->setToolTip(MaxColumn, tr("The most instances of the profile one card can hold"));
    headerItem()->setToolTip(WhereColumn, tr("Where the profile fits on the planned layout now"));
    if (!m_model)
        return;
    const QLocale locale;
    for (int row = 0; row < topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = topLevelItem(row);
        const int i = item->data(ProfileColumn, ProfileRole).toInt();
        const Domain::MigProfile &p = m_model->migProfiles[i];
        item->setText(ProfileColumn, p.name);
        item->setText(MemoryColumn,
                      tr("%1 GiB").arg(locale.toString(double(p.memoryMiB) / 1024.0, 'f', 1)));
        item->setText(ComputeColumn,
                      tr("%1 of %2").arg(p.computeSlices).arg(m_model->migComputeSlices));
        item->setText(MaxColumn, locale.toString(p.maxInstances));
        QString tip = tr("%1: %2 of %3 compute slices, %4 of %5 memory slots, allowed at %6")
                              .arg(p.name)
                              .arg(p.computeSlices)
                              .arg(m_model->migComputeSlices)
                              .arg(p.span)
                              .arg(m_model->migMemorySlices)
                              .arg(RepartitionText::slotList(p.starts));
        if (p.mediaExtensions)
            tip += QLatin1Char('\n') + tr("Owns the card's media engines (at most one per card).");
        item->setToolTip(ProfileColumn, tip);
    }
    refreshWhere();
}

QSize ProfilePalette::sizeHint() const
{
    // Wide enough for every column, so the palette never opens with its facts cut off.
    int width = 2 * frameWidth() + 4;
    for (int c = 0; c < columnCount(); ++c)
        width += std::max(sizeHintForColumn(c), header()->sectionSizeHint(c));
    return QSize(std::max(width, QTreeWidget::sizeHint().width()),
                 QTreeWidget::sizeHint().height());
}

QStringList ProfilePalette::mimeTypes() const
{
    return {QString::fromLatin1(kMimeType)};
}

QMimeData *ProfilePalette::mimeData(const QList<QTreeWidgetItem *> &items) const
{
    if (items.isEmpty() || !m_model || !m_editable)
        return nullptr;
    return encode(m_modelIndex, items.first()->data(ProfileColumn, ProfileRole).toInt());
}

Qt::DropActions ProfilePalette::supportedDropActions() const
{
    return Qt::CopyAction;
}

void ProfilePalette::startDrag(Qt::DropActions supportedActions)
{
    // A profile is copied onto the strip, never moved out of the palette (a move would make the
    // view remove the row).
    Q_UNUSED(supportedActions)
    if (m_editable)
        QTreeWidget::startDrag(Qt::CopyAction);
}

void ProfilePalette::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QTreeWidget::changeEvent(event);
}

} // namespace Zhaoxi::Widgets
