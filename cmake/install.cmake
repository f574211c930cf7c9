# `cmake --install build/release --prefix P` (docs/contributing.md "Out-of-tree methods"):
#   P/bin/mbbench                       the CLI, which exports the library's symbols to plugins
#   P/include/mbbench/...               the plugin API: the method interface and the building blocks
#                                       a method composes, with what they include, nothing else
#   P/lib/cmake/mbbench/                find_package(mbbench): the target mbbench::mbbench
#   P/share/mbbench/results/...         experiments, published values, baselines, references; the
#                                       CLI finds them from its own location (core/io.hpp data_file)
# and `cpack` in the build folder makes a .deb of the same.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The plugin API: methods/plugin.hpp, the headers it names for a method's author, and what those
# include of ours (the list is closed under #include; tests/plugin_test.cpp builds the example
# against it).
set(MBBENCH_API_HEADERS
  core/error.hpp core/spec.hpp
  models/model.hpp models/kinematics.hpp
  records/fields.hpp records/stats.hpp
  methods/method.hpp methods/plugin.hpp methods/bodies/spatial.hpp
  methods/constraints/constraint_system.hpp
  methods/reduced/tree_model.hpp methods/reduced/tree_data.hpp methods/reduced/tree_kinematics.hpp
  methods/reduced/aba.hpp methods/reduced/crba.hpp methods/reduced/reduced_system.hpp)
foreach(h ${MBBENCH_API_HEADERS})
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mbbench/${dir})
endforeach()

# mbbench::mbbench: the headers and their usage requirements. A plugin links no library of ours.
add_library(mbbench_plugin_api INTERFACE)
set_target_properties(mbbench_plugin_api PROPERTIES EXPORT_NAME mbbench)
target_include_directories(mbbench_plugin_api INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mbbench>)
target_link_libraries(mbbench_plugin_api INTERFACE Eigen3::Eigen)
target_compile_features(mbbench_plugin_api INTERFACE cxx_std_20)
if(MBBENCH_SANITIZE)
  # a plugin loaded into the sanitized executable is built alike (and allocates as it does)
  target_compile_options(mbbench_plugin_api INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(mbbench_plugin_api INTERFACE -fsanitize=address,undefined)
  target_compile_definitions(mbbench_plugin_api INTERFACE EIGEN_MALLOC_ALREADY_ALIGNED=1)
endif()

install(TARGETS mbbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mbbench_plugin_api EXPORT mbbenchTargets)
install(EXPORT mbbenchTargets NAMESPACE mbbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mbbench)
configure_package_config_file(cmake/mbbenchConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mbbench PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mbbenchConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mbbench)

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
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gnuplot-nox | gnuplot")
# the gate's instruction counts (valgrind), sweep --mpi (openmpi-bin), building plugins (Eigen, CMake)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "valgrind, openmpi-bin, libeigen3-dev, cmake, g++")
include(CPack)
