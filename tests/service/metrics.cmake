# /metrics (issue 15): the exposition of snapshots, and the HTTP endpoint scraped by Debian's
# real Prometheus (skipped where /usr/bin/prometheus is not installed).
# Included by tests/service/CMakeLists.txt.
zhaoxi_add_test(NAME tst_exposition SOURCES tst_exposition.cpp
    LIBS zhaoxi_metricsexport zhaoxi_procs)
zhaoxi_add_test(NAME tst_prometheus SOURCES tst_prometheus.cpp
    LIBS zhaoxi_metricsexport zhaoxi_procs Qt6::Network)
