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
</context>
<context>
    <name>Zhaoxi::Widgets::CardDetailsView</name>
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
</context>
<context>
    <name>Zhaoxi::Widgets::MainWindow</name>
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
        <source>Card details</source>
        <translation>卡详情</translation>
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
</context>
</TS>
