# /metrics for Prometheus (issue 15): the exposition of the session's snapshots (exposition.*)
# and the one class that uses Qt HttpServer, a technical preview in Qt 6.4 (metricsendpoint.*).
# Included by core/service/CMakeLists.txt.
find_package(Qt6 6.4 REQUIRED COMPONENTS HttpServer)
add_library(zhaoxi_metricsexport STATIC
    exposition.h exposition.cpp
    metricsendpoint.h metricsendpoint.cpp
)
target_link_libraries(zhaoxi_metricsexport
    PUBLIC zhaoxi_session Qt6::Core Qt6::Network
    PRIVATE Qt6::HttpServer)
