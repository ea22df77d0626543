// SPDX-License-Identifier: GPL-3.0-or-later
#include "scraper.h"

#include <QDateTime>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace Zhaoxi::Runtime {

// The half of the Scraper that lives on its private thread. Its signals reach the Scraper
// through queued connections (the Scraper is on another thread).
class ScraperWorker : public QObject
{
    Q_OBJECT

public:
    enum class Kind { Scrape, Probe };

    void get(Kind kind, const QString &key, const QUrl &url, int timeoutMs)
    {
        // Created here, on the worker's thread, where all its replies live.
        if (!m_nam) {
            m_nam = new QNetworkAccessManager(this);
            m_nam->setProxy(QNetworkProxy::NoProxy);
            m_nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        }
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        if (kind == Kind::Scrape)
            request.setRawHeader("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1");
        QNetworkReply *reply = m_nam->get(request);

        // Why a timer and not only setTransferTimeout: the latter restarts with every byte, so a
        // server trickling its answer would never time out.
        auto *deadline = new QTimer(reply);
        deadline->setSingleShot(true);
        connect(deadline, &QTimer::timeout, reply, [reply] {
            reply->setProperty("zhaoxiTimedOut", true);
            reply->abort();
        });
        deadline->start(timeoutMs);
        connect(reply, &QNetworkReply::downloadProgress, reply, [reply](qint64 received, qint64) {
            if (received > Scraper::maxBodyBytes) {
                reply->setProperty("zhaoxiTooLarge", true);
                reply->abort();
            }
        });
        connect(reply, &QNetworkReply::finished, this, [this, reply, kind, key, url, timeoutMs] {
            reply->deleteLater();
            Scrape s;
            s.readAtMs = QDateTime::currentMSecsSinceEpoch();
            s.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            const QString where = QStringLiteral("GET ") + url.toString() + QStringLiteral(": ");
            if (reply->property("zhaoxiTimedOut").toBool()) {
                s.error = where + QStringLiteral("timed out after %1 ms").arg(timeoutMs);
            } else if (reply->property("zhaoxiTooLarge").toBool()) {
                s.error = where
                          + QStringLiteral("answer larger than %1 bytes")
                                    .arg(Scraper::maxBodyBytes);
            } else if (s.httpStatus != 0 && s.httpStatus != 200) {
                s.error = where
                          + QStringLiteral("HTTP %1 %2")
                                    .arg(s.httpStatus)
                                    .arg(QString::fromUtf8(
                                            reply->attribute(
                                                         QNetworkRequest::HttpReasonPhraseAttribute)
                                                    .toByteArray()));
                s.error = s.error.trimmed();
            } else if (reply->error() != QNetworkReply::NoError) {
                s.error = where + reply->errorString();
            } else if (s.httpStatus != 200) {
                s.error = where + QStringLiteral("no HTTP status in the answer");
            }
            if (kind == Kind::Probe) {
                Q_EMIT probeDone(key, s.ok(), s.error);
                return;
            }
            if (s.ok())
                s.metrics = parseExposition(reply->readAll());
            Q_EMIT scrapeDone(key, s);
        });
    }

Q_SIGNALS:
    void scrapeDone(const QString &key, const Zhaoxi::Runtime::Scrape &scrape);
    void probeDone(const QString &key, bool ok, const QString &error);

private:
    QNetworkAccessManager *m_nam = nullptr;
};

Scraper::Scraper(QObject *parent)
    : QObject(parent)
    , m_worker(new ScraperWorker)
{
    qRegisterMetaType<Zhaoxi::Runtime::Scrape>();
    m_thread.setObjectName(QStringLiteral("zhaoxi-scraper"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &ScraperWorker::scrapeDone, this, &Scraper::onScrapeDone);
    connect(m_worker, &ScraperWorker::probeDone, this, &Scraper::onProbeDone);
    m_thread.start();
}

Scraper::~Scraper()
{
    // The worker and its replies are deleted on their own thread as it finishes; results still
    // queued for this object die with it.
    m_thread.quit();
    m_thread.wait();
}

void Scraper::setTimeoutMs(int ms)
{
    m_timeoutMs = std::max(1, ms);
}

void Scraper::scrape(const QString &key, const QUrl &url)
{
    if (m_scraping.contains(key)) {
        ++m_skipped;
        return;
    }
    m_scraping.insert(key);
    ScraperWorker *worker = m_worker;
    const int timeout = m_timeoutMs;
    QMetaObject::invokeMethod(
            worker,
            [worker, key, url, timeout] {
                worker->get(ScraperWorker::Kind::Scrape, key, url, timeout);
            },
            Qt::QueuedConnection);
}

void Scraper::probe(const QString &key, const QUrl &url)
{
    if (m_probing.contains(key)) {
        ++m_skipped;
        return;
    }
    m_probing.insert(key);
    ScraperWorker *worker = m_worker;
    const int timeout = m_timeoutMs;
    QMetaObject::invokeMethod(
            worker,
            [worker, key, url, timeout] {
                worker->get(ScraperWorker::Kind::Probe, key, url, timeout);
            },
            Qt::QueuedConnection);
}

void Scraper::onScrapeDone(const QString &key, const Zhaoxi::Runtime::Scrape &scrape)
{
    m_scraping.remove(key);
    Q_EMIT scraped(key, scrape);
}

void Scraper::onProbeDone(const QString &key, bool ok, const QString &error)
{
    m_probing.remove(key);
    Q_EMIT probed(key, ok, error);
}

} // namespace Zhaoxi::Runtime

#include "scraper.moc"
