# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` puts under the prefix, and the .deb `cpack` makes of it
# (docs/embedding.md):
#   lib/libkbpf.so.0 (+ libkbpf.so), lib/libkbpf.a    the library, shared and static
#   lib/libkbpf_linux.a, lib/libkbpf_tcp.a            the Linux and TCP hosts: static only,
#       because a host's own types and functions must be in the BTF of the executable that
#       links them (kbpf_add_host_btf runs pahole on that executable, which sees only what
#       is linked into it), so they keep their debug info
#   include/kbpf/*.h                                  the public headers, the hosts' too
#   bin/kbpf                                          the command
#   lib/pkgconfig/kbpf.pc, kbpf-linux.pc, kbpf-tcp.pc pkg-config --cflags --libs kbpf
#   lib/cmake/kbpf/                                   find_package(kbpf): kbpf::kbpf,
#       kbpf::kbpf_shared, kbpf::kbpf_static, kbpf::linux, kbpf::tcp, kbpf_add_host_btf()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Exported as kbpf::<name>. kbpf::kbpf itself is made by kbpfConfig.cmake: the shared
# library, or the static one when the embedder sets KBPF_USE_STATIC_LIBS; the hosts link it.
set_target_properties(kbpf_shared PROPERTIES EXPORT_NAME kbpf_shared)
set_target_properties(kbpf_static PROPERTIES EXPORT_NAME kbpf_static)
set_target_properties(kbpf_linux_public PROPERTIES EXPORT_NAME linux)
set_target_properties(kbpf_tcp_public PROPERTIES EXPORT_NAME tcp)
install(TARGETS kbpf_shared kbpf_static kbpf_linux_public kbpf_tcp_public EXPORT kbpfTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kbpf-tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/kbpf ${CMAKE_SOURCE_DIR}/hosts/linux/include/kbpf
                  ${CMAKE_SOURCE_DIR}/hosts/tcp/include/kbpf
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(KBPF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kbpf)
install(EXPORT kbpfTargets NAMESPACE kbpf:: DESTINATION ${KBPF_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/kbpfConfig.cmake.in
  ${CMAKE_BINARY_DIR}/kbpfConfig.cmake INSTALL_DESTINATION ${KBPF_CMAKE_DIR})
# 0.x: a minor version may change the API (the symbol version names it, KBPF_0.1)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kbpfConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kbpfConfig.cmake ${CMAKE_BINARY_DIR}/kbpfConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/KbpfHostBtf.cmake ${CMAKE_SOURCE_DIR}/cmake/percpu.ld
              ${CMAKE_SOURCE_DIR}/cmake/KbpfBpfObject.cmake
        DESTINATION ${KBPF_CMAKE_DIR})
# kbpf_add_bpf_object()'s include shims for -target bpf (LP64 bits/wordsize.h, gnu/stubs.h)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/cmake/bpf-include DESTINATION ${KBPF_CMAKE_DIR})

# pkg-config: the prefix is the one installed to (cmake --install --prefix, cpack's /usr),
# known only at install time, so the .pc files are completed then. Host BTF for Makefile
# builds: the variables host_btf_cflags (compile flags of code whose types go into BTF),
# pahole_flags and objcopy (pahole -J adds the .BTF section with it: LLVM_OBJCOPY=...).
string(REPLACE ";" " " KBPF_PC_HOST_BTF_CFLAGS "${KBPF_HOST_BTF_DEBUG_FLAGS}")
string(REPLACE ";" " " KBPF_PC_PAHOLE_FLAGS "${KBPF_PAHOLE_FLAGS}")
get_filename_component(KBPF_PC_OBJCOPY "${KBPF_HOST_BTF_OBJCOPY}" NAME)
set(KBPF_PC_PREFIX "@KBPF_PC_PREFIX@") # left for the install step
foreach(_pc kbpf kbpf-linux kbpf-tcp)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/${_pc}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${_pc}.pc.in @ONLY)
  install(CODE "set(KBPF_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(${CMAKE_BINARY_DIR}/pkgconfig/${_pc}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${_pc}.pc @ONLY)")
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${_pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# cpack -G DEB: one package, library, headers and command (Debian 12 names).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kbpf)
set(CPACK_PACKAGE_VENDOR kbpf)
set(CPACK_PACKAGE_CONTACT "kbpf developers <kbpf@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "embeddable eBPF runtime built around kfuncs (library, headers, kbpf command)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1, libelf1, libbpf1, libffi8, libcapstone4, zlib1g")
# a shlibs file for packages built against libkbpf.so.0 (and postinst runs ldconfig)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# to build against it: the headers include <linux/bpf.h>, host BTF needs pahole, the
# hosts (libkbpf_linux.a, libkbpf_tcp.a) call libbpf themselves (-lbpf)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "linux-libc-dev, pkg-config, dwarves, libbpf-dev")
# to link the static libkbpf.a: its dependencies' development files
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libelf-dev, libffi-dev, zlib1g-dev")
include(CPack)
