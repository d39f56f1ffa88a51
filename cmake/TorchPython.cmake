# Finds a Python interpreter that imports PyTorch, for the tests that execute PyTorch code
# (the plans exported by `remat export --to pytorch`, the module tracer in tools/). The
# interpreter goes into the cache variable REMAT_TORCH_PYTHON; Debian's /usr/bin/python3 (with
# the python3-torch package, which `scripts/setup.sh --tests` installs) is tried first, then
# the python3 on the PATH. Tests that need it register only when it is set. With
# REMAT_REQUIRE_TORCH=ON (scripts/test.sh sets it) configure fails when none is found, so that
# a CI run cannot skip those tests silently.

option(REMAT_REQUIRE_TORCH "Fail at configure time when no python3 that imports torch is found" OFF)
set(REMAT_TORCH_PYTHON "" CACHE FILEPATH
    "A python3 that imports torch, for the PyTorch tests (empty: those tests are not registered)")

# remat_torch_python_check(PYTHON OUT_VERSION): OUT_VERSION is torch's version, or empty when
# PYTHON cannot import torch.
function(remat_torch_python_check python out_version)
    set(${out_version} "" PARENT_SCOPE)
    if(NOT python OR NOT EXISTS "${python}")
        return()
    endif()
    execute_process(
        COMMAND "${python}" -c "import torch; print(torch.__version__)"
        RESULT_VARIABLE rc OUTPUT_VARIABLE version ERROR_QUIET
        OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 120)
    if(rc EQUAL 0 AND version)
        set(${out_version} "${version}" PARENT_SCOPE)
    endif()
endfunction()

# A value checked by an earlier configure is trusted as long as the path stays the same.
if(REMAT_TORCH_PYTHON AND NOT REMAT_TORCH_PYTHON STREQUAL "${_REMAT_TORCH_PYTHON_CHECKED}")
    remat_torch_python_check("${REMAT_TORCH_PYTHON}" _remat_torch_version)
    if(NOT _remat_torch_version)
        message(WARNING "REMAT_TORCH_PYTHON=${REMAT_TORCH_PYTHON} cannot import torch; searching again")
        set(REMAT_TORCH_PYTHON "" CACHE FILEPATH
            "A python3 that imports torch, for the PyTorch tests (empty: those tests are not registered)" FORCE)
    else()
        set(_REMAT_TORCH_PYTHON_CHECKED "${REMAT_TORCH_PYTHON}" CACHE INTERNAL "")
        set(_REMAT_TORCH_VERSION "${_remat_torch_version}" CACHE INTERNAL "")
    endif()
endif()

if(NOT REMAT_TORCH_PYTHON)
    find_program(_remat_path_python3 NAMES python3 NO_CACHE)
    foreach(candidate /usr/bin/python3 ${_remat_path_python3})
        remat_torch_python_check("${candidate}" _remat_torch_version)
        if(_remat_torch_version)
            set(REMAT_TORCH_PYTHON "${candidate}" CACHE FILEPATH
                "A python3 that imports torch, for the PyTorch tests (empty: those tests are not registered)" FORCE)
            set(_REMAT_TORCH_PYTHON_CHECKED "${candidate}" CACHE INTERNAL "")
            set(_REMAT_TORCH_VERSION "${_remat_torch_version}" CACHE INTERNAL "")
            break()
        endif()
    endforeach()
endif()

if(REMAT_TORCH_PYTHON)
    message(STATUS "Remat Studio: PyTorch tests with ${REMAT_TORCH_PYTHON} (torch ${_REMAT_TORCH_VERSION})")
elseif(REMAT_REQUIRE_TORCH)
    message(FATAL_ERROR "REMAT_REQUIRE_TORCH is set but no python3 that imports torch was found "
        "(tried /usr/bin/python3 and the python3 on the PATH; on Debian: apt-get install python3-torch, "
        "or bash scripts/setup.sh --tests; or set REMAT_TORCH_PYTHON)")
else()
    message(STATUS "Remat Studio: no python3 that imports torch; the PyTorch tests are not registered "
        "(apt-get install python3-torch, or set REMAT_TORCH_PYTHON)")
endif()
