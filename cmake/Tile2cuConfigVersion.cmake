# Tile2cuConfigVersion.cmake: find_package(Tile2cu X.Y) accepts this tile2cu when
# the major versions match and it is at least X.Y (while the major version is 0,
# the minor versions must match too). `make test` checks PACKAGE_VERSION against
# TILE2CU_VERSION in translator/t2c.h.
set(PACKAGE_VERSION "0.1.0")

set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)
if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  string(REGEX MATCH "^[0-9]+" _t2c_major "${PACKAGE_VERSION}")
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _t2c_minor "${PACKAGE_VERSION}")
  if(_t2c_major STREQUAL PACKAGE_FIND_VERSION_MAJOR AND
     (NOT _t2c_major STREQUAL "0" OR PACKAGE_FIND_VERSION_COUNT LESS 2 OR
      _t2c_minor STREQUAL "${PACKAGE_FIND_VERSION_MAJOR}.${PACKAGE_FIND_VERSION_MINOR}"))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
