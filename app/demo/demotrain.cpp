// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi-demo-train: a stand-in training job for the demo and the tests. It does no real work
// but behaves like one towards the runner:
//
//   zhaoxi-demo-train --steps N [--step-ms 50] [--checkpoint-every K] [--batch 32]
//                     [--fail-at STEP] [--no-progress]
//
// - one step takes step-ms divided by its share of the card (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
//   / 100 when set, as for zhaoxi-demo-infer); the loss follows 0.3 + 2/(1 + step/50) plus a
//   little noise that depends only on the step (a resumed run draws the same curve);
// - each step appends a JSON line to the file named by ZHAOXI_PROGRESS:
//   {"step":S,"samples_per_s":X,"loss":L}, with "checkpoint":true when a checkpoint was saved at
//   that step (none with --no-progress, or without ZHAOXI_PROGRESS);
// - a checkpoint is saved every K steps, at the end, and at the end of the current step after
//   SIGUSR1 (the runner's "checkpoint now"): ZHAOXI_CHECKPOINT_DIR/state.json {"step","loss"},
//   written to a temporary file and renamed; the acknowledgement is the progress line and a log
//   line "checkpoint saved at step S". On start it resumes from that file;
// - at start it prints "CUDA_VISIBLE_DEVICES=<value>", "resuming from step S" (0 when fresh) and
//   "step time T ms" (after the share);
// - exits 0 when all steps are done; --fail-at S exits 3 on reaching step S;
// - SIGTERM stops it at once WITHOUT saving, exit code 143 (128 + SIGTERM, as a shell reports
//   it); SIGINT likewise with 130. Signals reach the event loop through a self-pipe.

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

int g_signalPipe[2] = {-1, -1};

void onSignal(int sig)
{
    const int saved = errno;
    const char c = char(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_signalPipe[1], &c, 1);
    errno = saved;
}

void say(const QByteArray &line)
{
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

double lossAt(qint64 step)
{
    // A hash of the step, so that the noise is the same on a resumed run.
    quint64 h = quint64(step) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    const double noise = double(h % 10001) / 10000.0 - 0.5; // -0.5 .. 0.5
    return 0.3 + 2.0 / (1.0 + double(step) / 50.0) + 0.02 * noise;
}

class Trainer : public QObject
{
public:
    struct Config
    {
        qint64 steps = 0;
        double stepMs = 50;
        qint64 checkpointEvery = 0;
        qint64 failAt = -1;
        int batch = 32;
        bool progress = true;
    };

    explicit Trainer(const Config &config)
        : m_config(config)
        , m_progressPath(qEnvironmentVariable("ZHAOXI_PROGRESS"))
        , m_checkpointDir(qEnvironmentVariable("ZHAOXI_CHECKPOINT_DIR"))
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(qMax(1, int(std::lround(m_config.stepMs))));
        connect(&m_timer, &QTimer::timeout, this, &Trainer::step);
    }

    // Returns false when there is nothing left to do (the exit code is then set).
    bool start()
    {
        say("CUDA_VISIBLE_DEVICES=" + qgetenv("CUDA_VISIBLE_DEVICES"));
        resume();
        say("resuming from step " + QByteArray::number(m_step));
        say("step time " + QByteArray::number(m_config.stepMs, 'g', 6) + " ms");
        if (m_step >= m_config.steps) {
            say("done: " + QByteArray::number(m_step) + " steps");
            return false;
        }
        m_sinceStep.start();
        m_timer.start();
        return true;
    }

    void onSignal(int sig)
    {
        if (sig == SIGUSR1) {
            m_checkpointRequested = true; // saved at the end of the current step
            return;
        }
        const int code = sig == SIGINT ? 130 : 143;
        say("stopping at step " + QByteArray::number(m_step) + " on signal "
            + QByteArray::number(sig) + ", not saved");
        m_timer.stop();
        QCoreApplication::exit(code);
    }

private:
    void resume()
    {
        if (m_checkpointDir.isEmpty())
            return;
        QFile f(m_checkpointDir + QLatin1String("/state.json"));
        if (!f.open(QIODevice::ReadOnly))
            return;
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        const qint64 step = o.value(QLatin1String("step")).toInteger(-1);
        if (step < 0) {
            say("ignoring an unreadable checkpoint " + f.fileName().toLocal8Bit());
            return;
        }
        m_step = step;
    }

    bool save(double loss)
    {
        if (m_checkpointDir.isEmpty()) {
            say("no ZHAOXI_CHECKPOINT_DIR: checkpoint at step " + QByteArray::number(m_step)
                + " skipped");
            return false;
        }
        QSaveFile f(m_checkpointDir + QLatin1String("/state.json"));
        QJsonObject o;
        o.insert(QLatin1String("step"), m_step);
        o.insert(QLatin1String("loss"), loss);
        if (!f.open(QIODevice::WriteOnly)
            || f.write(QJsonDocument(o).toJson(QJsonDocument::Compact)) < 0 || !f.commit()) {
            say("cannot save the checkpoint: " + f.errorString().toLocal8Bit());
            return false;
        }
        say("checkpoint saved at step " + QByteArray::number(m_step));
        return true;
    }

    void writeProgress(double samplesPerS, double loss, bool checkpoint)
    {
        if (!m_config.progress || m_progressPath.isEmpty())
            return;
        QJsonObject o;
        o.insert(QLatin1String("step"), m_step);
        o.insert(QLatin1String("samples_per_s"), std::round(samplesPerS * 10) / 10);
        o.insert(QLatin1String("loss"), std::round(loss * 1e5) / 1e5);
        if (checkpoint)
            o.insert(QLatin1String("checkpoint"), true);
        QFile f(m_progressPath);
        // One write of one whole line, appended: a reader never sees half of it for long.
        if (f.open(QIODevice::WriteOnly | QIODevice::Append))
            f.write(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
    }

    void step()
    {
        const qint64 elapsed = qMax<qint64>(1, m_sinceStep.restart());
        ++m_step;
        if (m_config.failAt >= 0 && m_step == m_config.failAt) {
            say("failing at step " + QByteArray::number(m_step) + " as asked");
            m_timer.stop();
            QCoreApplication::exit(3);
            return;
        }
        const double loss = lossAt(m_step);
        const bool done = m_step >= m_config.steps;
        bool checkpoint = false;
        if (m_checkpointRequested || done
            || (m_config.checkpointEvery > 0 && m_step % m_config.checkpointEvery == 0)) {
            m_checkpointRequested = false;
            checkpoint = save(loss);
        }
        writeProgress(double(m_config.batch) * 1000.0 / double(elapsed), loss, checkpoint);
        if (m_step % 10 == 0 || done)
            say("step " + QByteArray::number(m_step) + "/" + QByteArray::number(m_config.steps)
                + " loss " + QByteArray::number(loss, 'f', 4));
        if (done) {
            say("done: " + QByteArray::number(m_step) + " steps");
            m_timer.stop();
            QCoreApplication::exit(0);
        }
    }

    Config m_config;
    QString m_progressPath;
    QString m_checkpointDir;
    QTimer m_timer;
    QElapsedTimer m_sinceStep;
    qint64 m_step = 0;
    bool m_checkpointRequested = false;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("zhaoxi-demo-train"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
            QStringLiteral("A demo training job (progress, checkpoints)."));
    parser.addHelpOption();
    const QCommandLineOption stepsOpt(
            QStringLiteral("steps"), QStringLiteral("Total steps."), QStringLiteral("N"));
    const QCommandLineOption stepMsOpt(QStringLiteral("step-ms"),
                                       QStringLiteral("Time per step at a full share."),
                                       QStringLiteral("MS"),
                                       QStringLiteral("50"));
    const QCommandLineOption everyOpt(QStringLiteral("checkpoint-every"),
                                      QStringLiteral("Save a checkpoint every K steps (0: never)."),
                                      QStringLiteral("K"),
                                      QStringLiteral("0"));
    const QCommandLineOption batchOpt(QStringLiteral("batch"),
                                      QStringLiteral("Samples per step."),
                                      QStringLiteral("B"),
                                      QStringLiteral("32"));
    const QCommandLineOption failOpt(QStringLiteral("fail-at"),
                                     QStringLiteral("Exit 3 on reaching this step."),
                                     QStringLiteral("STEP"));
    const QCommandLineOption noProgressOpt(QStringLiteral("no-progress"),
                                           QStringLiteral("Write no progress lines."));
    parser.addOptions({stepsOpt, stepMsOpt, everyOpt, batchOpt, failOpt, noProgressOpt});
    parser.process(app);

    const auto number = [&](const QCommandLineOption &opt, qint64 min, qint64 *out) {
        bool ok = false;
        const qint64 v = parser.value(opt).toLongLong(&ok);
        if (!ok || v < min) {
            std::fprintf(stderr,
                         "zhaoxi-demo-train: --%s must be an integer >= %lld\n",
                         qPrintable(opt.names().first()),
                         (long long)min);
            return false;
        }
        *out = v;
        return true;
    };
    Trainer::Config config;
    qint64 stepMs = 0;
    qint64 batch = 0;
    if (!parser.isSet(stepsOpt)) {
        std::fprintf(stderr, "zhaoxi-demo-train: --steps is required\n");
        return 2;
    }
    if (!number(stepsOpt, 1, &config.steps) || !number(stepMsOpt, 1, &stepMs)
        || !number(everyOpt, 0, &config.checkpointEvery) || !number(batchOpt, 1, &batch)
        || (parser.isSet(failOpt) && !number(failOpt, 1, &config.failAt)))
        return 2;
    config.batch = int(qMin<qint64>(batch, 1 << 20));
    config.progress = !parser.isSet(noProgressOpt);

    double share = 1.0;
    bool shareOk = false;
    const double pct = qEnvironmentVariable("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE").toDouble(&shareOk);
    if (shareOk && pct > 0 && pct <= 100)
        share = pct / 100.0;
    config.stepMs = double(stepMs) / share;

    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g_signalPipe) != 0) {
        std::perror("zhaoxi-demo-train: socketpair");
        return 1;
    }
    ::fcntl(g_signalPipe[1], F_SETFL, O_NONBLOCK);
    Trainer trainer(config);
    QSocketNotifier notifier(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &trainer, [&trainer] {
        char sig = 0;
        if (::read(g_signalPipe[0], &sig, 1) == 1)
            trainer.onSignal(int(sig));
    });
    struct sigaction sa = {};
    sa.sa_handler = onSignal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (const int sig : {SIGTERM, SIGINT, SIGUSR1})
        ::sigaction(sig, &sa, nullptr);

    if (!trainer.start())
        return 0;
    return app.exec();
}
