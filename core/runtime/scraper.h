// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reads servers' /metrics and readiness endpoints over HTTP without blocking its caller.
//
// Threading: a Scraper lives on the thread that creates it (which needs an event loop) and is
// used from that thread only, like any QObject. scrape() and probe() return at once; the HTTP
// work, and parsing the body (parseExposition), happen on a private thread the Scraper owns,
// with its own QNetworkAccessManager. Results come back as signals emitted on the Scraper's own
// thread, from its event loop, never from inside scrape() or probe(), so a slot may call them
// again. Destroying the Scraper aborts what is in flight; no signal is emitted after that.
//
// Each request: HTTP/1.1 GET, no proxy (the appliance's servers are local), redirects not
// followed, a total deadline of timeoutMs (2 s by default) after which it is aborted whatever
// the server does (a server trickling bytes too), and a body of at most maxBodyBytes. A slow or
// dead server therefore holds up nothing but its own key.
//
// At most one scrape and one probe are in flight per key (a key names one server, e.g. a
// replica job). A scrape() for a key whose previous scrape has not reported yet is skipped: it
// sends nothing and emits nothing, the one in flight will report, and skippedCount() counts it.
// The same holds for probe().
//
// Reports:
// - scraped(key, scrape): scrape.readAtMs is the wall-clock UTC ms when the answer was complete
//   (or the failure known). scrape.ok() when a 200 answer was read: its body is parsed into
//   scrape.metrics (lines that did not parse are in scrape.metrics.errors; the rest is kept).
//   Otherwise scrape.error says what went wrong and names the URL: "timed out after 2000 ms",
//   the network error (e.g. "Connection refused"), "HTTP 503 Service Unavailable", or the size
//   limit; scrape.httpStatus is the status when one came (0 if none).
// - probed(key, ok, error): ok exactly when the server answered 200; error is empty then, and
//   otherwise in the same words as a scrape's.

#include "promtext.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QThread>
#include <QUrl>

namespace Zhaoxi::Runtime {

class ScraperWorker;

class Scraper : public QObject
{
    Q_OBJECT

public:
    static constexpr int defaultTimeoutMs = 2000;
    static constexpr qint64 maxBodyBytes = qint64(16) * 1024 * 1024;

    explicit Scraper(QObject *parent = nullptr);
    ~Scraper() override;

    // The deadline for requests started from now on; clamped to at least 1 ms.
    void setTimeoutMs(int ms);
    int timeoutMs() const { return m_timeoutMs; }

    void scrape(const QString &key, const QUrl &url);
    void probe(const QString &key, const QUrl &url);

    bool isScraping(const QString &key) const { return m_scraping.contains(key); }
    bool isProbing(const QString &key) const { return m_probing.contains(key); }
    // Requests skipped because one for the same key was in flight, since construction.
    qint64 skippedCount() const { return m_skipped; }

Q_SIGNALS:
    void scraped(const QString &key, const Zhaoxi::Runtime::Scrape &scrape);
    void probed(const QString &key, bool ok, const QString &error);

private:
    void onScrapeDone(const QString &key, const Zhaoxi::Runtime::Scrape &scrape);
    void onProbeDone(const QString &key, bool ok, const QString &error);

    QThread m_thread;
    ScraperWorker *m_worker = nullptr; // lives on m_thread; deleted there when it finishes
    int m_timeoutMs = defaultTimeoutMs;
    QSet<QString> m_scraping;
    QSet<QString> m_probing;
    qint64 m_skipped = 0;
};

} // namespace Zhaoxi::Runtime
