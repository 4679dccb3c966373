# SPDX-License-Identifier: Apache-2.0
# kbpf_add_host_btf(<target>): give a host executable (or shared library) a .BTF section
# describing its own types and functions, the way Linux gets vmlinux BTF (docs/host-btf.md):
# the target is compiled with -g -gdwarf-4, then after every link `pahole -J` encodes the DWARF of the
# linked binary as BTF and adds it to the binary in place. kbpf reads it back with
# kbpf_host_btf_load_self() / kbpf_host_btf_load_file() and `kbpf btf dump`.
#
# Cache options:
#   KBPF_HOST_BTF (ON)  - OFF builds hosts without BTF (kfuncs/CO-RE against them then fail
#                         to resolve at load time); tests that need host BTF are not added.
#   KBPF_PAHOLE_EXTRA_FLAGS - appended to the pahole flags chosen here.
#   KBPF_HOST_BTF_DEBUG_FLAGS (-g;-gdwarf-4) - compile options of code that goes into BTF.
# Result variable:
#   KBPF_HOST_BTF_ENABLED - TRUE when the pahole step is active.

# Script mode: the POST_BUILD step of kbpf_add_host_btf. pahole 1.24 prints a line for
# every DWARF construct it skips (C++ template parameters in a sanitizer runtime object,
# say) even when it succeeds; show its output only when it fails, as a compiler would.
if(CMAKE_SCRIPT_MODE_FILE AND KBPF_PAHOLE_RUN)
  string(REPLACE "|" ";" _flags "${KBPF_PAHOLE_RUN_FLAGS}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LLVM_OBJCOPY=${KBPF_PAHOLE_RUN_OBJCOPY}
                          ${KBPF_PAHOLE_RUN} ${_flags} ${KBPF_PAHOLE_RUN_BINARY}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _shown "${_flags}")
    message(FATAL_ERROR "pahole ${_shown} ${KBPF_PAHOLE_RUN_BINARY} failed (${_rc}):\n${_out}"
                        "See docs/host-btf.md.")
  endif()
  return()
endif()
set(_KBPF_HOST_BTF_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

option(KBPF_HOST_BTF "Add a .BTF section to host binaries with pahole -J (package dwarves)" ON)

set(KBPF_HOST_BTF_ENABLED FALSE)
if(KBPF_HOST_BTF)
  find_program(KBPF_PAHOLE pahole)
  if(NOT KBPF_PAHOLE)
    message(FATAL_ERROR
      "kbpf: pahole not found. Host BTF is made by `pahole -J` (Debian package 'dwarves'; "
      "scripts/install-deps installs it). Configure with -DKBPF_HOST_BTF=OFF to build hosts "
      "without BTF (kfunc externs and CO-RE against them will not resolve).")
  endif()
  execute_process(COMMAND ${KBPF_PAHOLE} --version OUTPUT_VARIABLE _kbpf_pahole_out
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REGEX MATCH "[0-9]+\\.[0-9]+" KBPF_PAHOLE_VERSION "${_kbpf_pahole_out}")
  # 1.21 is the first pahole that can encode float/double as BTF_KIND_FLOAT; older ones
  # drop or mis-encode them, and every struct holding a double would come out wrong.
  if(NOT KBPF_PAHOLE_VERSION OR KBPF_PAHOLE_VERSION VERSION_LESS 1.21)
    message(FATAL_ERROR "kbpf: ${KBPF_PAHOLE} is version '${_kbpf_pahole_out}'; host BTF needs "
                        "pahole >= 1.21 (dwarves). Or configure with -DKBPF_HOST_BTF=OFF.")
  endif()
  # pahole 1.24 adds the section by running `llvm-objcopy --add-section` (overridable
  # with $LLVM_OBJCOPY); GNU objcopy takes the same arguments, so fall back to it.
  find_program(KBPF_LLVM_OBJCOPY NAMES llvm-objcopy llvm-objcopy-19 llvm-objcopy-18 llvm-objcopy-17
                                       llvm-objcopy-16 llvm-objcopy-15 llvm-objcopy-14)
  if(KBPF_LLVM_OBJCOPY)
    set(KBPF_HOST_BTF_OBJCOPY ${KBPF_LLVM_OBJCOPY})
  elseif(CMAKE_OBJCOPY)
    set(KBPF_HOST_BTF_OBJCOPY ${CMAKE_OBJCOPY})
  else()
    message(FATAL_ERROR "kbpf: neither llvm-objcopy nor objcopy found; pahole -J needs one to "
                        "add the .BTF section. Install llvm or binutils, or -DKBPF_HOST_BTF=OFF.")
  endif()
  # --btf_gen_floats: see above. Functions need no flag: pahole emits a FUNC (with its
  # FUNC_PROTO and parameter names) for every function that has a symbol in the binary,
  # which is exactly the set a host can register as kfuncs. Not -j: with 1.24 parallel
  # encoding may number types differently from run to run.
  set(KBPF_PAHOLE_FLAGS -J --btf_gen_floats)
  # BTF describes C. A C host still links C++ objects with debug info — with
  # -fsanitize=address, GCC's libasan_preinit.o — and pahole 1.24 gives up on the whole
  # binary at their reference types ("Encountered error while encoding BTF"). 1.24 is the
  # first with --lang_exclude; it knows C++ by these DWARF language names.
  if(KBPF_PAHOLE_VERSION VERSION_GREATER_EQUAL 1.24)
    list(APPEND KBPF_PAHOLE_FLAGS --lang_exclude=c++,c++03,c++11,c++14,rust)
  endif()
  set(KBPF_PAHOLE_EXTRA_FLAGS "" CACHE STRING "More flags for pahole in kbpf_add_host_btf")
  list(APPEND KBPF_PAHOLE_FLAGS ${KBPF_PAHOLE_EXTRA_FLAGS})
  mark_as_advanced(KBPF_PAHOLE_EXTRA_FLAGS KBPF_LLVM_OBJCOPY)
  set(KBPF_HOST_BTF_ENABLED TRUE)
  message(STATUS "kbpf: host BTF by ${KBPF_PAHOLE} ${KBPF_PAHOLE_VERSION} ${KBPF_PAHOLE_FLAGS} "
                 "(objcopy: ${KBPF_HOST_BTF_OBJCOPY})")
else()
  message(STATUS "kbpf: KBPF_HOST_BTF=OFF, hosts are built without .BTF")
endif()

# Debug info is pahole's input; -g only adds sections, code generation is unchanged.
# DWARF 4: GCC 11+ defaults to DWARF 5, where an _Atomic type is a DW_TAG_atomic_type that
# pahole 1.24 does not know — it encodes the member as void, which makes the struct
# unusable (libbpf cannot size it). In DWARF 4 GCC describes the same member by its plain
# integer type, so the layout is right.
set(KBPF_HOST_BTF_DEBUG_FLAGS -g -gdwarf-4 CACHE STRING "Compile options of code whose types go into host BTF")
mark_as_advanced(KBPF_HOST_BTF_DEBUG_FLAGS)

# kbpf_host_btf_debug_info(<target>): compile a target's code with the debug info pahole
# reads. kbpf_add_host_btf does it for the host; use it for static libraries linked into one.
function(kbpf_host_btf_debug_info target)
  target_compile_options(${target} PRIVATE ${KBPF_HOST_BTF_DEBUG_FLAGS})
endfunction()

# The kbpf library is linked into every host (kbpf itself, the tests, applications): its
# types are part of their BTF.
if(TARGET kbpf_objects)
  kbpf_host_btf_debug_info(kbpf_objects)
endif()

function(kbpf_add_host_btf target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kbpf_add_host_btf: '${target}' is not a target")
  endif()
  get_target_property(_type ${target} TYPE)
  if(NOT _type STREQUAL "EXECUTABLE" AND NOT _type STREQUAL "SHARED_LIBRARY"
     AND NOT _type STREQUAL "MODULE_LIBRARY")
    # pahole encodes a linked ELF; a static library's objects get their BTF from the
    # executable they are linked into (compile them with -g).
    message(FATAL_ERROR "kbpf_add_host_btf: '${target}' is a ${_type}; give BTF to the "
                        "executable or shared library it is linked into")
  endif()
  kbpf_host_btf_debug_info(${target})
  if(NOT KBPF_HOST_BTF_ENABLED)
    return()
  endif()
  string(REPLACE ";" "|" _flags "${KBPF_PAHOLE_FLAGS}") # one argument through the command line
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DKBPF_PAHOLE_RUN=${KBPF_PAHOLE} -DKBPF_PAHOLE_RUN_FLAGS=${_flags}
            -DKBPF_PAHOLE_RUN_OBJCOPY=${KBPF_HOST_BTF_OBJCOPY} -DKBPF_PAHOLE_RUN_BINARY=$<TARGET_FILE:${target}>
            -P ${_KBPF_HOST_BTF_SCRIPT}
    COMMENT "pahole -J: adding .BTF to ${target}"
    VERBATIM)
endfunction()

# kbpf_host_percpu_section(<target>): variables a host exports to typed `__ksym` externs
# must be BTF VARs, and pahole 1.24 encodes VARs only for the variables of a
# ".data..percpu" section (KBPF_HOST_PERCPU, <kbpf/kfunc.h>). The default linker script
# merges that section into .data; cmake/percpu.ld keeps it apart. On a static library the
# option goes to every executable or shared library that links it.
set(_KBPF_PERCPU_LD ${CMAKE_CURRENT_LIST_DIR}/percpu.ld)
function(kbpf_host_percpu_section target)
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "STATIC_LIBRARY" OR _type STREQUAL "INTERFACE_LIBRARY")
    target_link_options(${target} INTERFACE "LINKER:-T,${_KBPF_PERCPU_LD}")
  else()
    target_link_options(${target} PRIVATE "LINKER:-T,${_KBPF_PERCPU_LD}")
  endif()
endfunction()
