# CPack: `cmake --build build/default --target package` (or `cpack` in the build directory) writes
# pmukit_<version>_<arch>.deb and libpmukit-dev_<version>_<arch>.deb.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "pmukit")
set(CPACK_PACKAGE_VENDOR "the pmukit authors")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Each package's Description (its synopsis is the first line) is CPACK_DEBIAN_<COMPONENT>_DESCRIPTION.
# CPackDeb would put a package-wide summary above it unless that summary is CPack's own default.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "${PMUKIT_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_STRIP_FILES ON)  # debug info stays in the build tree; the tools shrink from ~7 to ~1 MB
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                                WORLD_READ WORLD_EXECUTE)
set(CPACK_COMPONENTS_ALL tools dev)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PMUKIT_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME "pmukit")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION "admin")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)  # Depends from the tools' libraries (dpkg-shlibdeps)
# libpci.so.3 is opened with dlopen when first used (src/access/libpci.h): dpkg-shlibdeps cannot see it.
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libpci3 (>= 1:3.8)")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "uncore PMU discovery, counting and reports for Linux servers
pmukit finds the uncore PMUs of a server (memory controllers, mesh and caches,
PCIe root complexes, chip-to-chip links) where the chips describe them: Intel
PMON discovery tables, the ACPI APMT of NVIDIA Grace and Tegra410, DesignWare
RAS DES capabilities of PCIe root ports. It programs their counters directly,
or through the kernel's perf_event_open where direct access is not possible,
with perf's event syntax and output formats.
.
Tools: pmu-discover (the PMU inventory and a PCI view), pmu-raw (counting, with
metrics), pmu-rcmap (which NVIDIA PCIe PMU sees a device), pmu-sim (simulated
machines to try everything without hardware), pmu-report (HTML reports with
charts from pmu-raw's JSON output), pmu-exporter (the counters for Prometheus,
with a systemd unit and a Grafana dashboard).")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME "libpmukit-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
# A static library and headers: what its users compile against, not what dpkg-shlibdeps can see.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libfmt-dev (>= 9), libpci-dev (>= 1:3.6), nlohmann-json3-dev (>= 3.11)")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "uncore PMU discovery and programming library (development files)
pmukit finds the uncore PMUs of a Linux server and programs their counters
directly, or through the kernel's perf_event_open.
.
This package holds the static library libpmukit.a, its C++20 headers, a CMake
package (find_package(pmukit), target pmukit::pmukit) and pmukit.pc for
pkg-config.")

include(CPack)
