// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatifjob.h"

#include "core/catalogue/catalogue.h"
#include "core/policy/policy.h"
#include "core/storage/store.h"

#include <QFileInfo>
#include <QThreadPool>

namespace Zhaoxi::Widgets {

WhatIfJob::WhatIfJob(QString storePath, qint64 fromMs, qint64 toMs)
    : m_storePath(std::move(storePath))
    , m_fromMs(fromMs)
    , m_toMs(toMs)
    , m_outcome(std::make_shared<WhatIfOutcome>())
    , m_cancel(std::make_shared<std::atomic_bool>(false))
{}

int WhatIfJob::steps()
{
    return 1 + int(Policy::policyNames().size());
}

void WhatIfJob::start()
{
    // The global pool: QCoreApplication waits for it on exit, so a replay the operator walked
    // away from ends before the process does, without the GUI ever waiting for it.
    QThreadPool::globalInstance()->start([this] {
        run();
        deleteLater(); // in the GUI thread, where the object lives
    });
}

void WhatIfJob::run()
{
    WhatIfOutcome &out = *m_outcome;
    const int total = steps();
    Q_EMIT progressed(0, total, QString());
    const auto finish = [&](WhatIfOutcome::Status status, const QString &detail = {}) {
        out.status = status;
        out.detail = detail;
        Q_EMIT finished();
    };
    if (m_storePath.isEmpty() || !QFileInfo(m_storePath).isReadable())
        return finish(WhatIfOutcome::Status::StoreUnreadable,
                      m_storePath.isEmpty() ? QStringLiteral("no store")
                                            : QStringLiteral("%1: not readable").arg(m_storePath));
    QString err;
    // RequireCurrent: a console never migrates a store (it may be the service's).
    std::unique_ptr<Storage::Reader> reader
            = Storage::Reader::open(m_storePath, Storage::Reader::OpenMode::RequireCurrent, &err);
    if (!reader)
        return finish(WhatIfOutcome::Status::StoreUnreadable, err);
    // A replay starts from the "run-basis" event of a recording at or before the period; asked
    // here by its code, so that "nothing recorded" is told apart from other failures without
    // reading core's English.
    Storage::EventFilter basis;
    basis.codes = {QByteArrayLiteral("run-basis")};
    basis.toMs = m_toMs;
    basis.limit = 1;
    const qint64 bases = reader->countEvents(basis, &err);
    if (!err.isEmpty())
        return finish(WhatIfOutcome::Status::StoreUnreadable, err);
    if (bases == 0)
        return finish(WhatIfOutcome::Status::NothingRecorded);
    if (m_cancel->load())
        return finish(WhatIfOutcome::Status::Cancelled);
    std::optional<Replay::RecordedPeriod> period = Replay::readRecordedPeriod(
            *reader, m_fromMs, m_toMs, Catalogue::Catalogue::builtIn(), &err);
    reader.reset();
    if (!period)
        return finish(WhatIfOutcome::Status::Failed, err);
    // A policy at a time, so that the operator sees the progress and a cancel takes effect
    // between two replays.
    QList<Sim::Report> reports
            = Replay::replayCompare(*period, [&](int index, const QString &policy) {
                  if (m_cancel->load())
                      return false;
                  Q_EMIT progressed(1 + index, total, policy);
                  return true;
              });
    if (reports.isEmpty())
        return finish(WhatIfOutcome::Status::Cancelled);
    out.period = std::move(period);
    out.reports = std::move(reports);
    finish(WhatIfOutcome::Status::Done);
}

} // namespace Zhaoxi::Widgets
