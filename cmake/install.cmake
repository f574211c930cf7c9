# `cmake --install build/release --prefix P` (docs/contributing.md "Out-of-tree methods"):
#   P/bin/mbbench                       the CLI, which exports the library's symbols to plugins
#   P/lib/libmbbench.a                  the library, for programs that run models themselves
#   P/include/mbbench/...               the plugin API (the method interface and the building blocks
#                                       a method composes) and the program API (load_model, run_case,
#                                       simulate), with what they include, nothing else
#   P/lib/cmake/mbbench/                find_package(mbbench): mbbench::headers for a plugin,
#                                       mbbench::mbbench (the library) for a program
#   P/share/mbbench/results/...         experiments, published values, baselines, references; the
#                                       CLI finds them from its own location (core/io.hpp data_file)
# and `cpack` in the build folder makes a .deb of the same.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The plugin API: methods/plugin.hpp, the headers it names for a method's author, and what those
# include of ours; the program API: the model catalog, one case, the driver, the record. The list
# is closed under #include (tests/plugin_test.cpp builds examples/plugin and examples/program
# against it).
set(MBBENCH_API_HEADERS
  core/error.hpp core/spec.hpp
  models/model.hpp models/kinematics.hpp
  records/fields.hpp records/stats.hpp records/counters.hpp
  methods/method.hpp methods/plugin.hpp methods/bodies/spatial.hpp
  methods/constraints/constraint_system.hpp
  methods/reduced/tree_model.hpp methods/reduced/tree_data.hpp methods/reduced/tree_kinematics.hpp
  methods/reduced/aba.hpp methods/reduced/crba.hpp methods/reduced/reduced_system.hpp
  models/catalog.hpp models/modes.hpp sim/run_case.hpp sim/driver.hpp metrics/observer.hpp metrics/registry.hpp records/record.hpp)
foreach(h ${MBBENCH_API_HEADERS})
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mbbench/${dir})
endforeach()

# mbbench::headers: the headers and their usage requirements, no library. A plugin takes this
# target: its references resolve to the mbbench executable that loads it, so the process holds one
# copy of the library (one method registry).
add_library(mbbench_headers INTERFACE)
set_target_properties(mbbench_headers PROPERTIES EXPORT_NAME headers)
target_include_directories(mbbench_headers INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mbbench>)
target_link_libraries(mbbench_headers INTERFACE Eigen3::Eigen)
target_compile_features(mbbench_headers INTERFACE cxx_std_20)
if(MBBENCH_SANITIZE)
  # a plugin loaded into the sanitized executable is built alike (and allocates as it does)
  target_compile_options(mbbench_headers INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(mbbench_headers INTERFACE -fsanitize=address,undefined)
  target_compile_definitions(mbbench_headers INTERFACE EIGEN_MALLOC_ALREADY_ALIGNED=1)
endif()

# mbbench::mbbench (mbbenchConfig.cmake): libmbbench.a, the static library the executable holds,
# with the headers and the shared libraries its code calls. Those are named by soname
# (-l:libode.so.8), read off a program that holds the whole library, linked --as-needed
# (cmake/link_libraries.cmake): the libraries of the executable but Google Benchmark and MPI, so a
# program links where the .deb's runtime packages are installed, without their -dev packages (a
# library the dependencies only link, such as Boost.System through DART's CMake package, is no
# runtime package the .deb pulls). A program
# linking it holds its own copy of the library. The archive's code is position-dependent (PIE), so
# a plugin that links it by mistake fails to link ("recompile with -fPIC") instead of bringing a
# second library, and registry, into the mbbench process.
add_executable(mbbench_link_probe cmake/link_probe.cpp)
target_link_libraries(mbbench_link_probe PRIVATE mbbench_lib)
target_link_options(mbbench_link_probe PRIVATE -Wl,--as-needed
  "SHELL:-Wl,--whole-archive $<TARGET_FILE:mbbench_lib> -Wl,--no-whole-archive")
set(MBBENCH_LINK_LIBRARIES_FILE ${CMAKE_CURRENT_BINARY_DIR}/mbbenchLibraries.cmake)
add_custom_command(TARGET mbbench_link_probe POST_BUILD
  COMMAND ${CMAKE_COMMAND} -DPROBE=$<TARGET_FILE:mbbench_link_probe> -DOBJDUMP=${CMAKE_OBJDUMP}
          -DOUT=${MBBENCH_LINK_LIBRARIES_FILE} -P ${PROJECT_SOURCE_DIR}/cmake/link_libraries.cmake
  VERBATIM)
add_dependencies(mbbench mbbench_link_probe)  # what `cmake --install` takes is built with the CLI

install(TARGETS mbbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES $<TARGET_FILE:mbbench_lib> DESTINATION ${CMAKE_INSTALL_LIBDIR} RENAME libmbbench.a)
install(TARGETS mbbench_headers EXPORT mbbenchTargets)
install(EXPORT mbbenchTargets NAMESPACE mbbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mbbench)
configure_package_config_file(cmake/mbbenchConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mbbench PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfigVersion.cmake
  ${MBBENCH_LINK_LIBRARIES_FILE} DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mbbench)

# the data the CLI reads by its repository path (results/experiments/X.toml), below share/mbbench
install(DIRECTORY results/experiments results/paper results/baselines results/reference
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mbbench/results)

# cpack: a .deb whose Depends dpkg-shlibdeps reads off the executable's libraries (the runtime
# packages of what scripts/install-deps.sh installs), plus gnuplot for the report's plots
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mbbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "mbbench maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "benchmarking and validation of multibody-dynamics simulation methods")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)  # the static library is most of the package
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gnuplot-nox | gnuplot")
# the gate's instruction counts (valgrind), sweep --mpi (openmpi-bin), building plugins (Eigen, CMake)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "valgrind, openmpi-bin, libeigen3-dev, cmake, g++")
include(CPack)
