# The peer engines (docs/peers.md, methods/peers/). For each engine: find its package, an option
# MBBENCH_WITH_<ENGINE> that defaults to whether it was found, and, when on, its adapter source,
# its library and the definitions MBBENCH_WITH_<ENGINE> and MBBENCH_<ENGINE>_VERSION.
find_package(PkgConfig QUIET)

# mbbench_peer(ENGINE found version target...): adds methods/peers/<engine>.cpp when the option is on
function(mbbench_peer engine found version)
  string(TOUPPER ${engine} upper)
  option(MBBENCH_WITH_${upper} "Build the ${engine} peer method" ${found})
  if(NOT MBBENCH_WITH_${upper})
    message(STATUS "peer ${engine}: off")
    return()
  endif()
  if(NOT found)
    message(FATAL_ERROR "MBBENCH_WITH_${upper} is on but ${engine} was not found (scripts/install-deps.sh installs it)")
  endif()
  message(STATUS "peer ${engine}: ${version}")
  target_sources(mbbench_lib PRIVATE ${PROJECT_SOURCE_DIR}/methods/peers/${engine}.cpp)
  target_compile_definitions(mbbench_lib PRIVATE MBBENCH_WITH_${upper}=1 MBBENCH_${upper}_VERSION="${version}")
  target_link_libraries(mbbench_lib PRIVATE ${ARGN})
endfunction()

# ODE (libode-dev): double precision by default in Debian (ode/precision.h)
set(ode_found OFF)
if(PkgConfig_FOUND)
  pkg_check_modules(ODE QUIET IMPORTED_TARGET ode)
  if(ODE_FOUND)
    set(ode_found ON)
  endif()
endif()
mbbench_peer(ode ${ode_found} "${ODE_VERSION}" PkgConfig::ODE)

# MuJoCo (libmujoco-dev; its CMake config, libqhull-dev beside it)
find_package(mujoco QUIET)
set(mujoco_found OFF)
if(mujoco_FOUND)
  set(mujoco_found ON)
endif()
mbbench_peer(mujoco ${mujoco_found} "${mujoco_VERSION}" mujoco::mujoco)

# Bullet (libbullet-dev): its double-precision build, bullet-float64 (BT_USE_DOUBLE_PRECISION
# and the -float64 libraries); the default `bullet` package is single precision
set(bullet_found OFF)
if(PkgConfig_FOUND)
  pkg_check_modules(BULLET64 QUIET IMPORTED_TARGET bullet-float64)
  if(BULLET64_FOUND)
    set(bullet_found ON)
  endif()
endif()
mbbench_peer(bullet ${bullet_found} "${BULLET64_VERSION}" PkgConfig::BULLET64)

# Simbody (libsimbody-dev): its CMake config; its pkg-config file forces -std=c++11
find_package(Simbody QUIET CONFIG)
set(simbody_found OFF)
if(Simbody_FOUND)
  set(simbody_found ON)
endif()
mbbench_peer(simbody ${simbody_found} "${Simbody_VERSION}" ${Simbody_LIBRARIES})
if(MBBENCH_WITH_SIMBODY)
  target_include_directories(mbbench_lib SYSTEM PRIVATE ${Simbody_INCLUDE_DIR})
  # Simbody 3.7's headers do not compile as C++20 (its id types' operator== is ambiguous with
  # C++20's rewritten comparisons): its adapter alone is compiled as C++17
  set_source_files_properties(${PROJECT_SOURCE_DIR}/methods/peers/simbody.cpp PROPERTIES COMPILE_OPTIONS "-std=c++17")
endif()

# DART (libdart-dev): its CMake config; the adapter includes the parts it needs, not dart/dart.hpp
# (which needs libdart-external-ikfast-dev)
find_package(DART 6 QUIET CONFIG)
set(dart_found OFF)
if(DART_FOUND)
  set(dart_found ON)
endif()
mbbench_peer(dart ${dart_found} "${DART_VERSION}" dart)

# URDF import (liburdfdom-dev): models/urdf.cpp reads URDF when it is found (found by hand: its
# pkg-config file names /usr/include through a relative path, which would become -isystem /usr/include)
find_path(URDFDOM_INCLUDE_DIR urdf_parser/urdf_parser.h)
find_library(URDFDOM_MODEL_LIBRARY urdfdom_model)
find_library(CONSOLE_BRIDGE_LIBRARY console_bridge)  # liburdfdom's messages, collected for our errors
set(urdf_found OFF)
if(URDFDOM_INCLUDE_DIR AND URDFDOM_MODEL_LIBRARY AND CONSOLE_BRIDGE_LIBRARY)
  set(urdf_found ON)
endif()
option(MBBENCH_WITH_URDF "Read URDF robots (liburdfdom-dev)" ${urdf_found})
if(MBBENCH_WITH_URDF)
  if(NOT urdf_found)
    message(FATAL_ERROR "MBBENCH_WITH_URDF is on but liburdfdom-dev was not found")
  endif()
  message(STATUS "URDF import: ${URDFDOM_MODEL_LIBRARY}")
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/models/urdf.cpp APPEND PROPERTY COMPILE_DEFINITIONS MBBENCH_WITH_URDF=1)
  target_link_libraries(mbbench_lib PRIVATE ${URDFDOM_MODEL_LIBRARY} ${CONSOLE_BRIDGE_LIBRARY})
endif()
