#!/usr/bin/env bash
# Builds the OMSimulator CLI (OpenModelica's FMI/SSP co-simulation tool) from local git
# mirrors, offline, as it was built to check mbfmu's SSP packages and FMUs (docs/fmu.md,
# "Importers run"; scripts/omsimulator/check-oms.sh runs the checks). Not part of CI: it takes
# about 10 minutes on 2 cores and needs the mirrors below (the `fetch` tool of this machine kind).
#
# Mirrors used (bare git dirs, created by the session's `fetch` tool):
#   OMSimulator           /work/.mirror/OpenModelica+OMSimulator/repo          @ 2940ef11c2316c167bc78618d89de085b7cac52f (HEAD, 2026-08-20, git describe v3.0.0-167-g2940ef1)
#   OMSimulator-3rdParty  /work/.mirror/OpenModelica+OMSimulator-3rdParty/repo @ 1168b8e255c1d57563a5f90ae31df2ba62f3c676 (mirror HEAD, 2025-05-05)
#        -> only CTPL, PugiXml, json, zlib, minizip are taken from it. (HEAD pins 3rdParty d7d3a4e5..., which the
#           mirror does not have; the pinned 3rdParty bundles SUNDIALS 7.8.0 and a newer fmi4c.)
#   fmi4c                 /work/.mirror/robbr48+fmi4c/repo                      @ 7d12abcf9f2800c809002b3e7fa0ae3ad718917b (2025-01-16)
#        (= the fmi4c copy in OMSimulator-3rdParty@1168b8e; newer upstream fmi4c renamed fmiHandle->fmuHandle
#         (Apr 2025) which OMSimulator does not use. OpenModelica/fmi4c fork is not available.)
#        + upstream fix 0b01ab4e4ab9edee0b4f7fb28696f91fac0277b0 (string vars initial attribute), which
#          OMSimulator commit ca076986 pulled in via 3rdParty.
#   SUNDIALS              /work/.mirror/LLNL+sundials/repo                      @ v7.5.0 = c8dabcea90ca8bf195474da120e4f3dd39aa711f
#        (newest tag in mirror; OMSimulator HEAD expects 7.8.0, 7.x API is the same)
#
# apt packages needed: cmake g++ make (already present here; nothing else: zlib/minizip/pugixml/json come from 3rdParty)
set -euo pipefail

TOP=${TOP:-/tmp/oms}
JOBS=${JOBS:-$(nproc)}
M=/work/.mirror
OMS_GIT=$M/OpenModelica+OMSimulator/repo
TP_GIT=$M/OpenModelica+OMSimulator-3rdParty/repo
FMI4C_GIT=$M/robbr48+fmi4c/repo
SUN_GIT=$M/LLNL+sundials/repo

OMS_REV=${OMS_REV:-2940ef11c2316c167bc78618d89de085b7cac52f}
TP_REV=${TP_REV:-1168b8e255c1d57563a5f90ae31df2ba62f3c676}
FMI4C_REV=${FMI4C_REV:-7d12abcf9f2800c809002b3e7fa0ae3ad718917b}
FMI4C_FIX=0b01ab4e4ab9edee0b4f7fb28696f91fac0277b0
SUN_REV=${SUN_REV:-c8dabcea90ca8bf195474da120e4f3dd39aa711f}

SRC=$TOP/src
BLD=$TOP/build
INST=$TOP/install
SUN_INST=$TOP/deps/sundials

rm -rf "$SRC" "$BLD" "$INST" "$TOP/deps"
mkdir -p "$SRC" "$BLD" "$INST" "$SUN_INST"

t0=$(date +%s)

# ---------------------------------------------------------------- sources
mkdir -p "$SRC/OMSimulator" "$SRC/3rdParty-old" "$SRC/fmi4c" "$SRC/sundials"
# (a few large testsuite/doc blobs are absent from the mirrors -> exclude those dirs)
git --git-dir="$OMS_GIT"   archive "$OMS_REV" -- . ':(exclude)testsuite' | tar -x -C "$SRC/OMSimulator"
git --git-dir="$TP_GIT"    archive "$TP_REV"    | tar -x -C "$SRC/3rdParty-old"
git --git-dir="$FMI4C_GIT" archive "$FMI4C_REV" | tar -x -C "$SRC/fmi4c"
git --git-dir="$FMI4C_GIT" show "$FMI4C_FIX" | patch -p1 -d "$SRC/fmi4c"
git --git-dir="$SUN_GIT"   archive "$SUN_REV" -- . ':(exclude)doc' | tar -x -C "$SRC/sundials"

# version string (no .git in an archive) -> version.txt, same transform as CMakeLists.txt
desc=$(git --git-dir="$OMS_GIT" describe --tags --abbrev=7 --match='v*.*' --exclude='*-dev' "$OMS_REV")
echo "$desc" | sed -E 's/(.*)-(.*)-(.*)/\1.post\2-\3/' > "$SRC/OMSimulator/version.txt"

# ---------------------------------------------------------------- SUNDIALS 7 (static, PIC)
cmake -S "$SRC/sundials" -B "$BLD/sundials" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$SUN_INST" \
  -DCMAKE_INSTALL_LIBDIR=lib \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
  -DBUILD_ARKODE=OFF -DBUILD_CVODE=ON -DBUILD_CVODES=OFF \
  -DBUILD_IDA=OFF -DBUILD_IDAS=OFF -DBUILD_KINSOL=ON \
  -DEXAMPLES_ENABLE_C=OFF -DEXAMPLES_ENABLE_CXX=OFF -DEXAMPLES_INSTALL=OFF \
  -DSUNDIALS_TEST_ENABLE_UNIT_TESTS=OFF -DSUNDIALS_TEST_ENABLE_DEV_TESTS=OFF \
  -DENABLE_MPI=OFF -DENABLE_OPENMP=OFF
cmake --build "$BLD/sundials" -j"$JOBS"
cmake --install "$BLD/sundials"

# ---------------------------------------------------------------- replacement 3rdParty dir
TPD=$SRC/OMSimulator/3rdParty
rm -rf "$TPD"; mkdir -p "$TPD"
for d in CTPL PugiXml json zlib minizip; do cp -a "$SRC/3rdParty-old/$d" "$TPD/"; done
cp -a "$SRC/fmi4c" "$TPD/fmi4c"
cat > "$TPD/CMakeLists.txt" <<EOF
## Replacement for OMSimulator-3rdParty@d7d3a4e (not available offline).
## SUNDIALS: prebuilt static v7.5.0 from $SUN_INST
message(STATUS "##### 3rdParty SUNDIALS (external, $SUN_INST)")
find_package(SUNDIALS 7 REQUIRED CONFIG PATHS "$SUN_INST" NO_DEFAULT_PATH COMPONENTS cvode kinsol nvecserial sunlinsoldense sunmatrixdense)
add_library(oms_sundials_cvode INTERFACE)
target_link_libraries(oms_sundials_cvode INTERFACE SUNDIALS::cvode_static SUNDIALS::nvecserial_static SUNDIALS::sunlinsoldense_static SUNDIALS::sunmatrixdense_static SUNDIALS::core_static)
add_library(oms_sundials_kinsol INTERFACE)
target_link_libraries(oms_sundials_kinsol INTERFACE SUNDIALS::kinsol_static SUNDIALS::nvecserial_static SUNDIALS::sunlinsoldense_static SUNDIALS::sunmatrixdense_static SUNDIALS::core_static)
add_library(oms::3rd::sundials::cvode ALIAS oms_sundials_cvode)
add_library(oms::3rd::sundials::kinsol ALIAS oms_sundials_kinsol)

message(STATUS "##### 3rdParty zlib")
add_subdirectory(zlib EXCLUDE_FROM_ALL)
target_include_directories(zlibstatic INTERFACE \${CMAKE_CURRENT_SOURCE_DIR}/zlib \${CMAKE_CURRENT_BINARY_DIR}/zlib)
add_library(oms::3rd::zlib ALIAS zlibstatic)

message(STATUS "##### 3rdParty minizip")
add_subdirectory(minizip EXCLUDE_FROM_ALL)
target_link_libraries(oms_minizip PUBLIC zlibstatic)
add_library(oms::3rd::minizip ALIAS oms_minizip)

message(STATUS "##### 3rdParty fmi4c")
set(FMI4C_BUILD_SHARED OFF)
set(FMI4C_USE_SYSTEM_ZIP OFF)
set(FMI4C_USE_EXTERNAL_MINIZIP ON)
set(FMI4C_EXTERNAL_MINIZIP "oms::3rd::minizip" CACHE STRING "Defines an external target for minizip.")
add_subdirectory(fmi4c EXCLUDE_FROM_ALL)
add_library(oms::3rd::fmi4c ALIAS fmi4c)

message(STATUS "##### 3rdParty PugiXml")
add_subdirectory(PugiXml EXCLUDE_FROM_ALL)
add_library(oms::3rd::pugixml::header ALIAS pugixml_header_only)

message(STATUS "##### 3rdParty CTPL")
add_subdirectory(CTPL EXCLUDE_FROM_ALL)
add_library(oms::3rd::ctpl::header ALIAS ctpl_header_only)

message(STATUS "##### 3rdParty nlohmann/json")
add_subdirectory(json EXCLUDE_FROM_ALL)
add_library(oms::3rd::json::header ALIAS json_header_only)
EOF

# ---------------------------------------------------------------- OMSimulator
cmake -S "$SRC/OMSimulator" -B "$BLD/OMSimulator" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$INST" \
  -DOMS_ENABLE_OMSimulator=ON -DOMS_ENABLE_OMSimulatorGui=OFF \
  -DOMS_ENABLE_PIP=OFF -DOMS_ENABLE_LOCAL_PIP=OFF \
  -DOMS_ENABLE_TESTSUITE=OFF -DOMS_ENABLE_COVERAGE=OFF
cmake --build "$BLD/OMSimulator" -j"$JOBS" --target OMSimulator OMSimulatorLib
cmake --install "$BLD/OMSimulator" || echo "WARNING: full install step failed; binary is in $BLD/OMSimulator/src/OMSimulator"

t1=$(date +%s)
echo "BUILD DONE in $((t1-t0)) s"
ls -l "$INST/bin/OMSimulator" 2>/dev/null || ls -l "$BLD/OMSimulator/src/OMSimulator/OMSimulator"
