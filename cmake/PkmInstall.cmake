# `cmake --install` (README "Installing"): the public headers include/pkm/*.h, the static and the
# shared library, the pkmflex command, a pkg-config file pkmflex.pc and a CMake package
# (find_package(pkmflex): targets pkmflex::pkmflex, shared, and pkmflex::pkmflex_static).
# tests/install_test.sh installs into a temporary prefix and builds the README's example both ways.
include(CMakePackageConfigHelpers)
set(PKM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pkmflex)

# pkm/sweep_mpi.h needs <mpi.h> and a library built with PKM_MPI.
if(PKM_MPI)
  set(pkm_no_header "")
else()
  set(pkm_no_header PATTERN sweep_mpi.h EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pkm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" ${pkm_no_header})
install(TARGETS pkmflex pkmflex_shared EXPORT pkmflexTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS pkmflex_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/pkmflex_plot.py DESTINATION ${CMAKE_INSTALL_DATADIR}/pkmflex)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pkmflex/examples
  FILES_MATCHING PATTERN "*.yaml")

# The static library's link interface names the imported targets of FindPkmDeps.cmake
# (pkm::cholmod, ...; CHOLMOD has no CMake or pkg-config file on Debian 12): the package
# installs that module and its config file runs it before the targets file.
install(EXPORT pkmflexTargets NAMESPACE pkmflex:: DESTINATION ${PKM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pkmflexConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pkmflexConfig.cmake INSTALL_DESTINATION ${PKM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pkmflexConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pkmflexConfig.cmake
  ${PROJECT_BINARY_DIR}/pkmflexConfigVersion.cmake ${PROJECT_SOURCE_DIR}/cmake/FindPkmDeps.cmake
  DESTINATION ${PKM_CMAKE_DIR})

# pkmflex.pc finds its prefix from its own place (${pcfiledir}), so that `cmake --install
# --prefix DIR` works without reconfiguring. The shared library needs only -lpkmflex;
# `pkg-config --static` adds the dependencies (CHOLMOD by name: it has no .pc file on Debian).
file(RELATIVE_PATH PKM_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/pkmflex.pc.in ${PROJECT_BINARY_DIR}/pkmflex.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkmflex.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
