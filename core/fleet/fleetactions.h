// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slurmrest.h"

#include <QString>

#include <functional>

class QObject;

namespace Zhaoxi::Fleet {

// Operator actions on one Slurm job of a fleet: cancel, priority, requeue (issue 17).
//
// Cancel and priority go through slurmrestd (v0.0.38): DELETE /slurm/v0.0.38/job/{id}
// [?signal=NAME] and POST /slurm/v0.0.38/job/{id} {"priority": P}. slurmrestd 22.05 has no
// requeue (POST {"requeue": true} answers 200 and only sets the job's requeue flag), so requeue
// runs `scontrol requeue ID`, which needs the cluster's slurm.conf (ScontrolOptions).
//
// Thread: the async functions start the action and return at once; the callback runs exactly
// once, later, on the calling thread's event loop (the REST client's thread for cancel and
// priority; the thread that called requeueSlurmJob, which must have an event loop). The callback
// never runs inside the call itself, even for a refused argument. The blocking helpers run a
// local event loop and are for command-line tools, not for a GUI thread.

struct JobActionResult
{
    enum class Failure {
        None,
        BadArgument, // refused before asking Slurm (an id or priority out of range)
        Rest,        // slurmrestd could not be reached or refused: `rest` says how
        Command,     // scontrol could not start, timed out, or exited non-zero
    };
    bool ok = false;
    Failure failure = Failure::None;
    // English, one sentence: what was done ("Slurm job 12 cancelled"), or why not, naming the
    // request (method and URL) or the command line, and Slurm's own words.
    QString message;
    QString action; // "cancel", "priority", "requeue", "requeueable" or "nodes"
    qint64 jobId = 0;
    RestStatus rest;     // cancel and priority
    QStringList command; // requeue: the program and its arguments
    int exitCode = -1;   // requeue: scontrol's exit status (-1: it did not exit by itself)
    QString stdErr;      // requeue: what scontrol wrote on stderr, trimmed
};

using JobActionCallback = std::function<void(const JobActionResult &)>;

// How to run scontrol for the actions REST cannot do.
struct ScontrolOptions
{
    QString scontrolPath = QStringLiteral("scontrol"); // a path, or a name found on PATH
    QString slurmConf;     // the cluster's slurm.conf (SLURM_CONF); empty: scontrol's own default
    int timeoutMs = 10000; // then scontrol is killed and the action fails
};

// Slurm's job ids are 32-bit, 0 is none. Priorities are 1..kMaxSlurmPriority: 0 would hold the
// job (scontrol's meaning), and the values above are Slurm's NO_VAL and INFINITE.
constexpr qint64 kMaxSlurmJobId = 0xfffffffdLL;
constexpr qint64 kMaxSlurmPriority = 0xfffffffdLL;

// Ends job `id` (Slurm sends SIGTERM, then SIGKILL after KillWait). `signal` non-empty
// ("SIGUSR1", "USR1" or a number) only signals the job instead, which keeps running.
void cancelSlurmJob(SlurmRestClient &client,
                    qint64 id,
                    JobActionCallback done,
                    const QString &signal = {});

// Sets the job's priority (Slurm's absolute priority; an operator's right). Measured on 22.05.8:
// a held job (priority 0) is refused with "Job is in held state, pending scheduler release";
// running and pending jobs take it, and the priority stays fixed until set again.
void setSlurmJobPriority(SlurmRestClient &client,
                         qint64 id,
                         qint64 priority,
                         JobActionCallback done);

// `scontrol requeue ID`: a running job is stopped (SIGTERM, then SIGKILL after KillWait) and put
// back to PENDING with SLURM_RESTART_COUNT one higher; it may start again after the credential
// lifetime. Slurm refuses jobs that are not requeueable or not running (its stderr is in the
// message). The process is owned by the call; `context` (optional) ends it early when destroyed,
// and then the callback is not called.
void requeueSlurmJob(const ScontrolOptions &options,
                     qint64 id,
                     JobActionCallback done,
                     QObject *context = nullptr);

// `scontrol update JobId=ID Requeue=0|1`: whether Slurm may requeue the job (on preemption with
// PreemptMode=requeue, on a node's failure). Needed because slurmrestd 22.05 accepts
// "requeue": false in job/submit and in job/{id} updates and ignores it (measured: the job keeps
// Requeue=1 when slurm.conf has JobRequeue=1, the default). Call it after submitting a plan
// whose `requeue` is false (preemption "never").
void setSlurmJobRequeueable(const ScontrolOptions &options,
                            qint64 id,
                            bool requeueable,
                            JobActionCallback done,
                            QObject *context = nullptr);

// `scontrol update JobId=ID NodeList=NODES`: the nodes a waiting job may start on (Slurm starts
// it there when it can; an operator's drop of a waiting job on a card).
void setSlurmJobNodes(const ScontrolOptions &options,
                      qint64 id,
                      const QString &nodes,
                      JobActionCallback done,
                      QObject *context = nullptr);

JobActionResult cancelSlurmJobBlocking(SlurmRestClient &client,
                                       qint64 id,
                                       const QString &signal = {});
JobActionResult setSlurmJobPriorityBlocking(SlurmRestClient &client, qint64 id, qint64 priority);
JobActionResult requeueSlurmJobBlocking(const ScontrolOptions &options, qint64 id);
JobActionResult setSlurmJobRequeueableBlocking(const ScontrolOptions &options,
                                               qint64 id,
                                               bool requeueable);

// The text of an answer's errors[] as Slurm means it: each entry's "error" (e.g. "Invalid job id
// specified") with its "description" when that adds something and its number. slurmrestd puts
// the useful words in "error" for job updates ("description" is only "job update from ...
// failed") and in "description" for kills. Empty when the body has no errors.
QString slurmErrorText(const QByteArray &body);

} // namespace Zhaoxi::Fleet
