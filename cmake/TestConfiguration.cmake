# The test configuration (-DHVD_FOR_TESTS=ON, set by scripts/test.sh): every part the suite exercises must be
# built, so a machine that lacks LibTorch, the Python package's dependencies or Open MPI fails at configure time
# with the package to install, instead of losing those tests to silent skips. A user's build (OFF, the default)
# leaves out what it cannot build and says why.
option(HVD_FOR_TESTS "Require every optional part the test suite exercises (LibTorch, Python, MPI)" OFF)

if(HVD_FOR_TESTS)
  if(HVD_SKIP)
    message(FATAL_ERROR "HVD_FOR_TESTS=ON with HVD_SKIP='${HVD_SKIP}': the test configuration builds every folder; "
                        "configure with -DHVD_SKIP= (an empty list)")
  endif()
  if(HVD_WITH_MPI STREQUAL "AUTO")
    set(HVD_WITH_MPI ON)  # the MPI tests run in the test configuration: Open MPI is required, not optional
  endif()
endif()

# hvd_part_missing(PART FIX...): PART cannot be built here, for the reason and fix FIX (strings joined). A user's
# build says so and goes on; the test configuration stops.
function(hvd_part_missing part)
  string(JOIN "" fix ${ARGN})
  if(HVD_FOR_TESTS)
    message(FATAL_ERROR "${part} is required by the test configuration (HVD_FOR_TESTS=ON), but: ${fix}")
  endif()
  message(STATUS "${part}: ${fix}; skipping it")
endfunction()
