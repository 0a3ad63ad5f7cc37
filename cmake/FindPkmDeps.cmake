# Locates the Debian-packaged dependencies and exposes them as imported targets:
#   pkm::cholmod (SuiteSparse CHOLMOD 3.x, no CMake/pkg-config files on Debian 12),
#   pkm::arpack  (ARPACK-ng with the ICB C interface arpack.h), pkm::hdf5 (serial HDF5),
#   LAPACK_LIBRARIES (reference or optimised LAPACK + BLAS),
#   pkm::yaml (libcyaml for case files, and libyaml, which it is built on, for error positions;
#   both through pkg-config), pkm::gsl (GSL's nonlinear least squares for `pkmflex fit`,
#   pkg-config).
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
find_library(CHOLMOD_LIBRARY cholmod)
find_library(SUITESPARSECONFIG_LIBRARY suitesparseconfig)
find_path(ARPACK_INCLUDE_DIR arpack.h PATH_SUFFIXES arpack)
find_library(ARPACK_LIBRARY arpack)
find_package(LAPACK REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PKM_YAML REQUIRED IMPORTED_TARGET libcyaml yaml-0.1)
pkg_check_modules(PKM_GSL REQUIRED IMPORTED_TARGET gsl)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PkmDeps
  REQUIRED_VARS CHOLMOD_INCLUDE_DIR CHOLMOD_LIBRARY SUITESPARSECONFIG_LIBRARY
                ARPACK_INCLUDE_DIR ARPACK_LIBRARY)

if(PkmDeps_FOUND AND NOT TARGET pkm::cholmod)
  add_library(pkm::cholmod INTERFACE IMPORTED)
  target_include_directories(pkm::cholmod SYSTEM INTERFACE ${CHOLMOD_INCLUDE_DIR})
  target_link_libraries(pkm::cholmod INTERFACE ${CHOLMOD_LIBRARY} ${SUITESPARSECONFIG_LIBRARY})
  add_library(pkm::arpack INTERFACE IMPORTED)
  target_include_directories(pkm::arpack SYSTEM INTERFACE ${ARPACK_INCLUDE_DIR})
  target_link_libraries(pkm::arpack INTERFACE ${ARPACK_LIBRARY})
  add_library(pkm::hdf5 INTERFACE IMPORTED)
  target_include_directories(pkm::hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
  target_link_libraries(pkm::hdf5 INTERFACE ${HDF5_C_LIBRARIES})
  target_compile_definitions(pkm::hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
  add_library(pkm::yaml INTERFACE IMPORTED)
  target_link_libraries(pkm::yaml INTERFACE PkgConfig::PKM_YAML)
  add_library(pkm::gsl INTERFACE IMPORTED)
  target_link_libraries(pkm::gsl INTERFACE PkgConfig::PKM_GSL)
endif()
