<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
    <context>
        <name>Zhaoxi::Models::JobTableModel</name>
        <message numerus="yes">
            <source>%n MIG slice(s)</source>
            <translation>
                <numerusform>%n MIG slice</numerusform>
                <numerusform>%n MIG slices</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Preempted %n time(s)</source>
            <translation>
                <numerusform>Preempted %n time</numerusform>
                <numerusform>Preempted %n times</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CardMapView</name>
        <message numerus="yes">
            <source>%1 · %n card(s)</source>
            <translation>
                <numerusform>%1 · %n card</numerusform>
                <numerusform>%1 · %n cards</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Fits on %1 if %n job(s) are preempted: %2</source>
            <translation>
                <numerusform>Fits on %1 if %n job are preempted: %2</numerusform>
                <numerusform>Fits on %1 if %n jobs are preempted: %2</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n compute process(es) not started by Zhaoxi</source>
            <translation>
                <numerusform>%n compute process not started by Zhaoxi</numerusform>
                <numerusform>%n compute processes not started by Zhaoxi</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>The card takes no new work, and %n job(s) on it go back to the queue:</source>
            <translation>
                <numerusform>The card takes no new work, and the job on it goes back to the queue:</numerusform>
                <numerusform>The card takes no new work, and the %n jobs on it go back to the queue:</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::EventLogView</name>
        <message numerus="yes">
            <source>Exporting %n event(s)…</source>
            <translation>
                <numerusform>Exporting %n event…</numerusform>
                <numerusform>Exporting %n events…</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Exported %n event(s) to %1</source>
            <translation>
                <numerusform>Exported %n event to %1</numerusform>
                <numerusform>Exported %n events to %1</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%1 of %n event(s) shown</source>
            <translation>
                <numerusform>%1 of %n event shown</numerusform>
                <numerusform>%1 of %n events shown</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>(%n older event(s) are only in the store)</source>
            <translation>
                <numerusform>(%n older event are only in the store)</numerusform>
                <numerusform>(%n older events are only in the store)</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::EventText</name>
        <message numerus="yes">
            <source>Job %1 placed on %n card(s) of %2</source>
            <translation>
                <numerusform>Job %1 placed on %n card of %2</numerusform>
                <numerusform>Job %1 placed on %n cards of %2</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Service %1: %n request(s) re-sent from replica %2</source>
            <translation>
                <numerusform>Service %1: %n request re-sent from replica %2</numerusform>
                <numerusform>Service %1: %n requests re-sent from replica %2</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::JobsView</name>
        <message numerus="yes">
            <source>%n waiting</source>
            <translation>
                <numerusform>%n waiting</numerusform>
                <numerusform>%n waiting</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n job(s)</source>
            <translation>
                <numerusform>%n job</numerusform>
                <numerusform>%n jobs</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::MainWindow</name>
        <message numerus="yes">
            <source>%n host(s)</source>
            <translation>
                <numerusform>%n host</numerusform>
                <numerusform>%n hosts</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n card(s)</source>
            <translation>
                <numerusform>%n card</numerusform>
                <numerusform>%n cards</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n partition(s)</source>
            <translation>
                <numerusform>%n partition</numerusform>
                <numerusform>%n partitions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n card(s) need attention</source>
            <translation>
                <numerusform>%n card needs attention</numerusform>
                <numerusform>%n cards need attention</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::PreemptionDialog</name>
        <message numerus="yes">
            <source>Placing %1 on %2 preempts %n job(s). Each loses the work it has done since its last checkpoint:</source>
            <translation>
                <numerusform>Placing %1 on %2 preempts %n job. Each loses the work it has done since its last checkpoint:</numerusform>
                <numerusform>Placing %1 on %2 preempts %n jobs. Each loses the work it has done since its last checkpoint:</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::WhyView</name>
        <message numerus="yes">
            <source>Slurm requeued it %n time(s).</source>
            <translation>
                <numerusform>Slurm requeued it %n time.</numerusform>
                <numerusform>Slurm requeued it %n times.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n whole card(s)</source>
            <translation>
                <numerusform>%n whole card</numerusform>
                <numerusform>%n whole cards</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n MIG partition(s) %1</source>
            <translation>
                <numerusform>%n MIG partition %1</numerusform>
                <numerusform>%n MIG partitions %1</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n MIG partition(s) of at least %1 slices</source>
            <translation>
                <numerusform>%n MIG partition of at least %1 slices</numerusform>
                <numerusform>%n MIG partitions of at least %1 slices</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n share(s) of %1% of a card</source>
            <translation>
                <numerusform>%n share of %1% of a card</numerusform>
                <numerusform>%n shares of %1% of a card</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n host(s) looked at</source>
            <translation>
                <numerusform>%n host looked at</numerusform>
                <numerusform>%n hosts looked at</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n could take it.</source>
            <translation>
                <numerusform>%n could take it.</numerusform>
                <numerusform>%n could take it.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>(%n card(s) rejected)</source>
            <translation>
                <numerusform>(%n card rejected)</numerusform>
                <numerusform>(%n cards rejected)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>(and %n more host(s) for the same reason)</source>
            <translation>
                <numerusform>(and %n more host for the same reason)</numerusform>
                <numerusform>(and %n more hosts for the same reason)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Why here: at %1, %2 of %n host(s) could take it; the best:</source>
            <translation>
                <numerusform>Why here: at %1, %2 of %n host could take it; the best:</numerusform>
                <numerusform>Why here: at %1, %2 of %n hosts could take it; the best:</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n MIG partition(s) of at least one slice</source>
            <translation>
                <numerusform>%n MIG partition of at least one slice</numerusform>
                <numerusform>%n MIG partitions of at least one slice</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CardTile</name>
        <message numerus="yes">
            <source>%n Xid error(s)</source>
            <translation>
                <numerusform>%n Xid error</numerusform>
                <numerusform>%n Xid errors</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n uncorrectable ECC error(s)</source>
            <translation>
                <numerusform>%n uncorrectable ECC error</numerusform>
                <numerusform>%n uncorrectable ECC errors</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::OverviewView</name>
        <message numerus="yes">
            <source>%n more running</source>
            <translation>
                <numerusform>%n more running</numerusform>
                <numerusform>%n more running</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n job(s) waiting</source>
            <translation>
                <numerusform>%n job waiting</numerusform>
                <numerusform>%n jobs waiting</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ScheduleConfirmDialog</name>
        <message numerus="yes">
            <source>Slurm reservation %1 is created: %2 (%n card(s)) for %3 from %4 for %5 h:mm (%6).</source>
            <translation>
                <numerusform>Slurm reservation %1 is created: %2 (%n card) for %3 from %4 for %5 h:mm (%6).</numerusform>
                <numerusform>Slurm reservation %1 is created: %2 (%n cards) for %3 from %4 for %5 h:mm (%6).</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Slurm reservation %1 changes: %2 (%n card(s)) for %3 from %4 for %5 h:mm (%6).</source>
            <translation>
                <numerusform>Slurm reservation %1 changes: %2 (%n card) for %3 from %4 for %5 h:mm (%6).</numerusform>
                <numerusform>Slurm reservation %1 changes: %2 (%n cards) for %3 from %4 for %5 h:mm (%6).</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n training job(s) stop.</source>
            <translation>
                <numerusform>%n training job stops.</numerusform>
                <numerusform>%n training jobs stop.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n of them at once, losing %1 of work in all (h:mm).</source>
            <translation>
                <numerusform>%n of them at once, losing %1 of work in all (h:mm).</numerusform>
                <numerusform>%n of them at once, losing %1 of work in all (h:mm).</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n replica(s) move to another card.</source>
            <translation>
                <numerusform>%n replica moves to another card.</numerusform>
                <numerusform>%n replicas move to another card.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CommandText</name>
        <message numerus="yes">
            <source>The card serves %n job(s).</source>
            <translation>
                <numerusform>The card serves %n job.</numerusform>
                <numerusform>The card serves %n jobs.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::AdvicePanel</name>
        <message numerus="yes">
            <source>%n suggestion(s), best first.</source>
            <translation>
                <numerusform>%n suggestion, best first.</numerusform>
                <numerusform>%n suggestions, best first.</numerusform>
            </translation>
        </message>
    </context>
</TS>
