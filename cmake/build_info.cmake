# Writes build_info.hpp with the version, git revision, build type and
# compiler; rewrites it only when something changed, so builds stay incremental.
set(REV "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE REV
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(REV STREQUAL "")
    set(REV "unknown")
  endif()
endif()
set(TEXT "/// @file build_info.hpp
/// @brief Values fixed when the program was built (generated; do not edit).
#pragma once

namespace chomp::build {
inline constexpr const char* kVersion = \"${VERSION}\";
inline constexpr const char* kGitRevision = \"${REV}\";
inline constexpr const char* kBuildType = \"${BUILD_TYPE}\";
inline constexpr const char* kCompiler = \"${COMPILER}\";
}  // namespace chomp::build
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" OLD)
else()
  set(OLD "")
endif()
if(NOT OLD STREQUAL TEXT)
  file(WRITE "${OUT}" "${TEXT}")
endif()
