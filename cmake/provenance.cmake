# Writes build/<preset>/provenance.cpp with the git commit, compiler and flags of this build.
# The commit is read at configure time and again at every build (a custom target), so a record
# always names the commit its binary was built from.
set(MBBENCH_PROVENANCE_CPP ${CMAKE_CURRENT_BINARY_DIR}/provenance.cpp)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
set(MBBENCH_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_bt}}")
if(MBBENCH_SANITIZE)
  string(APPEND MBBENCH_FLAGS " -fsanitize=address,undefined -fno-sanitize=null,alignment,vptr")
endif()
# keep the commit's placeholder for the build-time script (configure_file would blank it)
set(GIT_COMMIT "@GIT_COMMIT@")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/provenance.cpp.in ${CMAKE_CURRENT_BINARY_DIR}/provenance.cpp.in @ONLY)
add_custom_target(mbbench_git_commit
  COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_CURRENT_SOURCE_DIR} -DIN=${CMAKE_CURRENT_BINARY_DIR}/provenance.cpp.in
          -DOUT=${MBBENCH_PROVENANCE_CPP} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/git_commit.cmake
  BYPRODUCTS ${MBBENCH_PROVENANCE_CPP}
  COMMENT "Reading the git commit for provenance")
