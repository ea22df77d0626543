<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>Zhaoxi::Models::CardTableModel</name>
        <message>
            <source>Whole card</source>
            <translation>整卡</translation>
        </message>
        <message>
            <source>MIG</source>
            <translation>MIG</translation>
        </message>
        <message>
            <source>Time-slicing</source>
            <translation>时间片</translation>
        </message>
        <message>
            <source>MPS</source>
            <translation>MPS</translation>
        </message>
        <message>
            <source>Host down</source>
            <translation>主机离线</translation>
        </message>
        <message>
            <source>Healthy</source>
            <translation>正常</translation>
        </message>
        <message>
            <source>Throttled</source>
            <translation>降频</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>故障</translation>
        </message>
        <message>
            <source>Ready</source>
            <translation>就绪</translation>
        </message>
        <message>
            <source>Creating</source>
            <translation>创建中</translation>
        </message>
        <message>
            <source>Destroying</source>
            <translation>销毁中</translation>
        </message>
        <message>
            <source>%1%</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>%1 GiB</source>
            <translation>%1 GiB</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>空闲</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>no partitions</source>
            <translation>无分区</translation>
        </message>
        <message>
            <source>no clients</source>
            <translation>无客户端</translation>
        </message>
        <message>
            <source>GPU %1</source>
            <translation>GPU %1</translation>
        </message>
        <message>
            <source>%1 of the compute and %2 of %3 memory bound to jobs</source>
            <translation>已分配给作业：算力 %1，显存 %2 / %3</translation>
        </message>
        <message>
            <source>Cards with the same link domain share a fast link (NVLink)</source>
            <translation>链路域相同的卡之间有高速互连（NVLink）</translation>
        </message>
        <message>
            <source>Host</source>
            <translation>主机</translation>
        </message>
        <message>
            <source>Card</source>
            <translation>卡</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>型号</translation>
        </message>
        <message>
            <source>Mode</source>
            <translation>分区模式</translation>
        </message>
        <message>
            <source>Layout</source>
            <translation>布局</translation>
        </message>
        <message>
            <source>Allocated</source>
            <translation>已分配</translation>
        </message>
        <message>
            <source>Health</source>
            <translation>健康</translation>
        </message>
        <message>
            <source>Link domain</source>
            <translation>链路域</translation>
        </message>
        <message>
            <source>n/a</source>
            <translation>不可用</translation>
        </message>
        <message>
            <source>%1 °C</source>
            <translation>%1 °C</translation>
        </message>
        <message>
            <source>%1 W</source>
            <translation>%1 W</translation>
        </message>
        <message>
            <source>Utilisation</source>
            <translation>利用率</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Power</source>
            <translation>功率</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Models::EventLogModel</name>
        <message>
            <source>Info</source>
            <translation>信息</translation>
        </message>
        <message>
            <source>Warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Critical</source>
            <translation>严重</translation>
        </message>
        <message>
            <source>Scheduler</source>
            <translation>调度器</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>策略</translation>
        </message>
        <message>
            <source>Device</source>
            <translation>设备</translation>
        </message>
        <message>
            <source>Operator</source>
            <translation>操作员</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>%1 card %2</source>
            <translation>%1 卡 %2</translation>
        </message>
        <message>
            <source>card %1</source>
            <translation>卡 %1</translation>
        </message>
        <message>
            <source>Time</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>Severity</source>
            <translation>级别</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Code</source>
            <translation>代码</translation>
        </message>
        <message>
            <source>Card</source>
            <translation>卡</translation>
        </message>
        <message>
            <source>Job</source>
            <translation>作业</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Models::JobTableModel</name>
        <message>
            <source>Training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>Inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Batch</source>
            <translation>批处理</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>等待中</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>Draining</source>
            <translation>正在撤离</translation>
        </message>
        <message>
            <source>Finished</source>
            <translation>已完成</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>已取消</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>%1 MiB</source>
            <translation>%1 MiB</translation>
        </message>
        <message>
            <source>%1 GiB</source>
            <translation>%1 GiB</translation>
        </message>
        <message>
            <source>CPU only</source>
            <translation>仅 CPU</translation>
        </message>
        <message>
            <source>whole card</source>
            <translation>整卡</translation>
        </message>
        <message numerus="yes">
            <source>%n MIG slice(s)</source>
            <translation>
                <numerusform>%n 个 MIG 切片</numerusform>
            </translation>
        </message>
        <message>
            <source>%1% of a card</source>
            <translation>一张卡的 %1%</translation>
        </message>
        <message>
            <source>%1 × %2</source>
            <translation>%1 × %2</translation>
        </message>
        <message>
            <source>%1: GPU %2</source>
            <translation>%1：GPU %2</translation>
        </message>
        <message>
            <source>%1%</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>Waiting, number %1 in the queue</source>
            <translation>等待中，队列第 %1 位</translation>
        </message>
        <message numerus="yes">
            <source>Preempted %n time(s)</source>
            <translation>
                <numerusform>已被抢占 %n 次</numerusform>
            </translation>
        </message>
        <message>
            <source>Drag onto a card of the map to place it there</source>
            <translation>拖到卡片图中的某张卡上即可放置到该卡</translation>
        </message>
        <message>
            <source>Job</source>
            <translation>作业</translation>
        </message>
        <message>
            <source>Kind</source>
            <translation>类型</translation>
        </message>
        <message>
            <source>State</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Priority</source>
            <translation>优先级</translation>
        </message>
        <message>
            <source>Demand</source>
            <translation>需求</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>显存</translation>
        </message>
        <message>
            <source>Host / cards</source>
            <translation>主机 / 卡</translation>
        </message>
        <message>
            <source>Submitted</source>
            <translation>提交时间</translation>
        </message>
        <message>
            <source>Progress</source>
            <translation>进度</translation>
        </message>
        <message>
            <source>%1, over budget</source>
            <translation>%1，超出预算</translation>
        </message>
        <message>
            <source>Placed by an operator over its class budget: the policies do not move it to bring the class back within its budget</source>
            <translation>由管理员超出类别预算放置：策略不会为使该类别回到预算内而移动它</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Models::ScheduleModel</name>
        <message>
            <source>The policy refuses it: %1</source>
            <translation>策略拒绝了它：%1</translation>
        </message>
        <message>
            <source>There is no window %1.</source>
            <translation>没有第 %1 个时间窗。</translation>
        </message>
        <message>
            <source>The schedule needs at least one window.</source>
            <translation>日程至少需要一个时间窗。</translation>
        </message>
        <message>
            <source>Window %1 needs a name.</source>
            <translation>第 %1 个时间窗需要一个名称。</translation>
        </message>
        <message>
            <source>‘%1’ opens on no day: choose at least one.</source>
            <translation>“%1”没有选择任何一天：请至少选择一天。</translation>
        </message>
        <message>
            <source>‘%1’: times run from 00:00 to 24:00.</source>
            <translation>“%1”：时间须在 00:00 到 24:00 之间。</translation>
        </message>
        <message>
            <source>‘%1’: shares run from 0 to 100 %.</source>
            <translation>“%1”：份额须在 0 到 100% 之间。</translation>
        </message>
        <message>
            <source>‘%1’ covers no time.</source>
            <translation>“%1”不覆盖任何时间。</translation>
        </message>
        <message>
            <source>Two windows are named ‘%1’.</source>
            <translation>有两个时间窗都叫“%1”。</translation>
        </message>
        <message>
            <source>‘%1’ (%2) overlaps ‘%3’ (%4)</source>
            <translation>“%1”（%2）与“%3”（%4）重叠</translation>
        </message>
        <message>
            <source>The mode must be drain or immediate.</source>
            <translation>模式必须是 drain（排空）或 immediate（立即）。</translation>
        </message>
        <message>
            <source>Mon</source>
            <translation>周一</translation>
        </message>
        <message>
            <source>Tue</source>
            <translation>周二</translation>
        </message>
        <message>
            <source>Wed</source>
            <translation>周三</translation>
        </message>
        <message>
            <source>Thu</source>
            <translation>周四</translation>
        </message>
        <message>
            <source>Fri</source>
            <translation>周五</translation>
        </message>
        <message>
            <source>Sat</source>
            <translation>周六</translation>
        </message>
        <message>
            <source>Sun</source>
            <translation>周日</translation>
        </message>
        <message>
            <source>every day</source>
            <translation>每天</translation>
        </message>
        <message>
            <source>no day</source>
            <translation>无</translation>
        </message>
        <message>
            <source>%1–%2</source>
            <translation>%1至%2</translation>
        </message>
        <message>
            <source>, </source>
            <translation>、</translation>
        </message>
        <message>
            <source>%1 all day</source>
            <translation>%1 全天</translation>
        </message>
        <message>
            <source>%1 %2–%3</source>
            <translation>%1 %2–%3</translation>
        </message>
        <message>
            <source>%1 %</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>default</source>
            <translation>默认</translation>
        </message>
        <message>
            <source>no cap</source>
            <translation>不限</translation>
        </message>
        <message>
            <source>%1 W</source>
            <translation>%1 W</translation>
        </message>
        <message>
            <source>%1: %2, %3</source>
            <translation>%1：%2，%3</translation>
        </message>
        <message>
            <source>Window</source>
            <translation>时间窗</translation>
        </message>
        <message>
            <source>Days</source>
            <translation>日期</translation>
        </message>
        <message>
            <source>From</source>
            <translation>开始</translation>
        </message>
        <message>
            <source>To</source>
            <translation>结束</translation>
        </message>
        <message>
            <source>Inference share</source>
            <translation>推理份额</translation>
        </message>
        <message>
            <source>Training bandwidth</source>
            <translation>训练带宽</translation>
        </message>
        <message>
            <source>Training power cap</source>
            <translation>训练功率上限</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CardDetailsView</name>
        <message>
            <source>%1 · %2</source>
            <translation>%1 · %2</translation>
        </message>
        <message>
            <source>not started by Zhaoxi</source>
            <translation>非朝夕启动</translation>
        </message>
        <message>
            <source>%1 (pid %2)</source>
            <translation>%1（pid %2）</translation>
        </message>
        <message>
            <source>process %1</source>
            <translation>进程 %1</translation>
        </message>
        <message>
            <source>In use</source>
            <translation>已用显存</translation>
        </message>
        <message>
            <source>Busy</source>
            <translation>繁忙度</translation>
        </message>
        <message>
            <source>Partition</source>
            <translation>分区</translation>
        </message>
        <message>
            <source>Compute</source>
            <translation>算力</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>显存</translation>
        </message>
        <message>
            <source>Job</source>
            <translation>作业</translation>
        </message>
        <message>
            <source>State</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>No card selected</source>
            <translation>未选择卡</translation>
        </message>
        <message>
            <source>Select a card to see its partitions.</source>
            <translation>选择一张卡以查看其分区。</translation>
        </message>
        <message>
            <source>%1 · GPU %2</source>
            <translation>%1 · GPU %2</translation>
        </message>
        <message>
            <source>%1, %2 memory · %3 · link domain %4 · %5 · %6 allocated</source>
            <translation>%1，显存 %2 · %3 · 链路域 %4 · %5 · 已分配 %6</translation>
        </message>
        <message>
            <source>%1 at slot %2</source>
            <translation>%1（起始槽位 %2）</translation>
        </message>
        <message>
            <source>%1 of %2 slices</source>
            <translation>%1/%2 个切片</translation>
        </message>
        <message>
            <source>Whole card</source>
            <translation>整卡</translation>
        </message>
        <message>
            <source>Share %1</source>
            <translation>共享份额 %1</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>No MIG instances</source>
            <translation>无 MIG 实例</translation>
        </message>
        <message>
            <source>No clients</source>
            <translation>无客户端</translation>
        </message>
        <message>
            <source>No readings from this card now.</source>
            <translation>此卡当前没有读数。</translation>
        </message>
        <message>
            <source>Working</source>
            <translation>工作中</translation>
        </message>
        <message>
            <source>Allocated, idle</source>
            <translation>已分配，空闲</translation>
        </message>
        <message>
            <source>not reported by the driver</source>
            <translation>驱动未报告</translation>
        </message>
        <message>
            <source>%1 %</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>not reported</source>
            <translation>未报告</translation>
        </message>
        <message>
            <source>%1 (training %2, inference %3, other processes %4)</source>
            <translation>%1（训练 %2，推理 %3，其他进程 %4）</translation>
        </message>
        <message>
            <source>Utilisation %1 · memory in use %2</source>
            <translation>利用率 %1 · 已用显存 %2</translation>
        </message>
        <message>
            <source>Clock not reported</source>
            <translation>未报告时钟</translation>
        </message>
        <message>
            <source>Clock at %1 % of full</source>
            <translation>时钟为满速的 %1%</translation>
        </message>
        <message>
            <source>%1, throttled</source>
            <translation>%1，已降频</translation>
        </message>
        <message>
            <source>%1, throttled: %2</source>
            <translation>%1，已降频：%2</translation>
        </message>
        <message>
            <source>, </source>
            <translation>、</translation>
        </message>
        <message>
            <source>%1, not throttled</source>
            <translation>%1，未降频</translation>
        </message>
        <message>
            <source>Temperature %1 °C (slows down at %2 °C, shuts down at %3 °C)</source>
            <translation>温度 %1 °C（%2 °C 起降频，%3 °C 关机）</translation>
        </message>
        <message>
            <source>Temperature %1 °C (slows down at %2 °C)</source>
            <translation>温度 %1 °C（%2 °C 起降频）</translation>
        </message>
        <message>
            <source>Temperature %1 °C</source>
            <translation>温度 %1 °C</translation>
        </message>
        <message>
            <source>Power %1 W of its %2 W limit</source>
            <translation>功率 %1 W（上限 %2 W）</translation>
        </message>
        <message>
            <source>Power %1 W</source>
            <translation>功率 %1 W</translation>
        </message>
        <message>
            <source>Since the session began: Xid errors %1 · uncorrectable ECC errors %2</source>
            <translation>本次会话以来：Xid 错误 %1 · 不可纠正 ECC 错误 %2</translation>
        </message>
        <message>
            <source>Processes Zhaoxi did not start: %1</source>
            <translation>非朝夕启动的进程：%1</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CardMapView</name>
        <message>
            <source>Memory: %1; its use is not reported</source>
            <translation>显存：%1；用量未上报</translation>
        </message>
        <message numerus="yes">
            <source>%1 · %n card(s)</source>
            <translation>
                <numerusform>%1 · %n 张卡</numerusform>
            </translation>
        </message>
        <message>
            <source>host down</source>
            <translation>主机停机</translation>
        </message>
        <message>
            <source>allocated, idle</source>
            <translation>已分配、空闲</translation>
        </message>
        <message>
            <source>reconf</source>
            <translation>重配中</translation>
        </message>
        <message>
            <source>draining</source>
            <translation>撤离中</translation>
        </message>
        <message>
            <source>NVLink %1</source>
            <translation>NVLink %1</translation>
        </message>
        <message>
            <source>Zoom &amp;In</source>
            <translation>放大(&amp;I)</translation>
        </message>
        <message>
            <source>Larger card tiles</source>
            <translation>更大的卡片</translation>
        </message>
        <message>
            <source>Zoom &amp;Out</source>
            <translation>缩小(&amp;O)</translation>
        </message>
        <message>
            <source>Smaller card tiles</source>
            <translation>更小的卡片</translation>
        </message>
        <message>
            <source>&amp;Fit All Cards</source>
            <translation>显示全部卡(&amp;F)</translation>
        </message>
        <message>
            <source>Size the tiles so that every card shows</source>
            <translation>调整卡片大小以显示所有卡</translation>
        </message>
        <message>
            <source>card %1</source>
            <translation>卡 %1</translation>
        </message>
        <message>
            <source>%1 GPU %2</source>
            <translation>%1 GPU %2</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>%1 · %2 · %3</source>
            <translation>%1 · %2 · %3</translation>
        </message>
        <message>
            <source>Partition %1 at slot %2: %3 of %4 compute slices, %5</source>
            <translation>分区 %1，位于槽位 %2：%4 个计算切片中的 %3 个，%5</translation>
        </message>
        <message>
            <source>Whole card: %1</source>
            <translation>整卡：%1</translation>
        </message>
        <message>
            <source>Share: %1% of the card, %2</source>
            <translation>份额：该卡的 %1%，%2</translation>
        </message>
        <message>
            <source>draining: preempted, leaving soon</source>
            <translation>撤离中：已被抢占，即将离开</translation>
        </message>
        <message>
            <source>busy</source>
            <translation>繁忙</translation>
        </message>
        <message>
            <source>allocated but idle</source>
            <translation>已分配但空闲</translation>
        </message>
        <message>
            <source>Job: %1 (%2), %3</source>
            <translation>作业：%1（%2），%3</translation>
        </message>
        <message>
            <source>Job: none (free)</source>
            <translation>作业：无（空闲）</translation>
        </message>
        <message>
            <source>State: ready</source>
            <translation>状态：就绪</translation>
        </message>
        <message>
            <source>State: being created (reconfiguring)</source>
            <translation>状态：正在创建（重配中）</translation>
        </message>
        <message>
            <source>State: being destroyed (reconfiguring)</source>
            <translation>状态：正在销毁（重配中）</translation>
        </message>
        <message>
            <source>Utilisation: not available</source>
            <translation>利用率：不可用</translation>
        </message>
        <message>
            <source>Utilisation: %1%</source>
            <translation>利用率：%1%</translation>
        </message>
        <message>
            <source>Power: %1 W (%2% of its limit)</source>
            <translation>功率：%1 W（功率上限的 %2%）</translation>
        </message>
        <message>
            <source>Power: %1 W</source>
            <translation>功率：%1 W</translation>
        </message>
        <message>
            <source>Memory: %1 of %2 in use</source>
            <translation>显存：已用 %1 / 共 %2</translation>
        </message>
        <message>
            <source>Training %1%, inference %2% (the processes&apos; own samples)</source>
            <translation>训练 %1%，推理 %2%（按各进程自身的采样）</translation>
        </message>
        <message>
            <source>Training %1%, inference %2% (by the units they hold)</source>
            <translation>训练 %1%，推理 %2%（按所占单元的份额）</translation>
        </message>
        <message>
            <source>Memory by use: training %1, inference %2, other %3</source>
            <translation>显存用途：训练 %1，推理 %2，其他 %3</translation>
        </message>
        <message numerus="yes">
            <source>%n compute process(es) not started by Zhaoxi</source>
            <translation>
                <numerusform>%n 个计算进程不是朝夕启动的</numerusform>
            </translation>
        </message>
        <message>
            <source>State: %1</source>
            <translation>状态：%1</translation>
        </message>
        <message>
            <source>%1 cannot go on %2: %3</source>
            <translation>%1 不能放到 %2：%3</translation>
        </message>
        <message>
            <source>%1 is no longer waiting.</source>
            <translation>%1 已不在等待。</translation>
        </message>
        <message>
            <source>Checking whether %1 can run on %2…</source>
            <translation>正在检查 %1 能否在 %2 上运行…</translation>
        </message>
        <message>
            <source>%1 fits on %2.</source>
            <translation>%1 可以放到 %2。</translation>
        </message>
        <message numerus="yes">
            <source>Fits on %1 if %n job(s) are preempted: %2</source>
            <translation>
                <numerusform>抢占 %n 个作业后可放到 %1：%2</numerusform>
            </translation>
        </message>
        <message>
            <source>%1 was not placed: preemption declined.</source>
            <translation>未放置 %1：已拒绝抢占。</translation>
        </message>
        <message>
            <source>Place %1 on %2</source>
            <translation>将 %1 放到 %2</translation>
        </message>
        <message>
            <source>%1 goes on %2 once the preempted jobs have left.</source>
            <translation>被抢占的作业离开后，%1 将放到 %2。</translation>
        </message>
        <message>
            <source>Placed %1 on %2.</source>
            <translation>已将 %1 放到 %2。</translation>
        </message>
        <message>
            <source>Could not place %1 on %2: %3</source>
            <translation>无法将 %1 放到 %2：%3</translation>
        </message>
        <message>
            <source>%1 went back to the queue.</source>
            <translation>%1 已回到队列。</translation>
        </message>
        <message>
            <source>Could not take %1 back to the queue: it is not running.</source>
            <translation>无法将 %1 放回队列：它没有在运行。</translation>
        </message>
        <message>
            <source>Temperature: %1 °C</source>
            <translation>温度：%1 °C</translation>
        </message>
        <message>
            <source>&amp;Repartition…</source>
            <translation>重新分区(&amp;R)…</translation>
        </message>
        <message>
            <source>&amp;Pin layout</source>
            <translation>固定布局(&amp;P)</translation>
        </message>
        <message>
            <source>Until unpinned, the scheduler neither creates nor destroys instances on this card nor switches its mode</source>
            <translation>取消固定之前，调度器不会在此卡上创建或销毁实例，也不会切换其模式</translation>
        </message>
        <message>
            <source>&amp;Unpin layout</source>
            <translation>取消固定布局(&amp;U)</translation>
        </message>
        <message>
            <source>Layout pinned until unpinned: the scheduler does not change it</source>
            <translation>布局已固定，直到取消固定：调度器不会更改它</translation>
        </message>
        <message>
            <source>Layout pinned until %1: the scheduler does not change it before then</source>
            <translation>布局已固定至 %1：在此之前调度器不会更改它</translation>
        </message>
        <message>
            <source>Needs attention: %1</source>
            <translation>需要关注：%1</translation>
        </message>
        <message>
            <source>; </source>
            <translation>；</translation>
        </message>
        <message>
            <source>Slows down at %1 °C, shuts down at %2 °C</source>
            <translation>%1 °C 时降频，%2 °C 时关机</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed placing %1 on %2: asking again.</source>
            <translation>确认将 %1 放到 %2 之后，一体机已发生变化：正在重新询问。</translation>
        </message>
        <message>
            <source>Cordoned: takes no new work until uncordoned</source>
            <translation>已封锁：解除封锁前不接受新工作</translation>
        </message>
        <message>
            <source>&amp;Cordon</source>
            <translation>封锁(&amp;C)</translation>
        </message>
        <message>
            <source>The card takes no new work; what runs on it stays</source>
            <translation>此卡不再接受新工作；正在运行的工作保留</translation>
        </message>
        <message>
            <source>Un&amp;cordon</source>
            <translation>解除封锁(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Drain…</source>
            <translation>排空(&amp;D)…</translation>
        </message>
        <message>
            <source>Cordon the card and send what runs on it back to the queue</source>
            <translation>封锁此卡，并将其上运行的工作送回队列</translation>
        </message>
        <message>
            <source>Drain %1?</source>
            <translation>排空 %1？</translation>
        </message>
        <message numerus="yes">
            <source>The card takes no new work, and %n job(s) on it go back to the queue:</source>
            <translation>
                <numerusform>此卡将不再接受新工作，其上 %n 个作业将回到队列：</numerusform>
            </translation>
        </message>
        <message>
            <source>Drain</source>
            <translation>排空</translation>
        </message>
        <message>
            <source>%1: leaves at its next checkpoint, losing nothing</source>
            <translation>%1：在下一个检查点退出，不损失工作</translation>
        </message>
        <message>
            <source>%1: leaves at once and starts again elsewhere</source>
            <translation>%1：立即退出，并在别处重新启动</translation>
        </message>
        <message>
            <source>It fits at %1, when ‘%2’ opens.</source>
            <translation>%1 时间窗“%2”开启时即可放下。</translation>
        </message>
        <message>
            <source>It could start at about %1, as running work ends.</source>
            <translation>约 %1 正在运行的工作结束后即可开始。</translation>
        </message>
        <message>
            <source>Drop to place it anyway, over the budget (you are asked first).</source>
            <translation>松开即可超出预算仍然放置（会先询问您）。</translation>
        </message>
        <message>
            <source>%1 was not placed: over its class budget.</source>
            <translation>%1 未放置：超出其类别预算。</translation>
        </message>
        <message>
            <source>Placed %1 on %2, over its class budget.</source>
            <translation>已将 %1 放到 %2，超出其类别预算。</translation>
        </message>
        <message>
            <source>Placed by an operator over its class budget</source>
            <translation>由管理员超出类别预算放置</translation>
        </message>
        <message>
            <source>Drop to open that layout in the repartition editor.</source>
            <translation>松开即可在重新分区编辑器中打开该布局。</translation>
        </message>
        <message>
            <source>It fits here as %1.</source>
            <translation>改为 %1 布局后可放在这里。</translation>
        </message>
        <message>
            <source>It fits on %1 as %2.</source>
            <translation>将 %1 改为 %2 布局后可放置。</translation>
        </message>
        <message>
            <source>Open this layout?</source>
            <translation>打开此布局？</translation>
        </message>
        <message>
            <source>%1 cannot go on %2 as it is laid out: %3</source>
            <translation>按 %2 当前的布局，%1 无法放置：%3</translation>
        </message>
        <message>
            <source>The repartition editor opens with that layout planned; nothing changes until you apply it there.</source>
            <translation>重新分区编辑器将打开并规划好该布局；在那里应用之前不会有任何变化。</translation>
        </message>
        <message>
            <source>Open this layout</source>
            <translation>打开此布局</translation>
        </message>
        <message>
            <source>%1 was not placed: %2</source>
            <translation>%1 未放置：%2</translation>
        </message>
        <message>
            <source>NVLink %1 (%2/%3)</source>
            <translation>NVLink %1（%2/%3）</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CardTile</name>
        <message>
            <source>?/%1 GiB</source>
            <translation>?/%1 GiB</translation>
        </message>
        <message>
            <source>%1%</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>free</source>
            <translation>空闲</translation>
        </message>
        <message>
            <source>inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>batch</source>
            <translation>批处理</translation>
        </message>
        <message>
            <source>whole</source>
            <translation>整卡</translation>
        </message>
        <message>
            <source>MIG</source>
            <translation>MIG</translation>
        </message>
        <message>
            <source>time-sliced</source>
            <translation>时间片</translation>
        </message>
        <message>
            <source>MPS</source>
            <translation>MPS</translation>
        </message>
        <message>
            <source>host down</source>
            <translation>主机停机</translation>
        </message>
        <message>
            <source>lost</source>
            <translation>丢失</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>故障</translation>
        </message>
        <message>
            <source>reconf</source>
            <translation>重配中</translation>
        </message>
        <message>
            <source>throttled</source>
            <translation>降频</translation>
        </message>
        <message>
            <source>%1 W</source>
            <translation>%1 W</translation>
        </message>
        <message>
            <source>GPU %1</source>
            <translation>GPU %1</translation>
        </message>
        <message>
            <source>no partitions</source>
            <translation>无分区</translation>
        </message>
        <message>
            <source>no clients</source>
            <translation>无客户端</translation>
        </message>
        <message>
            <source>draining</source>
            <translation>撤离中</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>空闲占用</translation>
        </message>
        <message>
            <source>util n/a</source>
            <translation>利用率 不可用</translation>
        </message>
        <message>
            <source>util %1</source>
            <translation>利用率 %1</translation>
        </message>
        <message>
            <source>%1/%2 GiB</source>
            <translation>%1/%2 GiB</translation>
        </message>
        <message>
            <source>%1 °C</source>
            <translation>%1 °C</translation>
        </message>
        <message>
            <source>pinned</source>
            <translation>已固定</translation>
        </message>
        <message>
            <source>thermal slowdown</source>
            <translation>过热降频</translation>
        </message>
        <message>
            <source>hardware slowdown</source>
            <translation>硬件降频</translation>
        </message>
        <message>
            <source>power cap</source>
            <translation>功率封顶</translation>
        </message>
        <message>
            <source>power brake</source>
            <translation>功率制动</translation>
        </message>
        <message numerus="yes">
            <source>%n Xid error(s)</source>
            <translation>
                <numerusform>%n 个 Xid 错误</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n uncorrectable ECC error(s)</source>
            <translation>
                <numerusform>%n 个不可纠正 ECC 错误</numerusform>
            </translation>
        </message>
        <message>
            <source>%1 °C, at its slowdown temperature (%2 °C)</source>
            <translation>%1 °C，已达降频温度（%2 °C）</translation>
        </message>
        <message>
            <source>throttled: %1</source>
            <translation>降频：%1</translation>
        </message>
        <message>
            <source>, </source>
            <translation>、</translation>
        </message>
        <message>
            <source>cordoned</source>
            <translation>已封锁</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ChartStyle</name>
        <message>
            <source>%1 p50</source>
            <translation>%1 p50</translation>
        </message>
        <message>
            <source>%1 p99</source>
            <translation>%1 p99</translation>
        </message>
        <message>
            <source>%1 requests</source>
            <translation>%1 请求</translation>
        </message>
        <message>
            <source>%1 SLO</source>
            <translation>%1 SLO</translation>
        </message>
        <message>
            <source>Job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>Job %1 loss</source>
            <translation>作业 %1 损失</translation>
        </message>
        <message>
            <source>%1 loss</source>
            <translation>%1 损失</translation>
        </message>
        <message>
            <source>Utilisation (mean)</source>
            <translation>利用率（平均）</translation>
        </message>
        <message>
            <source>Utilisation</source>
            <translation>利用率</translation>
        </message>
        <message>
            <source>Training (mean)</source>
            <translation>训练（平均）</translation>
        </message>
        <message>
            <source>Training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>Inference (mean)</source>
            <translation>推理（平均）</translation>
        </message>
        <message>
            <source>Inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Memory (all cards)</source>
            <translation>显存（全部卡）</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>显存</translation>
        </message>
        <message>
            <source>Temperature (hottest card)</source>
            <translation>温度（最热的卡）</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Power (all cards)</source>
            <translation>功耗（全部卡）</translation>
        </message>
        <message>
            <source>Power</source>
            <translation>功耗</translation>
        </message>
        <message>
            <source>n/a</source>
            <translation>不可用</translation>
        </message>
        <message>
            <source>%1 ms</source>
            <translation>%1 毫秒</translation>
        </message>
        <message>
            <source>%1 req/s</source>
            <translation>%1 请求/秒</translation>
        </message>
        <message>
            <source>%1 cards</source>
            <translation>%1 卡</translation>
        </message>
        <message>
            <source>%1 %</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>%1 MiB</source>
            <translation>%1 MiB</translation>
        </message>
        <message>
            <source>%1 °C</source>
            <translation>%1 °C</translation>
        </message>
        <message>
            <source>%1 W</source>
            <translation>%1 瓦</translation>
        </message>
        <message>
            <source>%1 %2</source>
            <translation>%1 %2</translation>
        </message>
        <message>
            <source>%1 — no data</source>
            <translation>%1 — 无数据</translation>
        </message>
        <message>
            <source>%1 — last %2 · mean %3 · max %4</source>
            <translation>%1 — 最新 %2 · 平均 %3 · 最大 %4</translation>
        </message>
        <message>
            <source>Window: %1</source>
            <translation>时间窗：%1</translation>
        </message>
        <message>
            <source>Window %1</source>
            <translation>时间窗 %1</translation>
        </message>
        <message>
            <source>Repartition · card %1</source>
            <translation>重新分区 · 卡 %1</translation>
        </message>
        <message>
            <source>Repartition</source>
            <translation>重新分区</translation>
        </message>
        <message>
            <source>Preemption · job %1</source>
            <translation>抢占 · 作业 %1</translation>
        </message>
        <message>
            <source>Preemption</source>
            <translation>抢占</translation>
        </message>
        <message>
            <source>Fault · card %1</source>
            <translation>故障 · 卡 %1</translation>
        </message>
        <message>
            <source>Fault</source>
            <translation>故障</translation>
        </message>
        <message>
            <source>%1: last %2 · max %3</source>
            <translation>%1：最新 %2 · 最大 %3</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CommandLine</name>
        <message>
            <source>The command line ends with a lone backslash; write \\ for a backslash.</source>
            <translation>命令行以单个反斜杠结尾；反斜杠本身请写作 \\。</translation>
        </message>
        <message>
            <source>The quote ' at character %1 is not closed.</source>
            <translation>第 %1 个字符处的引号 ' 没有闭合。</translation>
        </message>
        <message>
            <source>The quote " at character %1 is not closed.</source>
            <translation>第 %1 个字符处的引号 " 没有闭合。</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CommandText</name>
        <message>
            <source>Slurm&apos;s MIG layouts are static: repartition the node with zhaoxictl fleet repartition.</source>
            <translation>Slurm 的 MIG 布局是静态的：请用 zhaoxictl fleet repartition 对节点重新分区。</translation>
        </message>
        <message>
            <source>Slurm refused: %1</source>
            <translation>Slurm 拒绝：%1</translation>
        </message>
        <message>
            <source>Job %1 is not one of Slurm&apos;s jobs.</source>
            <translation>作业 %1 不是 Slurm 的作业。</translation>
        </message>
        <message>
            <source>Slurm starts a waiting job itself: Zhaoxi names the node when it submits one.</source>
            <translation>等待中的作业由 Slurm 自行启动：朝夕在提交作业时指定节点。</translation>
        </message>
        <message>
            <source>Slurm writes the job&apos;s output on its node: %1</source>
            <translation>Slurm 把作业输出写在其节点上：%1</translation>
        </message>
        <message numerus="yes">
            <source>The card serves %n job(s).</source>
            <translation>
                <numerusform>这张卡正在服务 %n 个作业。</numerusform>
            </translation>
        </message>
        <message>
            <source>The console closed its connection to the service.</source>
            <translation>控制台已关闭与服务的连接。</translation>
        </message>
        <message>
            <source>The service went away before answering.</source>
            <translation>服务在回答之前已断开。</translation>
        </message>
        <message>
            <source>The service at %1 is not reachable.</source>
            <translation>无法连接 %1 上的服务。</translation>
        </message>
        <message>
            <source>The service gave no reason.</source>
            <translation>服务没有给出原因。</translation>
        </message>
        <message>
            <source>No real work can run: %1</source>
            <translation>无法运行真实的工作：%1</translation>
        </message>
        <message>
            <source>The real appliance&apos;s runtime has not started yet.</source>
            <translation>真实一体机的运行时尚未启动。</translation>
        </message>
        <message>
            <source>The appliance&apos;s runtime is not running.</source>
            <translation>一体机的运行时没有在运行。</translation>
        </message>
        <message>
            <source>The appliance is shutting down.</source>
            <translation>一体机正在关闭。</translation>
        </message>
        <message>
            <source>This appliance cannot preview a schedule.</source>
            <translation>这台一体机不能预览计划。</translation>
        </message>
        <message>
            <source>The day restarted before the change was made.</source>
            <translation>变更执行之前，这一天已重新开始。</translation>
        </message>
        <message>
            <source>The simulated appliance models the work from its expected duration: give one.</source>
            <translation>模拟一体机按预计时长为工作建模：请给出预计时长。</translation>
        </message>
        <message>
            <source>The simulated appliance&apos;s services come from its scenario: add the service to the scenario file.</source>
            <translation>模拟一体机的服务来自它的场景：请把服务加到场景文件里。</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed: the schedule would now take off jobs %1, not %2.</source>
            <translation>确认之后一体机已有变化：这个计划现在会撤下作业 %1，而不是 %2。</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed: %1</source>
            <translation>确认之后一体机已有变化：%1</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed: placing job %1 on card %2 over its class budget would now preempt jobs %3, not %4.</source>
            <translation>确认之后一体机已有变化：超出类别预算把作业 %1 放到卡 %2 上现在要抢占作业 %3，而不是 %4。</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed: placing job %1 on card %2 would now preempt jobs %3, not %4.</source>
            <translation>确认之后一体机已有变化：把作业 %1 放到卡 %2 上现在要抢占作业 %3，而不是 %4。</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed: job %1 now fits on card %2 without preempting anyone.</source>
            <translation>确认之后一体机已有变化：作业 %1 现在不抢占任何作业就能放到卡 %2 上。</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed: job %1 now fits on card %2 within its class budget.</source>
            <translation>确认之后一体机已有变化：作业 %1 现在在类别预算之内就能放到卡 %2 上。</translation>
        </message>
        <message>
            <source>It could never run on this appliance: %1</source>
            <translation>它在这台一体机上永远无法运行：%1</translation>
        </message>
        <message>
            <source>Stopped after %1 of %2 steps: %3 failed (%4); the card now has %5.</source>
            <translation>执行了 %2 个步骤中的 %1 个后停止：%3 失败（%4）；卡现在是 %5。</translation>
        </message>
        <message>
            <source>Stopped after %1 of %2 steps: the driver refused %3 (%4); the card now has %5.</source>
            <translation>执行了 %2 个步骤中的 %1 个后停止：驱动拒绝了%3（%4）；卡现在是 %5。</translation>
        </message>
        <message>
            <source>Stopped after %1 of %2 steps; the card now has %3.</source>
            <translation>执行了 %2 个步骤中的 %1 个后停止；卡现在是 %3。</translation>
        </message>
        <message>
            <source>The %1 steps were carried out, but the card now has %2.</source>
            <translation>%1 个步骤都已执行，但卡现在是 %2。</translation>
        </message>
        <message>
            <source>Card %1 has no pinned layout.</source>
            <translation>卡 %1 没有固定的布局。</translation>
        </message>
        <message>
            <source>The pin must end after now.</source>
            <translation>固定的结束时间必须晚于现在。</translation>
        </message>
        <message>
            <source>A %1 has no %2 mode.</source>
            <translation>%1 没有 %2 模式。</translation>
        </message>
        <message>
            <source>Instance %1 serves %2: it cannot be destroyed now.</source>
            <translation>实例 %1 正在服务 %2，现在不能销毁。</translation>
        </message>
        <message>
            <source>The layout breaks the card&apos;s rules: %1</source>
            <translation>这个布局不符合卡的规则：%1</translation>
        </message>
        <message>
            <source>The card&apos;s layout is pinned.</source>
            <translation>这张卡的布局已固定。</translation>
        </message>
        <message>
            <source>Card %1 is not in MIG mode.</source>
            <translation>卡 %1 不在 MIG 模式。</translation>
        </message>
        <message>
            <source>Card %1 has failed.</source>
            <translation>卡 %1 已故障。</translation>
        </message>
        <message>
            <source>The appliance gave no reason.</source>
            <translation>一体机没有给出原因。</translation>
        </message>
        <message>
            <source>There is no job %1.</source>
            <translation>没有作业 %1。</translation>
        </message>
        <message>
            <source>There is no job %1 or no card %2.</source>
            <translation>没有作业 %1 或没有卡 %2。</translation>
        </message>
        <message>
            <source>Job %1 is no longer waiting.</source>
            <translation>作业 %1 已不在等待中。</translation>
        </message>
        <message>
            <source>Job %1 is not running.</source>
            <translation>作业 %1 没有在运行。</translation>
        </message>
        <message>
            <source>Job %1 has already ended.</source>
            <translation>作业 %1 已经结束。</translation>
        </message>
        <message>
            <source>Card %1 is cordoned already.</source>
            <translation>卡 %1 已被封锁。</translation>
        </message>
        <message>
            <source>Card %1 is not cordoned.</source>
            <translation>卡 %1 未被封锁。</translation>
        </message>
        <message>
            <source>There is no card %1.</source>
            <translation>没有卡 %1。</translation>
        </message>
        <message>
            <source>The simulated appliance models its workloads: they run no process and write no log.</source>
            <translation>模拟设备只对工作负载建模：它们不运行进程，也不写日志。</translation>
        </message>
        <message>
            <source>This appliance cannot cordon cards.</source>
            <translation>此设备不能封锁卡。</translation>
        </message>
        <message>
            <source>must not be empty</source>
            <translation>不能为空</translation>
        </message>
        <message>
            <source>required</source>
            <translation>必填</translation>
        </message>
        <message>
            <source>must not be negative</source>
            <translation>不能为负数</translation>
        </message>
        <message>
            <source>must not start or end with white space</source>
            <translation>开头和结尾不能有空白</translation>
        </message>
        <message>
            <source>must not contain spaces or control characters</source>
            <translation>不能包含空格或控制字符</translation>
        </message>
        <message>
            <source>must not be empty; give the program and its arguments</source>
            <translation>不能为空；请给出程序及其参数</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::EventLogView</name>
        <message>
            <source>&amp;Time:</source>
            <translation>时间(&amp;T)：</translation>
        </message>
        <message>
            <source>All</source>
            <translation>全部</translation>
        </message>
        <message>
            <source>Last 15 minutes</source>
            <translation>最近 15 分钟</translation>
        </message>
        <message>
            <source>Last hour</source>
            <translation>最近 1 小时</translation>
        </message>
        <message>
            <source>Last 6 hours</source>
            <translation>最近 6 小时</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>今天</translation>
        </message>
        <message>
            <source>Custom range</source>
            <translation>自定义范围</translation>
        </message>
        <message>
            <source>&amp;From:</source>
            <translation>从(&amp;F)：</translation>
        </message>
        <message>
            <source>T&amp;o:</source>
            <translation>到(&amp;O)：</translation>
        </message>
        <message>
            <source>From this time (the appliance's local time), inclusive</source>
            <translation>从此时间起（设备本地时间），包含</translation>
        </message>
        <message>
            <source>Up to this time (the appliance's local time), exclusive</source>
            <translation>直到此时间（设备本地时间），不包含</translation>
        </message>
        <message>
            <source>All severities</source>
            <translation>全部级别</translation>
        </message>
        <message>
            <source>Severities to show</source>
            <translation>要显示的级别</translation>
        </message>
        <message>
            <source>All sources</source>
            <translation>全部来源</translation>
        </message>
        <message>
            <source>Source of the events</source>
            <translation>事件来源</translation>
        </message>
        <message>
            <source>All cards</source>
            <translation>全部卡</translation>
        </message>
        <message>
            <source>Events about one card</source>
            <translation>与某张卡相关的事件</translation>
        </message>
        <message>
            <source>Job name or #id</source>
            <translation>作业名称或 #编号</translation>
        </message>
        <message>
            <source>Events about one job</source>
            <translation>与某个作业相关的事件</translation>
        </message>
        <message>
            <source>Code, e.g. job-placed or job-*</source>
            <translation>代码，如 job-placed 或 job-*</translation>
        </message>
        <message>
            <source>An event code; end it with * to match every code that starts so</source>
            <translation>事件代码；以 * 结尾可匹配所有以此开头的代码</translation>
        </message>
        <message>
            <source>Search the messages</source>
            <translation>搜索消息</translation>
        </message>
        <message>
            <source>Shows events whose message or code contains this text (any case)</source>
            <translation>显示消息或代码包含此文本的事件（不区分大小写）</translation>
        </message>
        <message>
            <source>Clear filter</source>
            <translation>清除筛选</translation>
        </message>
        <message>
            <source>Export…</source>
            <translation>导出…</translation>
        </message>
        <message>
            <source>Save the events shown as CSV or JSON Lines</source>
            <translation>将显示的事件保存为 CSV 或 JSON Lines</translation>
        </message>
        <message>
            <source>Start CSV files with a byte-order mark (for Excel)</source>
            <translation>CSV 文件以字节顺序标记开头（供 Excel 使用）</translation>
        </message>
        <message>
            <source>Why?</source>
            <translation>原因？</translation>
        </message>
        <message>
            <source>Explain the selected job: why it waits, why it runs there, or why it was preempted</source>
            <translation>说明所选作业：为何等待、为何在此运行或为何被抢占</translation>
        </message>
        <message>
            <source>CSV (*.csv)</source>
            <translation>CSV (*.csv)</translation>
        </message>
        <message>
            <source>JSON Lines (*.jsonl)</source>
            <translation>JSON Lines (*.jsonl)</translation>
        </message>
        <message>
            <source>Export events</source>
            <translation>导出事件</translation>
        </message>
        <message>
            <source>Export is not possible: this session keeps no event store.</source>
            <translation>无法导出：此会话没有事件存储。</translation>
        </message>
        <message numerus="yes">
            <source>Exporting %n event(s)…</source>
            <translation>
                <numerusform>正在导出 %n 个事件…</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Exported %n event(s) to %1</source>
            <translation>
                <numerusform>已将 %n 个事件导出到 %1</numerusform>
            </translation>
        </message>
        <message>
            <source>Export failed: %1</source>
            <translation>导出失败：%1</translation>
        </message>
        <message numerus="yes">
            <source>%1 of %n event(s) shown</source>
            <translation>
                <numerusform>显示 %1 / %n 个事件</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>(%n older event(s) are only in the store)</source>
            <translation>
                <numerusform>（另有 %n 个较早的事件仅保存在存储中）</numerusform>
            </translation>
        </message>
        <message>
            <source>Routine</source>
            <translation>例行事件</translation>
        </message>
        <message>
            <source>Also show routine events (the forecast&apos;s ramps): many a day, informational. A code typed in the filter shows its events anyway.</source>
            <translation>同时显示例行事件（预测的负载爬升）：每天很多，仅供参考。在筛选中输入代码时，仍会显示该代码的事件。</translation>
        </message>
        <message>
            <source>(routine events hidden)</source>
            <translation>（已隐藏例行事件）</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::EventText</name>
        <message>
            <source>Slurm refused %1 on the node Zhaoxi chose; re-planned on %2</source>
            <translation>Slurm 拒绝在朝夕选定的节点上运行 %1；已重新规划到 %2</translation>
        </message>
        <message>
            <source>The schedule&apos;s Slurm reservations were applied</source>
            <translation>已应用时间表对应的 Slurm 预留</translation>
        </message>
        <message>
            <source>The schedule&apos;s Slurm reservations failed at %1: %2</source>
            <translation>时间表对应的 Slurm 预留在 %1 处失败：%2</translation>
        </message>
        <message>
            <source>Slurm at %1 read: %2 nodes, %3 jobs</source>
            <translation>已读取 %1 的 Slurm：%2 个节点，%3 个作业</translation>
        </message>
        <message>
            <source>Slurm at %1 is not reachable: %2</source>
            <translation>无法连接 %1 的 Slurm：%2</translation>
        </message>
        <message>
            <source>Slurm at %1 answers again after %2</source>
            <translation>%1 的 Slurm 在 %2 后恢复响应</translation>
        </message>
        <message>
            <source>Node %1 joined (%2)</source>
            <translation>节点 %1 加入（%2）</translation>
        </message>
        <message>
            <source>Node %1 is %2 (was %3)</source>
            <translation>节点 %1 现为 %2（原为 %3）</translation>
        </message>
        <message>
            <source>%1: %2</source>
            <translation>%1：%2</translation>
        </message>
        <message>
            <source>The Slurm token was renewed</source>
            <translation>Slurm 令牌已续期</translation>
        </message>
        <message>
            <source>The Slurm token could not be renewed: %1</source>
            <translation>Slurm 令牌续期失败：%1</translation>
        </message>
        <message>
            <source>The Slurm token expires at %1 and nothing renews it</source>
            <translation>Slurm 令牌将于 %1 过期，且没有续期命令</translation>
        </message>
        <message>
            <source>Slurm job %1 (%2): %3</source>
            <translation>Slurm 作业 %1（%2）：%3</translation>
        </message>
        <message>
            <source>Slurm job %1 (%2) submitted for node %3</source>
            <translation>Slurm 作业 %1（%2）已提交到节点 %3</translation>
        </message>
        <message>
            <source>Slurm job %1 (%2) started</source>
            <translation>Slurm 作业 %1（%2）已启动</translation>
        </message>
        <message>
            <source>Slurm job %1 (%2) requeued</source>
            <translation>Slurm 作业 %1（%2）已重新排队</translation>
        </message>
        <message>
            <source>Slurm job %1 (%2) ended: %3</source>
            <translation>Slurm 作业 %1（%2）已结束：%3</translation>
        </message>
        <message>
            <source>Slurm job %1 (%2) waits: %3</source>
            <translation>Slurm 作业 %1（%2）等待中：%3</translation>
        </message>
        <message>
            <source>(no job)</source>
            <translation>（无作业）</translation>
        </message>
        <message>
            <source>(no card)</source>
            <translation>（无卡）</translation>
        </message>
        <message>
            <source>%1 card %2</source>
            <translation>%1 卡 %2</translation>
        </message>
        <message>
            <source>card %1</source>
            <translation>卡 %1</translation>
        </message>
        <message>
            <source>host %1</source>
            <translation>主机 %1</translation>
        </message>
        <message>
            <source>service %1</source>
            <translation>服务 %1</translation>
        </message>
        <message>
            <source>simulated cards, real processes</source>
            <translation>模拟卡，真实进程</translation>
        </message>
        <message>
            <source>profile %1</source>
            <translation>配置 %1</translation>
        </message>
        <message>
            <source>partition %1</source>
            <translation>分区 %1</translation>
        </message>
        <message>
            <source>whole-card</source>
            <translation>整卡</translation>
        </message>
        <message>
            <source>MIG</source>
            <translation>MIG</translation>
        </message>
        <message>
            <source>time-slicing</source>
            <translation>时间片</translation>
        </message>
        <message>
            <source>MPS</source>
            <translation>MPS</translation>
        </message>
        <message>
            <source>time window</source>
            <translation>时间窗口</translation>
        </message>
        <message>
            <source>SLO at risk</source>
            <translation>SLO 有风险</translation>
        </message>
        <message>
            <source>load pressure</source>
            <translation>负载压力</translation>
        </message>
        <message>
            <source>load fell</source>
            <translation>负载下降</translation>
        </message>
        <message>
            <source>forecast ramp</source>
            <translation>预测负载上升</translation>
        </message>
        <message>
            <source>static split</source>
            <translation>静态划分</translation>
        </message>
        <message>
            <source>the instance is in use</source>
            <translation>实例正在使用</translation>
        </message>
        <message>
            <source>the driver refused the order</source>
            <translation>驱动拒绝了该指令</translation>
        </message>
        <message>
            <source>the card is gone</source>
            <translation>该卡已丢失</translation>
        </message>
        <message>
            <source>load rose</source>
            <translation>负载上升</translation>
        </message>
        <message>
            <source>freeing a card for a waiting job</source>
            <translation>为等待中的作业腾出整卡</translation>
        </message>
        <message>
            <source>%1 (%2)</source>
            <translation>%1（%2）</translation>
        </message>
        <message>
            <source>training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>batch</source>
            <translation>批处理</translation>
        </message>
        <message>
            <source>class %1</source>
            <translation>类别 %1</translation>
        </message>
        <message>
            <source>Job %1 submitted</source>
            <translation>作业 %1 已提交</translation>
        </message>
        <message numerus="yes">
            <source>Job %1 placed on %n card(s) of %2</source>
            <translation>
                <numerusform>作业 %1 已放置到 %2 的 %n 张卡上</numerusform>
            </translation>
        </message>
        <message>
            <source>Job %1 placed on %2 (%3)</source>
            <translation>作业 %1 已放置到 %2（%3）</translation>
        </message>
        <message>
            <source>Job %1 placed on %2</source>
            <translation>作业 %1 已放置到 %2</translation>
        </message>
        <message>
            <source>Job %1 placed on host %2</source>
            <translation>作业 %1 已放置到主机 %2</translation>
        </message>
        <message>
            <source>Job %1 is waiting</source>
            <translation>作业 %1 正在等待</translation>
        </message>
        <message>
            <source>Job %1 is waiting: %2</source>
            <translation>作业 %1 正在等待：%2</translation>
        </message>
        <message>
            <source>Job %1 will be preempted for job %2 at %3</source>
            <translation>作业 %1 将于 %3 被作业 %2 抢占</translation>
        </message>
        <message>
            <source>Job %1 will be preempted for job %2</source>
            <translation>作业 %1 将被作业 %2 抢占</translation>
        </message>
        <message>
            <source>Job %1 evicted; %2 of work lost</source>
            <translation>作业 %1 已被驱逐，损失 %2 的工作量</translation>
        </message>
        <message>
            <source>Job %1 evicted; no work lost</source>
            <translation>作业 %1 已被驱逐，没有损失工作量</translation>
        </message>
        <message>
            <source>Job %1 finished</source>
            <translation>作业 %1 已完成</translation>
        </message>
        <message>
            <source>Job %1 cancelled</source>
            <translation>作业 %1 已取消</translation>
        </message>
        <message>
            <source>Job %1 failed</source>
            <translation>作业 %1 失败</translation>
        </message>
        <message>
            <source>Partition %1 created on %2</source>
            <translation>已在 %2 上创建分区 %1</translation>
        </message>
        <message>
            <source>Partition %1 destroyed on %2</source>
            <translation>已在 %2 上销毁分区 %1</translation>
        </message>
        <message>
            <source>%1 switched to %2 mode</source>
            <translation>%1 已切换为%2模式</translation>
        </message>
        <message>
            <source>%1 failed</source>
            <translation>%1 故障</translation>
        </message>
        <message>
            <source>%1 recovered</source>
            <translation>%1 已恢复</translation>
        </message>
        <message>
            <source>Class budgets changed</source>
            <translation>类别预算已变更</translation>
        </message>
        <message>
            <source>Layout of %1 pinned until %2</source>
            <translation>%1 的布局已固定，直到 %2</translation>
        </message>
        <message>
            <source>Layout of %1 pinned until unpinned</source>
            <translation>%1 的布局已固定，直到取消固定</translation>
        </message>
        <message>
            <source>Layout pin of %1 expired</source>
            <translation>%1 的布局固定已到期</translation>
        </message>
        <message>
            <source>Layout of %1 unpinned</source>
            <translation>%1 的布局已取消固定</translation>
        </message>
        <message>
            <source>%1 was reset to one whole instance for waiting training, %2 after an operator changed it</source>
            <translation>为等待中的训练，%1 已恢复为一个整卡实例（距操作员修改 %2）</translation>
        </message>
        <message>
            <source>%1 was reconfigured for job %2, %3 after an operator changed it</source>
            <translation>为作业 %2，%1 已被重新配置（距操作员修改 %3）</translation>
        </message>
        <message>
            <source>Creating partition %1 on %2</source>
            <translation>正在 %2 上创建分区 %1</translation>
        </message>
        <message>
            <source>Destroying partition %1 on %2</source>
            <translation>正在 %2 上销毁分区 %1</translation>
        </message>
        <message>
            <source>Changing the mode of %1</source>
            <translation>正在更改 %1 的模式</translation>
        </message>
        <message>
            <source>Driver created partition %1 on %2 in %3</source>
            <translation>驱动在 %2 上创建了分区 %1，用时 %3</translation>
        </message>
        <message>
            <source>Driver destroyed partition %1 on %2 in %3</source>
            <translation>驱动在 %2 上销毁了分区 %1，用时 %3</translation>
        </message>
        <message>
            <source>Driver changed the mode of %1 in %2</source>
            <translation>驱动更改了 %1 的模式，用时 %2</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>未知错误</translation>
        </message>
        <message>
            <source>Driver could not create partition %1 on %2: %3</source>
            <translation>驱动无法在 %2 上创建分区 %1：%3</translation>
        </message>
        <message>
            <source>Driver could not destroy partition %1 on %2: %3</source>
            <translation>驱动无法在 %2 上销毁分区 %1：%3</translation>
        </message>
        <message>
            <source>Driver could not change the mode of %1: %2</source>
            <translation>驱动无法更改 %1 的模式：%2</translation>
        </message>
        <message>
            <source>%1 was lost</source>
            <translation>%1 已丢失</translation>
        </message>
        <message>
            <source>Memory error on %1</source>
            <translation>%1 出现显存错误</translation>
        </message>
        <message>
            <source>%1 is thermally throttled for %2</source>
            <translation>%1 因过热降频，持续 %2</translation>
        </message>
        <message>
            <source>%1 is thermally throttled</source>
            <translation>%1 因过热降频</translation>
        </message>
        <message>
            <source>%1 is throttling at %2 °C</source>
            <translation>%1 在 %2 °C 时降频</translation>
        </message>
        <message>
            <source>%1 is no longer throttling</source>
            <translation>%1 已停止降频</translation>
        </message>
        <message>
            <source>No time window in force</source>
            <translation>当前没有生效的时间窗口</translation>
        </message>
        <message>
            <source>Window ‘%1’ opened</source>
            <translation>时间窗口“%1”已开启</translation>
        </message>
        <message>
            <source>Preparing for the end of the time windows at %1</source>
            <translation>正在为 %1 时间窗口结束做准备</translation>
        </message>
        <message>
            <source>Preparing for window ‘%1’, which opens at %2</source>
            <translation>正在为 %2 开启的时间窗口“%1”做准备</translation>
        </message>
        <message>
            <source>Class budgets set: inference %1 %, training %2 %</source>
            <translation>类别预算已设置：推理 %1%，训练 %2%</translation>
        </message>
        <message>
            <source>unlimited</source>
            <translation>不限</translation>
        </message>
        <message>
            <source>%1 cards</source>
            <translation>%1 张卡</translation>
        </message>
        <message>
            <source>Class budgets set: inference %1, training %2</source>
            <translation>类别预算已设置：推理 %1，训练 %2</translation>
        </message>
        <message>
            <source>Replica %1 of %2 added</source>
            <translation>已为 %2 添加副本 %1</translation>
        </message>
        <message>
            <source>Replica %1 of %2 removed</source>
            <translation>已移除 %2 的副本 %1</translation>
        </message>
        <message>
            <source>Job %1 goes back to the queue at its checkpoint at %2</source>
            <translation>作业 %1 将在 %2 的检查点回到队列</translation>
        </message>
        <message>
            <source>Job %1 goes back to the queue now</source>
            <translation>作业 %1 立即回到队列</translation>
        </message>
        <message>
            <source>Job %1 stays: the room it was leaving for is not needed</source>
            <translation>作业 %1 继续运行：它要让出的资源已不再需要</translation>
        </message>
        <message>
            <source>Service %1 under pressure: p99 %2 ms, %3 requests queued</source>
            <translation>服务 %1 负载紧张：p99 %2 毫秒，%3 个请求排队</translation>
        </message>
        <message>
            <source>Service %1: load fell, capacity returns to training</source>
            <translation>服务 %1：负载下降，算力归还给训练</translation>
        </message>
        <message>
            <source>Service %1: forecast rises to %2 requests/s</source>
            <translation>服务 %1：预测负载上升至每秒 %2 个请求</translation>
        </message>
        <message>
            <source>Service %1: the forecast learns from %2 recorded days</source>
            <translation>服务 %1：预测依据已记录的 %2 天流量</translation>
        </message>
        <message>
            <source>Service %1: only %2 days recorded of the %3 the forecast needs; it keeps the scenario&apos;s curve</source>
            <translation>服务 %1：仅记录了 %2 天，预测需要 %3 天；沿用场景的流量曲线</translation>
        </message>
        <message>
            <source>Service %1: measured %2 ms per request on a %3-card unit (%4 samples)</source>
            <translation>服务 %1：在 %3 卡的单元上实测每个请求 %2 毫秒（%4 个样本）</translation>
        </message>
        <message>
            <source>Power cap for %1 removed</source>
            <translation>已取消%1的功耗上限</translation>
        </message>
        <message>
            <source>Power cap for %1 set to %2 W</source>
            <translation>%1的功耗上限已设为 %2 W</translation>
        </message>
        <message>
            <source>Host bandwidth for %1 no longer limited</source>
            <translation>%1的主机带宽不再受限</translation>
        </message>
        <message>
            <source>Host bandwidth for %1 limited to %2 %</source>
            <translation>%1的主机带宽限制为 %2%</translation>
        </message>
        <message>
            <source>Job %1 saved a checkpoint (%2 of work)</source>
            <translation>作业 %1 已保存检查点（工作量 %2）</translation>
        </message>
        <message>
            <source>Job %1 resumed from its checkpoint (%2 of work kept)</source>
            <translation>作业 %1 已从检查点恢复（保留工作量 %2）</translation>
        </message>
        <message>
            <source>Job %1 resumed from its checkpoint; no work lost</source>
            <translation>作业 %1 已从检查点恢复，未丢失工作量</translation>
        </message>
        <message>
            <source>Job %1 resumed from its checkpoint; %2 of work lost</source>
            <translation>作业 %1 已从检查点恢复，丢失工作量 %2</translation>
        </message>
        <message>
            <source>Training job %1 completed</source>
            <translation>训练作业 %1 已完成</translation>
        </message>
        <message numerus="yes">
            <source>Service %1: %n request(s) re-sent from replica %2</source>
            <translation>
                <numerusform>服务 %1：从副本 %2 重新派发了 %n 个请求</numerusform>
            </translation>
        </message>
        <message>
            <source>The store file was unreadable (%1); it was moved to %2</source>
            <translation>存储文件无法读取（%1），已移至 %2</translation>
        </message>
        <message>
            <source>an operator</source>
            <translation>一位操作员</translation>
        </message>
        <message>
            <source>%1&apos;s workload was refused: %2</source>
            <translation>%1 提交的工作负载被拒绝：%2</translation>
        </message>
        <message>
            <source>%1&apos;s repartition of %2 was refused: %3</source>
            <translation>%1 对 %2 的重新分区被拒绝：%3</translation>
        </message>
        <message>
            <source>%1&apos;s schedule was refused: %2</source>
            <translation>%1 设置的时间表被拒绝：%2</translation>
        </message>
        <message>
            <source>%1 asked to %2 %3; refused: %4</source>
            <translation>%1 请求对 %3 执行 %2，被拒绝：%4</translation>
        </message>
        <message>
            <source>%1 submitted %2</source>
            <translation>%1 提交了 %2</translation>
        </message>
        <message>
            <source>%1 placed %2 on %3</source>
            <translation>%1 将 %2 放置到 %3</translation>
        </message>
        <message>
            <source>%1 took %2 back to the queue</source>
            <translation>%1 将 %2 退回队列</translation>
        </message>
        <message>
            <source>%1 cancelled %2</source>
            <translation>%1 取消了 %2</translation>
        </message>
        <message>
            <source>%1 set the priority of %2 to %3</source>
            <translation>%1 将 %2 的优先级设为 %3</translation>
        </message>
        <message>
            <source>%1 repartitioned %2: %3</source>
            <translation>%1 重新划分了 %2：%3</translation>
        </message>
        <message>
            <source>no partitions</source>
            <translation>无分区</translation>
        </message>
        <message>
            <source>%1 set the windows schedule</source>
            <translation>%1 设置了时间窗口表</translation>
        </message>
        <message>
            <source>%1 logged in</source>
            <translation>%1 已登录</translation>
        </message>
        <message>
            <source>the host is down</source>
            <translation>主机已离线</translation>
        </message>
        <message>
            <source>it is pinned to another host</source>
            <translation>它被固定在另一台主机上</translation>
        </message>
        <message>
            <source>not enough free CPU on the host</source>
            <translation>主机空闲 CPU 不足</translation>
        </message>
        <message>
            <source>not enough free host memory</source>
            <translation>主机空闲内存不足</translation>
        </message>
        <message>
            <source>no host has enough CPU</source>
            <translation>没有主机拥有足够的 CPU</translation>
        </message>
        <message>
            <source>no host has enough memory</source>
            <translation>没有主机拥有足够的内存</translation>
        </message>
        <message>
            <source>the card has failed</source>
            <translation>该卡已故障</translation>
        </message>
        <message>
            <source>its affinity excludes the card model</source>
            <translation>其亲和性排除了该卡型号</translation>
        </message>
        <message>
            <source>the card model has no such MIG profile</source>
            <translation>该卡型号没有此 MIG 配置</translation>
        </message>
        <message>
            <source>it needs hard isolation; the card is soft-sliced</source>
            <translation>它需要硬隔离，而该卡为软切分</translation>
        </message>
        <message>
            <source>no card offers enough memory</source>
            <translation>没有卡能提供足够的显存</translation>
        </message>
        <message>
            <source>not enough free card memory</source>
            <translation>空闲显存不足</translation>
        </message>
        <message>
            <source>not enough free compute on the cards</source>
            <translation>卡上空闲算力不足</translation>
        </message>
        <message>
            <source>every fitting partition is busy</source>
            <translation>所有合适的分区都在使用中</translation>
        </message>
        <message>
            <source>a card must be repartitioned first</source>
            <translation>需要先对卡重新分区</translation>
        </message>
        <message>
            <source>the cards already serve their limit of clients</source>
            <translation>卡上的客户端已达上限</translation>
        </message>
        <message>
            <source>the card is being reconfigured</source>
            <translation>该卡正在重新配置</translation>
        </message>
        <message>
            <source>not enough cards on one host</source>
            <translation>单台主机上的卡不足</translation>
        </message>
        <message>
            <source>not enough free cards in one fast-link domain</source>
            <translation>同一高速互连域内的空闲卡不足</translation>
        </message>
        <message>
            <source>its class budget is used up</source>
            <translation>其类别预算已用完</translation>
        </message>
        <message>
            <source>the appliance has no hosts</source>
            <translation>设备没有主机</translation>
        </message>
        <message>
            <source>%1 s</source>
            <translation>%1 秒</translation>
        </message>
        <message>
            <source>%1 min</source>
            <translation>%1 分钟</translation>
        </message>
        <message>
            <source>%1 h</source>
            <translation>%1 小时</translation>
        </message>
        <message>
            <source>Job %1 will leave its cards at %2 (at its checkpoint)</source>
            <translation>作业 %1 将于 %2 在其检查点离开所占的卡</translation>
        </message>
        <message>
            <source>Job %1 will leave its cards at its next checkpoint</source>
            <translation>作业 %1 将在下一个检查点离开所占的卡</translation>
        </message>
        <message>
            <source>%1 was reconfigured, %2 after an operator changed it</source>
            <translation>%1 已被重新配置（距操作员修改 %2）</translation>
        </message>
        <message>
            <source>an operator drains the card</source>
            <translation>管理员排空此卡</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::JobLogDialog</name>
        <message>
            <source>Log of %1</source>
            <translation>%1 的日志</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>&amp;Follow (refresh every 2 s)</source>
            <translation>跟随(&amp;F)（每 2 秒刷新）</translation>
        </message>
        <message>
            <source>Ask the appliance for the latest output every two seconds while this window is open</source>
            <translation>此窗口打开期间，每两秒向一体机获取最新输出</translation>
        </message>
        <message>
            <source>&amp;Refresh</source>
            <translation>刷新(&amp;R)</translation>
        </message>
        <message>
            <source>File on the appliance: %1</source>
            <translation>一体机上的文件：%1</translation>
        </message>
        <message>
            <source>(older output is not shown)</source>
            <translation>（更早的输出未显示）</translation>
        </message>
        <message>
            <source>No log: %1</source>
            <translation>没有日志：%1</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::JobsView</name>
        <message numerus="yes">
            <source>%n waiting</source>
            <translation>
                <numerusform>%n 个等待中</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n job(s)</source>
            <translation>
                <numerusform>%n 个作业</numerusform>
            </translation>
        </message>
        <message>
            <source>&amp;Show:</source>
            <translation>显示(&amp;S)：</translation>
        </message>
        <message>
            <source>Waiting only</source>
            <translation>仅等待中</translation>
        </message>
        <message>
            <source>All jobs</source>
            <translation>全部作业</translation>
        </message>
        <message>
            <source>Waiting jobs can be dragged onto a card of the map</source>
            <translation>等待中的作业可以拖到卡片图中的卡上</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>&amp;Cancel job…</source>
            <translation>取消作业(&amp;C)…</translation>
        </message>
        <message>
            <source>&amp;Requeue</source>
            <translation>重新排队(&amp;R)</translation>
        </message>
        <message>
            <source>Take the job off its cards and back to the queue</source>
            <translation>让作业离开它的卡，回到队列</translation>
        </message>
        <message>
            <source>Change &amp;priority…</source>
            <translation>更改优先级(&amp;P)…</translation>
        </message>
        <message>
            <source>View &amp;log…</source>
            <translation>查看日志(&amp;L)…</translation>
        </message>
        <message>
            <source>&amp;New workload…</source>
            <translation>新建工作负载(&amp;N)…</translation>
        </message>
        <message>
            <source>Cancel job</source>
            <translation>取消作业</translation>
        </message>
        <message>
            <source>Cancel %1?</source>
            <translation>取消 %1？</translation>
        </message>
        <message>
            <source>Its process gets its stop signal and the job ends; work since its last checkpoint is lost. This cannot be undone.</source>
            <translation>它的进程会收到停止信号，作业随即结束；自上次检查点以来的工作将丢失。此操作无法撤销。</translation>
        </message>
        <message>
            <source>Cancel the job</source>
            <translation>取消作业</translation>
        </message>
        <message>
            <source>Keep it</source>
            <translation>保留</translation>
        </message>
        <message>
            <source>Change priority</source>
            <translation>更改优先级</translation>
        </message>
        <message>
            <source>Priority of %1 (higher runs first and may preempt lower):</source>
            <translation>%1 的优先级（高者先运行，并可抢占低者）：</translation>
        </message>
        <message>
            <source>Cancelled %1.</source>
            <translation>已取消 %1。</translation>
        </message>
        <message>
            <source>Could not cancel %1: %2</source>
            <translation>无法取消 %1：%2</translation>
        </message>
        <message>
            <source>%1 went back to the queue.</source>
            <translation>%1 已回到队列。</translation>
        </message>
        <message>
            <source>Could not take %1 back to the queue: %2</source>
            <translation>无法让 %1 回到队列：%2</translation>
        </message>
        <message>
            <source>%1 now has priority %2.</source>
            <translation>%1 的优先级现在是 %2。</translation>
        </message>
        <message>
            <source>Could not change the priority of %1: %2</source>
            <translation>无法更改 %1 的优先级：%2</translation>
        </message>
        <message>
            <source>Submitted %1 as job %2.</source>
            <translation>已提交 %1，作业号 %2。</translation>
        </message>
        <message>
            <source>Submit a workload from a form or a spec file (Ctrl+N)</source>
            <translation>通过表单或规格文件提交工作负载（Ctrl+N）</translation>
        </message>
        <message>
            <source>&amp;Why?</source>
            <translation>原因(&amp;W)？</translation>
        </message>
        <message>
            <source>Why the job runs where it runs, or why it waits</source>
            <translation>作业为何在此运行，或为何等待</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::LayoutStrip</name>
        <message>
            <source>Memory slots of the card</source>
            <translation>该卡的显存槽位</translation>
        </message>
        <message>
            <source>Now</source>
            <translation>当前</translation>
        </message>
        <message>
            <source>Planned</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>This profile belongs to another card model.</source>
            <translation>该配置属于另一种卡型号。</translation>
        </message>
        <message>
            <source>There is no room for this profile on the planned layout.</source>
            <translation>计划布局中没有空间容纳该配置。</translation>
        </message>
        <message>
            <source>Drop over one of the outlined places.</source>
            <translation>请放到标出的位置之一。</translation>
        </message>
        <message>
            <source>✓ Legal: %1 can go here.</source>
            <translation>✓ 可以：%1 可以放在这里。</translation>
        </message>
        <message>
            <source>✗ Not here: %1</source>
            <translation>✗ 不能放在这里：%1</translation>
        </message>
        <message>
            <source>%1 GiB</source>
            <translation>%1 GiB</translation>
        </message>
        <message>
            <source>%1 at slot %2, %3</source>
            <translation>%1，位于槽位 %2，%3</translation>
        </message>
        <message>
            <source>Free: serves no job</source>
            <translation>空闲：未服务任何作业</translation>
        </message>
        <message>
            <source>Busy: serves %1</source>
            <translation>忙碌：服务于 %1</translation>
        </message>
        <message>
            <source>State: %1</source>
            <translation>状态：%1</translation>
        </message>
        <message>
            <source>The planned layout destroys it.</source>
            <translation>计划布局会销毁它。</translation>
        </message>
        <message>
            <source>Slot %1 is free now.</source>
            <translation>槽位 %1 当前空闲。</translation>
        </message>
        <message>
            <source>Slot %1 stays free.</source>
            <translation>槽位 %1 保持空闲。</translation>
        </message>
        <message>
            <source>The change creates it.</source>
            <translation>此次变更会创建它。</translation>
        </message>
        <message>
            <source>Kept as it is.</source>
            <translation>保持不变。</translation>
        </message>
        <message>
            <source>free</source>
            <translation>空闲</translation>
        </message>
        <message>
            <source>Slot</source>
            <translation>槽位</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>闲置</translation>
        </message>
        <message>
            <source>destroy</source>
            <translation>销毁</translation>
        </message>
        <message>
            <source>create</source>
            <translation>创建</translation>
        </message>
        <message>
            <source>kept</source>
            <translation>保留</translation>
        </message>
        <message>
            <source>+ create (dashed, hatched) · × destroy (hatched) · ● busy (job name) · ↻ changing state</source>
            <translation>+ 创建（虚线框、斜线）· × 销毁（斜线）· ● 忙碌（作业名）· ↻ 状态变化中</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::LiveCharts</name>
        <message>
            <source>Inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>Cards</source>
            <translation>显卡</translation>
        </message>
        <message>
            <source>5 min</source>
            <translation>5 分钟</translation>
        </message>
        <message>
            <source>15 min</source>
            <translation>15 分钟</translation>
        </message>
        <message>
            <source>1 h</source>
            <translation>1 小时</translation>
        </message>
        <message>
            <source>6 h</source>
            <translation>6 小时</translation>
        </message>
        <message>
            <source>24 h</source>
            <translation>24 小时</translation>
        </message>
        <message>
            <source>Show the last %1</source>
            <translation>显示最近 %1</translation>
        </message>
        <message>
            <source>Live</source>
            <translation>实时</translation>
        </message>
        <message>
            <source>Follow the latest time. Panning or zooming the time axis stops following; press Live to follow again.</source>
            <translation>跟随最新时间。平移或缩放时间轴会停止跟随；按“实时”可重新跟随。</translation>
        </message>
        <message>
            <source>&amp;Card:</source>
            <translation>显卡(&amp;C)：</translation>
        </message>
        <message>
            <source>Latency (ms, log scale)</source>
            <translation>延迟（毫秒，对数刻度）</translation>
        </message>
        <message>
            <source>Requests per second</source>
            <translation>每秒请求数</translation>
        </message>
        <message>
            <source>Throughput (reference cards)</source>
            <translation>吞吐量（参考卡）</translation>
        </message>
        <message>
            <source>Loss</source>
            <translation>损失</translation>
        </message>
        <message>
            <source>Utilisation, memory (%)</source>
            <translation>利用率、显存（%）</translation>
        </message>
        <message>
            <source>Temperature (°C)</source>
            <translation>温度（°C）</translation>
        </message>
        <message>
            <source>Power (W)</source>
            <translation>功耗（瓦）</translation>
        </message>
        <message>
            <source>%1 · GPU %2</source>
            <translation>%1 · GPU %2</translation>
        </message>
        <message>
            <source>Card %1</source>
            <translation>卡 %1</translation>
        </message>
        <message>
            <source>All cards</source>
            <translation>全部显卡</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::MainWindow</name>
        <message>
            <source>fleet: %1</source>
            <translation>集群：%1</translation>
        </message>
        <message>
            <source>Zhaoxi</source>
            <translation>朝夕</translation>
        </message>
        <message>
            <source>%1 — Zhaoxi</source>
            <translation>%1 — 朝夕</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <source>Card &amp;Details</source>
            <translation>卡详情(&amp;D)</translation>
        </message>
        <message>
            <source>&amp;Status Bar</source>
            <translation>状态栏(&amp;S)</translation>
        </message>
        <message>
            <source>Sort by &amp;Host</source>
            <translation>按主机排序(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Language</source>
            <translation>语言(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;About Zhaoxi</source>
            <translation>关于朝夕(&amp;A)</translation>
        </message>
        <message>
            <source>About &amp;Qt</source>
            <translation>关于 Qt(&amp;Q)</translation>
        </message>
        <message numerus="yes">
            <source>%n host(s)</source>
            <translation>
                <numerusform>%n 台主机</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n card(s)</source>
            <translation>
                <numerusform>%n 张卡</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n partition(s)</source>
            <translation>
                <numerusform>%n 个分区</numerusform>
            </translation>
        </message>
        <message>
            <source>&lt;h3&gt;Zhaoxi %1&lt;/h3&gt;&lt;p&gt;The admin console of a GPU appliance that serves inference by day and trains models by night.&lt;/p&gt;&lt;p&gt;This program is free software: you can redistribute it and/or modify it under the terms of the GNU General Public License as published by the Free Software Foundation, either version 3 of the License, or (at your option) any later version (GPL-3.0-or-later).&lt;/p&gt;&lt;p&gt;It is distributed in the hope that it will be useful, but WITHOUT ANY WARRANTY; see the GNU General Public License for details.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;朝夕 %1&lt;/h3&gt;&lt;p&gt;GPU 一体机的管理控制台：白天提供推理服务，夜间训练模型。&lt;/p&gt;&lt;p&gt;本程序是自由软件：你可以依据自由软件基金会发布的 GNU 通用公共许可证第 3 版或（由你选择）任何更高版本（GPL-3.0-or-later）的条款重新分发和/或修改它。&lt;/p&gt;&lt;p&gt;发布本程序是希望它有用，但不提供任何担保；详情参见 GNU 通用公共许可证。&lt;/p&gt;</translation>
        </message>
        <message>
            <source>About Zhaoxi</source>
            <translation>关于朝夕</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>&amp;Settings…</source>
            <translation>设置(&amp;S)…</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Card table</source>
            <translation>卡片表</translation>
        </message>
        <message>
            <source>Charts</source>
            <translation>图表</translation>
        </message>
        <message>
            <source>Events</source>
            <translation>事件</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>日程</translation>
        </message>
        <message>
            <source>Advice</source>
            <translation>建议</translation>
        </message>
        <message>
            <source>Why?</source>
            <translation>为什么？</translation>
        </message>
        <message>
            <source>Repartition</source>
            <translation>重新分区</translation>
        </message>
        <message>
            <source>Jobs</source>
            <translation>作业</translation>
        </message>
        <message>
            <source>&amp;Jobs</source>
            <translation>作业(&amp;J)</translation>
        </message>
        <message>
            <source>&amp;Edit</source>
            <translation>编辑(&amp;E)</translation>
        </message>
        <message>
            <source>&amp;Undo</source>
            <translation>撤销(&amp;U)</translation>
        </message>
        <message>
            <source>&amp;Redo</source>
            <translation>重做(&amp;R)</translation>
        </message>
        <message>
            <source> Speed: </source>
            <translation> 速度：</translation>
        </message>
        <message>
            <source>New layout applied to card %1.</source>
            <translation>新布局已应用到卡 %1。</translation>
        </message>
        <message>
            <source>window %1</source>
            <translation>时间窗 %1</translation>
        </message>
        <message>
            <source>policy %1</source>
            <translation>策略 %1</translation>
        </message>
        <message>
            <source>the day is over</source>
            <translation>这一天已结束</translation>
        </message>
        <message>
            <source>paused</source>
            <translation>已暂停</translation>
        </message>
        <message>
            <source>real hardware</source>
            <translation>真实硬件</translation>
        </message>
        <message>
            <source>service %1</source>
            <translation>服务 %1</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Pause the appliance's clock (Space)</source>
            <translation>暂停一体机的时钟（空格）</translation>
        </message>
        <message>
            <source>Run the appliance's clock (Space)</source>
            <translation>运行一体机的时钟（空格）</translation>
        </message>
        <message>
            <source>&amp;New Workload…</source>
            <translation>新建工作负载(&amp;N)…</translation>
        </message>
        <message>
            <source>Submit a workload from a form or a spec file</source>
            <translation>通过表单或规格文件提交工作负载</translation>
        </message>
        <message>
            <source>policy: %1</source>
            <translation>策略：%1</translation>
        </message>
        <message>
            <source>%1 GPU %2: %3</source>
            <translation>%1 GPU %2：%3</translation>
        </message>
        <message>
            <source>; </source>
            <translation>；</translation>
        </message>
        <message numerus="yes">
            <source>%n card(s) need attention</source>
            <translation>
                <numerusform>%n 张卡需要关注</numerusform>
            </translation>
        </message>
        <message>
            <source>Overview</source>
            <translation>概览</translation>
        </message>
        <message>
            <source>The charts and the event log show %1.</source>
            <translation>图表和事件日志已跳转到 %1。</translation>
        </message>
        <message>
            <source>Restart the day?</source>
            <translation>重新开始这一天？</translation>
        </message>
        <message>
            <source>The simulated day starts again from its beginning: what was done to it (placements, layouts, schedules) is undone. The event store keeps what happened so far.</source>
            <translation>模拟的一天将从头开始：对它做过的操作（放置、布局、时间表）都会撤销。事件存储保留至今发生的一切。</translation>
        </message>
        <message>
            <source>Restart day</source>
            <translation>重新开始这一天</translation>
        </message>
        <message>
            <source>Start the simulated day again from its beginning</source>
            <translation>让模拟的一天从头开始</translation>
        </message>
        <message>
            <source>the layout the drop proposed</source>
            <translation>拖放建议的布局</translation>
        </message>
        <message>
            <source>simulated cards, real processes</source>
            <translation>模拟卡，真实进程</translation>
        </message>
        <message>
            <source>What if? replays what the appliance&apos;s store recorded, and this console has no store to read</source>
            <translation>“假如…？”重放设备存储中记录的内容，而此控制台没有可读取的存储</translation>
        </message>
        <message>
            <source>What if? replays what the appliance&apos;s store recorded, and this console may not read %1</source>
            <translation>“假如…？”重放设备存储中记录的内容，而此控制台无权读取 %1</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::NewWorkloadDialog</name>
        <message>
            <source>Line %1 is not NAME=VALUE.</source>
            <translation>第 %1 行不是 NAME=VALUE 形式。</translation>
        </message>
        <message>
            <source>Line %1 sets %2 again.</source>
            <translation>第 %1 行重复设置了 %2。</translation>
        </message>
        <message>
            <source>The JSON tab has a problem, so the form cannot show it. Fix it there to use the form again.</source>
            <translation>JSON 页有错误，表单无法显示它。请在 JSON 页改正后再使用表单。</translation>
        </message>
        <message>
            <source>The form cannot show every value of this spec exactly (for example a line break in an argument or an environment value); edit it in the JSON tab.</source>
            <translation>表单无法准确显示此规格的全部取值（例如参数或环境变量值中的换行）；请在 JSON 页中编辑。</translation>
        </message>
        <message>
            <source>it is larger than %1 KiB, too large for a spec</source>
            <translation>文件大于 %1 KiB，不像是一个规格文件</translation>
        </message>
        <message>
            <source>Could not read %1: %2</source>
            <translation>无法读取 %1：%2</translation>
        </message>
        <message>
            <source>Open workload spec</source>
            <translation>打开工作负载规格</translation>
        </message>
        <message>
            <source>Workload specs (*.json);;All files (*)</source>
            <translation>工作负载规格 (*.json);;所有文件 (*)</translation>
        </message>
        <message>
            <source>Submitting…</source>
            <translation>正在提交…</translation>
        </message>
        <message>
            <source>The appliance refused the workload.</source>
            <translation>一体机拒绝了该工作负载。</translation>
        </message>
        <message>
            <source>New workload</source>
            <translation>新建工作负载</translation>
        </message>
        <message>
            <source>Form</source>
            <translation>表单</translation>
        </message>
        <message>
            <source>JSON</source>
            <translation>JSON</translation>
        </message>
        <message>
            <source>&amp;Open spec file…</source>
            <translation>打开规格文件(&amp;O)…</translation>
        </message>
        <message>
            <source>Submit</source>
            <translation>提交</translation>
        </message>
        <message>
            <source>Workload</source>
            <translation>工作负载</translation>
        </message>
        <message>
            <source>Demand</source>
            <translation>资源需求</translation>
        </message>
        <message>
            <source>Inference service</source>
            <translation>推理服务</translation>
        </message>
        <message>
            <source>Run a command</source>
            <translation>运行命令</translation>
        </message>
        <message>
            <source>What the appliance starts for each unit. The real appliance needs it; the digital twin models workloads without one.</source>
            <translation>一体机为每个单元启动的程序。真实一体机必须有它；数字孪生没有它也能模拟工作负载。</translation>
        </message>
        <message>
            <source>&amp;Name:</source>
            <translation>名称(&amp;N)：</translation>
        </message>
        <message>
            <source>&amp;Kind:</source>
            <translation>类型(&amp;K)：</translation>
        </message>
        <message>
            <source>&amp;Priority:</source>
            <translation>优先级(&amp;P)：</translation>
        </message>
        <message>
            <source>Higher runs first and may preempt lower (%1 to %2)</source>
            <translation>高者先运行，并可抢占低者（%1 到 %2）</translation>
        </message>
        <message>
            <source>P&amp;reemption:</source>
            <translation>抢占(&amp;R)：</translation>
        </message>
        <message>
            <source>May be stopped at once (restart)</source>
            <translation>可立即停止（重新开始）</translation>
        </message>
        <message>
            <source>May be stopped at a checkpoint</source>
            <translation>可在检查点停止</translation>
        </message>
        <message>
            <source>Never preempted</source>
            <translation>从不被抢占</translation>
        </message>
        <message>
            <source>Checkpoint &amp;every:</source>
            <translation>检查点间隔(&amp;E)：</translation>
        </message>
        <message>
            <source>A duration such as 90m, 1h30m or 2d12h, or seconds</source>
            <translation>时长，例如 90m、1h30m 或 2d12h，或秒数</translation>
        </message>
        <message>
            <source>e.g. 30m (needed to stop at a checkpoint)</source>
            <translation>例如 30m（在检查点停止时必填）</translation>
        </message>
        <message>
            <source>Expected &amp;duration:</source>
            <translation>预计时长(&amp;D)：</translation>
        </message>
        <message>
            <source>e.g. 6h; empty: unknown or open-ended</source>
            <translation>例如 6h；留空：未知或不限</translation>
        </message>
        <message>
            <source>Dead&amp;line:</source>
            <translation>截止时间(&amp;L)：</translation>
        </message>
        <message>
            <source>An ISO-8601 date and time with Z or a UTC offset; empty: none</source>
            <translation>带 Z 或 UTC 偏移的 ISO-8601 日期时间；留空：无</translation>
        </message>
        <message>
            <source>&amp;Compute per unit:</source>
            <translation>每单元算力(&amp;C)：</translation>
        </message>
        <message>
            <source>A whole card</source>
            <translation>一整张卡</translation>
        </message>
        <message>
            <source>A MIG profile</source>
            <translation>MIG 规格</translation>
        </message>
        <message>
            <source>MIG compute slices</source>
            <translation>MIG 计算切片</translation>
        </message>
        <message>
            <source>A fraction of a card</source>
            <translation>一张卡的一部分</translation>
        </message>
        <message>
            <source>None (CPU only; cards 0)</source>
            <translation>无（仅 CPU；卡数为 0）</translation>
        </message>
        <message>
            <source>MIG pro&amp;file:</source>
            <translation>MIG 规格(&amp;F)：</translation>
        </message>
        <message>
            <source>&amp;Slices:</source>
            <translation>切片数(&amp;S)：</translation>
        </message>
        <message>
            <source>At least this many of the 7 compute slices, on any MIG card</source>
            <translation>在任意 MIG 卡上至少占用 7 个计算切片中的这么多个</translation>
        </message>
        <message>
            <source>&amp;Fraction:</source>
            <translation>份额(&amp;F)：</translation>
        </message>
        <message>
            <source>A share of one card, served by time-slicing or MPS</source>
            <translation>一张卡的份额，由时间片或 MPS 提供</translation>
        </message>
        <message>
            <source>C&amp;ards (units):</source>
            <translation>卡数（单元数）(&amp;A)：</translation>
        </message>
        <message>
            <source>How many units, on distinct cards of one host; 0 for a CPU-only job</source>
            <translation>单元个数，位于同一主机的不同卡上；仅 CPU 的作业填 0</translation>
        </message>
        <message>
            <source>Card &amp;memory per unit:</source>
            <translation>每单元显存(&amp;M)：</translation>
        </message>
        <message>
            <source>whatever the unit has</source>
            <translation>单元有多少用多少</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>&amp;Host CPU:</source>
            <translation>主机 CPU(&amp;H)：</translation>
        </message>
        <message>
            <source> cores</source>
            <translation> 核</translation>
        </message>
        <message>
            <source>For the whole job, on the host its cards are on</source>
            <translation>整个作业所需，在其卡所在的主机上</translation>
        </message>
        <message>
            <source>Host memor&amp;y:</source>
            <translation>主机内存(&amp;Y)：</translation>
        </message>
        <message>
            <source>Ser&amp;vice:</source>
            <translation>服务(&amp;V)：</translation>
        </message>
        <message>
            <source>Replicas of one service share its name</source>
            <translation>同一服务的副本共用这个名称</translation>
        </message>
        <message>
            <source>p99 latency o&amp;bjective:</source>
            <translation>p99 延迟目标(&amp;B)：</translation>
        </message>
        <message>
            <source>Replicas, m&amp;inimum:</source>
            <translation>最少副本数(&amp;I)：</translation>
        </message>
        <message>
            <source>Replicas, ma&amp;ximum:</source>
            <translation>最多副本数(&amp;X)：</translation>
        </message>
        <message>
            <source>Command as:</source>
            <translation>命令写法：</translation>
        </message>
        <message>
            <source>One line</source>
            <translation>一行</translation>
        </message>
        <message>
            <source>One argument per line</source>
            <translation>每行一个参数</translation>
        </message>
        <message>
            <source>Pro&amp;gram and arguments:</source>
            <translation>程序和参数(&amp;G)：</translation>
        </message>
        <message>
            <source>e.g. zhaoxi-demo-train --steps 20000</source>
            <translation>例如 zhaoxi-demo-train --steps 20000</translation>
        </message>
        <message>
            <source>Started directly, without a shell: $VARIABLES, ~ and * are not expanded. Quote arguments with spaces in '…' or "…".</source>
            <translation>直接启动，不经过 shell：$变量、~ 和 * 都不会展开。含空格的参数请用 '…' 或 "…" 括起来。</translation>
        </message>
        <message>
            <source>The program on the first line, one argument on each further line</source>
            <translation>第一行是程序，之后每行一个参数</translation>
        </message>
        <message>
            <source>&amp;Working directory:</source>
            <translation>工作目录(&amp;W)：</translation>
        </message>
        <message>
            <source>An absolute path; empty: the appliance's choice</source>
            <translation>绝对路径；留空：由一体机决定</translation>
        </message>
        <message>
            <source>Environmen&amp;t:</source>
            <translation>环境变量(&amp;T)：</translation>
        </message>
        <message>
            <source>One NAME=VALUE per line, on top of what the appliance sets</source>
            <translation>每行一个 NAME=VALUE，在一体机设置的变量之外追加</translation>
        </message>
        <message>
            <source>R&amp;un as user:</source>
            <translation>运行用户(&amp;U)：</translation>
        </message>
        <message>
            <source>the appliance's default account</source>
            <translation>一体机的默认账户</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::PreemptionDialog</name>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>Preempt running jobs?</source>
            <translation>抢占正在运行的作业？</translation>
        </message>
        <message numerus="yes">
            <source>Placing %1 on %2 preempts %n job(s). Each loses the work it has done since its last checkpoint:</source>
            <translation>
                <numerusform>将 %1 放到 %2 会抢占 %n 个作业。每个作业都会丢失自上次检查点以来完成的工作：</numerusform>
            </translation>
        </message>
        <message>
            <source>Job</source>
            <translation>作业</translation>
        </message>
        <message>
            <source>Priority</source>
            <translation>优先级</translation>
        </message>
        <message>
            <source>Lost work (h:mm)</source>
            <translation>丢失的工作（时:分）</translation>
        </message>
        <message>
            <source>In all: %1 of work lost (h:mm).</source>
            <translation>合计：丢失 %1 的工作（时:分）。</translation>
        </message>
        <message>
            <source>Preempt and place</source>
            <translation>抢占并放置</translation>
        </message>
        <message>
            <source>%1: loses %2 of work</source>
            <translation>%1：丢失 %2 的工作</translation>
        </message>
        <message>
            <source>Place over the class budget?</source>
            <translation>超出类别预算放置？</translation>
        </message>
        <message>
            <source>Place over budget</source>
            <translation>超出预算放置</translation>
        </message>
        <message>
            <source>%1 needs %2 of compute; its class may use only %3 more now. Placed anyway, the class goes over its budget by up to %4, and the policies will not move %1 to bring it back within the budget.</source>
            <translation>%1 需要 %2 的算力；其类别目前最多还能使用 %3。仍然放置时，该类别最多超出预算 %4，策略也不会为回到预算内而移走 %1。</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ProfilePalette</name>
        <message>
            <source>Drag onto the strip, or double-click to add at %1.</source>
            <translation>拖到槽位条上，或双击添加到%1。</translation>
        </message>
        <message>
            <source>no room</source>
            <translation>没有空间</translation>
        </message>
        <message>
            <source>Profile</source>
            <translation>配置</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>显存</translation>
        </message>
        <message>
            <source>Compute</source>
            <translation>算力</translation>
        </message>
        <message>
            <source>Max</source>
            <translation>上限</translation>
        </message>
        <message>
            <source>Can go at</source>
            <translation>可放位置</translation>
        </message>
        <message>
            <source>The most instances of the profile one card can hold</source>
            <translation>一张卡最多可容纳的该配置实例数</translation>
        </message>
        <message>
            <source>Where the profile fits on the planned layout now</source>
            <translation>该配置在计划布局中当前可放的位置</translation>
        </message>
        <message>
            <source>%1 GiB</source>
            <translation>%1 GiB</translation>
        </message>
        <message>
            <source>%1 of %2</source>
            <translation>%1/%2</translation>
        </message>
        <message>
            <source>%1: %2 of %3 compute slices, %4 of %5 memory slots, allowed at %6</source>
            <translation>%1：%2/%3 个计算切片，%4/%5 个显存槽位，允许位置：%6</translation>
        </message>
        <message>
            <source>Owns the card's media engines (at most one per card).</source>
            <translation>独占该卡的媒体引擎（每张卡最多一个）。</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ReasonText</name>
        <message>
            <source>Read-only: Slurm at %1 is not reachable (%2); the picture is the last one read. Retrying in %3 s…</source>
            <translation>只读：无法连接 %1 的 Slurm（%2）；显示的是最后一次读取的画面。%3 秒后重试…</translation>
        </message>
        <message>
            <source>Read-only: changes are not allowed.</source>
            <translation>只读：不允许更改。</translation>
        </message>
        <message>
            <source>%1 CPU cores</source>
            <translation>%1 个 CPU 核</translation>
        </message>
        <message>
            <source>%1% of the card</source>
            <translation>该卡的 %1%</translation>
        </message>
        <message>
            <source>one card</source>
            <translation>一张卡</translation>
        </message>
        <message>
            <source>%1 cards</source>
            <translation>%1 张卡</translation>
        </message>
        <message>
            <source>%1 MiB</source>
            <translation>%1 MiB</translation>
        </message>
        <message>
            <source>%1 GiB</source>
            <translation>%1 GiB</translation>
        </message>
        <message>
            <source>It fits here.</source>
            <translation>可以放在这里。</translation>
        </message>
        <message>
            <source>The appliance could not answer: the job is no longer waiting, or the job or card is gone.</source>
            <translation>设备无法答复：该作业已不在等待，或作业或卡已不存在。</translation>
        </message>
        <message>
            <source>It cannot run here.</source>
            <translation>不能在这里运行。</translation>
        </message>
        <message>
            <source>The host is down.</source>
            <translation>主机已停机。</translation>
        </message>
        <message>
            <source>The job is pinned to another host.</source>
            <translation>该作业被绑定到另一台主机。</translation>
        </message>
        <message>
            <source>Needs %1 on the host; only %2 are free.</source>
            <translation>需要主机上的 %1；只有 %2 空闲。</translation>
        </message>
        <message>
            <source>Needs %1 of host memory; only %2 is free.</source>
            <translation>需要 %1 主机内存；只有 %2 空闲。</translation>
        </message>
        <message>
            <source>Needs %1; the host has only %2 in all.</source>
            <translation>需要 %1；该主机总共只有 %2。</translation>
        </message>
        <message>
            <source>Needs %1 of host memory; the host has only %2 in all.</source>
            <translation>需要 %1 主机内存；该主机总共只有 %2。</translation>
        </message>
        <message>
            <source>The card has failed.</source>
            <translation>该卡已故障。</translation>
        </message>
        <message>
            <source>The job may not run on this card model (its affinity excludes it).</source>
            <translation>该作业不能在此型号的卡上运行（其亲和性排除了该型号）。</translation>
        </message>
        <message>
            <source>This card model has no such MIG profile.</source>
            <translation>此卡型号没有该 MIG 配置。</translation>
        </message>
        <message>
            <source>The job needs hard isolation (a MIG partition or a whole card); this card is soft-sliced.</source>
            <translation>该作业需要硬隔离（MIG 分区或整卡）；此卡为软切分。</translation>
        </message>
        <message>
            <source>Needs %1 of card memory; this card offers at most %2.</source>
            <translation>需要 %1 显存；此卡最多提供 %2。</translation>
        </message>
        <message>
            <source>Needs %1 of card memory; only %2 is free.</source>
            <translation>需要 %1 显存；只有 %2 空闲。</translation>
        </message>
        <message>
            <source>Needs %1; only %2 is free.</source>
            <translation>需要 %1；只有 %2 空闲。</translation>
        </message>
        <message>
            <source>Every partition of this card that would fit is busy.</source>
            <translation>此卡上所有合适的分区都在使用中。</translation>
        </message>
        <message>
            <source>The card must be repartitioned first.</source>
            <translation>必须先对该卡重新分区。</translation>
        </message>
        <message>
            <source>The card already serves its limit of %1 clients.</source>
            <translation>该卡已服务达到上限的 %1 个客户端。</translation>
        </message>
        <message>
            <source>The card is being reconfigured.</source>
            <translation>该卡正在重新配置。</translation>
        </message>
        <message>
            <source>Needs %1 cards on one host; at most %2 are available.</source>
            <translation>需要同一主机上的 %1 张卡；最多只有 %2 张可用。</translation>
        </message>
        <message>
            <source>Needs %1 cards in one fast-link domain; at most %2 are free in one.</source>
            <translation>需要同一高速互联域中的 %1 张卡；单个域中最多只有 %2 张空闲。</translation>
        </message>
        <message>
            <source>Needs %1 of compute; its class has used up its budget for now.</source>
            <translation>需要 %1 的算力；其类别目前已用完预算。</translation>
        </message>
        <message>
            <source>Needs %1 of compute; its class may use only %2 more now.</source>
            <translation>需要 %1 的算力；其类别目前最多还能使用 %2。</translation>
        </message>
        <message>
            <source>The appliance has no hosts.</source>
            <translation>设备没有主机。</translation>
        </message>
        <message>
            <source>Refused (%1).</source>
            <translation>已拒绝（%1）。</translation>
        </message>
        <message>
            <source>Read-only: applying changes to the hardware is off in Settings.</source>
            <translation>只读：设置中已关闭“对硬件应用更改”。</translation>
        </message>
        <message>
            <source>Read-only: the console has no permission to change MIG (run it as root or grant CAP_SYS_ADMIN).</source>
            <translation>只读：控制台没有更改 MIG 的权限（请以 root 运行或授予 CAP_SYS_ADMIN）。</translation>
        </message>
        <message>
            <source>Read-only: MIG is not enabled on any card.</source>
            <translation>只读：没有任何卡启用 MIG。</translation>
        </message>
        <message>
            <source>Read-only: the service at %1 is not reachable; the picture is the last one read. Reconnecting…</source>
            <translation>只读：无法连接位于 %1 的服务；显示的是最后读到的画面。正在重新连接…</translation>
        </message>
        <message>
            <source>Read-only: %1 may only read; changes need membership of the %2 group.</source>
            <translation>只读：%1 只能查看；更改需要是 %2 组的成员。</translation>
        </message>
        <message>
            <source>Read-only: the service is shutting down and takes no changes.</source>
            <translation>只读：服务正在关闭，不再接受更改。</translation>
        </message>
        <message>
            <source>Read-only: %1</source>
            <translation>只读：%1</translation>
        </message>
        <message>
            <source>static split</source>
            <translation>静态划分</translation>
        </message>
        <message>
            <source>time windows</source>
            <translation>时间窗</translation>
        </message>
        <message>
            <source>latency guard</source>
            <translation>延迟守护</translation>
        </message>
        <message>
            <source>forecast-driven</source>
            <translation>预测驱动</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>day</source>
            <translation>白天</translation>
        </message>
        <message>
            <source>night</source>
            <translation>夜间</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::RepartitionEditor</name>
        <message>
            <source>whole-card</source>
            <translation>整卡</translation>
        </message>
        <message>
            <source>MIG</source>
            <translation>MIG</translation>
        </message>
        <message>
            <source>time-slicing</source>
            <translation>时间片</translation>
        </message>
        <message>
            <source>MPS</source>
            <translation>MPS</translation>
        </message>
        <message>
            <source>Choose a card to repartition.</source>
            <translation>请选择要重新分区的卡。</translation>
        </message>
        <message>
            <source>Waiting for the appliance's first snapshot.</source>
            <translation>正在等待一体机的第一个快照。</translation>
        </message>
        <message>
            <source>The appliance has no such card.</source>
            <translation>一体机中没有这张卡。</translation>
        </message>
        <message>
            <source>%1 cards have no MIG: this card cannot be partitioned here.</source>
            <translation>%1 卡不支持 MIG：无法在此对这张卡分区。</translation>
        </message>
        <message>
            <source>This card runs in %1 mode, not MIG: its layout cannot be edited here.</source>
            <translation>这张卡运行在%1模式而非 MIG：无法在此编辑其布局。</translation>
        </message>
        <message>
            <source>This card has failed: its layout cannot be changed until it recovers.</source>
            <translation>这张卡已故障：恢复之前无法更改其布局。</translation>
        </message>
        <message>
            <source>The card's host is down: its layout cannot be changed now.</source>
            <translation>这张卡所在的主机已宕机：现在无法更改其布局。</translation>
        </message>
        <message>
            <source>changes are not allowed</source>
            <translation>不允许更改</translation>
        </message>
        <message>
            <source>The appliance is read-only (%1): changes cannot be applied.</source>
            <translation>一体机为只读（%1）：无法应用更改。</translation>
        </message>
        <message>
            <source>A change of this card is being applied.</source>
            <translation>正在对这张卡应用一项变更。</translation>
        </message>
        <message>
            <source>The planned layout is the card's current layout: nothing to apply.</source>
            <translation>计划布局与该卡当前布局相同：无需应用。</translation>
        </message>
        <message>
            <source>The appliance is still planning this change.</source>
            <translation>设备仍在规划此更改。</translation>
        </message>
        <message>
            <source>The appliance cannot plan this change: %1</source>
            <translation>一体机无法规划此变更：%1</translation>
        </message>
        <message>
            <source>Done: the card has the planned layout now.</source>
            <translation>完成：该卡现已采用计划布局。</translation>
        </message>
        <message>
            <source>The change is done, but the card has changed since: it now holds %1.</source>
            <translation>变更已完成，但该卡此后又有变化：现在为 %1。</translation>
        </message>
        <message>
            <source>no instances</source>
            <translation>无实例</translation>
        </message>
        <message>
            <source>Wait until the change being applied is done.</source>
            <translation>请等待正在应用的变更完成。</translation>
        </message>
        <message>
            <source>The planned layout already is that.</source>
            <translation>计划布局已经是这样了。</translation>
        </message>
        <message>
            <source>Planned: %1.</source>
            <translation>已计划：%1。</translation>
        </message>
        <message>
            <source>add %1</source>
            <translation>添加 %1</translation>
        </message>
        <message>
            <source>Select an instance on the planned row first.</source>
            <translation>请先在计划行中选择一个实例。</translation>
        </message>
        <message>
            <source>remove %1</source>
            <translation>移除 %1</translation>
        </message>
        <message>
            <source>Select one instance on the planned row to split.</source>
            <translation>请在计划行中选择一个要拆分的实例。</translation>
        </message>
        <message>
            <source>split %1</source>
            <translation>拆分 %1</translation>
        </message>
        <message>
            <source>Select two instances side by side to merge (Ctrl+click the second).</source>
            <translation>请选择两个相邻的实例进行合并（按住 Ctrl 单击第二个）。</translation>
        </message>
        <message>
            <source>merge %1 and %2</source>
            <translation>合并 %1 和 %2</translation>
        </message>
        <message>
            <source>, </source>
            <translation>、</translation>
        </message>
        <message>
            <source>Choose a layout…</source>
            <translation>选择布局…</translation>
        </message>
        <message>
            <source>Current layout</source>
            <translation>当前布局</translation>
        </message>
        <message>
            <source>Empty</source>
            <translation>空</translation>
        </message>
        <message>
            <source>preset: current layout</source>
            <translation>预设：当前布局</translation>
        </message>
        <message>
            <source>preset: empty</source>
            <translation>预设：空</translation>
        </message>
        <message>
            <source>There is no such preset.</source>
            <translation>没有这个预设。</translation>
        </message>
        <message>
            <source>preset %1</source>
            <translation>预设 %1</translation>
        </message>
        <message>
            <source>There is no preset named “%1”.</source>
            <translation>没有名为“%1”的预设。</translation>
        </message>
        <message>
            <source>Apply this layout to the real card now?</source>
            <translation>现在将此布局应用到真实的卡上吗？</translation>
        </message>
        <message>
            <source>Apply this layout now?</source>
            <translation>现在应用此布局吗？</translation>
        </message>
        <message>
            <source>These jobs go back to the queue and lose the work since their last checkpoint: %1</source>
            <translation>这些作业将回到队列，并丢失自上次检查点以来的工作：%1</translation>
        </message>
        <message>
            <source>Apply the layout</source>
            <translation>应用布局</translation>
        </message>
        <message>
            <source>Not applied.</source>
            <translation>未应用。</translation>
        </message>
        <message>
            <source>Applying the planned layout…</source>
            <translation>正在应用计划布局…</translation>
        </message>
        <message>
            <source>Draining: waiting for %1 to leave at a checkpoint; at %2 at the latest the rest leave at once.</source>
            <translation>排空中：等待 %1 在检查点处离开；最迟在 %2，其余作业将立即离开。</translation>
        </message>
        <message>
            <source>The appliance refused the change: %1</source>
            <translation>一体机拒绝了此变更：%1</translation>
        </message>
        <message>
            <source>Applied: the card is being repartitioned…</source>
            <translation>已应用：正在对该卡重新分区…</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>No plan: there is no MIG card to repartition.</source>
            <translation>无计划：没有可重新分区的 MIG 卡。</translation>
        </message>
        <message>
            <source>No change: the planned layout is the card's current layout.</source>
            <translation>无变更：计划布局与该卡当前布局相同。</translation>
        </message>
        <message>
            <source>Destroy %1, create %2.</source>
            <translation>销毁 %1 个，创建 %2 个。</translation>
        </message>
        <message>
            <source>Affected jobs: asking the appliance…</source>
            <translation>受影响的作业：正在询问一体机…</translation>
        </message>
        <message>
            <source>Expected time: asking the appliance…</source>
            <translation>预计耗时：正在询问一体机…</translation>
        </message>
        <message>
            <source>Affected jobs: none</source>
            <translation>受影响的作业：无</translation>
        </message>
        <message>
            <source>Affected jobs: %1</source>
            <translation>受影响的作业：%1</translation>
        </message>
        <message>
            <source>Expected time: %1</source>
            <translation>预计耗时：%1</translation>
        </message>
        <message>
            <source>Jobs on destroyed instances leave at their next checkpoint; at the deadline the rest leave at once.</source>
            <translation>被销毁实例上的作业会在下一个检查点离开；到截止时间时，其余作业立即离开。</translation>
        </message>
        <message>
            <source>Jobs on destroyed instances go back to the queue at once and lose the work done since their last checkpoint.</source>
            <translation>被销毁实例上的作业会立即回到队列，并丢失自上一个检查点以来的工作。</translation>
        </message>
        <message>
            <source>Repartition: no card</source>
            <translation>重新分区：未选择卡</translation>
        </message>
        <message>
            <source>Repartition %1 GPU %2 (%3)</source>
            <translation>重新分区 %1 GPU %2（%3）</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Undo %1</source>
            <translation>撤销%1</translation>
        </message>
        <message>
            <source>Redo</source>
            <translation>重做</translation>
        </message>
        <message>
            <source>Redo %1</source>
            <translation>重做%1</translation>
        </message>
        <message>
            <source>Profiles: drag one onto the planned row, or double-click it.</source>
            <translation>配置：拖到计划行上，或双击。</translation>
        </message>
        <message>
            <source>&amp;Remove</source>
            <translation>移除(&amp;R)</translation>
        </message>
        <message>
            <source>Remove the selected instances from the plan (Delete)</source>
            <translation>从计划中移除所选实例（Delete）</translation>
        </message>
        <message>
            <source>&amp;Split</source>
            <translation>拆分(&amp;S)</translation>
        </message>
        <message>
            <source>Replace the selected instance by the largest smaller ones that fit</source>
            <translation>用能放下的最大的较小实例替换所选实例</translation>
        </message>
        <message>
            <source>&amp;Merge</source>
            <translation>合并(&amp;M)</translation>
        </message>
        <message>
            <source>Replace two selected neighbours by one instance covering both</source>
            <translation>用一个覆盖两者的实例替换所选的两个相邻实例</translation>
        </message>
        <message>
            <source>Preset:</source>
            <translation>预设：</translation>
        </message>
        <message>
            <source>Plan</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Apply</source>
            <translation>应用</translation>
        </message>
        <message>
            <source>&amp;Immediate</source>
            <translation>立即(&amp;I)</translation>
        </message>
        <message>
            <source>&amp;Drain at checkpoints</source>
            <translation>在检查点排空(&amp;D)</translation>
        </message>
        <message>
            <source>Deadline:</source>
            <translation>截止时间：</translation>
        </message>
        <message>
            <source> min</source>
            <translation> 分钟</translation>
        </message>
        <message>
            <source>&amp;Apply</source>
            <translation>应用(&amp;A)</translation>
        </message>
        <message>
            <source>This layout is pinned until unpinned: the scheduler does not change it.</source>
            <translation>此布局已固定，直到取消固定：调度器不会更改它。</translation>
        </message>
        <message>
            <source>This layout is pinned until %1: the scheduler does not change it before then.</source>
            <translation>此布局已固定至 %1：在此之前调度器不会更改它。</translation>
        </message>
        <message>
            <source>&amp;Pin this layout (the scheduler will not change it)</source>
            <translation>固定此布局(&amp;P)（调度器不会更改它）</translation>
        </message>
        <message>
            <source>Until unpinned, the scheduler neither creates nor destroys instances on this card; its instances still take work.</source>
            <translation>取消固定之前，调度器不会在此卡上创建或销毁实例；其实例仍可接收作业。</translation>
        </message>
        <message>
            <source>&amp;Unpin</source>
            <translation>取消固定(&amp;U)</translation>
        </message>
        <message>
            <source>The layout could not be pinned: %1</source>
            <translation>无法固定布局：%1</translation>
        </message>
        <message>
            <source>Unpinned: the scheduler may change this card&apos;s layout again.</source>
            <translation>已取消固定：调度器可以再次更改此卡的布局。</translation>
        </message>
        <message>
            <source>proposed layout</source>
            <translation>建议的布局</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::RepartitionText</name>
        <message>
            <source>slot %1</source>
            <translation>槽位 %1</translation>
        </message>
        <message>
            <source>slots %1</source>
            <translation>槽位 %1</translation>
        </message>
        <message>
            <source>, </source>
            <translation>、</translation>
        </message>
        <message>
            <source>The layout is valid.</source>
            <translation>该布局有效。</translation>
        </message>
        <message>
            <source>%1 cards have no MIG partitions.</source>
            <translation>%1 卡不支持 MIG 分区。</translation>
        </message>
        <message>
            <source>%1 cards have no such MIG profile.</source>
            <translation>%1 卡没有这种 MIG 配置。</translation>
        </message>
        <message>
            <source>This profile cannot start at slot %1.</source>
            <translation>该配置不能从槽位 %1 开始。</translation>
        </message>
        <message>
            <source>%1 cannot start at slot %2: it may start only at %3.</source>
            <translation>%1 不能从槽位 %2 开始：它只能从%3开始。</translation>
        </message>
        <message>
            <source>%1 would overlap %2 on memory %3.</source>
            <translation>%1 会在显存%3与 %2 重叠。</translation>
        </message>
        <message>
            <source>A card can hold only one %1 instance.</source>
            <translation>一张卡只能容纳一个 %1 实例。</translation>
        </message>
        <message>
            <source>A card can hold at most %1 %2 instances.</source>
            <translation>一张卡最多只能容纳 %1 个 %2 实例。</translation>
        </message>
        <message>
            <source>Not enough compute: %1 would bring the card to %2 of its %3 compute slices.</source>
            <translation>算力不足：加上 %1 后该卡将占用 %2 个计算切片，超过其 %3 个。</translation>
        </message>
        <message>
            <source>%1 needs the card's media engines, which %2 already owns.</source>
            <translation>%1 需要该卡的媒体引擎，但它已归 %2 所有。</translation>
        </message>
        <message>
            <source>%1 cannot be split: no two smaller instances fit in its slots.</source>
            <translation>%1 无法拆分：其槽位中放不下两个更小的实例。</translation>
        </message>
        <message>
            <source>%1 cannot be merged: only two instances side by side can.</source>
            <translation>%1 无法合并：只有两个相邻的实例才能合并。</translation>
        </message>
        <message>
            <source> and </source>
            <translation> 和 </translation>
        </message>
        <message>
            <source>%1 cannot be merged: no profile of this card covers exactly their slots.</source>
            <translation>%1 无法合并：该卡没有恰好覆盖这些槽位的配置。</translation>
        </message>
        <message>
            <source>No room for another instance: %1</source>
            <translation>没有空间再放一个实例：%1</translation>
        </message>
        <message>
            <source>create %1</source>
            <translation>创建 %1</translation>
        </message>
        <message>
            <source>destroy %1 (serves %2)</source>
            <translation>销毁 %1（服务于 %2）</translation>
        </message>
        <message>
            <source>destroy %1</source>
            <translation>销毁 %1</translation>
        </message>
        <message>
            <source>about %1 s</source>
            <translation>约 %1 秒</translation>
        </message>
        <message>
            <source>about %1 min</source>
            <translation>约 %1 分钟</translation>
        </message>
        <message>
            <source>ready</source>
            <translation>就绪</translation>
        </message>
        <message>
            <source>creating</source>
            <translation>创建中</translation>
        </message>
        <message>
            <source>destroying</source>
            <translation>销毁中</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ScheduleEditor</name>
        <message>
            <source>Cannot go here: %1</source>
            <translation>不能放在这里：%1</translation>
        </message>
        <message>
            <source>Add window</source>
            <translation>添加时间窗</translation>
        </message>
        <message>
            <source>A new window in the week's first free time</source>
            <translation>在本周第一个空闲时段新建时间窗</translation>
        </message>
        <message>
            <source>Remove window</source>
            <translation>删除时间窗</translation>
        </message>
        <message>
            <source>Window</source>
            <translation>时间窗</translation>
        </message>
        <message>
            <source>&amp;Name:</source>
            <translation>名称(&amp;N)：</translation>
        </message>
        <message>
            <source>Days:</source>
            <translation>日期：</translation>
        </message>
        <message>
            <source>&amp;From:</source>
            <translation>开始(&amp;F)：</translation>
        </message>
        <message>
            <source>&amp;to</source>
            <translation>至(&amp;T)</translation>
        </message>
        <message>
            <source>When the window opens, local time</source>
            <translation>时间窗开启的时间（本地时间）</translation>
        </message>
        <message>
            <source>When it closes: before the opening time, the next day; the same time, the whole day</source>
            <translation>时间窗关闭的时间：早于开始时间表示次日；与开始时间相同表示全天</translation>
        </message>
        <message>
            <source>&amp;Inference share:</source>
            <translation>推理份额(&amp;I)：</translation>
        </message>
        <message>
            <source>Inference share</source>
            <translation>推理份额</translation>
        </message>
        <message>
            <source> %</source>
            <translation>%</translation>
        </message>
        <message>
            <source>Training &amp;bandwidth:</source>
            <translation>训练带宽(&amp;B)：</translation>
        </message>
        <message>
            <source>policy default</source>
            <translation>策略默认值</translation>
        </message>
        <message>
            <source>The training class's share of each host's PCIe and network paths</source>
            <translation>训练类在每台主机 PCIe 与网络通路上的份额</translation>
        </message>
        <message>
            <source>Training &amp;power cap:</source>
            <translation>训练功率上限(&amp;P)：</translation>
        </message>
        <message>
            <source> W</source>
            <translation> W</translation>
        </message>
        <message>
            <source>The training class's power over all its cards; 0 W: no cap</source>
            <translation>训练类在其全部卡上的总功率；0 W 表示不限</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>日程</translation>
        </message>
        <message>
            <source>&amp;Switch mode:</source>
            <translation>切换方式(&amp;S)：</translation>
        </message>
        <message>
            <source>drain (training leaves at its checkpoints)</source>
            <translation>排空（训练在检查点处退出）</translation>
        </message>
        <message>
            <source>immediate (training leaves at the edge)</source>
            <translation>立即（训练在切换时刻退出）</translation>
        </message>
        <message>
            <source>Next switches</source>
            <translation>接下来的切换</translation>
        </message>
        <message>
            <source>&amp;Apply</source>
            <translation>应用(&amp;A)</translation>
        </message>
        <message>
            <source>Make this schedule the policy in force</source>
            <translation>使此日程成为当前生效的策略</translation>
        </message>
        <message>
            <source>&amp;Revert</source>
            <translation>还原(&amp;R)</translation>
        </message>
        <message>
            <source>Back to the schedule last loaded or applied</source>
            <translation>回到上次载入或应用的日程</translation>
        </message>
        <message>
            <source>Time zone: %1</source>
            <translation>时区：%1</translation>
        </message>
        <message>
            <source>Time zone: not known yet</source>
            <translation>时区：尚未知</translation>
        </message>
        <message>
            <source>Policy in force: %1</source>
            <translation>生效策略：%1</translation>
        </message>
        <message>
            <source>Policy in force: %1 (‘%2’)</source>
            <translation>生效策略：%1（“%2”）</translation>
        </message>
        <message>
            <source>This schedule cannot be edited: %1</source>
            <translation>无法编辑此日程：%1</translation>
        </message>
        <message>
            <source>Not applied: no appliance is connected.</source>
            <translation>未应用：未连接设备。</translation>
        </message>
        <message>
            <source>Not applied: the appliance is read-only.</source>
            <translation>未应用：设备为只读。</translation>
        </message>
        <message>
            <source>Not applied: %1</source>
            <translation>未应用：%1</translation>
        </message>
        <message>
            <source>Applying the schedule…</source>
            <translation>正在应用日程…</translation>
        </message>
        <message>
            <source>Applied: this schedule is the policy in force.</source>
            <translation>已应用：此日程现为生效策略。</translation>
        </message>
        <message>
            <source>The appliance refused the schedule: %1</source>
            <translation>设备拒绝了该日程：%1</translation>
        </message>
        <message>
            <source>Reverted to the schedule last loaded or applied.</source>
            <translation>已还原到上次载入或应用的日程。</translation>
        </message>
        <message>
            <source>all day</source>
            <translation>全天</translation>
        </message>
        <message>
            <source>%1–%2</source>
            <translation>%1–%2</translation>
        </message>
        <message>
            <source>‘%1’: %2 %3, inference %4.</source>
            <translation>“%1”：%2 %3，推理 %4。</translation>
        </message>
        <message>
            <source>move ‘%1’</source>
            <translation>移动“%1”</translation>
        </message>
        <message>
            <source>Not moved: %1</source>
            <translation>未移动：%1</translation>
        </message>
        <message>
            <source>resize ‘%1’</source>
            <translation>调整“%1”时长</translation>
        </message>
        <message>
            <source>Not resized: %1</source>
            <translation>未调整时长：%1</translation>
        </message>
        <message>
            <source>edit ‘%1’</source>
            <translation>编辑“%1”</translation>
        </message>
        <message>
            <source>Not changed: %1</source>
            <translation>未更改：%1</translation>
        </message>
        <message>
            <source>Not added: the week has no free time; shorten a window first.</source>
            <translation>未添加：本周没有空闲时段，请先缩短某个时间窗。</translation>
        </message>
        <message>
            <source>window %1</source>
            <translation>时间窗 %1</translation>
        </message>
        <message>
            <source>Not added: %1</source>
            <translation>未添加：%1</translation>
        </message>
        <message>
            <source>add ‘%1’</source>
            <translation>添加“%1”</translation>
        </message>
        <message>
            <source>Not removed: %1</source>
            <translation>未删除：%1</translation>
        </message>
        <message>
            <source>remove ‘%1’</source>
            <translation>删除“%1”</translation>
        </message>
        <message>
            <source>Removed ‘%1’.</source>
            <translation>已删除“%1”。</translation>
        </message>
        <message>
            <source>set the switch mode</source>
            <translation>设置切换方式</translation>
        </message>
        <message>
            <source>The appliance's clock is not known yet.</source>
            <translation>尚不知道设备的时钟。</translation>
        </message>
        <message>
            <source>%1 %2 → %3 (inference %4)</source>
            <translation>%1 %2 → %3（推理 %4）</translation>
        </message>
        <message>
            <source>%1 %2 → no window (inference %3, the default)</source>
            <translation>%1 %2 → 无时间窗（推理 %3，默认值）</translation>
        </message>
        <message>
            <source>No switches: the same all week.</source>
            <translation>无切换：整周都相同。</translation>
        </message>
        <message>
            <source>Checking what this schedule will do…</source>
            <translation>正在核对此时间表将带来的变化…</translation>
        </message>
        <message>
            <source>Not applied: the schedule in force stays.</source>
            <translation>未应用：保留当前生效的时间表。</translation>
        </message>
        <message>
            <source>The appliance changed since you confirmed; checking again…</source>
            <translation>确认之后设备状态已变化，正在重新核对…</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ScheduleTimeline</name>
        <message>
            <source>Weekly schedule</source>
            <translation>每周日程</translation>
        </message>
        <message>
            <source>%1: %2, inference %3</source>
            <translation>%1：%2，推理 %3</translation>
        </message>
        <message>
            <source>forecast load</source>
            <translation>预测负载</translation>
        </message>
        <message>
            <source>observed load</source>
            <translation>观测负载</translation>
        </message>
        <message>
            <source>now</source>
            <translation>现在</translation>
        </message>
        <message>
            <source>%1 · %2</source>
            <translation>%1 · %2</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::SettingsDialog</name>
        <message>
            <source>As fast as possible</source>
            <translation>尽可能快</translation>
        </message>
        <message>
            <source>%1×</source>
            <translation>%1×</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source> °C</source>
            <translation> °C</translation>
        </message>
        <message>
            <source> %</source>
            <translation> %</translation>
        </message>
        <message>
            <source>Apply partition changes to real hardware</source>
            <translation>对真实硬件应用分区更改</translation>
        </message>
        <message>
            <source>Off: the console only reads real cards. On: repartitions can be applied, each after a confirmation, when the console has the privileges to change MIG.</source>
            <translation>关闭：控制台只读取真实的卡。打开：在控制台有更改 MIG 的权限时，可以应用重新分区，每次都需确认。</translation>
        </message>
        <message>
            <source> ms</source>
            <translation> 毫秒</translation>
        </message>
        <message>
            <source>General</source>
            <translation>常规</translation>
        </message>
        <message>
            <source>Language:</source>
            <translation>语言：</translation>
        </message>
        <message>
            <source>Simulation speed:</source>
            <translation>模拟速度：</translation>
        </message>
        <message>
            <source>Card badges</source>
            <translation>卡片标记</translation>
        </message>
        <message>
            <source>Temperature amber at:</source>
            <translation>温度琥珀色阈值：</translation>
        </message>
        <message>
            <source>Temperature red at:</source>
            <translation>温度红色阈值：</translation>
        </message>
        <message>
            <source>Power amber at (of the limit):</source>
            <translation>功率琥珀色阈值（占上限）：</translation>
        </message>
        <message>
            <source>Power red at (of the limit):</source>
            <translation>功率红色阈值（占上限）：</translation>
        </message>
        <message>
            <source>Real hardware (NVML)</source>
            <translation>真实硬件（NVML）</translation>
        </message>
        <message>
            <source>Read the cards every:</source>
            <translation>读取卡片的间隔：</translation>
        </message>
        <message>
            <source>Card badges (models without their own limits)</source>
            <translation>卡片标记（无自身限值的型号）</translation>
        </message>
        <message>
            <source>A card is judged against its model&apos;s slowdown and shutdown temperatures (the catalogue, or the driver&apos;s own). These numbers apply only to a card whose model gives none.</source>
            <translation>卡片按其型号的降频与关机温度判断（来自目录，或驱动自身的阈值）。以下数值仅用于型号未给出这些温度的卡。</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::WhyView</name>
        <message>
            <source>By Zhaoxi&apos;s analysis at %1 it fits on %2 now; Slurm keeps it waiting for its own reason above.</source>
            <translation>按朝夕在 %1 的分析，它现在可以放在 %2 上；Slurm 因上述自身原因让它继续等待。</translation>
        </message>
        <message>
            <source>Slurm job %1 (user %2, partition %3): %4.</source>
            <translation>Slurm 作业 %1（用户 %2，分区 %3）：%4。</translation>
        </message>
        <message>
            <source>Slurm&apos;s reason: %1.</source>
            <translation>Slurm 的原因：%1。</translation>
        </message>
        <message numerus="yes">
            <source>Slurm requeued it %n time(s).</source>
            <translation>
                <numerusform>Slurm 已将其重新排队 %n 次。</numerusform>
            </translation>
        </message>
        <message>
            <source>Why?</source>
            <translation>原因？</translation>
        </message>
        <message>
            <source>Select a job to see why it waits, why it runs where it does, or why it was preempted.</source>
            <translation>选择一个作业，查看它为何等待、为何在此运行或为何被抢占。</translation>
        </message>
        <message>
            <source>Why? Job #%1</source>
            <translation>原因？作业 #%1</translation>
        </message>
        <message>
            <source>The appliance does not know this job yet.</source>
            <translation>设备尚不知道此作业。</translation>
        </message>
        <message>
            <source>waiting</source>
            <translation>等待中</translation>
        </message>
        <message>
            <source>running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>being preempted</source>
            <translation>正在被抢占</translation>
        </message>
        <message>
            <source>finished</source>
            <translation>已完成</translation>
        </message>
        <message>
            <source>cancelled</source>
            <translation>已取消</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>已失败</translation>
        </message>
        <message>
            <source>Why? Job %1 is %2</source>
            <translation>原因？作业 %1 %2</translation>
        </message>
        <message numerus="yes">
            <source>%n whole card(s)</source>
            <translation>
                <numerusform>%n 张整卡</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n MIG partition(s) %1</source>
            <translation>
                <numerusform>%n 个 MIG 分区 %1</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n MIG partition(s) of at least %1 slices</source>
            <translation>
                <numerusform>%n 个至少 %1 个切片的 MIG 分区</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n share(s) of %1% of a card</source>
            <translation>
                <numerusform>%n 份，每份为一张卡的 %1%</numerusform>
            </translation>
        </message>
        <message>
            <source>host CPU and memory only</source>
            <translation>仅主机 CPU 和内存</translation>
        </message>
        <message>
            <source>It asks for %1 (priority %2).</source>
            <translation>它需要 %1（优先级 %2）。</translation>
        </message>
        <message>
            <source>No decision about this job has been seen since the console started; the scheduler explains it at its next try.</source>
            <translation>自控制台启动以来尚未看到对此作业的调度决策；调度器会在下次尝试时给出说明。</translation>
        </message>
        <message>
            <source>It ended at %1.</source>
            <translation>它于 %1 结束。</translation>
        </message>
        <message>
            <source>At %1 the scheduler could not place it: %2</source>
            <translation>%1 时调度器无法放置它：%2</translation>
        </message>
        <message>
            <source>training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>batch</source>
            <translation>批处理</translation>
        </message>
        <message>
            <source>The %1 class budget is the limit: it needs %2 cards, the class may use %3 more now. The budget follows the time windows and the load of the services.</source>
            <translation>限制来自%1类别预算：它需要 %2 张卡，该类别当前还可使用 %3 张。预算随时间窗口和服务负载变化。</translation>
        </message>
        <message numerus="yes">
            <source>%n host(s) looked at</source>
            <translation>
                <numerusform>考察了 %n 台主机</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n could take it.</source>
            <translation>
                <numerusform>其中 %n 台可以容纳。</numerusform>
            </translation>
        </message>
        <message>
            <source>Why each host turned it down:</source>
            <translation>各主机拒绝的原因：</translation>
        </message>
        <message>
            <source>%1: %2</source>
            <translation>%1：%2</translation>
        </message>
        <message numerus="yes">
            <source>(%n card(s) rejected)</source>
            <translation>
                <numerusform>（拒绝了 %n 张卡）</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>(and %n more host(s) for the same reason)</source>
            <translation>
                <numerusform>（另有 %n 台主机原因相同）</numerusform>
            </translation>
        </message>
        <message>
            <source>[check: %1]</source>
            <translation>[检查项：%1]</translation>
        </message>
        <message>
            <source>Nothing on this appliance can change that: neither preemption nor repartitioning would help.</source>
            <translation>本设备上无法改变这一点：抢占和重新分区都无济于事。</translation>
        </message>
        <message>
            <source>It runs on %1 since %2:</source>
            <translation>自 %2 起在 %1 上运行：</translation>
        </message>
        <message>
            <source>the whole card</source>
            <translation>整张卡</translation>
        </message>
        <message>
            <source>a %1% share</source>
            <translation>%1% 的份额</translation>
        </message>
        <message>
            <source>%1 card %2 (%3): %4</source>
            <translation>%1 卡 %2（%3）：%4</translation>
        </message>
        <message>
            <source>At %1 it was given %2; it starts there once the jobs it preempts have left.</source>
            <translation>%1 时它被分配到 %2；被它抢占的作业离开后即在该处启动。</translation>
        </message>
        <message numerus="yes">
            <source>Why here: at %1, %2 of %n host(s) could take it; the best:</source>
            <translation>
                <numerusform>为何在此：%1 时，%n 台主机中有 %2 台可以容纳；最佳候选：</numerusform>
            </translation>
        </message>
        <message>
            <source>%1 %2</source>
            <translation>%1 %2</translation>
        </message>
        <message>
            <source>%1: score %2</source>
            <translation>%1：得分 %2</translation>
        </message>
        <message>
            <source>— chosen</source>
            <translation>— 已选中</translation>
        </message>
        <message>
            <source>The best scores were equal; the host's rank decided.</source>
            <translation>最高得分相同，由主机排名决定。</translation>
        </message>
        <message>
            <source>To make room it preempted:</source>
            <translation>为腾出空间，它抢占了：</translation>
        </message>
        <message>
            <source>%1 (priority %2): loses %3 of work, leaves at %4</source>
            <translation>%1（优先级 %2）：损失 %3 的工作量，于 %4 离开</translation>
        </message>
        <message>
            <source>%1 (priority %2): loses no work, leaves at %3</source>
            <translation>%1（优先级 %2）：不损失工作量，于 %3 离开</translation>
        </message>
        <message>
            <source>%1 (priority %2)</source>
            <translation>%1（优先级 %2）</translation>
        </message>
        <message>
            <source>It is being preempted by %1: it leaves at %2.</source>
            <translation>它正在被 %1 抢占：将于 %2 离开。</translation>
        </message>
        <message>
            <source>It was preempted by %1 at %2 and lost %3 of work.</source>
            <translation>它于 %2 被 %1 抢占，损失了 %3 的工作量。</translation>
        </message>
        <message>
            <source>It was preempted by %1 at %2 and lost no work.</source>
            <translation>它于 %2 被 %1 抢占，没有损失工作量。</translation>
        </message>
        <message>
            <source>It was preempted by %1 at %2.</source>
            <translation>它于 %2 被 %1 抢占。</translation>
        </message>
        <message numerus="yes">
            <source>%n MIG partition(s) of at least one slice</source>
            <translation>
                <numerusform>%n 个至少 1 个切片的 MIG 分区</numerusform>
            </translation>
        </message>
        <message>
            <source>It runs in alternative shape %1 of its spec: %2, at %3 of its primary shape&apos;s speed.</source>
            <translation>它以规格中的备选形态 %1 运行：%2，速度为主形态的 %3 倍。</translation>
        </message>
        <message>
            <source>The shapes it may run in, as the scheduler judged them at %1 (work per card: speed per card of compute it takes):</source>
            <translation>调度器在 %1 对其可用形态的评估（每卡工作量：每占用一张卡的算力所得的速度）：</translation>
        </message>
        <message>
            <source>%1 (its primary shape)</source>
            <translation>%1（主形态）</translation>
        </message>
        <message>
            <source>%1 (shape %2, speed %3)</source>
            <translation>%1（形态 %2，速度 %3）</translation>
        </message>
        <message>
            <source>%1: chosen, %2 work per card</source>
            <translation>%1：已选用，每卡工作量 %2</translation>
        </message>
        <message>
            <source>%1: fits, %2 work per card</source>
            <translation>%1：可放置，每卡工作量 %2</translation>
        </message>
        <message>
            <source>%1: too slow for its SLO: %2 ms a request leaves too little room under its p99 objective of %3 ms</source>
            <translation>%1：对其 SLO 太慢：每个请求 %2 毫秒，在 %3 毫秒的 p99 目标下余量太小</translation>
        </message>
        <message>
            <source>%1: no room now: %2</source>
            <translation>%1：目前没有空间：%2</translation>
        </message>
        <message>
            <source>(the gang&apos;s communication counted: %1% kept)</source>
            <translation>（已计入多卡作业组的通信开销：保留 %1%）</translation>
        </message>
    </context>
    <context>
        <name>main</name>
        <message>
            <source>Zhaoxi</source>
            <translation>朝夕</translation>
        </message>
        <message>
            <source>No NVIDIA driver found (%1).

Open the simulated appliance instead?</source>
            <translation>未找到 NVIDIA 驱动（%1）。

改为打开模拟一体机吗？</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CatchUp</name>
        <message>
            <source>Running the day up to %1…</source>
            <translation>正在将这一天运行到 %1…</translation>
        </message>
        <message>
            <source>Starting the day</source>
            <translation>正在开始这一天</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::OverviewView</name>
        <message>
            <source>Services</source>
            <translation>服务</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>%1: p99 %2 of %3 ms now; %4 within the SLO today; %5 of %6 replicas</source>
            <translation>%1：当前 p99 %2 ms（SLO %3 ms）；今日 %4 满足 SLO；副本 %5/%6</translation>
        </message>
        <message>
            <source>Training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>%1 of %2 card-hours delivered</source>
            <translation>已交付 %1 / %2 卡时</translation>
        </message>
        <message>
            <source>%1: %2 done</source>
            <translation>%1：已完成 %2</translation>
        </message>
        <message numerus="yes">
            <source>%n more running</source>
            <translation>
                <numerusform>另有 %n 个运行中</numerusform>
            </translation>
        </message>
        <message>
            <source>%1 waiting, %2 completed</source>
            <translation>%1 个等待，%2 个已完成</translation>
        </message>
        <message>
            <source>Cards now</source>
            <translation>当前的卡</translation>
        </message>
        <message>
            <source>inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>training</source>
            <translation>训练</translation>
        </message>
        <message>
            <source>batch</source>
            <translation>批处理</translation>
        </message>
        <message>
            <source>reconfiguring</source>
            <translation>重新配置中</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>空闲</translation>
        </message>
        <message>
            <source>lost</source>
            <translation>丢失</translation>
        </message>
        <message>
            <source>busy: %1 of %2 cards</source>
            <translation>繁忙：%1 / %2 张卡</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>等待</translation>
        </message>
        <message>
            <source>no job waits</source>
            <translation>没有等待的作业</translation>
        </message>
        <message numerus="yes">
            <source>%n job(s) waiting</source>
            <translation>
                <numerusform>%n 个作业等待中</numerusform>
            </translation>
        </message>
        <message>
            <source>the oldest: %1, for %2 h %3 min</source>
            <translation>等待最久：%1，已等 %2 小时 %3 分钟</translation>
        </message>
        <message>
            <source>window: %1</source>
            <translation>时间窗：%1</translation>
        </message>
        <message>
            <source>policy: %1</source>
            <translation>策略：%1</translation>
        </message>
        <message>
            <source>measured utilisation</source>
            <translation>实测利用率</translation>
        </message>
        <message>
            <source>cards</source>
            <translation>卡</translation>
        </message>
        <message>
            <source>Who held the cards, the last 24 hours (utilisation drawn over)</source>
            <translation>过去 24 小时各类工作占用的卡（叠加实测利用率）</translation>
        </message>
        <message>
            <source>Click a moment to move the charts and the event log to it</source>
            <translation>单击某一时刻，图表和事件日志将跳转到该时刻</translation>
        </message>
        <message>
            <source>Clear the selection</source>
            <translation>清除所选时段</translation>
        </message>
        <message>
            <source>%1 – %2 selected</source>
            <translation>已选 %1 – %2</translation>
        </message>
        <message>
            <source>Drag across the chart to choose a period, then compare what each policy would have done in it</source>
            <translation>在图表上拖动以选择一个时段，再比较各策略在该时段会有怎样的表现</translation>
        </message>
        <message>
            <source>Choose a period of at least 15 minutes</source>
            <translation>请选择至少 15 分钟的时段</translation>
        </message>
        <message>
            <source>Choose a period within what was recorded</source>
            <translation>请在已记录的范围内选择时段</translation>
        </message>
        <message>
            <source>Replay %1 – %2 under every policy, beside what happened</source>
            <translation>按每种策略重放 %1 – %2，并与实际情况对比</translation>
        </message>
        <message>
            <source>Click a moment to move the charts and the event log to it; drag across a period to compare the policies in it</source>
            <translation>点击某一时刻，图表和事件日志将跳转到该时刻；拖动选择一个时段，可比较各策略在该时段的表现</translation>
        </message>
        <message>
            <source>What if?…</source>
            <translation>假如…？</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::ScheduleConfirmDialog</name>
        <message numerus="yes">
            <source>Slurm reservation %1 is created: %2 (%n card(s)) for %3 from %4 for %5 h:mm (%6).</source>
            <translation>
                <numerusform>新建 Slurm 预留 %1：%2（%n 张卡），供 %3 使用，自 %4 起，时长 %5（时:分）（%6）。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Slurm reservation %1 changes: %2 (%n card(s)) for %3 from %4 for %5 h:mm (%6).</source>
            <translation>
                <numerusform>修改 Slurm 预留 %1：%2（%n 张卡），供 %3 使用，自 %4 起，时长 %5（时:分）（%6）。</numerusform>
            </translation>
        </message>
        <message>
            <source>Slurm reservation %1 is deleted.</source>
            <translation>删除 Slurm 预留 %1。</translation>
        </message>
        <message>
            <source>Slurm reservation %1 stays as it is.</source>
            <translation>Slurm 预留 %1 保持不变。</translation>
        </message>
        <message>
            <source>%1 (window ‘%2’)</source>
            <translation>%1（时间窗“%2”）</translation>
        </message>
        <message>
            <source>no limit</source>
            <translation>不限</translation>
        </message>
        <message>
            <source>job %1</source>
            <translation>作业 %1</translation>
        </message>
        <message>
            <source>at its checkpoint, %1</source>
            <translation>在检查点 %1 退出</translation>
        </message>
        <message>
            <source>at once</source>
            <translation>立即</translation>
        </message>
        <message>
            <source>%1 ms</source>
            <translation>%1 毫秒</translation>
        </message>
        <message>
            <source>cannot keep up</source>
            <translation>无法承载</translation>
        </message>
        <message>
            <source>Policy: %1 → %2.</source>
            <translation>策略：%1 → %2。</translation>
        </message>
        <message>
            <source>Training may hold %1 → %2; inference %3 → %4.</source>
            <translation>训练可占用 %1 → %2；推理 %3 → %4。</translation>
        </message>
        <message>
            <source>What training and inference may hold stays as it is.</source>
            <translation>训练与推理可占用的算力保持不变。</translation>
        </message>
        <message>
            <source>No running job is stopped.</source>
            <translation>不会停止任何运行中的作业。</translation>
        </message>
        <message numerus="yes">
            <source>%n training job(s) stop.</source>
            <translation>
                <numerusform>%n 个训练作业将停止。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n of them at once, losing %1 of work in all (h:mm).</source>
            <translation>
                <numerusform>其中 %n 个立即停止，共损失 %1 的工作（时:分）。</numerusform>
            </translation>
        </message>
        <message>
            <source>Each leaves at its next checkpoint and loses nothing.</source>
            <translation>每个作业都在下一个检查点退出，不损失工作。</translation>
        </message>
        <message>
            <source>%1 leaves %2.</source>
            <translation>%1：%2。</translation>
        </message>
        <message>
            <source>%1: %2 → %3 replicas.</source>
            <translation>%1：副本 %2 → %3。</translation>
        </message>
        <message>
            <source>%1’s SLO is at risk: about %2 at p99 at today’s load, against %3.</source>
            <translation>%1 的 SLO 有风险：按今日负载 p99 约 %2，目标 %3。</translation>
        </message>
        <message numerus="yes">
            <source>%n replica(s) move to another card.</source>
            <translation>
                <numerusform>%n 个副本将迁移到其他卡。</numerusform>
            </translation>
        </message>
        <message>
            <source>Apply this schedule?</source>
            <translation>应用此时间表？</translation>
        </message>
        <message>
            <source>Training it stops:</source>
            <translation>将停止的训练：</translation>
        </message>
        <message>
            <source>Job</source>
            <translation>作业</translation>
        </message>
        <message>
            <source>Leaves</source>
            <translation>退出时间</translation>
        </message>
        <message>
            <source>Lost work (h:mm)</source>
            <translation>损失的工作（时:分）</translation>
        </message>
        <message>
            <source>In all: %1 of work lost (h:mm).</source>
            <translation>合计损失 %1 的工作（时:分）。</translation>
        </message>
        <message>
            <source>Inference services:</source>
            <translation>推理服务：</translation>
        </message>
        <message>
            <source>Service</source>
            <translation>服务</translation>
        </message>
        <message>
            <source>Replicas</source>
            <translation>副本</translation>
        </message>
        <message>
            <source>p99 at today’s load</source>
            <translation>今日负载下的 p99</translation>
        </message>
        <message>
            <source>SLO</source>
            <translation>SLO</translation>
        </message>
        <message>
            <source>%1 → %2</source>
            <translation>%1 → %2</translation>
        </message>
        <message>
            <source>SLO at risk</source>
            <translation>SLO 有风险</translation>
        </message>
        <message>
            <source>Keep the schedule in force</source>
            <translation>保留当前时间表</translation>
        </message>
        <message>
            <source>Apply schedule</source>
            <translation>应用时间表</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::TileText</name>
        <message>
            <source>cordoned</source>
            <translation>已封锁</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::CardTimelineView</name>
        <message>
            <source>%1 at slot %2</source>
            <translation>%1（起始槽位 %2）</translation>
        </message>
        <message>
            <source>the whole card</source>
            <translation>整张卡</translation>
        </message>
        <message>
            <source>share %1 (%2% of the card)</source>
            <translation>份额 %1（占卡的 %2%）</translation>
        </message>
        <message>
            <source>now</source>
            <translation>现在</translation>
        </message>
        <message>
            <source>%1 being created or destroyed, %2–%3</source>
            <translation>%1 正在创建或销毁，%2–%3</translation>
        </message>
        <message>
            <source>%1 free, %2–%3</source>
            <translation>%1 空闲，%2–%3</translation>
        </message>
        <message>
            <source>%1 on %2, %3–%4</source>
            <translation>%1 使用 %2，%3–%4</translation>
        </message>
        <message>
            <source>Layouts and holders over the day: nothing seen yet</source>
            <translation>全天的布局与占用：尚无记录</translation>
        </message>
        <message>
            <source>Layouts and holders over the day</source>
            <translation>全天的布局与占用</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::PartitionChart</name>
        <message>
            <source>Select a partition to see its history.</source>
            <translation>选择一个分区以查看其历史。</translation>
        </message>
        <message>
            <source>History of %1</source>
            <translation>%1 的历史</translation>
        </message>
        <message>
            <source>Memory in use</source>
            <translation>已用显存</translation>
        </message>
        <message>
            <source>Utilisation</source>
            <translation>利用率</translation>
        </message>
        <message>
            <source>Memory in use (GiB)</source>
            <translation>已用显存（GiB）</translation>
        </message>
        <message>
            <source>Utilisation (%)</source>
            <translation>利用率（%）</translation>
        </message>
        <message>
            <source>Local time</source>
            <translation>本地时间</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::WhatIfModel</name>
        <message>
            <source>recorded</source>
            <translation>已记录</translation>
        </message>
        <message>
            <source>%1 (ran)</source>
            <translation>%1（实际运行）</translation>
        </message>
        <message>
            <source>What actually happened in this period</source>
            <translation>该时段实际发生的情况</translation>
        </message>
        <message>
            <source>The policy in force when the period was recorded, replayed</source>
            <translation>记录该时段时生效的策略（重放结果）</translation>
        </message>
        <message>
            <source>The recorded period replayed under this policy</source>
            <translation>以该策略重放所记录的时段</translation>
        </message>
        <message>
            <source>Best in this column</source>
            <translation>本列最佳</translation>
        </message>
        <message>
            <source>Policy</source>
            <translation>策略</translation>
        </message>
        <message>
            <source>SLO %</source>
            <translation>SLO 达成率 %</translation>
        </message>
        <message>
            <source>p99 ms</source>
            <translation>p99（毫秒）</translation>
        </message>
        <message>
            <source>Training h</source>
            <translation>训练（卡时）</translation>
        </message>
        <message>
            <source>% of bound</source>
            <translation>占上界 %</translation>
        </message>
        <message>
            <source>Lost h</source>
            <translation>损失（卡时）</translation>
        </message>
        <message>
            <source>Reconfigurations</source>
            <translation>重新配置次数</translation>
        </message>
        <message>
            <source>Preemptions</source>
            <translation>抢占次数</translation>
        </message>
        <message>
            <source>kWh</source>
            <translation>千瓦时</translation>
        </message>
        <message>
            <source>%1 SLO %</source>
            <translation>%1 SLO 达成率 %</translation>
        </message>
        <message>
            <source>Requests answered within their service&apos;s SLO, all services</source>
            <translation>所有服务在各自 SLO 内完成的请求比例</translation>
        </message>
        <message>
            <source>99th percentile latency, all services</source>
            <translation>所有服务的第 99 百分位延迟</translation>
        </message>
        <message>
            <source>Training work done, in reference card-hours</source>
            <translation>完成的训练工作量（参考卡时）</translation>
        </message>
        <message>
            <source>Training work done against the fluid upper bound of the period</source>
            <translation>完成的训练工作量占该时段流体上界的比例</translation>
        </message>
        <message>
            <source>Training work lost to preemptions and faults, in reference card-hours</source>
            <translation>因抢占和故障损失的训练工作量（参考卡时）</translation>
        </message>
        <message>
            <source>Partition changes made</source>
            <translation>分区变更次数</translation>
        </message>
        <message>
            <source>Jobs preempted</source>
            <translation>被抢占的作业数</translation>
        </message>
        <message>
            <source>Energy used by the cards</source>
            <translation>显卡消耗的电能</translation>
        </message>
        <message>
            <source>Requests of %1 answered within its SLO</source>
            <translation>%1 在其 SLO 内完成的请求比例</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::WhatIfDialog</name>
        <message>
            <source>%1 – %2 (%3), %4 h</source>
            <translation>%1 – %2（%3），%4 小时</translation>
        </message>
        <message>
            <source>What if? %1</source>
            <translation>假如…？%1</translation>
        </message>
        <message>
            <source>The recorded period replayed in the twin under each policy, beside what actually happened.</source>
            <translation>在数字孪生中按每种策略重放所记录的时段，并与实际发生的情况并列对比。</translation>
        </message>
        <message>
            <source>Bold: the best value of its column. Underlined: the policy that ran (its replay). “recorded” is what happened: its p99 is the request-weighted mean of the recorded minutes&apos; p99, its bound the replays&apos;.</source>
            <translation>粗体：该列的最佳值。下划线：实际运行的策略（其重放结果）。“已记录”为实际发生的情况：其 p99 为所记录各分钟 p99 按请求数加权的平均值，其上界取自重放结果。</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Reading the recorded period…</source>
            <translation>正在读取所记录的时段…</translation>
        </message>
        <message>
            <source>Replaying under %1 (%2 of %3)…</source>
            <translation>正在按“%1”重放（第 %2 个，共 %3 个）…</translation>
        </message>
        <message>
            <source>Ran under %1 when it was recorded.</source>
            <translation>记录时运行的策略：%1。</translation>
        </message>
        <message>
            <source>Recorded by “%1” (seed %2). Services with recorded requests: %3; training and batch jobs: %4; faults: %5.</source>
            <translation>记录来源：“%1”（随机种子 %2）。有请求记录的服务：%3；训练和批处理作业：%4；故障：%5。</translation>
        </message>
        <message>
            <source>What the replay had to approximate:</source>
            <translation>重放中做了近似处理之处（原文）：</translation>
        </message>
        <message>
            <source>Cancelled.</source>
            <translation>已取消。</translation>
        </message>
        <message>
            <source>The appliance&apos;s store cannot be read, so there is nothing to replay.</source>
            <translation>无法读取设备的存储，因此没有可重放的内容。</translation>
        </message>
        <message>
            <source>Nothing was recorded in this period: the store holds no run that started before %1.</source>
            <translation>该时段没有任何记录：存储中没有在 %1 之前开始的运行。</translation>
        </message>
        <message>
            <source>This period cannot be replayed.</source>
            <translation>该时段无法重放。</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::AdvicePanel</name>
        <message>
            <source>Apply the advice</source>
            <translation>应用建议</translation>
        </message>
        <message>
            <source>Change the schedule: %1?</source>
            <translation>修改日程：%1？</translation>
        </message>
        <message>
            <source>The schedule editor then previews the new schedule and asks again before it stops or moves any work; the change is recorded in the audit log.</source>
            <translation>随后日程编辑器会预览新日程，并在停止或迁移任何工作之前再次确认；此次修改会记入审计日志。</translation>
        </message>
        <message>
            <source>Apply…</source>
            <translation>应用…</translation>
        </message>
        <message>
            <source>Suggestions from what the store recorded: each change comes with its evidence and a replay of the recorded days that proves it.</source>
            <translation>根据存储中的记录给出的建议：每项修改都附有依据，并通过重放所记录的各天加以验证。</translation>
        </message>
        <message>
            <source>Look for advice</source>
            <translation>查找建议</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Replaying up to %1 recorded days…</source>
            <translation>正在重放最近至多 %1 个记录日…</translation>
        </message>
        <message>
            <source>Press “Look for advice” to replay the recorded days.</source>
            <translation>点击“查找建议”以重放所记录的各天。</translation>
        </message>
        <message>
            <source>This console has no store to look in.</source>
            <translation>此控制台没有可供分析的存储。</translation>
        </message>
        <message>
            <source>The store %1 cannot be read.</source>
            <translation>无法读取存储 %1。</translation>
        </message>
        <message>
            <source>The store holds no recorded run to learn from. Let the appliance run with this store for a day, then look again.</source>
            <translation>存储中没有可供分析的运行记录。请让设备使用此存储运行一天后再查找。</translation>
        </message>
        <message>
            <source>The recorded days cannot be replayed.</source>
            <translation>所记录的各天无法重放。</translation>
        </message>
        <message numerus="yes">
            <source>%n suggestion(s), best first.</source>
            <translation>
                <numerusform>共 %n 条建议，按效果从高到低排列。</numerusform>
            </translation>
        </message>
        <message>
            <source>%1. %2</source>
            <translation>%1. %2</translation>
        </message>
    </context>
    <context>
        <name>Zhaoxi::Widgets::AdviceText</name>
        <message>
            <source>preemptions</source>
            <translation>抢占次数</translation>
        </message>
        <message>
            <source>lost work (card-h)</source>
            <translation>损失的工作量（卡时）</translation>
        </message>
        <message>
            <source>requests past the SLO</source>
            <translation>超出 SLO 的请求数</translation>
        </message>
        <message>
            <source>training work (card-h)</source>
            <translation>训练工作量（卡时）</translation>
        </message>
        <message>
            <source>energy (kWh)</source>
            <translation>能耗（千瓦时）</translation>
        </message>
        <message>
            <source>“%1”</source>
            <translation>“%1”</translation>
        </message>
        <message>
            <source>Open the window “%1” at %2 instead of %3</source>
            <translation>将时间窗“%1”的开始时间从 %3 改为 %2</translation>
        </message>
        <message>
            <source>Open the window “%1” at %2 instead of %3 (%4 then ends at %2)</source>
            <translation>将时间窗“%1”的开始时间从 %3 改为 %2（%4 随之在 %2 结束）</translation>
        </message>
        <message>
            <source>Give inference %1 % of the cards in “%2” instead of %3 %</source>
            <translation>在“%2”中为推理分配 %1 % 的卡（目前为 %3 %）</translation>
        </message>
        <message>
            <source>Let %1 run %2–%3 replicas instead of %4–%5</source>
            <translation>让 %1 运行 %2–%3 个副本（目前为 %4–%5 个）</translation>
        </message>
        <message>
            <source>Cap training&apos;s power in “%1” at %2 W instead of %3 W</source>
            <translation>将“%1”中的训练功率上限从 %3 W 改为 %2 W</translation>
        </message>
        <message>
            <source>Cap training&apos;s power in “%1” at %2 W (it has no cap now)</source>
            <translation>将“%1”中的训练功率上限设为 %2 W（目前无上限）</translation>
        </message>
        <message>
            <source>Switch card(s) %1 to whole mode when “%2” opens at %3</source>
            <translation>在“%2”于 %3 开始时将卡 %1 切换为整卡模式</translation>
        </message>
        <message>
            <source>%1–%2</source>
            <translation>%1–%2</translation>
        </message>
        <message>
            <source>On %1 of the last %2 days %3 ran at its maximum of %4 replicas and missed its SLO on %5 of %6 requests.</source>
            <translation>最近 %2 天中有 %1 天，%3 以最多 %4 个副本运行，%6 个请求中仍有 %5 个未满足 SLO。</translation>
        </message>
        <message>
            <source>Training waited while %1 card-h stood idle over the replayed days, and %2 never needed more than %3 replicas.</source>
            <translation>在重放的各天中，训练等待期间有 %1 卡时的算力闲置，而 %2 从未需要超过 %3 个副本。</translation>
        </message>
        <message>
            <source>On %1 of the last %2 days, %3, the appliance repartitioned %4 times for the night&apos;s training; in the replays %5 card-h went to training starting, reconfiguring and gangs&apos; width.</source>
            <translation>最近 %2 天中有 %1 天，在 %3 期间，设备为夜间训练重新分区 %4 次；重放中有 %5 卡时耗费在训练启动、重新配置和作业组宽度上。</translation>
        </message>
        <message>
            <source>The training power cap slowed training by %1 card-h over the replayed days; %2 minutes at the power budget in %3.</source>
            <translation>在重放的各天中，训练功率上限使训练少完成 %1 卡时；%3 期间有 %2 分钟达到功率预算。</translation>
        </message>
        <message>
            <source>On %1 of the last %2 days, %3, %4 missed the SLO on %5 of %6 requests.</source>
            <translation>最近 %2 天中有 %1 天，在 %3 期间，%4 的 %6 个请求中有 %5 个未满足 SLO。</translation>
        </message>
        <message>
            <source>inference</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>SLO attainment %1 %.</source>
            <translation>SLO 达标率 %1 %。</translation>
        </message>
        <message>
            <source>SLO attainment %1–%2 % a day.</source>
            <translation>每日 SLO 达标率 %1–%2 %。</translation>
        </message>
        <message>
            <source>On %1 of the last %2 days, %3, training was evicted %4–%5 times a day (%6 of them for inference replicas) and lost %7 card-h.</source>
            <translation>最近 %2 天中有 %1 天，在 %3 期间，训练每天被驱逐 %4–%5 次（其中 %6 次是为推理副本让路），损失 %7 卡时。</translation>
        </message>
        <message>
            <source>Training waited while %1 card-h stood idle over the replayed days, and inference met its SLO in %2 on every day.</source>
            <translation>在重放的各天中，训练等待期间有 %1 卡时的算力闲置，而推理每天在 %2 期间均满足 SLO。</translation>
        </message>
        <message>
            <source>Training waited while %1 card-h stood idle over the replayed days, and inference met its SLO in the window on every day.</source>
            <translation>在重放的各天中，训练等待期间有 %1 卡时的算力闲置，而推理每天在该时间窗内均满足 SLO。</translation>
        </message>
        <message>
            <source>new</source>
            <translation>新增</translation>
        </message>
        <message>
            <source>%1: %2 → %3 (%4)</source>
            <translation>%1：%2 → %3（%4）</translation>
        </message>
        <message>
            <source>training work %1</source>
            <translation>训练工作量 %1</translation>
        </message>
        <message>
            <source>preemptions %1 → %2</source>
            <translation>抢占次数 %1 → %2</translation>
        </message>
        <message>
            <source>%1&apos;s SLO attainment %2 % → %3 %</source>
            <translation>%1 的 SLO 达标率 %2 % → %3 %</translation>
        </message>
        <message>
            <source>Replayed on %1 recorded days: %2.</source>
            <translation>在 %1 个记录日上重放：%2。</translation>
        </message>
        <message>
            <source>, </source>
            <comment>between the parts of a proof</comment>
            <translation>，</translation>
        </message>
        <message>
            <source>To apply it, edit the replicas in the spec of %1: at least %2, at most %3.</source>
            <translation>如需应用，请在 %1 的规格中修改副本数：最少 %2 个，最多 %3 个。</translation>
        </message>
        <message>
            <source>To apply it, switch card(s) %1 to whole mode in the repartition editor when “%2” opens at %3.</source>
            <translation>如需应用，请在“%2”于 %3 开始时，在重新分区编辑器中将卡 %1 切换为整卡模式。</translation>
        </message>
        <message>
            <source>No suggestion: the recorded days show nothing to act on (no SLO misses around a window edge or within a window, no training evicted around an edge, no idle capacity while training waited, no service at its most replicas with misses, no training slowed by its power cap).</source>
            <translation>没有建议：所记录的各天中没有需要处理的情况（时间窗边界附近或时间窗内没有未满足 SLO 的请求，边界附近没有训练被驱逐，训练等待时没有闲置算力，没有服务在副本数达到上限时仍未满足 SLO，也没有训练因功率上限而变慢）。</translation>
        </message>
        <message>
            <source>No suggestion: of %1 changes tried, none improved its figure by %2 % in the replays while keeping every service&apos;s SLO attainment within %3 points (%4 did not improve it, %5 lowered the SLO attainment, %6 cost training more than %7 %).</source>
            <translation>没有建议：在尝试的 %1 项修改中，没有一项能在重放中将其指标改善 %2 %，同时使每个服务的 SLO 达标率下降不超过 %3 个百分点（%4 项没有改善，%5 项降低了 SLO 达标率，%6 项使训练损失超过 %7 %）。</translation>
        </message>
        <message>
            <source>%1 (part of the day)</source>
            <translation>%1（部分时段）</translation>
        </message>
        <message>
            <source>Recorded days: %1 (ran under %2).</source>
            <translation>记录日：%1（运行策略：%2）。</translation>
        </message>
        <message>
            <source>no policy</source>
            <translation>无策略</translation>
        </message>
        <message>
            <source>%1 changes tried over %2 days: %3 replays in %4 s.</source>
            <translation>在 %2 天上尝试了 %1 项修改：%3 次重放，用时 %4 秒。</translation>
        </message>
    </context>
</TS>
