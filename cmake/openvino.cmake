# OpenVINO's runtime, for the `openvino` compile backend and ONNX / OpenVINO IR model files
# (loaders/openvino_model.hpp): the C++ SDK that the openvino wheel ships (openvino/include, openvino/cmake,
# openvino/libs), found through the same Python as LibTorch (scripts/install-deps.sh pins the wheel). Optional:
# without it the driver refuses the backend and those files in one line that says how to get it.
option(FMWORK_OPENVINO "Link OpenVINO's runtime when FMWORK_PYTHON has the openvino wheel" ON)
if(FMWORK_OPENVINO AND NOT OpenVINO_DIR)
  # find_spec, not import: importing openvino loads its whole runtime for a folder name.
  execute_process(COMMAND ${FMWORK_PYTHON} -c
    "import importlib.util, os; s = importlib.util.find_spec('openvino'); print(os.path.join(os.path.dirname(s.origin), 'cmake') if s else '')"
    OUTPUT_VARIABLE fmwork_openvino_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(fmwork_openvino_dir AND EXISTS ${fmwork_openvino_dir}/OpenVINOConfig.cmake)
    set(OpenVINO_DIR ${fmwork_openvino_dir})
  endif()
endif()
set(FMWORK_WITH_OPENVINO OFF)
if(FMWORK_OPENVINO AND OpenVINO_DIR)
  find_package(OpenVINO QUIET COMPONENTS Runtime)
  if(OpenVINO_FOUND)
    set(FMWORK_WITH_OPENVINO ON)
    message(STATUS "OpenVINO ${OpenVINO_VERSION} from ${OpenVINO_DIR}")
  endif()
endif()
option(FMWORK_REQUIRE_OPENVINO "Fail the configure when OpenVINO is not found (scripts/test.sh)" OFF)
if(FMWORK_REQUIRE_OPENVINO AND NOT FMWORK_WITH_OPENVINO)
  message(FATAL_ERROR "OpenVINO not found through ${FMWORK_PYTHON}: run scripts/install-deps.sh (it pins the "
                      "openvino wheel), or build without -DFMWORK_REQUIRE_OPENVINO=ON")
endif()
if(NOT FMWORK_WITH_OPENVINO)
  message(STATUS "OpenVINO: not linked (no openvino wheel in ${FMWORK_PYTHON}, or -DFMWORK_OPENVINO=OFF); "
                 "--compile:backend openvino and .onnx / .xml models are refused")
endif()
