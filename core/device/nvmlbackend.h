// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "devicebackend.h"
#include "nvmlapi.h"
#include "nvmlparse.h"

#include <QHash>

#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace Zhaoxi::Device {

struct NvmlBackendOptions
{
    // The NVML library: empty = $ZHAOXI_NVML_LIBRARY, else "libnvidia-ml.so.1" (tests point it
    // at the test double).
    QString libraryPath;
    // Safe by default: nothing is changed on a card unless this is set (the console's setting;
    // `zhaoxictl apply-plan --yes`). Without it every step is refused, reporting read-only.
    bool applyEnabled = false;
    // With applying enabled, first check that this process may change MIG (root, or read access
    // to the driver's MIG config capability); without it the backend stays read-only and says
    // so. Tests turn it off and let the test double answer NO_PERMISSION instead.
    bool checkPrivileges = true;
    qint64 pollIntervalMs = 2000;    // metrics, Xid events, ECC counters
    qint64 layoutRefreshMs = 10'000; // MIG mode, profiles and instances (cheap, but not free)
    std::optional<Catalogue::Catalogue> catalogue; // nullopt: Catalogue::builtIn()
};

// Why the backend would not open. NoDriver: the library is not installed or the kernel driver is
// not loaded: the console says "no NVIDIA driver found" and offers the simulated appliance.
enum class NvmlOpenStatus : std::uint8_t { Ok, NoDriver, InitFailed };
const char *toString(NvmlOpenStatus status);

struct NvmlOpenResult
{
    NvmlOpenStatus status = NvmlOpenStatus::Ok;
    QString message; // English, for logs and the command line
};

// Whether the backend may change cards, and if not, why (the console's banner).
enum class NvmlAccess : std::uint8_t {
    Writable,
    ReadOnlyBySetting, // applying not enabled
    NoPrivileges,      // enabled, but the process may not change MIG (checked or told by NVML)
    NotSupported,      // the driver lacks the MIG management functions
};
const char *toString(NvmlAccess access);

// Everything read from one card, kept between polls (an extension of CardInfo/CardLayout for
// the console's detail view and `zhaoxictl nvml-check`).
struct NvmlCardReport
{
    CardId id;
    int index = -1; // NVML device index
    QString name;   // "NVIDIA H200 NVL"
    QString uuid;   // "GPU-..."
    QString busId;  // "00000000:3B:00.0"
    quint32 pciDeviceId = 0;
    qint64 memoryTotalMiB = 0;
    int model = -1; // catalogue index; -1: not in the catalogue (shown, never partitioned)
    // MIG mode; nullopt when the card or driver does not support MIG.
    std::optional<bool> migCurrent;
    std::optional<bool> migPending;
    QList<DriverProfile> driverProfiles;    // what the driver offers (MIG mode on)
    QList<ProfileDifference> differences;   // against the catalogue model
    QList<DriverInstance> driverInstances;  // GPU instances as listed
    CardLayout layout;                      // in catalogue terms, with the instances' UUIDs
    QStringList layoutProblems;             // instances that could not be mapped
    NvmlStatus readStatus = NvmlStatus::Ok; // the last layout read (GpuLost, ...)
    // With MIG on: why the instances' UUIDs could not be read (English; the library lacks the MIG
    // device functions, or the driver refused); empty when they were. Not a layout problem: the
    // placements are known either way.
    QString instanceUuidNote;
};

// One process with a compute context on a card, as NVML lists it at a poll.
struct ProcessUse
{
    quint32 pid = 0;
    qint64 memoryMiB = -1; // device memory it uses; -1 when the driver does not say
    // SM utilisation, 0..1, over the driver's samples since the previous poll; NaN when unknown:
    // the library lacks nvmlDeviceGetProcessUtilization, or MIG is on (per-process utilisation
    // is not offered for MIG instances).
    double smUtilisation = std::numeric_limits<double>::quiet_NaN();
    QString instanceUuid = {}; // "MIG-<uuid>" of the MIG instance it runs on; empty on a whole card
};

// One poll's readings of a card. Each field is empty when the card or driver does not report it
// (utilisation with MIG on: "not available", never zero).
struct NvmlReading
{
    qint64 atMs = 0;
    std::optional<double> utilisation; // 0..1
    std::optional<qint64> memoryUsedMiB;
    std::optional<qint64> memoryTotalMiB;
    std::optional<double> temperatureC;
    std::optional<double> powerW;
    std::optional<double> smClockMHz;      // the SM clock now
    std::optional<double> maxSmClockMHz;   // ... and its maximum (the driver's)
    std::optional<quint64> eccUncorrected; // volatile counts since the driver loaded
    std::optional<quint64> eccCorrected;
    QList<quint64> recentXids;              // the last few Xids seen, oldest first
    int xidCount = 0;                       // critical Xids seen since the backend opened
    std::optional<quint64> throttleReasons; // ThrottleReason bits (the driver's mask)
    std::optional<int> slowdownTempC;       // the driver's thresholds, read once
    std::optional<int> shutdownTempC;
    bool lost = false;
    // The compute processes on the card (with MIG on: on each MIG instance, read through the MIG
    // device handles, since the card's own handle lists them only to privileged callers).
    QList<ProcessUse> processes;
    // False when NVML could not list them (processesNote says why, in English): an empty list
    // then means "unknown", not "idle".
    bool processesListed = false;
    QString processesNote;
};

// What happened to one step, more precisely than the base interface's StepResult can say.
enum class NvmlStepState : std::uint8_t {
    Done,
    Failed,  // the driver refused it; `status` says why; the card was re-read
    Skipped, // not attempted: an earlier step of the same order on this card failed
    Refused, // not attempted: read-only, no privileges, MIG off, unknown card or profile
};
const char *toString(NvmlStepState state);

struct NvmlStepReport
{
    StepResult result; // as takeResults() reports it
    NvmlStepState state = NvmlStepState::Done;
    NvmlStatus status = NvmlStatus::Ok;
    QString message; // English: what was done or why not
};

// A DeviceBackend over NVIDIA's management library, for the appliance's real cards.
//
// Topology: one host (this machine), its cards in NVML index order; a card's model is matched
// by PCI device id, then name (nvmlparse.h); cards not in the catalogue have model -1.
//
// Reading: open() reads every card and its MIG state; poll(now) reads metrics and processes and
// drains Xid events every pollIntervalMs and re-reads MIG state every layoutRefreshMs. Layouts
// are what the driver lists, never what a plan intended. InstanceInfo::busy is not known to
// NVML's MIG API and stays false; destroying an instance that serves work is refused by the
// driver (InUse).
//
// Identities: CardInfo::uuid is the card's "GPU-<uuid>". Each time a layout is read (open, the
// refresh, before and after every order, so right after a create too), every MIG device of the
// card is listed (nvmlDeviceGetMaxMigDeviceCount, nvmlDeviceGetMigDeviceHandleByIndex), matched
// to its GPU instance by id (nvmlDeviceGetGpuInstanceId) and its "MIG-<uuid>" (nvmlDeviceGetUUID)
// becomes the InstanceInfo::uuid of that placement. A GPU instance without a compute instance
// has no MIG device and no UUID; with several compute instances, the first MIG device listed
// names it. A library without those functions leaves every uuid empty and says so in
// NvmlCardReport::instanceUuidNote; nothing else changes.
//
// Applying (only when NvmlAccess is Writable): apply() queues an order, advance(now) carries it
// out with blocking driver calls, card after card, each card's steps in the order given (the
// repartition planner's order). A destroy removes the GPU instance's compute instances first,
// then the GPU instance; a create makes the GPU instance at its explicit placement, then one
// compute instance spanning it (if that fails the new GPU instance is removed again). When a
// step fails, the order's later steps on that card are not attempted (Skipped) and the card's
// layout is re-read from the driver at once, so layout() is exactly what is on the card. This
// differs from the base contract ("a step that fails does not stop later steps") on purpose:
// later steps were planned against a layout that is no longer coming. Skipped steps carry the
// failing step's error in their StepResult; takeStepReports() tells them apart. SetMode steps
// are refused (a MIG mode change needs a GPU reset, which Zhaoxi never does), except when the
// card is already in that mode.
//
// Metrics for the base interface: CardMetrics::utilisation is NaN when not available (MIG on);
// temperature, power and memory are 0 when unreadable (NvmlReading has the exact picture).
//
// Threading: thread-confined. The console creates it in a worker thread and calls everything
// there (poll is cheap: a handful of NVML calls per card, no allocation in the steady state
// beyond the readings). Time is an argument: nothing here reads the clock.
class NvmlBackend final : public DeviceBackend
{
public:
    // Opens the library, initialises NVML and reads every card. nullptr with *result saying why
    // when there is no driver or NVML will not initialise.
    static std::unique_ptr<NvmlBackend> open(const NvmlBackendOptions &options,
                                             NvmlOpenResult *result,
                                             qint64 nowMs = 0);
    ~NvmlBackend() override;

    // --- DeviceBackend -----------------------------------------------------------------------
    const Catalogue::Catalogue &catalogue() const override { return m_catalogue; }
    QList<HostInfo> hosts() const override;
    QList<CardInfo> cards() const override;
    CardLayout layout(CardId card) const override;
    quint64 apply(const QList<DeviceStep> &steps, qint64 nowMs) override;
    void advance(qint64 nowMs) override;
    QList<StepResult> takeResults() override;
    QList<DeviceFault> takeFaults() override;
    qint64 nextEventMs() const override;
    CardMetrics metrics(CardId card) const override;

    // --- NVML extension ----------------------------------------------------------------------
    // Reads metrics and Xid events if pollIntervalMs has passed since the last poll, MIG state if
    // layoutRefreshMs has; otherwise returns at once. Faults go to takeFaults().
    void poll(qint64 nowMs);
    // Re-reads every card's MIG state now.
    void refreshLayouts();
    NvmlAccess access() const { return m_access; }
    QString accessMessage() const { return m_accessMessage; } // English, for the banner
    QString driverVersion() const { return m_driverVersion; }
    QString libraryPath() const { return m_lib.path(); }
    QStringList missingOptionalSymbols() const { return m_lib.missingOptional(); }
    const QList<NvmlCardReport> &cardReports() const { return m_reports; }
    NvmlReading reading(CardId card) const;
    // The compute processes on the card with this NVML index at the last poll (its
    // reading().processes; reading().processesListed says whether the list is known). Empty for an
    // index out of range.
    QList<ProcessUse> processes(int nvmlIndex) const;
    CardId cardByUuid(const QString &uuid) const; // invalid when unknown
    QList<NvmlStepReport> takeStepReports();

private:
    NvmlBackend(const NvmlBackendOptions &options, Catalogue::Catalogue catalogue);
    bool initialise(NvmlOpenResult *result, qint64 nowMs);
    void checkAccess();
    void readCard(int index);
    void readMig(int index);
    void readInstanceUuids(int index);
    void readMetrics(int index, qint64 nowMs);
    void readProcesses(int index);
    NvmlStatus listProcesses(nvmlDevice_t device,
                             std::vector<nvmlProcessInfo_v2_t> *out,
                             QString *message) const;
    void drainEvents(qint64 nowMs);
    void runOrder(quint64 order, const QList<DeviceStep> &steps, qint64 nowMs);
    NvmlStatus doDestroy(int card, const Domain::MigProfile &profile, int start, QString *message);
    NvmlStatus doCreate(int card, const Domain::MigProfile &profile, int start, QString *message);
    NvmlStatus destroyGpuInstance(nvmlGpuInstance_t gi, QString *message);
    QString errorText(int code) const;
    void noteLost(int index, bool lost, qint64 nowMs);

    struct Pending
    {
        quint64 order = 0;
        QList<DeviceStep> steps;
        qint64 atMs = 0;
    };

    NvmlBackendOptions m_options;
    Catalogue::Catalogue m_catalogue;
    Nvml::Library m_lib;
    bool m_initialised = false;
    std::vector<nvmlDevice_t> m_devices;
    QList<NvmlCardReport> m_reports;
    QList<NvmlReading> m_readings;
    std::vector<unsigned long long> m_lastSampleUs; // per card: the newest process sample seen
    nvmlEventSet_t m_events = nullptr;
    NvmlAccess m_access = NvmlAccess::ReadOnlyBySetting;
    QString m_accessMessage;
    QString m_driverVersion;
    QList<Pending> m_pending;
    QList<StepResult> m_results;
    QList<NvmlStepReport> m_stepReports;
    QList<DeviceFault> m_faults;
    quint64 m_nextOrder = 1;
    qint64 m_nowMs = 0;
    qint64 m_lastPollMs = -1;
    qint64 m_lastLayoutMs = -1;
};

} // namespace Zhaoxi::Device
