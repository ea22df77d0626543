// SPDX-License-Identifier: GPL-3.0-or-later
// Refused workload specs: each rule with the path it names, from JSON and from the struct.
#include "workloadspecfixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

using namespace Zhaoxi::Domain;
using namespace WorkloadSpecFixture;

class tst_WorkloadSpecValidate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void errors_data();
    void errors();
    void validateStruct_data();
    void validateStruct();
    void nullErrorPointerIsAllowed();
};

void tst_WorkloadSpecValidate::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message"); // a part of the message

    // required keys and names
    QTest::newRow("name missing") << without("name") << "name"
                                  << "required";
    QTest::newRow("name empty") << patch(R"({"name": ""})") << "name"
                                << "must not be empty";
    QTest::newRow("name blank") << patch(R"({"name": "   "})") << "name"
                                << "must not be empty";
    QTest::newRow("name too long")
            << patch("{\"name\": \"" + QByteArray(129, 'a') + "\"}") << "name"
            << "at most 128 characters, got 129";
    QTest::newRow("name with newline") << patch(R"({"name": "a\nb"})") << "name"
                                       << "control characters";
    // Issue 14: NUL and lone surrogates, as JSON can spell them.
    QTest::newRow("name with NUL") << patch(R"({"name": "a\u0000b"})") << "name"
                                   << "must not contain a NUL character";
    QTest::newRow("name with a lone surrogate")
            << patch(R"({"name": "a\ud800b"})") << "name"
            << "must be valid Unicode (it has a lone surrogate)";
    QTest::newRow("service with a lone low surrogate")
            << patch(R"({"kind": "inference", "inference": {"service": "s\udc00",
                     "sloP99Ms": 100, "replicas": {"min": 1, "max": 2}}})")
            << "inference.service"
            << "lone surrogate";
    QTest::newRow("name not a string") << patch(R"({"name": 7})") << "name"
                                       << "expected a string, got a number";
    QTest::newRow("kind missing") << without("kind") << "kind"
                                  << "required";
    QTest::newRow("kind unknown") << patch(R"({"kind": "train"})") << "kind"
                                  << R"(must be one of training, inference, batch, got "train")";
    QTest::newRow("kind is case-sensitive") << patch(R"({"kind": "Batch"})") << "kind"
                                            << "must be one of";
    QTest::newRow("demand missing") << without("demand") << "demand"
                                    << "required";
    QTest::newRow("demand not an object") << patch(R"({"demand": [1]})") << "demand"
                                          << "expected an object, got an array";

    // compute forms
    QTest::newRow("compute missing") << patch(R"({"demand": {"cards": 2}})") << "demand.compute"
                                     << "required";
    QTest::newRow("no compute form") << computeWith(R"({})") << "demand.compute"
                                     << "needs one of wholeCard, profile, slices, fraction";
    QTest::newRow("two compute forms")
            << computeWith(R"({"profile": "3g.40gb", "slices": 3})") << "demand.compute"
            << "got profile and slices";
    QTest::newRow("wholeCard false")
            << computeWith(R"({"wholeCard": false})") << "demand.compute.wholeCard"
            << "must be true";
    QTest::newRow("wholeCard string")
            << computeWith(R"({"wholeCard": "yes"})") << "demand.compute.wholeCard"
            << "expected true or false, got a string";
    QTest::newRow("slices too many") << computeWith(R"({"slices": 9})") << "demand.compute.slices"
                                     << "must be 1..7, got 9";
    QTest::newRow("slices zero") << computeWith(R"({"slices": 0})") << "demand.compute.slices"
                                 << "must be 1..7, got 0";
    QTest::newRow("slices not integral")
            << computeWith(R"({"slices": 2.5})") << "demand.compute.slices"
            << "expected an integer, got 2.5";
    QTest::newRow("profile malformed")
            << computeWith(R"({"profile": "3G.40GB"})") << "demand.compute.profile"
            << "expected a MIG profile name";
    QTest::newRow("profile empty") << computeWith(R"({"profile": ""})") << "demand.compute.profile"
                                   << "expected a MIG profile name";
    QTest::newRow("fraction zero") << computeWith(R"({"fraction": 0})") << "demand.compute.fraction"
                                   << "must be in (0, 1], got 0";
    QTest::newRow("fraction above one")
            << computeWith(R"({"fraction": 1.5})") << "demand.compute.fraction"
            << "must be in (0, 1], got 1.5";
    QTest::newRow("fraction below granularity")
            << computeWith(R"({"fraction": 0.0001})") << "demand.compute.fraction"
            << "at least 0.001";
    QTest::newRow("fraction as text")
            << computeWith(R"({"fraction": "25%"})") << "demand.compute.fraction"
            << "expected a number, got a string";

    // quantities
    QTest::newRow("memory both units") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "memoryGiB": 1, "memoryMiB": 1024}})")
                                       << "demand.memoryGiB"
                                       << "give memoryGiB or memoryMiB, not both";
    QTest::newRow("memoryGiB negative") << demandWith(R"("memoryGiB": -1)") << "demand.memoryGiB"
                                        << "must be 0..1024, got -1";
    QTest::newRow("memoryMiB meant as GiB")
            << demandWith(R"("memoryGiB": 35840)") << "demand.memoryGiB"
            << "must be 0..1024, got 35840";
    QTest::newRow("memoryMiB fractional") << demandWith(R"("memoryMiB": 1.5)") << "demand.memoryMiB"
                                          << "expected an integer, got 1.5";
    QTest::newRow("cards negative") << demandWith(R"("cards": -1)") << "demand.cards"
                                    << "must be 0..64, got -1";
    QTest::newRow("cards too many") << demandWith(R"("cards": 65)") << "demand.cards"
                                    << "must be 0..64, got 65";
    QTest::newRow("cards huge") << demandWith(R"("cards": 1e30)") << "demand.cards"
                                << "must be 0..64, got 1e+30";
    QTest::newRow("CPU-only job with a compute form")
            << demandWith(R"("cards": 0)") << "demand.compute"
            << "not allowed when cards is 0";
    QTest::newRow("CPU-only job with card memory")
            << patch(R"({"demand": {"cards": 0, "memoryGiB": 4}})") << "demand.memoryGiB"
            << "must be 0 when cards is 0";
    QTest::newRow("CPU-only job with card models")
            << patch(R"({"demand": {"cards": 0}, "affinity": {"cardModels": ["A100"]}})")
            << "affinity.cardModels"
            << "must be empty when demand.cards is 0";
    QTest::newRow("cards as text") << demandWith(R"("cards": "4")") << "demand.cards"
                                   << "expected an integer, got a string";
    QTest::newRow("hostCpu both units") << patch(
            R"({"demand": {"compute": {"wholeCard": true}, "hostCpu": 1, "hostCpuMilli": 1000}})")
                                        << "demand.hostCpu"
                                        << "not both";
    QTest::newRow("hostCpu too many") << demandWith(R"("hostCpu": 4096)") << "demand.hostCpu"
                                      << "must be 0..1024, got 4096";
    QTest::newRow("hostMemoryMiB negative")
            << demandWith(R"("hostMemoryMiB": -5)") << "demand.hostMemoryMiB"
            << "must be 0..16777216, got -5";
    QTest::newRow("fraction ganged")
            << patch(R"({"demand": {"compute": {"fraction": 0.5}, "cards": 2}})") << "demand.cards"
            << "must be 1 for a fraction demand";

    // time
    QTest::newRow("time not an object") << patch(R"({"time": "6h"})") << "time"
                                        << "expected an object, got a string";
    QTest::newRow("duration malformed")
            << patch(R"({"time": {"expectedDuration": "6 hours"}})") << "time.expectedDuration"
            << R"(got "6 hours")";
    QTest::newRow("duration negative")
            << patch(R"({"time": {"expectedDuration": -60}})") << "time.expectedDuration"
            << "must not be negative, got -60";
    QTest::newRow("duration too long")
            << patch(R"({"time": {"expectedDuration": "400d"}})") << "time.expectedDuration"
            << "must be at most 365d, got 400d";
    QTest::newRow("duration wrong type")
            << patch(R"({"time": {"expectedDuration": true}})") << "time.expectedDuration"
            << "expected a number of seconds or a duration string, got a boolean";
    QTest::newRow("deadline without offset")
            << patch(R"({"time": {"deadline": "2026-12-01T08:00:00"}})") << "time.deadline"
            << "needs a UTC offset";
    QTest::newRow("deadline date only")
            << patch(R"({"time": {"deadline": "2026-12-01"}})") << "time.deadline"
            << "needs a UTC offset";
    QTest::newRow("deadline garbage")
            << patch(R"({"time": {"deadline": "next tuesday"}})") << "time.deadline"
            << "expected an ISO-8601 date and time";
    QTest::newRow("deadline as number")
            << patch(R"({"time": {"deadline": 1796112000}})") << "time.deadline"
            << "expected a string, got a number";
    QTest::newRow("deadline null") << patch(R"({"time": {"deadline": null}})") << "time.deadline"
                                   << "expected a string, got null";
    QTest::newRow("deadline before 1970")
            << patch(R"({"time": {"deadline": "1969-12-31T23:59:59Z"}})") << "time.deadline"
            << "between 1970 and 9999";

    // priority and preemption
    QTest::newRow("priority as text") << patch(R"({"priority": "high"})") << "priority"
                                      << "expected an integer, got a string";
    QTest::newRow("priority too high") << patch(R"({"priority": 1001})") << "priority"
                                       << "must be -1000..1000, got 1001";
    QTest::newRow("priority too low") << patch(R"({"priority": -1001})") << "priority"
                                      << "must be -1000..1000, got -1001";
    QTest::newRow("priority fractional") << patch(R"({"priority": 1.5})") << "priority"
                                         << "expected an integer, got 1.5";
    QTest::newRow("preemption unknown")
            << patch(R"({"preemption": "always"})") << "preemption"
            << R"(must be one of never, checkpoint, restart, got "always")";
    QTest::newRow("checkpoint without interval")
            << patch(R"({"preemption": "checkpoint"})") << "checkpointInterval"
            << R"(required when preemption is "checkpoint")";
    QTest::newRow("checkpoint interval zero")
            << patch(R"({"preemption": "checkpoint", "checkpointInterval": 0})")
            << "checkpointInterval"
            << "required when preemption";
    QTest::newRow("checkpoint interval zero text")
            << patch(R"({"preemption": "checkpoint", "checkpointInterval": "0s"})")
            << "checkpointInterval"
            << "required when preemption";
    QTest::newRow("checkpoint interval negative")
            << patch(R"({"preemption": "never", "checkpointInterval": -5})") << "checkpointInterval"
            << "must not be negative, got -5";
    QTest::newRow("checkpoint interval too long")
            << patch(R"({"checkpointInterval": "366d"})") << "checkpointInterval"
            << "must be at most 365d";

    // affinity and isolation
    QTest::newRow("cardModels not an array")
            << patch(R"({"affinity": {"cardModels": "H100"}})") << "affinity.cardModels"
            << "expected an array, got a string";
    QTest::newRow("cardModels element not a string")
            << patch(R"({"affinity": {"cardModels": ["H100", 3]}})") << "affinity.cardModels[1]"
            << "expected a string, got a number";
    QTest::newRow("cardModels empty name")
            << patch(R"({"affinity": {"cardModels": [""]}})") << "affinity.cardModels[0]"
            << "must not be empty";
    QTest::newRow("cardModels repeated")
            << patch(R"({"affinity": {"cardModels": ["H100", "h100"]}})")
            << "affinity.cardModels[1]"
            << "repeats";
    QTest::newRow("sameLinkDomain as text")
            << patch(R"({"affinity": {"sameLinkDomain": "yes"}})") << "affinity.sameLinkDomain"
            << "expected true or false";
    QTest::newRow("host empty") << patch(R"({"affinity": {"host": ""}})") << "affinity.host"
                                << "leave the key out";
    QTest::newRow("isolation unknown") << patch(R"({"isolation": "strict"})") << "isolation"
                                       << R"(must be one of hard, soft, got "strict")";
    QTest::newRow("hard fraction")
            << patch(R"({"isolation": "hard", "demand": {"compute": {"fraction": 0.5}}})")
            << "isolation"
            << "cannot be met by a fraction";

    // inference
    QTest::newRow("inference block missing") << patch(R"({"kind": "inference"})") << "inference"
                                             << R"(required when kind is "inference")";
    QTest::newRow("inference block on batch")
            << patch(R"({"inference": {"service": "s", "sloP99Ms": 100}})") << "inference"
            << R"(only allowed when kind is "inference", but it is "batch")";
    QTest::newRow("service missing") << inferenceWith(R"({"sloP99Ms": 100})") << "inference.service"
                                     << "required";
    QTest::newRow("service empty")
            << inferenceWith(R"({"service": "", "sloP99Ms": 100})") << "inference.service"
            << "must not be empty";
    QTest::newRow("slo missing") << inferenceWith(R"({"service": "s"})") << "inference.sloP99Ms"
                                 << "required";
    QTest::newRow("slo zero") << inferenceWith(R"({"service": "s", "sloP99Ms": 0})")
                              << "inference.sloP99Ms"
                              << "must be greater than 0";
    QTest::newRow("slo as text") << inferenceWith(R"({"service": "s", "sloP99Ms": "250ms"})")
                                 << "inference.sloP99Ms"
                                 << "expected a number, got a string";
    QTest::newRow("request rate negative")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "requestRate": -1})")
            << "inference.requestRate"
            << "must be 0..";
    QTest::newRow("replicas min zero") << inferenceWith(
            R"({"service": "s", "sloP99Ms": 100, "replicas": {"min": 0, "max": 2}})")
                                       << "inference.replicas.min"
                                       << "must be 1..1024, got 0";
    QTest::newRow("replicas max below min") << inferenceWith(
            R"({"service": "s", "sloP99Ms": 100, "replicas": {"min": 4, "max": 2}})")
                                            << "inference.replicas.max"
                                            << "must be at least min (4), got 2";
    QTest::newRow("replicas max too many")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": {"max": 2000}})")
            << "inference.replicas.max"
            << "must be 1..1024, got 2000";
    QTest::newRow("replicas as number")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": 3})")
            << "inference.replicas"
            << "expected an object, got a number";

    // unknown keys at every level
    QTest::newRow("unknown top-level key") << patch(R"({"prority": 5})") << "prority"
                                           << R"(unknown key (did you mean "priority"?))";
    QTest::newRow("unknown key without suggestion") << patch(R"({"owner": "ops"})") << "owner"
                                                    << "unknown key";
    QTest::newRow("unknown demand key") << demandWith(R"("gpus": 2)") << "demand.gpus"
                                        << "unknown key";
    QTest::newRow("unknown demand key, case typo")
            << demandWith(R"("memoryGib": 2)") << "demand.memoryGib"
            << R"(did you mean "memoryGiB"?)";
    QTest::newRow("unknown compute key") << computeWith(R"({"slice": 2})") << "demand.compute.slice"
                                         << R"(did you mean "slices"?)";
    QTest::newRow("unknown time key") << patch(R"({"time": {"duration": 60}})") << "time.duration"
                                      << "unknown key";
    QTest::newRow("unknown affinity key")
            << patch(R"({"affinity": {"hosts": ["a"]}})") << "affinity.hosts"
            << R"(did you mean "host"?)";
    QTest::newRow("unknown inference key")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "sloP95Ms": 50})")
            << "inference.sloP95Ms"
            << "unknown key";
    QTest::newRow("unknown replicas key")
            << inferenceWith(R"({"service": "s", "sloP99Ms": 100, "replicas": {"minimum": 1}})")
            << "inference.replicas.minimum"
            << "unknown key";
    // A misspelt required key is reported as the typo, not as the missing key.
    QTest::newRow("typo before missing") << QByteArray(
            R"({"nmae": "x", "kind": "batch", "demand": {"compute": {"wholeCard": true}}})")
                                         << "nmae"
                                         << R"(did you mean "name"?)";
}

void tst_WorkloadSpecValidate::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, message);
    SpecError error;
    const std::optional<WorkloadSpec> spec = workloadSpecFromJson(json, &error);
    QVERIFY2(!spec, json.constData());
    QCOMPARE(error.field, field);
    QVERIFY2(error.message.contains(message), qPrintable(error.toString()));
    QVERIFY(error.toString().startsWith(field + QStringLiteral(": ")));
}

void tst_WorkloadSpecValidate::validateStruct_data()
{
    QTest::addColumn<int>("mutation");
    QTest::addColumn<QString>("field");

    QTest::newRow("empty name") << 0 << "name";
    QTest::newRow("fraction zero") << 1 << "demand.compute.fraction";
    QTest::newRow("fraction above one") << 2 << "demand.compute.fraction";
    QTest::newRow("slices eight") << 3 << "demand.compute.slices";
    QTest::newRow("bad profile") << 4 << "demand.compute.profile";
    QTest::newRow("negative memory") << 5 << "demand.memoryMiB";
    QTest::newRow("negative duration") << 6 << "time.expectedDuration";
    QTest::newRow("deadline past 9999") << 7 << "time.deadline";
    QTest::newRow("checkpoint without interval") << 8 << "checkpointInterval";
    QTest::newRow("negative checkpoint interval") << 9 << "checkpointInterval";
    QTest::newRow("inference without block") << 10 << "inference";
    QTest::newRow("unknown kind value") << 11 << "kind";
    QTest::newRow("nan slo") << 12 << "inference.sloP99Ms";
    QTest::newRow("fraction ganged") << 13 << "demand.cards";
    QTest::newRow("CPU-only with card memory") << 14 << "demand.memoryMiB";
    QTest::newRow("CPU-only with card models") << 15 << "affinity.cardModels";
    QTest::newRow("negative cards") << 16 << "demand.cards";
}

void tst_WorkloadSpecValidate::validateStruct()
{
    QFETCH(int, mutation);
    QFETCH(QString, field);
    WorkloadSpec s;
    s.name = QStringLiteral("job");
    SpecError error;
    QVERIFY2(validateWorkloadSpec(s, &error), qPrintable(error.toString()));
    switch (mutation) {
    case 0:
        s.name.clear();
        break;
    case 1:
        s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 0};
        break;
    case 2:
        s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 1001};
        break;
    case 3:
        s.demand.compute = {ComputeDemand::Kind::MigSlices, {}, 8, 1000};
        break;
    case 4:
        s.demand.compute = {ComputeDemand::Kind::MigProfile, QStringLiteral("big"), 0, 1000};
        break;
    case 5:
        s.demand.memoryMiB = -1;
        break;
    case 6:
        s.time.expectedDurationMs = -1;
        break;
    case 7:
        s.time.deadlineMs = WorkloadSpecLimits::maxDeadlineMs + 1;
        break;
    case 8:
        s.preemption = PreemptionTolerance::AtCheckpoint;
        break;
    case 9:
        s.preemption = PreemptionTolerance::AtCheckpoint;
        s.checkpointIntervalMs = -1000;
        break;
    case 10:
        s.kind = WorkloadKind::Inference;
        break;
    case 11:
        s.kind = WorkloadKind(42);
        break;
    case 12:
        s.kind = WorkloadKind::Inference;
        s.inference = InferenceSpec{QStringLiteral("s"), std::nan(""), 0, 1, 1};
        break;
    case 13:
        s.demand.compute = {ComputeDemand::Kind::Fraction, {}, 0, 500};
        s.demand.cards = 2;
        break;
    case 14:
        s.demand.cards = 0;
        s.demand.memoryMiB = 1024;
        break;
    case 15:
        s.demand.cards = 0;
        s.affinity.cardModels = {QStringLiteral("A100")};
        break;
    case 16:
        s.demand.cards = -1;
        break;
    }
    QVERIFY(!validateWorkloadSpec(s, &error));
    QCOMPARE(error.field, field);
}

void tst_WorkloadSpecValidate::nullErrorPointerIsAllowed()
{
    QVERIFY(!workloadSpecFromJson(QByteArray("{"), nullptr));
    QVERIFY(!workloadSpecFromJson(patch(R"({"priority": "x"})"), nullptr));
    QVERIFY(workloadSpecFromJson(QByteArray(minimalSpec), nullptr));
    QVERIFY(!validateWorkloadSpec(WorkloadSpec{}, nullptr));
}

QTEST_GUILESS_MAIN(tst_WorkloadSpecValidate)
#include "tst_workloadspec_validate.moc"
