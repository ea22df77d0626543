# /metrics rendering for a large appliance (issue 15): milliseconds per scrape.
# Included by bench/service/CMakeLists.txt.
add_executable(bench_metrics bench_metrics.cpp)
target_link_libraries(bench_metrics PRIVATE zhaoxi_metricsexport)
