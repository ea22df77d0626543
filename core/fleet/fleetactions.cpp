// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetactions.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTimer>

#include <memory>

namespace Zhaoxi::Fleet {

namespace {

QString jobPath(qint64 id)
{
    return QStringLiteral("/slurm/v0.0.38/job/") + QString::number(id);
}

JobActionResult started(const char *action, qint64 id)
{
    JobActionResult r;
    r.action = QString::fromLatin1(action);
    r.jobId = id;
    return r;
}

// Refusals are answered from the event loop too, so a caller never sees its callback run inside
// its own call (the contract in the header).
void later(QObject *context, JobActionCallback done, JobActionResult r)
{
    if (context) {
        QTimer::singleShot(0, context, [done = std::move(done), r = std::move(r)] { done(r); });
    } else {
        QTimer::singleShot(0, [done = std::move(done), r = std::move(r)] { done(r); });
    }
}

bool checkId(JobActionResult *r, qint64 id)
{
    if (id >= 1 && id <= kMaxSlurmJobId)
        return true;
    r->failure = JobActionResult::Failure::BadArgument;
    r->message = QStringLiteral("%1: the Slurm job id must be in 1..%2, got %3")
                         .arg(r->action)
                         .arg(kMaxSlurmJobId)
                         .arg(id);
    return false;
}

// The REST status as an action's outcome. slurmrestd's own sentence (RestStatus::message) names
// the request; for a refusal the "error" texts, which it leaves out for job updates, are added.
void fromRest(JobActionResult *r, const RestReply &reply, const QString &done)
{
    r->rest = reply.status;
    if (reply.status.isOk()) {
        r->ok = true;
        r->message = done;
        return;
    }
    r->failure = JobActionResult::Failure::Rest;
    r->message = reply.status.message;
    const QString slurm = slurmErrorText(reply.body);
    const bool tokenHint = reply.status.httpStatus == 500
                           && slurm.startsWith(QLatin1String("Unspecified error"));
    if (slurm.isEmpty() || tokenHint
        || (reply.status.code != RestStatus::Code::Http
            && reply.status.code != RestStatus::Code::Slurm))
        return; // the client's sentence (with its hint about the token) says it all
    // The client's sentence is "<VERB> <URL>: ..." and its text for a job update is "job update
    // from [localhost]:39442 failed (error 2017)", which says nothing of why; the answer's
    // "error" field does ("Invalid job id specified").
    const QString request = r->message.left(r->message.indexOf(QLatin1String(": ")));
    r->message = request
                 + (reply.status.code == RestStatus::Code::Http
                            ? QStringLiteral(": HTTP %1").arg(reply.status.httpStatus)
                            : QString())
                 + QStringLiteral(": Slurm: ") + slurm;
}

} // namespace

QString slurmErrorText(const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    QStringList parts;
    for (const QJsonValue &v : doc.object().value(QStringLiteral("errors")).toArray()) {
        const QJsonObject e = v.toObject();
        const QString error = e.value(QStringLiteral("error")).toString().trimmed();
        const QString description = e.value(QStringLiteral("description")).toString().trimmed();
        qint64 number = e.value(QStringLiteral("error_number")).toInteger();
        if (number == 0)
            number = e.value(QStringLiteral("error_code")).toInteger();
        QString text;
        if (error.isEmpty() || description.contains(error))
            text = description.isEmpty() ? error : description;
        else if (description.isEmpty())
            text = error;
        else
            text = error + QStringLiteral(" (") + description + QLatin1Char(')');
        if (text.isEmpty())
            text = QStringLiteral("an error without text");
        if (number != 0 && number != -1)
            text += QStringLiteral(" (error %1)").arg(number);
        parts << text;
    }
    return parts.join(QStringLiteral("; "));
}

void cancelSlurmJob(SlurmRestClient &client,
                    qint64 id,
                    JobActionCallback done,
                    const QString &signal)
{
    JobActionResult r = started("cancel", id);
    if (!checkId(&r, id))
        return later(&client, std::move(done), std::move(r));
    QString path = jobPath(id);
    if (!signal.isEmpty()) {
        // Slurm takes a name with or without "SIG", or a number; anything else would reach the
        // query string unchecked.
        static const QRegularExpression ok(QStringLiteral("^(SIG)?[A-Z0-9]{1,8}$"));
        if (!ok.match(signal).hasMatch()) {
            r.failure = JobActionResult::Failure::BadArgument;
            r.message = QStringLiteral("cancel: the signal must be a name like SIGUSR1 or a "
                                       "number, got \"%1\"")
                                .arg(signal);
            return later(&client, std::move(done), std::move(r));
        }
        path += QStringLiteral("?signal=") + signal;
    }
    const QString what = signal.isEmpty()
                                 ? QStringLiteral("Slurm job %1 cancelled").arg(id)
                                 : QStringLiteral("Slurm job %1 sent %2").arg(id).arg(signal);
    client.del(path, [r, what, done = std::move(done)](const RestReply &reply) mutable {
        fromRest(&r, reply, what);
        done(r);
    });
}

void setSlurmJobPriority(SlurmRestClient &client,
                         qint64 id,
                         qint64 priority,
                         JobActionCallback done)
{
    JobActionResult r = started("priority", id);
    if (!checkId(&r, id))
        return later(&client, std::move(done), std::move(r));
    if (priority < 1 || priority > kMaxSlurmPriority) {
        r.failure = JobActionResult::Failure::BadArgument;
        r.message = QStringLiteral("priority: a Slurm priority must be in 1..%1 (0 would hold "
                                   "the job), got %2")
                            .arg(kMaxSlurmPriority)
                            .arg(priority);
        return later(&client, std::move(done), std::move(r));
    }
    const QString what = QStringLiteral("Slurm job %1 has priority %2").arg(id).arg(priority);
    client.post(jobPath(id),
                QJsonObject{{QStringLiteral("priority"), priority}},
                [r, what, done = std::move(done)](const RestReply &reply) mutable {
                    fromRest(&r, reply, what);
                    done(r);
                });
}

namespace {

// Runs `scontrol ARGS` for job r.jobId; answers with `okMessage` when it exits with 0.
void runScontrol(const ScontrolOptions &options,
                 JobActionResult r,
                 const QStringList &arguments,
                 const QString &okMessage,
                 JobActionCallback done,
                 QObject *context)
{
    const qint64 id = r.jobId;
    r.command = QStringList{options.scontrolPath} + arguments;
    if (!checkId(&r, id))
        return later(context, std::move(done), std::move(r));
    if (options.scontrolPath.isEmpty()) {
        r.failure = JobActionResult::Failure::BadArgument;
        r.message
                = QStringLiteral("%1: no scontrol program is named (ScontrolOptions::scontrolPath)")
                          .arg(r.action);
        return later(context, std::move(done), std::move(r));
    }
    if (!options.slurmConf.isEmpty() && !QFileInfo(options.slurmConf).isReadable()) {
        // scontrol without its slurm.conf tries a configless look-up and hangs until the
        // timeout: say at once what is wrong.
        r.failure = JobActionResult::Failure::BadArgument;
        r.message = QStringLiteral("%1: the cluster's slurm.conf %2 (SLURM_CONF) cannot be read")
                            .arg(r.command.join(QLatin1Char(' ')), options.slurmConf);
        return later(context, std::move(done), std::move(r));
    }

    // The process and its timer live on this thread; `state` is shared by the handlers so that
    // whichever comes first (exit, failure to start, timeout) answers, and only once.
    struct State
    {
        JobActionResult result;
        JobActionCallback done;
        bool answered = false;
    };
    auto state = std::make_shared<State>();
    state->result = r;
    state->done = std::move(done);
    auto *process = new QProcess(context);
    auto *timer = new QTimer(process);
    const QPointer<QProcess> guard(process);
    const QString line = r.command.join(QLatin1Char(' '));
    const auto answer = [state, process, timer](bool ok, const QString &message) {
        if (state->answered)
            return;
        state->answered = true;
        timer->stop();
        state->result.ok = ok;
        state->result.failure
                = ok ? JobActionResult::Failure::None : JobActionResult::Failure::Command;
        state->result.message = message;
        process->disconnect();
        process->deleteLater();
        state->done(state->result);
    };

    if (!options.slurmConf.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), options.slurmConf);
        process->setProcessEnvironment(env);
    }
    process->setProgram(options.scontrolPath);
    process->setArguments(r.command.mid(1));
    process->setStandardInputFile(QProcess::nullDevice());

    QObject::connect(process, &QProcess::errorOccurred, process, [=](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            answer(false,
                   QStringLiteral("%1: could not start %2: %3")
                           .arg(line, options.scontrolPath, process->errorString()));
        }
    });
    QObject::connect(
            process, &QProcess::finished, process, [=](int exitCode, QProcess::ExitStatus status) {
                state->result.stdErr
                        = QString::fromLocal8Bit(process->readAllStandardError()).trimmed();
                const QString err = state->result.stdErr;
                if (status == QProcess::CrashExit) {
                    answer(false,
                           QStringLiteral("%1: scontrol was killed by a signal%2")
                                   .arg(line,
                                        err.isEmpty() ? QString() : QStringLiteral(": ") + err));
                    return;
                }
                state->result.exitCode = exitCode;
                if (exitCode != 0) {
                    answer(false,
                           QStringLiteral("%1: exit code %2: %3")
                                   .arg(line)
                                   .arg(exitCode)
                                   .arg(err.isEmpty() ? QStringLiteral("(nothing on "
                                                                       "stderr)")
                                                      : err));
                    return;
                }
                answer(true, okMessage);
            });
    timer->setSingleShot(true);
    QObject::connect(timer, &QTimer::timeout, process, [=] {
        // Answer first: kill() makes finished() come with a CrashExit that must not win.
        const QString message
                = QStringLiteral("%1: no answer within %2 ms; scontrol was "
                                 "stopped (is slurmctld up? SLURM_CONF=%3)")
                          .arg(line)
                          .arg(options.timeoutMs)
                          .arg(options.slurmConf.isEmpty() ? QStringLiteral("(scontrol's default)")
                                                           : options.slurmConf);
        QProcess *p = guard.data();
        answer(false, message);
        if (p) {
            p->kill();
            p->waitForFinished(1000); // reaped here: no zombie outlives the action
        }
    });
    timer->start(std::max(1, options.timeoutMs));
    // From the event loop: QProcess reports some failures to start inside start() itself, and
    // the callback must not run inside the caller's call.
    QTimer::singleShot(0, process, [process] { process->start(); });
}

} // namespace

void requeueSlurmJob(const ScontrolOptions &options,
                     qint64 id,
                     JobActionCallback done,
                     QObject *context)
{
    runScontrol(options,
                started("requeue", id),
                {QStringLiteral("requeue"), QString::number(id)},
                QStringLiteral("Slurm job %1 requeued").arg(id),
                std::move(done),
                context);
}

void setSlurmJobNodes(const ScontrolOptions &options,
                      qint64 id,
                      const QString &nodes,
                      JobActionCallback done,
                      QObject *context)
{
    runScontrol(options,
                started("nodes", id),
                {QStringLiteral("update"),
                 QStringLiteral("JobId=%1").arg(id),
                 QStringLiteral("NodeList=%1").arg(nodes)},
                QStringLiteral("Slurm job %1 may start on %2").arg(id).arg(nodes),
                std::move(done),
                context);
}

void setSlurmJobRequeueable(const ScontrolOptions &options,
                            qint64 id,
                            bool requeueable,
                            JobActionCallback done,
                            QObject *context)
{
    runScontrol(options,
                started("requeueable", id),
                {QStringLiteral("update"),
                 QStringLiteral("JobId=%1").arg(id),
                 QStringLiteral("Requeue=%1").arg(requeueable ? 1 : 0)},
                QStringLiteral("Slurm job %1 is %2 requeueable")
                        .arg(id)
                        .arg(requeueable ? QString() : QStringLiteral("not"))
                        .simplified(),
                std::move(done),
                context);
}

namespace {

template<typename Start>
JobActionResult waitFor(Start start)
{
    QEventLoop loop;
    JobActionResult out;
    bool finished = false;
    start([&](const JobActionResult &r) {
        out = r;
        finished = true;
        loop.quit();
    });
    if (!finished)
        loop.exec();
    return out;
}

} // namespace

JobActionResult cancelSlurmJobBlocking(SlurmRestClient &client, qint64 id, const QString &signal)
{
    return waitFor(
            [&](JobActionCallback cb) { cancelSlurmJob(client, id, std::move(cb), signal); });
}

JobActionResult setSlurmJobPriorityBlocking(SlurmRestClient &client, qint64 id, qint64 priority)
{
    return waitFor([&](JobActionCallback cb) {
        setSlurmJobPriority(client, id, priority, std::move(cb));
    });
}

JobActionResult requeueSlurmJobBlocking(const ScontrolOptions &options, qint64 id)
{
    return waitFor([&](JobActionCallback cb) { requeueSlurmJob(options, id, std::move(cb)); });
}

JobActionResult setSlurmJobRequeueableBlocking(const ScontrolOptions &options,
                                               qint64 id,
                                               bool requeueable)
{
    return waitFor([&](JobActionCallback cb) {
        setSlurmJobRequeueable(options, id, requeueable, std::move(cb));
    });
}

} // namespace Zhaoxi::Fleet
