# CPack: Debian packages (docs/install.md). `cpack --config build/<preset>/CPackConfig.cmake`
# after a build writes
#   remat-studio_<version>_<arch>.deb       remat, remat-studio, the .desktop file and icon
#   remat-studio-cuda_<version>_<arch>.deb  the CUDA plugin (builds with nvcc only)
# The programs' dependencies are computed by dpkg-shlibdeps from the libraries they link; the
# CUDA plugin's are not, because cuBLAS comes from NVIDIA's CUDA toolkit rather than a Debian
# package.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME remat-studio)
set(CPACK_PACKAGE_VENDOR "Remat Studio")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "activation checkpointing planner: predicts and measures training memory and time")
# The summary heads both packages' descriptions (CPack's rule); the text below it is each
# package's own.
set(CPACK_PACKAGE_DESCRIPTION
    "Remat Studio lowers a neural network to a training step, simulates its memory over time\n\
under activation checkpointing plans, finds plans that fit a memory budget, and runs them for\n\
real on the CPU (or, with remat-studio-cuda, an NVIDIA GPU) to check the prediction.\n\
Contains the desktop app (remat-studio) and the command-line tool (remat).")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Remat Studio developers" CACHE STRING
    "Maintainer field of the Debian packages")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

# The package-wide settings below are the remat-studio package's (the `runtime` component, or
# the only package when the build has no CUDA plugin); remat-studio-cuda overrides them.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME remat-studio)
# Loaded at run time, so invisible to dpkg-shlibdeps: Qt's platform plugins (the window, and
# --screenshot's offscreen platform) and OpenBLAS for the CPU executor's GEMMs (without it the
# CPU executor says so and refuses to run).
set(remat_runtime_extra "")
if(REMAT_WITH_QT)
    set(remat_runtime_extra "qt6-qpa-plugins")
endif()
find_program(REMAT_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(REMAT_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "${remat_runtime_extra}")
else()
    # Without dpkg-dev: the Debian 12 packages of the libraries the programs link.
    message(STATUS "dpkg-shlibdeps not found: the .deb's dependencies are Debian 12's package names")
    set(deps "libc6, libstdc++6, libgcc-s1")
    if(REMAT_WITH_QT)
        string(APPEND deps ", libqt6core6, libqt6gui6, libqt6widgets6, libqt6svg6, "
                           "libqcustomplot2.1-qt6, qt6-qpa-plugins")
    endif()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "${deps}")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME remat-studio-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "remat-studio (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_PACKAGE_RECOMMENDS "")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "The CUDA executor for Remat Studio: the CUDA backend of remat and\n\
remat-studio (remat run --backend cuda, the GPU option of the Run panel), loaded when asked\n\
for. Needs an NVIDIA driver and cuBLAS from NVIDIA's CUDA toolkit.")
include(CPack)
