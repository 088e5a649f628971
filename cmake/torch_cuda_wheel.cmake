# A CUDA build of the PyTorch wheel (cmake/torch.cmake includes this before find_package(Torch) when the wheel has
# libtorch_cuda.so; fmwork_torch_root is the wheel's torch/ folder). Two of the three things that stop its
# TorchConfig on a Debian machine with a bare CUDA toolkit, put right here so that no build needs flags to remember
# (scripts/cuda-build.sh); the third, libstdc++ ahead of the torch libraries, is in cmake/torch.cmake.

# 1. The toolkit. TorchConfig runs its own FindCUDA, which takes the toolkit from the `nvcc` on PATH: here that is a
#    wrapper script in /usr/local/bin, so the "toolkit" becomes /usr/local and nothing is found. $CUDA_HOME (the
#    variable PyTorch itself reads), else /usr/local/cuda, named before FindCUDA runs, wins over PATH.
if(NOT CUDA_TOOLKIT_ROOT_DIR)
  if(DEFINED ENV{CUDA_HOME} AND EXISTS "$ENV{CUDA_HOME}/bin/nvcc")
    set(fmwork_cuda_home $ENV{CUDA_HOME})
  elseif(EXISTS /usr/local/cuda/bin/nvcc)
    set(fmwork_cuda_home /usr/local/cuda)
  endif()
  if(fmwork_cuda_home)
    get_filename_component(fmwork_cuda_home ${fmwork_cuda_home} REALPATH)
    set(CUDA_TOOLKIT_ROOT_DIR ${fmwork_cuda_home} CACHE PATH "CUDA toolkit (from CUDA_HOME or /usr/local/cuda)")
  endif()
endif()
if(CUDA_TOOLKIT_ROOT_DIR)
  # TorchConfig enables the CUDA language and then finds CUDAToolkit: both must see the same toolkit, or it
  # stops on "two conflicting CUDA versions".
  set(CUDAToolkit_ROOT ${CUDA_TOOLKIT_ROOT_DIR})
  if(NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER ${CUDA_TOOLKIT_ROOT_DIR}/bin/nvcc CACHE FILEPATH "nvcc of CUDA_TOOLKIT_ROOT_DIR")
  endif()
  message(STATUS "CUDA LibTorch: toolkit ${CUDA_TOOLKIT_ROOT_DIR}")
else()
  message(WARNING "${fmwork_torch_root} is a CUDA build of torch, and no CUDA toolkit was found (neither "
    "\$CUDA_HOME/bin/nvcc nor /usr/local/cuda/bin/nvcc): TorchConfig will look for one on PATH")
endif()

# 2. nvrtc. TorchConfig wants CUDA::nvrtc (its caffe2::nvrtc target), a toolkit with only the compiler and the
#    runtime (this one) has no libnvrtc, and the wheel carries its own: nvidia/cu13/lib for CUDA 13 (the
#    cu12 wheels had nvidia/cuda_nvrtc/lib). Taken from the wheel when the toolkit has none.
if(NOT CUDA_nvrtc_LIBRARY AND CUDA_TOOLKIT_ROOT_DIR)
  find_library(fmwork_toolkit_nvrtc nvrtc PATHS ${CUDA_TOOLKIT_ROOT_DIR}/lib64 ${CUDA_TOOLKIT_ROOT_DIR}/lib
               NO_DEFAULT_PATH NO_CACHE)
  if(NOT fmwork_toolkit_nvrtc)
    file(GLOB fmwork_wheel_nvrtc ${fmwork_torch_root}/../nvidia/cu*/lib/libnvrtc.so.*
                                 ${fmwork_torch_root}/../nvidia/cuda_nvrtc/lib/libnvrtc.so.*)
    list(FILTER fmwork_wheel_nvrtc INCLUDE REGEX "/libnvrtc\\.so\\.[0-9]+$")
    if(fmwork_wheel_nvrtc)
      list(GET fmwork_wheel_nvrtc 0 fmwork_wheel_nvrtc)
      get_filename_component(fmwork_wheel_nvrtc ${fmwork_wheel_nvrtc} ABSOLUTE)
      set(CUDA_nvrtc_LIBRARY ${fmwork_wheel_nvrtc} CACHE FILEPATH "libnvrtc (the torch wheel's: the toolkit has none)")
      message(STATUS "CUDA LibTorch: nvrtc from the wheel, ${CUDA_nvrtc_LIBRARY}")
    endif()
  endif()
endif()

# The wheel's CUDA runtime ahead of the toolkit's in the binaries' RUNPATH: the driver links cudart itself
# (src/platform/cuda/), and the copy loaded should be the one torch ships with, as under Python; the toolkit's,
# found through the link's own folders after these, may be another release (on the GPU machine too).
get_filename_component(fmwork_wheel_nvidia ${fmwork_torch_root}/../nvidia ABSOLUTE)
file(GLOB fmwork_wheel_cuda_libs LIST_DIRECTORIES true ${fmwork_wheel_nvidia}/cu[0-9]*/lib)
list(APPEND CMAKE_BUILD_RPATH ${fmwork_wheel_cuda_libs})
