# Score plugins of the placement policies (issue 3): the FGD paper's baselines and our default
# fragmentation-aware score. Included by core/sched/CMakeLists.txt; paths relative to core/sched.
set(ZX_SCHED_SCORING_SOURCES
    targetworkload.h targetworkload.cpp
    plugins/hostview.h
    plugins/shapecache.h
    plugins/randomscore.h plugins/randomscore.cpp
    plugins/dotprodscore.h plugins/dotprodscore.cpp
    plugins/gpuclusteringscore.h plugins/gpuclusteringscore.cpp
    plugins/gpupackingscore.h plugins/gpupackingscore.cpp
    plugins/bestfitscore.h plugins/bestfitscore.cpp
    plugins/fgdscore.h plugins/fgdscore.cpp
    plugins/fragmentationscore.h plugins/fragmentationscore.cpp
    plugins/policies.h plugins/policies.cpp
)
