# LibTorch for the targets that link it (CMakeLists.txt includes this unless FMWORK_CORE_ONLY).
# LibTorch: the one inside a PyTorch 2.x wheel, found through a Python that imports torch. FMWORK_PYTHON
# (cache variable or environment) names it; the default is the project's .venv (scripts/install-deps.sh),
# then python3. The same Python runs the tests against transformers (tests/CMakeLists.txt). A Torch_DIR
# given by hand is used as it is; a change of FMWORK_PYTHON forgets the LibTorch found for the old one.
set(FMWORK_MIN_TORCH 2.6)
if(NOT DEFINED FMWORK_PYTHON)
  if(DEFINED ENV{FMWORK_PYTHON})
    set(FMWORK_PYTHON $ENV{FMWORK_PYTHON})
  elseif(EXISTS ${CMAKE_SOURCE_DIR}/.venv/bin/python)
    set(FMWORK_PYTHON ${CMAKE_SOURCE_DIR}/.venv/bin/python)
  else()
    set(FMWORK_PYTHON python3)
  endif()
endif()
if(FMWORK_PYTHON MATCHES "/" AND NOT IS_ABSOLUTE "${FMWORK_PYTHON}")
  get_filename_component(FMWORK_PYTHON "${FMWORK_PYTHON}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")
endif()
set(FMWORK_PYTHON ${FMWORK_PYTHON} CACHE STRING "Python whose torch wheel provides LibTorch" FORCE)
if(DEFINED FMWORK_TORCH_FROM_PYTHON AND NOT FMWORK_TORCH_FROM_PYTHON STREQUAL FMWORK_PYTHON)
  unset(Torch_DIR CACHE)
  unset(Caffe2_DIR CACHE)
  unset(TORCH_LIBRARY CACHE)
  unset(c10_LIBRARY CACHE)
endif()
if(NOT Torch_DIR OR DEFINED FMWORK_TORCH_FROM_PYTHON)
  execute_process(COMMAND ${FMWORK_PYTHON} -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_VARIABLE torch_error RESULT_VARIABLE torch_failed)
  if(torch_failed)
    message(FATAL_ERROR "fmwork-cpp builds against the LibTorch of a PyTorch >= ${FMWORK_MIN_TORCH} wheel, and "
      "'${FMWORK_PYTHON} -c \"import torch\"' failed. Run scripts/install-deps.sh (it makes .venv with the "
      "pinned CPU wheel), or pass -DFMWORK_PYTHON=/path/to/python of an environment with torch.")
  endif()
  list(PREPEND CMAKE_PREFIX_PATH ${torch_prefix})
  set(FMWORK_TORCH_FROM_PYTHON ${FMWORK_PYTHON} CACHE INTERNAL "the Python Torch_DIR was found through")
endif()
# A PyTorch wheel links Kineto (the profiler) into libtorch_cpu and ships no libkineto, so TorchConfig says
# "library kineto not found" on every configure, a warning a newcomer cannot act on. Name libtorch_cpu in its
# place where no libkineto exists: the link has it anyway.
if(torch_prefix AND NOT kineto_LIBRARY)
  find_library(kineto_LIBRARY NAMES kineto torch_cpu PATHS ${torch_prefix}/../../lib NO_DEFAULT_PATH)
endif()
if(torch_prefix)
  get_filename_component(fmwork_torch_root ${torch_prefix}/../.. ABSOLUTE)
elseif(Torch_DIR)
  get_filename_component(fmwork_torch_root ${Torch_DIR}/../../.. ABSOLUTE)
endif()
if(fmwork_torch_root AND EXISTS ${fmwork_torch_root}/lib/libtorch_cuda.so)
  include(cmake/torch_cuda_wheel.cmake)
endif()
find_package(Torch REQUIRED)
if(Torch_VERSION VERSION_LESS FMWORK_MIN_TORCH)
  message(FATAL_ERROR "LibTorch ${Torch_VERSION} found (${Torch_DIR}); fmwork-cpp needs ${FMWORK_MIN_TORCH} or "
    "newer: pip install torch>=${FMWORK_MIN_TORCH} (the CPU build: torch==2.13.0 from the CPU index) and point "
    "FMWORK_PYTHON at that Python.")
endif()
message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")
# libstdc++ ahead of the torch libraries wherever they are linked. The CUDA wheel's libtorch.so carries a copy of
# std::filesystem of its own: with the torch libraries ahead of libstdc++ in the executable's needed libraries,
# std::filesystem::remove_all binds to that copy, which jumps to address 0 against Debian 12's libstdc++
# (torch_tests died in a teardown; the driver's cache code calls it too). Named first, libstdc++ is searched
# first. Harmless for the CPU wheel (libstdc++ is linked anyway), so one link line for both.
list(PREPEND TORCH_LIBRARIES stdc++)
# The C++ ABI LibTorch was built with (pip wheels may differ from the system's) applies to every target,
# fmwork_core included, since strings cross between them.
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${TORCH_CXX_FLAGS}")
