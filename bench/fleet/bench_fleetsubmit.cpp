// SPDX-License-Identifier: GPL-3.0-or-later
// Submit -> RUNNING through Zhaoxi (read the fleet, plan with Zhaoxi's scheduler, POST
// job/submit, poll the job) against plain `sbatch` (poll squeue), on a local Slurm cluster the
// benchmark starts itself (scripts/slurm-local up) and always stops. Figures, not pass/fail.
//   bench_fleetsubmit [--jobs N] [--poll-ms MS] [--no-settle]
// Needs root (the daemons run as root). Jobs go one at a time (each is cancelled once it runs),
// and the next waits until it has left COMPLETING (--no-settle: it does not), so each figure is
// one job's latency on an idle cluster, polled every --poll-ms.
#include "core/catalogue/catalogue.h"
#include "core/domain/workloadspec.h"
#include "core/fleet/fleetstate.h"
#include "core/fleet/fleetsubmit.h"
#include "core/fleet/slurmrest.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QThread>

#include <algorithm>
#include <cstdio>

#include <unistd.h>

using namespace Zhaoxi;

namespace {

struct Run
{
    int rc = -1;
    QString out;
    QString err;
};

Run run(const QString &program, const QStringList &args, const QString &slurmConf = {})
{
    QProcess p;
    if (!slurmConf.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_CONF"), slurmConf);
        p.setProcessEnvironment(env);
    }
    p.setStandardInputFile(QProcess::nullDevice());
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000) || !p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished(5000);
        r.err = QStringLiteral("%1 did not run or finish: %2").arg(program, p.errorString());
        return r;
    }
    r.rc = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The cluster, stopped when this goes out of scope whatever happened.
class Cluster
{
public:
    explicit Cluster(QString dir)
        : m_dir(std::move(dir))
    {}
    ~Cluster()
    {
        if (!m_up)
            return;
        const Run r = run(QStringLiteral(SLURM_LOCAL),
                          {QStringLiteral("down"), QStringLiteral("--dir"), m_dir});
        if (r.rc != 0)
            std::fprintf(stderr, "slurm-local down failed: %s\n", qPrintable(r.err.right(2000)));
        else
            QDir(m_dir).removeRecursively(); // down keeps etc/ and log/; the directory is ours
    }
    bool up(QString *error)
    {
        m_up = true; // down cleans up whatever a failed up left
        const Run r = run(QStringLiteral(SLURM_LOCAL),
                          {QStringLiteral("up"), QStringLiteral("--dir"), m_dir});
        for (const QString &line : r.out.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("REST_URL=")))
                rest = line.mid(9);
            else if (line.startsWith(QLatin1String("TOKEN_FILE=")))
                tokenFile = line.mid(11);
            else if (line.startsWith(QLatin1String("SLURM_CONF=")))
                slurmConf = line.mid(11);
        }
        if (r.rc != 0 || rest.isEmpty()) {
            *error = QStringLiteral("slurm-local up failed (%1): %2")
                             .arg(r.rc)
                             .arg(r.err.right(3000));
            return false;
        }
        return true;
    }
    QString rest, tokenFile, slurmConf;

private:
    QString m_dir;
    bool m_up = false;
};

struct Figures
{
    QList<double> ms;
    void add(double v) { ms << v; }
    double quantile(double q) const
    {
        QList<double> s = ms;
        std::sort(s.begin(), s.end());
        if (s.isEmpty())
            return 0;
        const qsizetype i = std::min<qsizetype>(s.size() - 1, qsizetype(q * (s.size() - 1) + 0.5));
        return s[i];
    }
};

void print(const char *what, const Figures &f)
{
    std::printf("%-34s n=%-3lld median %8.1f ms   p90 %8.1f ms   min %8.1f ms   max %8.1f ms\n",
                what,
                static_cast<long long>(f.ms.size()),
                f.quantile(0.5),
                f.quantile(0.9),
                f.quantile(0.0),
                f.quantile(1.0));
}

QString jobState(Fleet::SlurmRestClient &client, qint64 id)
{
    const Fleet::RestReply r
            = client.getBlocking(QStringLiteral("/slurm/v0.0.38/job/") + QString::number(id));
    const QJsonArray jobs
            = QJsonDocument::fromJson(r.body).object().value(QStringLiteral("jobs")).toArray();
    return jobs.isEmpty() ? QString()
                          : jobs.first().toObject().value(QStringLiteral("job_state")).toString();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int jobs = 20;
    int pollMs = 20;
    const QStringList args = app.arguments().mid(1);
    bool settleBetween = true;
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--no-settle"))
            settleBetween = false;
    }
    for (qsizetype i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--jobs"))
            jobs = std::max(1, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--poll-ms"))
            pollMs = std::max(1, args[i + 1].toInt());
    }
    if (::geteuid() != 0) {
        std::fprintf(stderr, "bench_fleetsubmit: needs root (Slurm's daemons run as root)\n");
        return 2;
    }
    const QString dir = QStringLiteral("/tmp/zx-bench-fleetsubmit-%1").arg(::getpid());
    Cluster cluster(dir);
    QString error;
    QElapsedTimer upTimer;
    upTimer.start();
    if (!cluster.up(&error)) {
        std::fprintf(stderr, "bench_fleetsubmit: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("cluster up in %lld ms (%s); %d jobs each way, one at a time, polled every %d ms\n",
                static_cast<long long>(upTimer.elapsed()),
                qPrintable(dir),
                jobs,
                pollMs);
    const QString work = dir + QStringLiteral("/work");
    QDir().mkpath(work);

    Fleet::SlurmRestClient client(QUrl(cluster.rest), QStringLiteral("root"), cluster.tokenFile);
    Domain::WorkloadSpec spec;
    spec.name = QStringLiteral("bench");
    spec.kind = Domain::WorkloadKind::Training;
    spec.demand.compute.kind = Domain::ComputeDemand::Kind::MigProfile;
    spec.demand.compute.profile = QStringLiteral("1g.18gb");
    spec.demand.hostCpuMilli = 1000;
    spec.run = Domain::RunSpec{};
    spec.run->command = QStringList{QStringLiteral("/bin/sleep"), QStringLiteral("300")};
    Fleet::SubmitOptions options;
    options.workdir = work;
    options.environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));

    Figures zPlan, zPost, zTotal, sSubmit, sTotal;
    // A job is only submitted once the one before it has left COMPLETING: measured, a job
    // submitted while another is completing waits up to ~10 s (with --no-settle: both ways).
    const auto settle = [&](const QString &id) {
        if (!settleBetween)
            return;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 60000) {
            const Run q = run(QStringLiteral("squeue"),
                              {QStringLiteral("-h"),
                               QStringLiteral("-t"),
                               QStringLiteral("all"),
                               QStringLiteral("-o"),
                               QStringLiteral("%i %T")},
                              cluster.slurmConf);
            bool busy = false;
            for (const QString &line : q.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
                if (line.endsWith(QLatin1String("COMPLETING"))
                    || (line.startsWith(id + QLatin1Char(' '))
                        && !line.endsWith(QLatin1String("CANCELLED"))))
                    busy = true;
            }
            if (!busy)
                return;
            QThread::msleep(pollMs);
        }
    };
    const auto waitRunning = [&](const std::function<QString()> &state, QString *last) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 120000) {
            *last = state();
            if (*last == QLatin1String("RUNNING"))
                return true;
            QThread::msleep(pollMs);
        }
        return false;
    };
    for (int i = 0; i < jobs; ++i) {
        QElapsedTimer t;
        t.start();
        Fleet::RestStatus status;
        const std::optional<Fleet::FleetSnapshot> snapshot = client.fetchFleetBlocking(&status);
        if (!snapshot) {
            std::fprintf(stderr, "bench_fleetsubmit: %s\n", qPrintable(status.message));
            return 1;
        }
        const Fleet::FleetState fleet = Fleet::buildFleetState(
                *snapshot, Catalogue::Catalogue::builtIn(), QDateTime::currentMSecsSinceEpoch());
        const std::optional<Fleet::SubmitPlan> plan = Fleet::planSubmission(
                fleet, spec, QDateTime::currentMSecsSinceEpoch(), options, &error);
        if (!plan) {
            std::fprintf(stderr, "bench_fleetsubmit: %s\n", qPrintable(error));
            return 1;
        }
        const double planned = t.nsecsElapsed() / 1e6;
        const std::optional<qint64> id = client.submitBlocking(plan->request, &status);
        if (!id) {
            std::fprintf(stderr, "bench_fleetsubmit: %s\n", qPrintable(status.message));
            return 1;
        }
        const double posted = t.nsecsElapsed() / 1e6;
        QString last;
        if (!waitRunning([&] { return jobState(client, *id); }, &last)) {
            std::fprintf(stderr,
                         "bench_fleetsubmit: Zhaoxi job %lld still %s after 120 s\n",
                         static_cast<long long>(*id),
                         qPrintable(last));
            return 1;
        }
        zTotal.add(t.nsecsElapsed() / 1e6);
        zPlan.add(planned);
        zPost.add(posted - planned);
        run(QStringLiteral("scancel"), {QString::number(*id)}, cluster.slurmConf);
        settle(QString::number(*id));
    }
    for (int i = 0; i < jobs; ++i) {
        QElapsedTimer t;
        t.start();
        const Run s = run(QStringLiteral("sbatch"),
                          {QStringLiteral("--parsable"),
                           QStringLiteral("-p"),
                           QStringLiteral("training"),
                           QStringLiteral("-w"),
                           QStringLiteral("zx-mig"),
                           QStringLiteral("--gres=gpu:1g.18gb:1"),
                           QStringLiteral("-D"),
                           work,
                           QStringLiteral("--wrap"),
                           QStringLiteral("sleep 300")},
                          cluster.slurmConf);
        const QString id = s.out.trimmed().section(QLatin1Char(';'), 0, 0);
        if (s.rc != 0 || id.isEmpty()) {
            std::fprintf(stderr, "bench_fleetsubmit: sbatch failed: %s\n", qPrintable(s.err));
            return 1;
        }
        sSubmit.add(t.nsecsElapsed() / 1e6);
        QString last;
        const auto state = [&] {
            return run(QStringLiteral("squeue"),
                       {QStringLiteral("-h"),
                        QStringLiteral("-j"),
                        id,
                        QStringLiteral("-o"),
                        QStringLiteral("%T")},
                       cluster.slurmConf)
                    .out.trimmed();
        };
        if (!waitRunning(state, &last)) {
            std::fprintf(stderr,
                         "bench_fleetsubmit: sbatch job %s still %s after 120 s\n",
                         qPrintable(id),
                         qPrintable(last));
            return 1;
        }
        sTotal.add(t.nsecsElapsed() / 1e6);
        run(QStringLiteral("scancel"), {id}, cluster.slurmConf);
        settle(id);
    }
    print("Zhaoxi: fetch fleet + plan", zPlan);
    print("Zhaoxi: POST job/submit", zPost);
    print("Zhaoxi: submit -> RUNNING (total)", zTotal);
    print("sbatch: sbatch returns", sSubmit);
    print("sbatch: submit -> RUNNING (total)", sTotal);
    const auto slow = [](const Figures &f) {
        return std::count_if(f.ms.cbegin(), f.ms.cend(), [](double v) { return v > 1000; });
    };
    std::printf("over 1 s: Zhaoxi %lld, sbatch %lld (%s)\n",
                static_cast<long long>(slow(zTotal)),
                static_cast<long long>(slow(sTotal)),
                settleBetween ? "each job submitted once the one before had left COMPLETING"
                              : "each job submitted right after the one before was cancelled");
    return 0;
}
